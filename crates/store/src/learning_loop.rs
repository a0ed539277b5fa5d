//! What the learning loop keeps beside the learner model: teaching flows (guarded by
//! compare-and-set), scheduled jobs claimed by lease with a record of each firing, and the
//! nightly analytics snapshots.

use crate::{Page, StoreResult};
use chrono::{DateTime, NaiveDate, Utc};
use pathwise_domain::flow::Flow;
use pathwise_domain::model::{MapChanges, MindMap};
use pathwise_domain::{FlowId, FlowStatus, JobId, JobKind, JobOutcome, LearnerId, MapStatus, MindMapId, NodeId};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Job {
    pub id: JobId,
    pub kind: JobKind,
    /// Recurring jobs have a unique name (`nightly-analytics`).
    pub name: Option<String>,
    pub learner_id: Option<LearnerId>,
    pub mind_map_id: Option<MindMapId>,
    pub node_id: Option<NodeId>,
    #[schema(value_type = Object)]
    pub payload: Value,
    /// A cron expression for recurring jobs; none for one-shot jobs.
    pub cron: Option<String>,
    pub run_at: DateTime<Utc>,
    /// A one-shot job not run by then is dropped as expired.
    pub expires_at: Option<DateTime<Utc>>,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl Job {
    /// A one-shot job of `kind` due at `run_at`, created at `now`, about nothing in
    /// particular until its fields say otherwise.
    pub fn one_shot(kind: JobKind, run_at: DateTime<Utc>, now: DateTime<Utc>) -> Job {
        Job {
            id: JobId(uuid::Uuid::now_v7()),
            kind,
            name: None,
            learner_id: None,
            mind_map_id: None,
            node_id: None,
            payload: Value::Object(Default::default()),
            cron: None,
            run_at,
            expires_at: None,
            attempts: 0,
            last_error: None,
            created_at: now,
        }
    }
}

/// What happens to a job after one firing.
#[derive(Debug, Clone, PartialEq)]
pub enum JobNext {
    /// A one-shot job is done (or given up): it is deleted.
    Delete,
    /// A recurring job's next firing, or a failed one-shot job's retry.
    RunAt(DateTime<Utc>),
}

/// One firing of a claimed job, finished.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedJob {
    pub job: Job,
    pub worker: String,
    pub outcome: JobOutcome,
    pub detail: Option<String>,
    pub next: JobNext,
    pub finished_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct JobRun {
    pub job_id: JobId,
    pub kind: JobKind,
    pub learner_id: Option<LearnerId>,
    pub mind_map_id: Option<MindMapId>,
    /// The firing this run was: the job's `run_at` when it was claimed.
    pub scheduled_for: DateTime<Utc>,
    pub worker: String,
    pub outcome: JobOutcome,
    pub detail: Option<String>,
    pub finished_at: DateTime<Utc>,
}

/// A map's status and every node's `next_review_at`, as review jobs are planned from.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewDue {
    pub map_status: MapStatus,
    pub nodes: Vec<(NodeId, Option<DateTime<Utc>>)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Snapshot {
    pub mind_map_id: MindMapId,
    #[serde(skip)]
    pub learner_id: LearnerId,
    pub snapshot_date: NaiveDate,
    #[schema(value_type = Object)]
    pub metrics: Value,
    pub created_at: DateTime<Utc>,
}

/// What a learner chose about their own learning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Preferences {
    /// Reviews a day at most; none for no limit.
    pub daily_review_cap: Option<u32>,
    /// Which scheduler spaces the learner's reviews.
    pub srs_scheduler: pathwise_domain::SrsScheduler,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences { daily_review_cap: None, srs_scheduler: pathwise_domain::SrsScheduler::Sm2 }
    }
}

