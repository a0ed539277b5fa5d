-- Proactive sessions (session-flow.md 10-11): the session with its state (guarded by
-- `version`, compare-and-set), its event log and its conversation, written as they happen.
CREATE TABLE sessions (
    id            UUID PRIMARY KEY,
    learner_id    UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    session_type  TEXT NOT NULL CHECK (session_type IN ('thought', 'learning', 'evaluation', 'survey')),
    status        TEXT NOT NULL CHECK (status IN ('created', 'running', 'awaiting_response', 'completed', 'terminated')),
    version       BIGINT NOT NULL,
    title         TEXT NOT NULL,
    config        JSONB NOT NULL,
    state         JSONB NOT NULL,
    -- The server process running the agent for this session, until when.
    lease_owner   TEXT,
    lease_until   TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX idx_sessions_learner ON sessions (learner_id, created_at DESC, id);

CREATE TABLE session_events (
    session_id  UUID NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    payload     JSONB NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE session_messages (
    session_id    UUID NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content       TEXT NOT NULL,
    tool_calls    JSONB NOT NULL DEFAULT '[]',
    tool_call_id  TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (session_id, seq)
);
