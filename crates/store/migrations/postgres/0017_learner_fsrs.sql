-- A learner's own FSRS parameters, fitted on their review log (weekly, and when they ask),
-- with how well the fitting predicted their latest reviews. `weights` null: the defaults,
-- for the `reason` given.
CREATE TABLE learner_fsrs (
    learner_id              UUID PRIMARY KEY REFERENCES learners(id) ON DELETE CASCADE,
    weights                 JSONB,
    reviews                 INTEGER NOT NULL CHECK (reviews >= 0),
    fitted_on_reviews       INTEGER NOT NULL CHECK (fitted_on_reviews >= 0),
    initial_stability_only  BOOLEAN NOT NULL,
    checked_reviews         INTEGER NOT NULL CHECK (checked_reviews >= 0),
    log_loss                DOUBLE PRECISION,
    default_log_loss        DOUBLE PRECISION,
    reason                  TEXT,
    fitted_at               TIMESTAMPTZ NOT NULL
);
