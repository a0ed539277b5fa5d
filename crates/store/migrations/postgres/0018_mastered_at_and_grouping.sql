-- When a node was first mastered: the time of the evidence (the answer) that took it
-- there, so that the weekly digest counts mastery reached in its week, not imported
-- reviews of weeks ago. A node mastered before this column is dated by its last review,
-- the best evidence kept.
ALTER TABLE mind_map_nodes ADD COLUMN mastered_at TIMESTAMPTZ;
UPDATE mind_map_nodes SET mastered_at = COALESCE(last_reviewed_at, updated_at) WHERE mastery_status = 'mastered';

-- An Anki deck's root groups the deck's cards, and a course's root its entry units: neither
-- is a concept to learn.
UPDATE mind_map_nodes SET metadata = metadata || '{"grouping": true}'::jsonb
WHERE metadata ->> 'anki_deck_root' = 'true' OR metadata ->> 'course_root' = 'true';
