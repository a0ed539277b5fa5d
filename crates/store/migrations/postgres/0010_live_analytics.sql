-- Analytics are read live rather than from last night's snapshot, so what they need must
-- be cheap to read however long the history: each node keeps its response count and
-- quality sum and the latest seven qualities (struggle detection reads seven), and the
-- days on which a learner answered anything are kept for the study streak. The response
-- path writes all of it in the response's own statement. No index covers the new node
-- columns, so that node rewrites stay heap-only.
ALTER TABLE mind_map_nodes
    ADD COLUMN response_count BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN quality_sum BIGINT NOT NULL DEFAULT 0;

UPDATE mind_map_nodes n SET
    response_count = totals.responses,
    quality_sum = totals.quality_sum,
    recent_qualities = ARRAY(
        SELECT r.quality::SMALLINT FROM quiz_responses r WHERE r.node_id = n.id
        ORDER BY r.responded_at DESC, r.seq DESC LIMIT 7)
FROM (SELECT node_id, COUNT(*) AS responses, SUM(quality) AS quality_sum FROM quiz_responses GROUP BY node_id) totals
WHERE totals.node_id = n.id;

-- A day is a UTC calendar day, as snapshot dates are.
CREATE TABLE study_days (
    learner_id  UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    day         DATE NOT NULL,
    PRIMARY KEY (learner_id, day)
);

INSERT INTO study_days (learner_id, day)
SELECT DISTINCT m.learner_id, (r.responded_at AT TIME ZONE 'UTC')::date
FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id;
