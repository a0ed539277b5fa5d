-- Every call to the language model, with the tokens it used, for accounting per learner.
CREATE TABLE llm_calls (
    seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    learner_id         UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    operation          TEXT NOT NULL,
    prompt_tokens      BIGINT NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens  BIGINT NOT NULL CHECK (completion_tokens >= 0),
    created_at         TIMESTAMPTZ NOT NULL
);
CREATE INDEX idx_llm_calls_learner ON llm_calls (learner_id, created_at);
