-- A learner's API tokens are named and kept after use: each has an id the operator names it
-- by, when it was last used (written at most about once a minute, so that authenticating
-- rarely writes), and when it was revoked. A revoked token is kept so that a request with it
-- is told it was revoked, and when, rather than that it is unknown. Only the token's SHA-256
-- is stored, as before.
ALTER TABLE api_tokens
    ADD COLUMN id UUID,
    ADD COLUMN name TEXT,
    ADD COLUMN last_used_at TIMESTAMPTZ,
    ADD COLUMN revoked_at TIMESTAMPTZ;

-- A learner's first token is their `default` one; later ones (the local learner's new
-- sign-ins) are numbered in the order they were made.
UPDATE api_tokens t SET id = gen_random_uuid(),
    name = CASE WHEN numbered.place = 1 THEN 'default' ELSE 'token ' || numbered.place END
FROM (SELECT token_hash, row_number() OVER (PARTITION BY learner_id ORDER BY created_at, token_hash) AS place
      FROM api_tokens) numbered
WHERE numbered.token_hash = t.token_hash;

ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_pkey;
ALTER TABLE api_tokens ALTER COLUMN id SET NOT NULL, ALTER COLUMN name SET NOT NULL;
ALTER TABLE api_tokens ADD PRIMARY KEY (id);
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_token_hash_key UNIQUE (token_hash);
DROP INDEX idx_api_tokens_learner;
CREATE INDEX idx_api_tokens_learner ON api_tokens (learner_id, created_at);
