-- A node keeps the qualities of its latest responses (newest first), so that recording a
-- response reads one row however long the node's history is.
ALTER TABLE mind_map_nodes
    ADD COLUMN recent_qualities SMALLINT[] NOT NULL DEFAULT '{}',
    ADD COLUMN recent_review_qualities SMALLINT[] NOT NULL DEFAULT '{}';

UPDATE mind_map_nodes n SET
    recent_qualities = ARRAY(
        SELECT r.quality::SMALLINT FROM quiz_responses r WHERE r.node_id = n.id
        ORDER BY r.responded_at DESC, r.seq DESC LIMIT 4),
    recent_review_qualities = ARRAY(
        SELECT r.quality::SMALLINT FROM quiz_responses r WHERE r.node_id = n.id AND r.response_type = 'review'
        ORDER BY r.responded_at DESC, r.seq DESC LIMIT 3)
WHERE EXISTS (SELECT 1 FROM quiz_responses r WHERE r.node_id = n.id);

-- It served only the latest-reviews lookup.
DROP INDEX idx_qr_node_type;
