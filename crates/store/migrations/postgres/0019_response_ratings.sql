-- The rating FSRS schedules a response by (1 Again, 2 Hard, 3 Good, 4 Easy), kept beside its
-- quality because the two differ on purpose: an automatic grade of 5 is Good, and only the
-- learner's own rating or Anki's Easy button is Easy (domain::evidence). Responses stored
-- before carry the rating their quality states.
ALTER TABLE quiz_responses ADD COLUMN rating INTEGER NOT NULL DEFAULT 3 CHECK (rating BETWEEN 1 AND 4);
UPDATE quiz_responses SET rating = CASE WHEN quality <= 2 THEN 1 WHEN quality = 3 THEN 2 WHEN quality = 4 THEN 3 ELSE 4 END;
ALTER TABLE quiz_responses ALTER COLUMN rating DROP DEFAULT;
