-- A learner's API tokens are named and kept after use: each has an id the operator names it
-- by, when it was last used (written at most about once a minute, so that authenticating
-- rarely writes), and when it was revoked. A revoked token is kept so that a request with it
-- is told it was revoked, and when, rather than that it is unknown. Only the token's SHA-256
-- is stored, as before.
CREATE TABLE api_tokens_named (
    id            BLOB PRIMARY KEY,
    learner_id    BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    token_hash    TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER,
    revoked_at    INTEGER
);

-- A learner's first token is their `default` one; later ones (the local learner's new
-- sign-ins) are numbered in the order they were made.
INSERT INTO api_tokens_named (id, learner_id, name, token_hash, created_at)
SELECT randomblob(16), learner_id,
       CASE WHEN place = 1 THEN 'default' ELSE 'token ' || place END,
       token_hash, created_at
FROM (SELECT t.*, row_number() OVER (PARTITION BY learner_id ORDER BY created_at, token_hash) AS place
      FROM api_tokens t);

DROP TABLE api_tokens;
ALTER TABLE api_tokens_named RENAME TO api_tokens;
CREATE INDEX idx_api_tokens_learner ON api_tokens (learner_id, created_at);
