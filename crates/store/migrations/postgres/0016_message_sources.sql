-- The passages of a course's material a tutor's reply cites (JSON: passage id and
-- citation), so that a reloaded timeline shows them under the reply.
ALTER TABLE tutor_messages ADD COLUMN sources JSONB;