#[pathwise_store_macros::capability]
pub trait PreferenceStore {
    /// The learner's preferences; the defaults when they never set any.
    async fn preferences(&self, learner: LearnerId) -> StoreResult<Preferences> {
        let row = sqlx::query("SELECT daily_review_cap, srs_scheduler FROM learner_preferences WHERE learner_id = $1")
            .bind(learner.0)
            .fetch_optional(self.reader())
            .await?;
        let Some(row) = row else { return Ok(Preferences::default()) };
        let cap: Option<i32> = row.try_get("daily_review_cap")?;
        Ok(Preferences {
            daily_review_cap: cap.map(u32::try_from).transpose().map_err(StoreError::corrupt)?,
            srs_scheduler: parse(row.try_get::<&str, _>("srs_scheduler")?)?,
        })
    }

    async fn set_preferences(
        &self,
        learner: LearnerId,
        preferences: &Preferences,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        let cap = preferences.daily_review_cap.map(i32::try_from).transpose().map_err(StoreError::corrupt)?;
        sqlx::query(
            "INSERT INTO learner_preferences (learner_id, daily_review_cap, srs_scheduler, updated_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (learner_id) DO UPDATE SET \
             daily_review_cap = excluded.daily_review_cap, srs_scheduler = excluded.srs_scheduler, \
             updated_at = excluded.updated_at",
        )
        .bind(learner.0)
        .bind(cap)
        .bind(preferences.srs_scheduler.as_str())
        .bind(Ts(now))
        .execute(self.writer())
        .await?;
        Ok(())
    }

    /// How many responses of this type the learner gave since `since`.
    async fn count_responses_since(
        &self,
        learner: LearnerId,
        response_type: pathwise_domain::ResponseType,
        since: DateTime<Utc>,
    ) -> StoreResult<i64> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id \
             WHERE m.learner_id = $1 AND r.response_type = $2 AND r.responded_at >= $3",
        )
        .bind(learner.0)
        .bind(response_type.as_str())
        .bind(Ts(since))
        .fetch_one(self.reader())
        .await?)
    }
}

#[pathwise_store_macros::capability]
pub trait FlowStore {
    async fn insert_flow(&self, flow: &Flow) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO teaching_flows (id, learner_id, topic, goal, mind_map_id, status, version, session_count, \
             state, started_at, last_session_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(flow.id.0)
        .bind(flow.learner_id.0)
        .bind(&flow.topic)
        .bind(&flow.goal)
        .bind(flow.mind_map_id.map(|m| m.0))
        .bind(flow.status.as_str())
        .bind(flow.version)
        .bind(flow.session_count)
        .bind(Json(&flow.state))
        .bind(Ts(flow.started_at))
        .bind(Ts(flow.last_session_at))
        .execute(self.writer())
        .await?;
        Ok(())
    }

