-- The learning loop: teaching flows, scheduled jobs with their runs, nightly snapshots.

-- One learner's way through one topic (D3); `version` guards every change (compare-and-set).
CREATE TABLE teaching_flows (
    id               UUID PRIMARY KEY,
    learner_id       UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    topic            TEXT NOT NULL,
    goal             TEXT,
    mind_map_id      UUID UNIQUE REFERENCES mind_maps(id) ON DELETE CASCADE,
    status           TEXT NOT NULL CHECK (status IN
                     ('pending', 'diagnosing', 'planning', 'teaching', 'quizzing', 'reviewing', 'completed', 'abandoned')),
    version          BIGINT NOT NULL,
    session_count    BIGINT NOT NULL,
    state            JSONB NOT NULL,
    started_at       TIMESTAMPTZ NOT NULL,
    last_session_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX idx_flows_learner ON teaching_flows (learner_id, started_at DESC, id);
CREATE INDEX idx_flows_open ON teaching_flows (last_session_at) WHERE status NOT IN ('completed', 'abandoned');

-- Scheduled work. One-shot jobs are deleted once they ran; recurring ones (cron) move on.
-- A worker claims a due job by writing its lease; nobody else takes it until the lease ends.
CREATE TABLE jobs (
    id           UUID PRIMARY KEY,
    kind         TEXT NOT NULL,
    name         TEXT,
    learner_id   UUID REFERENCES learners(id) ON DELETE CASCADE,
    mind_map_id  UUID REFERENCES mind_maps(id) ON DELETE CASCADE,
    node_id      UUID REFERENCES mind_map_nodes(id) ON DELETE CASCADE,
    payload      JSONB NOT NULL DEFAULT '{}',
    cron         TEXT,
    run_at       TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ,
    lease_owner  TEXT,
    lease_until  TIMESTAMPTZ,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX idx_jobs_due ON jobs (run_at);
CREATE INDEX idx_jobs_map ON jobs (mind_map_id, kind);
CREATE UNIQUE INDEX idx_jobs_name ON jobs (name) WHERE name IS NOT NULL;

-- Each firing of a job, once: the unique key is what makes a second run of the same
-- firing impossible to record.
CREATE TABLE job_runs (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id         UUID NOT NULL,
    kind           TEXT NOT NULL,
    learner_id     UUID REFERENCES learners(id) ON DELETE CASCADE,
    mind_map_id    UUID,
    scheduled_for  TIMESTAMPTZ NOT NULL,
    worker         TEXT NOT NULL,
    outcome        TEXT NOT NULL CHECK (outcome IN ('done', 'failed', 'expired')),
    detail         TEXT,
    finished_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (job_id, scheduled_for)
);
CREATE INDEX idx_job_runs_learner ON job_runs (learner_id, finished_at);

-- Nightly analytics of one map (D6).
CREATE TABLE analytics_snapshots (
    mind_map_id    UUID NOT NULL REFERENCES mind_maps(id) ON DELETE CASCADE,
    learner_id     UUID NOT NULL REFERENCES learners(id) ON DELETE CASCADE,
    snapshot_date  DATE NOT NULL,
    metrics        JSONB NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (mind_map_id, snapshot_date)
);
CREATE INDEX idx_snapshots_learner ON analytics_snapshots (learner_id, snapshot_date);
