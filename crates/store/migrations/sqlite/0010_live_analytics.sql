-- Analytics are read live rather than from last night's snapshot, so what they need must
-- be cheap to read however long the history: each node keeps its response count and
-- quality sum and the latest seven qualities (struggle detection reads seven), and the
-- days on which a learner answered anything are kept for the study streak. The response
-- path writes all of it in the response's own transaction.
ALTER TABLE mind_map_nodes ADD COLUMN response_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE mind_map_nodes ADD COLUMN quality_sum INTEGER NOT NULL DEFAULT 0;

UPDATE mind_map_nodes SET
    response_count = (SELECT COUNT(*) FROM quiz_responses WHERE node_id = mind_map_nodes.id),
    quality_sum = (SELECT SUM(quality) FROM quiz_responses WHERE node_id = mind_map_nodes.id),
    recent_qualities = (
        SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM (
            SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses
            WHERE node_id = mind_map_nodes.id ORDER BY responded_at DESC, seq DESC LIMIT 7))
WHERE EXISTS (SELECT 1 FROM quiz_responses WHERE node_id = mind_map_nodes.id);

-- A day is a UTC calendar day, as snapshot dates are ('YYYY-MM-DD').
CREATE TABLE study_days (
    learner_id  BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    day         TEXT NOT NULL,
    PRIMARY KEY (learner_id, day)
) WITHOUT ROWID;

INSERT INTO study_days (learner_id, day)
SELECT DISTINCT m.learner_id, strftime('%Y-%m-%d', r.responded_at / 1000000, 'unixepoch')
FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id;