    async fn get_flow(&self, learner: LearnerId, id: FlowId) -> StoreResult<Option<Flow>> {
        let sql = format!("SELECT {FLOW_COLUMNS} FROM teaching_flows f WHERE f.id = $1 AND f.learner_id = $2");
        sqlx::query(&sql)
            .bind(id.0)
            .bind(learner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(flow_from_row)
            .transpose()
    }

    async fn flow_for_map(&self, learner: LearnerId, map: MindMapId) -> StoreResult<Option<Flow>> {
        let sql = format!("SELECT {FLOW_COLUMNS} FROM teaching_flows f WHERE f.mind_map_id = $1 AND f.learner_id = $2");
        sqlx::query(&sql)
            .bind(map.0)
            .bind(learner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(flow_from_row)
            .transpose()
    }

    async fn list_flows(
        &self,
        learner: LearnerId,
        status: Option<FlowStatus>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<Flow>> {
        let rows = crate::sql::LearnerListing {
            table: "teaching_flows",
            alias: "f",
            columns: FLOW_COLUMNS,
            newest_by: "started_at",
        };
        learner_page(self.reader(), &rows, learner, status.map(|s| s.as_str()), offset, limit, flow_from_row).await
    }

    /// Store `flow` if the stored one is still at `flow.version - 1`; otherwise refuse with
    /// a conflict and write nothing.
    async fn save_flow(&self, flow: &Flow) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        save_flow_row(&mut tx, flow).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Create the map a flow planned and store the flow, in one transaction (compare-and-set
    /// as [`FlowStore::save_flow`]).
    async fn save_flow_with_map(&self, flow: &Flow, map: &MindMap, changes: &MapChanges) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        insert_map_row(&mut tx, map).await?;
        apply_changes(&mut tx, changes).await?;
        save_flow_row(&mut tx, flow).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Abandon every unfinished flow last active before `cutoff`, and its map if active;
    /// the flows as they are now.
    async fn abandon_stale_flows(&self, cutoff: DateTime<Utc>, now: DateTime<Utc>) -> StoreResult<Vec<Flow>> {
        let mut tx = self.begin_write().await?;
        let sql = format!(
            "UPDATE teaching_flows SET status = 'abandoned', version = version + 1 \
             WHERE status NOT IN ('completed', 'abandoned') AND last_session_at < $1 \
             RETURNING {}",
            FLOW_COLUMNS.replace("f.", "")
        );
        let flows = sqlx::query(&sql)
            .bind(Ts(cutoff))
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(flow_from_row)
            .collect::<StoreResult<Vec<_>>>()?;
        for map in flows.iter().filter_map(|f| f.mind_map_id) {
            sqlx::query(
                "UPDATE mind_maps SET status = 'abandoned', updated_at = $2 WHERE id = $1 AND status = 'active'",
            )
            .bind(map.0)
            .bind(Ts(now))
            .execute(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM jobs WHERE mind_map_id = $1 AND kind IN ('review', 'review_batch')")
                .bind(map.0)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(flows)
    }
}

#[pathwise_store_macros::capability]
pub trait JobStore {
    async fn insert_jobs(&self, jobs: &[Job]) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        for job in jobs {
            insert_job_row(&mut tx, job).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Create a named recurring job, or bring its schedule up to date; the next firing is
    /// kept unless the cron expression changed.
    async fn ensure_recurring_job(&self, job: &Job) -> StoreResult<()> {
        let sql = format!(
            "INSERT INTO jobs ({JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
             ON CONFLICT (name) WHERE name IS NOT NULL DO UPDATE SET kind = excluded.kind, payload = excluded.payload, \
             cron = excluded.cron, \
             run_at = CASE WHEN jobs.cron IS DISTINCT FROM excluded.cron THEN excluded.run_at ELSE jobs.run_at END"
        );
        bind_job(&sql, job).execute(self.writer()).await?;
        Ok(())
    }

    /// Lease up to `limit` jobs due at `now` that nobody holds, soonest first, to `worker`
    /// until `lease_until`. Two workers never hold the same job.
    async fn claim_due_jobs(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<Vec<Job>> {
        let sql = format!(
            "UPDATE jobs SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
             WHERE id IN (SELECT id FROM jobs WHERE run_at <= $3 AND (lease_until IS NULL OR lease_until <= $3) \
             ORDER BY run_at LIMIT $4 {}) RETURNING {JOB_COLUMNS}",
            Self::SKIP_LOCKED
        );
        let mut jobs = sqlx::query(&sql)
            .bind(worker)
            .bind(Ts(lease_until))
            .bind(Ts(now))
            .bind(limit)
            .fetch_all(self.writer())
            .await?
            .iter()
            .filter_map(|row| match job_from_row(row) {
                Ok(job) => Some(job),
                // One unreadable job (a kind this server does not know) stays
                // leased, out of the way, rather than stopping every job after it.
                Err(error) => {
                    let id = row.try_get::<uuid::Uuid, _>("id").ok();
                    tracing::error!(?id, %error, "a due job cannot be read; it is set aside until its lease ends");
                    None
                }
            })
            .collect::<Vec<_>>();
        jobs.sort_by_key(|j| (j.run_at, j.id));
        Ok(jobs)
    }

    /// Give back `worker`'s leases on jobs it claimed and did not start (a server that is
    /// stopping), undoing the attempt the claim counted, so that another worker takes them
    /// at once. The number released.
    async fn release_jobs(&self, worker: &str, jobs: &[JobId]) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let mut released = 0;
        for job in jobs {
            released += sqlx::query(
                "UPDATE jobs SET lease_owner = NULL, lease_until = NULL, attempts = attempts - 1 \
                 WHERE id = $1 AND lease_owner = $2",
            )
            .bind(job.0)
            .bind(worker)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        }
        tx.commit().await?;
        Ok(released)
    }

    /// Record each firing once and move each job on (delete, or set its next run), in one
    /// transaction; a job whose lease another worker has taken since is left alone. The
    /// number of firings recorded.
    async fn finish_jobs(&self, finished: &[FinishedJob]) -> StoreResult<u64> {
        let mut tx = self.begin_write().await?;
        let mut recorded = 0;
        for f in finished {
            let moved = match &f.next {
                JobNext::Delete => {
                    sqlx::query("DELETE FROM jobs WHERE id = $1 AND lease_owner = $2")
                        .bind(f.job.id.0)
                        .bind(&f.worker)
                        .execute(&mut *tx)
                        .await?
                }
                JobNext::RunAt(at) => {
                    let (attempts, error) = match f.outcome {
                        pathwise_domain::JobOutcome::Failed => (f.job.attempts, f.detail.clone()),
                        _ => (0, None),
                    };
                    sqlx::query(
                        "UPDATE jobs SET run_at = $3, lease_owner = NULL, lease_until = NULL, attempts = $4, \
                         last_error = $5 WHERE id = $1 AND lease_owner = $2",
                    )
                    .bind(f.job.id.0)
                    .bind(&f.worker)
                    .bind(Ts(*at))
                    .bind(attempts)
                    .bind(error)
                    .execute(&mut *tx)
                    .await?
                }
            };
            if moved.rows_affected() == 0 {
                // Another worker holds the job now; its run is the one recorded.
                continue;
            }
            recorded += sqlx::query(&format!(
                "INSERT INTO job_runs ({RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (job_id, scheduled_for) DO NOTHING"
            ))
            .bind(f.job.id.0)
            .bind(f.job.kind.as_str())
            .bind(f.job.learner_id.map(|l| l.0))
            .bind(f.job.mind_map_id.map(|m| m.0))
            .bind(Ts(f.job.run_at))
            .bind(&f.worker)
            .bind(f.outcome.as_str())
            .bind(&f.detail)
            .bind(Ts(f.finished_at))
            .execute(&mut *tx)
            .await?
            .rows_affected();
        }
        tx.commit().await?;
        Ok(recorded)
    }

    /// Replace a map's pending review jobs by `plan`'s, computed from the map as it is in
    /// the same transaction; jobs under a live lease are left to finish.
    async fn replace_review_jobs<F>(
        &self,
        learner: LearnerId,
        map: MindMapId,
        now: DateTime<Utc>,
        plan: F,
    ) -> StoreResult<usize>
    where
        F: FnOnce(&ReviewDue) -> Vec<Job> + Send + 'static,
    {
        let mut tx = self.begin_write().await?;
        let status: Option<String> = sqlx::query_scalar(&format!(
            "SELECT status FROM mind_maps WHERE id = $1 AND learner_id = $2 {}",
            Self::MAP_LOCK
        ))
        .bind(map.0)
        .bind(learner.0)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(status) = status else {
            return Err(StoreError::NotFound("mind map"));
        };
        let nodes = sqlx::query("SELECT id, next_review_at FROM mind_map_nodes WHERE mind_map_id = $1")
            .bind(map.0)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(|row| {
                let next_review_at = row.try_get::<Option<Ts>, _>("next_review_at")?.map(|t| t.0);
                Ok((NodeId(row.try_get("id")?), next_review_at))
            })
            .collect::<StoreResult<Vec<_>>>()?;
        let jobs = plan(&ReviewDue { map_status: parse(&status)?, nodes });
        sqlx::query(
            "DELETE FROM jobs WHERE mind_map_id = $1 AND kind IN ('review', 'review_batch') \
             AND (lease_until IS NULL OR lease_until <= $2)",
        )
        .bind(map.0)
        .bind(Ts(now))
        .execute(&mut *tx)
        .await?;
        for job in &jobs {
            insert_job_row(&mut tx, job).await?;
        }
        tx.commit().await?;
        Ok(jobs.len())
    }

    /// A learner's pending jobs (of one map), soonest first.
    async fn list_jobs(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Job>> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE learner_id = $1{} ORDER BY run_at, id",
            map_filter(map, "mind_map_id", 2)
        );
        let query = sqlx::query(&sql).bind(learner.0);
        bind_map(query, map).fetch_all(self.reader()).await?.iter().map(job_from_row).collect()
    }

    /// Recurring jobs (those with a name), for operators.
    async fn recurring_jobs(&self) -> StoreResult<Vec<Job>> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE name IS NOT NULL ORDER BY name");
        sqlx::query(&sql).fetch_all(self.reader()).await?.iter().map(job_from_row).collect()
    }

    /// Recorded firings, newest first: of one learner, or all when `None`.
    async fn job_runs(&self, learner: Option<LearnerId>, limit: i64) -> StoreResult<Vec<JobRun>> {
        let filter = if learner.is_some() { "WHERE learner_id = $1" } else { "" };
        let sql =
            format!("SELECT {RUN_COLUMNS} FROM job_runs {filter} ORDER BY finished_at DESC, seq DESC LIMIT {limit}");
        let mut query = sqlx::query(&sql);
        if let Some(learner) = learner {
            query = query.bind(learner.0);
        }
        query.fetch_all(self.reader()).await?.iter().map(run_from_row).collect()
    }
}

#[pathwise_store_macros::capability]
pub trait SnapshotStore {
    /// Store a map's snapshot for a day, replacing that day's earlier one.
    async fn upsert_snapshot(&self, snapshot: &Snapshot) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO analytics_snapshots (mind_map_id, learner_id, snapshot_date, metrics, created_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (mind_map_id, snapshot_date) \
             DO UPDATE SET metrics = excluded.metrics, created_at = excluded.created_at",
        )
        .bind(snapshot.mind_map_id.0)
        .bind(snapshot.learner_id.0)
        .bind(snapshot.snapshot_date)
        .bind(Json(&snapshot.metrics))
        .bind(Ts(snapshot.created_at))
        .execute(self.writer())
        .await?;
        Ok(())
    }

    /// A map's snapshots from `from` on, oldest first.
    async fn snapshots(&self, learner: LearnerId, map: MindMapId, from: NaiveDate) -> StoreResult<Vec<Snapshot>> {
        sqlx::query(
            "SELECT mind_map_id, learner_id, snapshot_date, metrics, created_at FROM analytics_snapshots \
             WHERE mind_map_id = $1 AND learner_id = $2 AND snapshot_date >= $3 ORDER BY snapshot_date",
        )
        .bind(map.0)
        .bind(learner.0)
        .bind(from)
        .fetch_all(self.reader())
        .await?
        .iter()
        .map(snapshot_from_row)
        .collect()
    }

    /// The latest snapshot of each of a learner's maps.
    async fn latest_snapshots(&self, learner: LearnerId) -> StoreResult<Vec<Snapshot>> {
        sqlx::query(
            "SELECT s.mind_map_id, s.learner_id, s.snapshot_date, s.metrics, s.created_at FROM analytics_snapshots s \
             WHERE s.learner_id = $1 AND s.snapshot_date = \
             (SELECT MAX(t.snapshot_date) FROM analytics_snapshots t WHERE t.mind_map_id = s.mind_map_id) \
             ORDER BY s.mind_map_id",
        )
        .bind(learner.0)
        .fetch_all(self.reader())
        .await?
        .iter()
        .map(snapshot_from_row)
        .collect()
    }
}
