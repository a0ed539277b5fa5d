-- The policy tutor (policy-tutor.md): authored courses, each learner's sparse snapshot per
-- course (guarded by `version`, compare-and-set), tutor threads with their timeline, the
-- log of every turn, and the built-in exam service's attempts and lockouts.

-- A checked course pack, kept whole as JSON: courses are authored content, replaced as a
-- whole on import; the application indexes it in memory.
CREATE TABLE courses (
    id            TEXT PRIMARY KEY,
    title         TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    builtin       INTEGER NOT NULL,
    unit_count    INTEGER NOT NULL,
    question_count INTEGER NOT NULL,
    imported_at   INTEGER NOT NULL,
    -- Last: a large pack is read only when a course is loaded (SQLite walks a row's
    -- overflow pages to reach the columns stored after it).
    pack          TEXT NOT NULL
);

CREATE TABLE tutor_snapshots (
    learner_id   BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
    snapshot     TEXT NOT NULL,
    version      INTEGER NOT NULL,
    -- The learner's map of the course, whose nodes take drill and exam evidence as responses.
    mind_map_id  BLOB REFERENCES mind_maps(id) ON DELETE SET NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (learner_id, course_id)
);

CREATE TABLE course_unit_nodes (
    mind_map_id  BLOB NOT NULL REFERENCES mind_maps(id) ON DELETE CASCADE,
    unit_id      TEXT NOT NULL,
    node_id      BLOB NOT NULL REFERENCES mind_map_nodes(id) ON DELETE CASCADE,
    PRIMARY KEY (mind_map_id, unit_id)
);

CREATE TABLE tutor_threads (
    id           BLOB PRIMARY KEY,
    learner_id   BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
    title        TEXT NOT NULL,
    -- The tutor's latest action in the thread, which the deterministic turn looks at.
    last_action  TEXT,
    message_count INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE INDEX idx_tutor_threads_learner ON tutor_threads (learner_id, updated_at DESC, id);

CREATE TABLE tutor_messages (
    thread_id         BLOB NOT NULL REFERENCES tutor_threads(id) ON DELETE CASCADE,
    seq               INTEGER NOT NULL,
    id                BLOB NOT NULL,
    role              TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    text              TEXT NOT NULL,
    latex             TEXT,
    card              TEXT,
    exam_question_id  TEXT,
    turn_id           BLOB,
    created_at        INTEGER NOT NULL,
    PRIMARY KEY (thread_id, seq)
);
CREATE INDEX idx_tutor_messages_exam ON tutor_messages (thread_id, exam_question_id) WHERE exam_question_id IS NOT NULL;

CREATE TABLE tutor_turns (
    id               BLOB PRIMARY KEY,
    thread_id        BLOB NOT NULL REFERENCES tutor_threads(id) ON DELETE CASCADE,
    learner_id       BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    course_id        TEXT NOT NULL,
    action           TEXT NOT NULL,
    validated        INTEGER NOT NULL,
    fallback_reason  TEXT,
    log              TEXT NOT NULL,
    created_at       INTEGER NOT NULL
);
CREATE INDEX idx_tutor_turns_thread ON tutor_turns (thread_id, created_at, id);

-- The built-in exam service: one row per question a learner has touched (its status and
-- lockout; `attempts` guards changes, compare-and-set), and every event on it.
CREATE TABLE exam_status (
    learner_id    BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    course_id     TEXT NOT NULL,
    question_id   TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('available', 'locked', 'passed')),
    locked_until  INTEGER,
    attempts      INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (learner_id, course_id, question_id)
);

CREATE TABLE exam_events (
    id              BLOB PRIMARY KEY,
    learner_id      BLOB NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    course_id       TEXT NOT NULL,
    question_id     TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('submit', 'memo', 'video')),
    selected_index  INTEGER,
    correct         INTEGER,
    locked_until    INTEGER,
    at              INTEGER NOT NULL
);
CREATE INDEX idx_exam_events_learner ON exam_events (learner_id, course_id, question_id, at);
