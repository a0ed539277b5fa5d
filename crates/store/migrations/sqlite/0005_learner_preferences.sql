-- What a learner chose about their own learning: how many reviews a day at most, and which
-- scheduler spaces their reviews (SM-2, the default, or FSRS).
CREATE TABLE learner_preferences (
    learner_id        BLOB PRIMARY KEY REFERENCES learners(id) ON DELETE CASCADE,
    daily_review_cap  INTEGER CHECK (daily_review_cap > 0),
    srs_scheduler     TEXT NOT NULL DEFAULT 'sm2' CHECK (srs_scheduler IN ('sm2', 'fsrs')),
    updated_at        INTEGER NOT NULL
);

-- FSRS's memory of a node, for learners who chose FSRS; SM-2's state stays on the node.
CREATE TABLE node_fsrs (
    node_id     BLOB PRIMARY KEY REFERENCES mind_map_nodes(id) ON DELETE CASCADE,
    stability   REAL NOT NULL CHECK (stability > 0),
    difficulty  REAL NOT NULL,
    updated_at  INTEGER NOT NULL
);
