-- A node keeps the qualities of its latest responses (newest first, comma-separated), so
-- that recording a response reads one row however long the node's history is.
ALTER TABLE mind_map_nodes ADD COLUMN recent_qualities TEXT NOT NULL DEFAULT '';
ALTER TABLE mind_map_nodes ADD COLUMN recent_review_qualities TEXT NOT NULL DEFAULT '';

UPDATE mind_map_nodes SET
    recent_qualities = COALESCE((
        SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM (
            SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses
            WHERE node_id = mind_map_nodes.id ORDER BY responded_at DESC, seq DESC LIMIT 4)), ''),
    recent_review_qualities = COALESCE((
        SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM (
            SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses
            WHERE node_id = mind_map_nodes.id AND response_type = 'review'
            ORDER BY responded_at DESC, seq DESC LIMIT 3)), '');

-- It served only the latest-reviews lookup.
DROP INDEX idx_qr_node_type;
