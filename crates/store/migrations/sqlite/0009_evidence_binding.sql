-- Evidence is accepted only where it was offered, once, and a retried request stores
-- nothing twice.

-- Every drill a tutor thread offered, by an opaque id that says nothing of its answer:
-- grading takes only a drill offered in that thread to that learner, and counts it once
-- (the first grading is kept, and a replay is answered with it).
CREATE TABLE drill_offers (
    id            TEXT PRIMARY KEY,
    learner_id    BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    thread_id     BLOB NOT NULL REFERENCES tutor_threads(id) ON DELETE CASCADE,
    unit_id       TEXT NOT NULL,
    -- A blueprint drill's item (regenerated from it to grade exactly); none for a drill
    -- the model wrote, which is graded from the text kept here.
    item_ref      TEXT,
    prompt        TEXT NOT NULL,
    question_latex TEXT NOT NULL,
    options       TEXT NOT NULL,
    offered_at    INTEGER NOT NULL,
    graded_at     INTEGER,
    grade         TEXT
);
CREATE INDEX idx_drill_offers_thread ON drill_offers (thread_id, offered_at);

-- A response's idempotency key, with the learner's id (see `pathwise_store::scoped_key`): a
-- retry with the same key finds the response it stored instead of storing another.
ALTER TABLE quiz_responses ADD COLUMN idempotency_key BLOB;
CREATE UNIQUE INDEX idx_qr_idempotency ON quiz_responses (idempotency_key) WHERE idempotency_key IS NOT NULL;

-- What other evidence-recording requests answered, per learner and Idempotency-Key, so
-- that a retry gets the first answer; kept at least a day.
CREATE TABLE idempotency_keys (
    learner_id   BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    -- SHA-256 of what was asked (the route and its body): the same key for another
    -- request is refused.
    fingerprint  TEXT NOT NULL,
    status       INTEGER NOT NULL,
    body         TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (learner_id, key)
);
CREATE INDEX idx_idempotency_keys_created ON idempotency_keys (created_at);
