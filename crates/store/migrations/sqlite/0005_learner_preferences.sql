-- What a learner chose about their own learning: for now, how many reviews a day at most.
CREATE TABLE learner_preferences (
    learner_id        BLOB PRIMARY KEY REFERENCES learners(id) ON DELETE CASCADE,
    daily_review_cap  INTEGER CHECK (daily_review_cap > 0),
    updated_at        INTEGER NOT NULL
);
