-- Every live read loads the responses of the last week on each of a learner's maps. The
-- map-and-date index now carries the columns that read needs, so it is answered from the
-- index alone: a week's answers are spread over as many heap pages as there are answers
-- (each was inserted among everyone else's), which cost a page visit apiece before. The
-- key is unchanged, so every query that used the index still does.
DROP INDEX idx_qr_map_date;
CREATE INDEX idx_qr_map_date ON quiz_responses (mind_map_id, responded_at DESC, seq DESC)
    INCLUDE (node_id, quality, response_type, session_id);
