-- Every call to the language model, with the tokens it used, for accounting per learner.
CREATE TABLE llm_calls (
    seq                INTEGER PRIMARY KEY,
    learner_id         BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    operation          TEXT NOT NULL,
    prompt_tokens      INTEGER NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens  INTEGER NOT NULL CHECK (completion_tokens >= 0),
    created_at         INTEGER NOT NULL
);
CREATE INDEX idx_llm_calls_learner ON llm_calls (learner_id, created_at);
