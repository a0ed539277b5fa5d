-- A learner's own material (courses from documents): files they ingested, split into chunks
-- that keep where they came from for citations; course drafts an author reviews before
-- publishing; and who may see a published course.

CREATE TABLE source_documents (
    id            UUID PRIMARY KEY,
    owner_id      UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    -- The file's name as given (a path relative to the folder ingested); one document per
    -- name and owner, so ingesting the file again updates it.
    name          TEXT NOT NULL,
    format        TEXT NOT NULL,
    title         TEXT,
    pages         INTEGER,
    byte_size     BIGINT NOT NULL,
    -- SHA-256 of the file's bytes: an unchanged file is not read again.
    file_hash     TEXT NOT NULL,
    chunk_count   INTEGER NOT NULL,
    ingested_at   TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (owner_id, name)
);

-- A chunk keeps its id while its heading path and text are unchanged (`content_hash`), so
-- a draft's citations survive the file being edited elsewhere.
CREATE TABLE source_chunks (
    id            UUID PRIMARY KEY,
    document_id   UUID NOT NULL REFERENCES source_documents(id) ON DELETE CASCADE,
    ordinal       INTEGER NOT NULL,
    content_hash  TEXT NOT NULL,
    heading_path  JSONB NOT NULL,
    page          INTEGER,
    text          TEXT NOT NULL,
    UNIQUE (document_id, content_hash)
);
CREATE INDEX idx_source_chunks_document ON source_chunks (document_id, ordinal);

-- A draft course: the outline and, once drafted, each unit's material, kept whole as JSON
-- and replaced under compare-and-set on `version`.
CREATE TABLE course_drafts (
    id            UUID PRIMARY KEY,
    owner_id      UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    title         TEXT NOT NULL,
    stage         TEXT NOT NULL,
    version       BIGINT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    draft         JSONB NOT NULL
);
CREATE INDEX idx_course_drafts_owner ON course_drafts (owner_id, updated_at);

-- A course a learner published is theirs (`owner_id`); the operator's and the shipped ones
-- have none and every learner sees them. An owner's course is seen by the learners it is
-- shared with.
ALTER TABLE courses ADD COLUMN owner_id UUID REFERENCES learners(id) ON DELETE CASCADE;
CREATE INDEX idx_courses_owner ON courses (owner_id);

CREATE TABLE course_shares (
    course_id     TEXT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
    learner_id    UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    shared_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (course_id, learner_id)
);
CREATE INDEX idx_course_shares_learner ON course_shares (learner_id);
