-- Proactive sessions (session-flow.md 10-11): the session with its state (guarded by
-- `version`, compare-and-set), its event log and its conversation, written as they happen.
CREATE TABLE sessions (
    id            BLOB PRIMARY KEY,
    learner_id    BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    session_type  TEXT NOT NULL CHECK (session_type IN ('thought', 'learning', 'evaluation', 'survey')),
    status        TEXT NOT NULL CHECK (status IN ('created', 'running', 'awaiting_response', 'completed', 'terminated')),
    version       INTEGER NOT NULL,
    title         TEXT NOT NULL,
    config        TEXT NOT NULL,
    state         TEXT NOT NULL,
    -- The server process running the agent for this session, until when.
    lease_owner   TEXT,
    lease_until   INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX idx_sessions_learner ON sessions (learner_id, created_at DESC, id);

CREATE TABLE session_events (
    session_id  BLOB NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE session_messages (
    session_id    BLOB NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content       TEXT NOT NULL,
    tool_calls    TEXT NOT NULL DEFAULT '[]',
    tool_call_id  TEXT,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
);
