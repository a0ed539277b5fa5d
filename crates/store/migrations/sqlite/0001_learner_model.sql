-- Timestamps are INTEGER microseconds since the Unix epoch (UTC), so they sort exactly.
-- Learners, their mind maps (concept DAGs with mastery and SM-2 state) and quiz responses.

CREATE TABLE learners (
    id          BLOB PRIMARY KEY,
    name        TEXT NOT NULL,
    is_local    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX idx_learners_one_local ON learners (is_local) WHERE is_local = 1;

CREATE TABLE api_tokens (
    token_hash  TEXT PRIMARY KEY,
    learner_id  BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL
);
CREATE INDEX idx_api_tokens_learner ON api_tokens (learner_id);

CREATE TABLE mind_maps (
    id            BLOB PRIMARY KEY,
    learner_id    BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    title         TEXT NOT NULL,
    root_node_id  BLOB,
    status        TEXT NOT NULL DEFAULT 'draft'
                  CHECK (status IN ('draft', 'active', 'completed', 'abandoned')),
    metadata      TEXT NOT NULL DEFAULT '{}',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX idx_mm_learner ON mind_maps (learner_id, created_at DESC, id);

CREATE TABLE mind_map_nodes (
    id                BLOB PRIMARY KEY,
    mind_map_id       BLOB NOT NULL REFERENCES mind_maps(id) ON DELETE CASCADE,
    label             TEXT NOT NULL,
    description       TEXT,
    depth             INTEGER NOT NULL DEFAULT 0 CHECK (depth >= 0),
    effort_minutes    INTEGER CHECK (effort_minutes > 0),
    sequence          INTEGER,
    mastery_score     REAL NOT NULL DEFAULT 0.0 CHECK (mastery_score BETWEEN 0.0 AND 1.0),
    mastery_status    TEXT NOT NULL DEFAULT 'unseen'
                      CHECK (mastery_status IN ('unseen', 'diagnosed', 'learning', 'reviewing', 'mastered')),
    ease_factor       REAL NOT NULL DEFAULT 2.5,
    repetitions       INTEGER NOT NULL DEFAULT 0,
    interval_days     REAL NOT NULL DEFAULT 0.0,
    next_review_at    INTEGER,
    last_reviewed_at  INTEGER,
    metadata          TEXT NOT NULL DEFAULT '{}',
    version           INTEGER NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
CREATE INDEX idx_mmn_map_status ON mind_map_nodes (mind_map_id, mastery_status);
CREATE INDEX idx_mmn_map_sequence ON mind_map_nodes (mind_map_id, sequence);

CREATE TABLE mind_map_edges (
    mind_map_id     BLOB NOT NULL REFERENCES mind_maps(id) ON DELETE CASCADE,
    parent_node_id  BLOB NOT NULL REFERENCES mind_map_nodes(id) ON DELETE CASCADE,
    child_node_id   BLOB NOT NULL REFERENCES mind_map_nodes(id) ON DELETE CASCADE,
    edge_type       TEXT NOT NULL DEFAULT 'prerequisite' CHECK (edge_type IN ('prerequisite', 'related')),
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (parent_node_id, child_node_id),
    CHECK (parent_node_id <> child_node_id)
);
CREATE INDEX idx_mme_child ON mind_map_edges (child_node_id);
CREATE INDEX idx_mme_map ON mind_map_edges (mind_map_id);

CREATE TABLE quiz_responses (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             BLOB NOT NULL UNIQUE,
    node_id        BLOB NOT NULL REFERENCES mind_map_nodes(id) ON DELETE CASCADE,
    mind_map_id    BLOB NOT NULL REFERENCES mind_maps(id) ON DELETE CASCADE,
    question_text  TEXT NOT NULL,
    user_answer    TEXT,
    quality        INTEGER NOT NULL CHECK (quality BETWEEN 0 AND 5),
    response_type  TEXT NOT NULL DEFAULT 'review' CHECK (response_type IN ('diagnostic', 'teach', 'review')),
    session_id     BLOB,
    responded_at   INTEGER NOT NULL
);
CREATE INDEX idx_qr_node ON quiz_responses (node_id, responded_at DESC, seq DESC);
CREATE INDEX idx_qr_node_type ON quiz_responses (node_id, response_type, responded_at DESC, seq DESC);
CREATE INDEX idx_qr_map_date ON quiz_responses (mind_map_id, responded_at DESC, seq DESC);
