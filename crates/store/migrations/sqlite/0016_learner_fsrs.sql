-- A learner's own FSRS parameters, fitted on their review log (weekly, and when they ask),
-- with how well the fitting predicted their latest reviews. `weights` null: the defaults,
-- for the `reason` given.
CREATE TABLE learner_fsrs (
    learner_id              BLOB PRIMARY KEY REFERENCES learners(id) ON DELETE CASCADE,
    weights                 TEXT,
    reviews                 INTEGER NOT NULL CHECK (reviews >= 0),
    fitted_on_reviews       INTEGER NOT NULL CHECK (fitted_on_reviews >= 0),
    initial_stability_only  INTEGER NOT NULL CHECK (initial_stability_only IN (0, 1)),
    checked_reviews         INTEGER NOT NULL CHECK (checked_reviews >= 0),
    log_loss                REAL,
    default_log_loss        REAL,
    reason                  TEXT,
    fitted_at               INTEGER NOT NULL
);
