-- What a graded drill or a submitted exam answer came to, on the tutor's reply (JSON), so
-- that a reloaded timeline shows the card answered.
ALTER TABLE tutor_messages ADD COLUMN outcome JSONB;
