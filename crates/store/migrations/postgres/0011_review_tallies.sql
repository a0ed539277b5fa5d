-- The 30-day retention counts a map's review responses of the last month on every live
-- read; this index holds all it reads (only reviews, so other answers pay nothing for it).
CREATE INDEX idx_qr_map_reviews ON quiz_responses (mind_map_id, responded_at, quality) WHERE response_type = 'review';
