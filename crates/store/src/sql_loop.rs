//! The learning loop's SQL (flows, jobs, snapshots), shared by both stores like
//! [`crate::sql`]. Expanded next to `shared_store!`, whose row readers and imports it uses;
//! the backend supplies its row-lock clause and how a claim skips rows another worker
//! holds (`FOR UPDATE SKIP LOCKED` in PostgreSQL; SQLite has one writer at a time).

pub(crate) const FLOW_COLUMNS: &str =
    "f.id, f.learner_id, f.topic, f.goal, f.mind_map_id, f.status, f.version, f.session_count, f.state, \
     f.started_at, f.last_session_at";
pub(crate) const JOB_COLUMNS: &str = "id, kind, name, learner_id, mind_map_id, node_id, payload, cron, run_at, \
     expires_at, attempts, last_error, created_at";
pub(crate) const RUN_COLUMNS: &str =
    "job_id, kind, learner_id, mind_map_id, scheduled_for, worker, outcome, detail, finished_at";

/// The refusal of a compare-and-set whose flow moved on since it was read.
pub(crate) fn stale_flow(read: i64, stored: i64) -> crate::StoreError {
    crate::StoreError::Rejected(pathwise_domain::DomainError::Conflict {
        message: format!(
            "the flow changed since it was read (it is at version {stored}, this step read version {read}); \
             read it again and retry"
        ),
    })
}

macro_rules! loop_store {
    ($store:ty, $db:ty, $for_update:literal, $skip_locked:literal) => {
        use crate::learning_loop::{
            FinishedJob, FlowStore, Job, JobNext, JobRun, JobStore, PreferenceStore, Preferences, ReviewDue, Snapshot,
            SnapshotStore,
        };
        use crate::sql_loop::{stale_flow, FLOW_COLUMNS, JOB_COLUMNS, RUN_COLUMNS};
        use chrono::NaiveDate;
        use pathwise_domain::flow::{Flow, FlowState};
        use pathwise_domain::{FlowId, FlowStatus, JobId};

        fn flow_from_row(row: &DbRow) -> StoreResult<Flow> {
            Ok(Flow {
                id: FlowId(row.try_get("id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                topic: row.try_get("topic")?,
                goal: row.try_get("goal")?,
                mind_map_id: row.try_get::<Option<uuid::Uuid>, _>("mind_map_id")?.map(MindMapId),
                status: parse(row.try_get::<&str, _>("status")?)?,
                version: row.try_get("version")?,
                session_count: row.try_get("session_count")?,
                state: row.try_get::<Json<FlowState>, _>("state")?.0,
                started_at: row.try_get::<Ts, _>("started_at")?.0,
                last_session_at: row.try_get::<Ts, _>("last_session_at")?.0,
            })
        }

        fn job_from_row(row: &DbRow) -> StoreResult<Job> {
            Ok(Job {
                id: JobId(row.try_get("id")?),
                kind: parse(row.try_get::<&str, _>("kind")?)?,
                name: row.try_get("name")?,
                learner_id: row.try_get::<Option<uuid::Uuid>, _>("learner_id")?.map(LearnerId),
                mind_map_id: row.try_get::<Option<uuid::Uuid>, _>("mind_map_id")?.map(MindMapId),
                node_id: row.try_get::<Option<uuid::Uuid>, _>("node_id")?.map(NodeId),
                payload: row.try_get::<Json<serde_json::Value>, _>("payload")?.0,
                cron: row.try_get("cron")?,
                run_at: row.try_get::<Ts, _>("run_at")?.0,
                expires_at: row.try_get::<Option<Ts>, _>("expires_at")?.map(|t| t.0),
                attempts: row.try_get("attempts")?,
                last_error: row.try_get("last_error")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        fn run_from_row(row: &DbRow) -> StoreResult<JobRun> {
            Ok(JobRun {
                job_id: JobId(row.try_get("job_id")?),
                kind: parse(row.try_get::<&str, _>("kind")?)?,
                learner_id: row.try_get::<Option<uuid::Uuid>, _>("learner_id")?.map(LearnerId),
                mind_map_id: row.try_get::<Option<uuid::Uuid>, _>("mind_map_id")?.map(MindMapId),
                scheduled_for: row.try_get::<Ts, _>("scheduled_for")?.0,
                worker: row.try_get("worker")?,
                outcome: parse(row.try_get::<&str, _>("outcome")?)?,
                detail: row.try_get("detail")?,
                finished_at: row.try_get::<Ts, _>("finished_at")?.0,
            })
        }

        fn snapshot_from_row(row: &DbRow) -> StoreResult<Snapshot> {
            Ok(Snapshot {
                mind_map_id: MindMapId(row.try_get("mind_map_id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                snapshot_date: row.try_get::<NaiveDate, _>("snapshot_date")?,
                metrics: row.try_get::<Json<serde_json::Value>, _>("metrics")?.0,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        /// `sql` with a job's columns bound as `$1..$13`, in `JOB_COLUMNS` order.
        fn bind_job<'q>(sql: &'q str, job: &'q Job) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
            sqlx::query(sql)
            .bind(job.id.0)
            .bind(job.kind.as_str())
            .bind(&job.name)
            .bind(job.learner_id.map(|l| l.0))
            .bind(job.mind_map_id.map(|m| m.0))
            .bind(job.node_id.map(|n| n.0))
            .bind(Json(&job.payload))
            .bind(&job.cron)
            .bind(Ts(job.run_at))
            .bind(job.expires_at.map(Ts))
            .bind(job.attempts)
            .bind(&job.last_error)
            .bind(Ts(job.created_at))
        }

        async fn insert_job_row(conn: &mut Conn, job: &Job) -> StoreResult<()> {
            let sql = format!("INSERT INTO jobs ({JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)");
            bind_job(&sql, job).execute(&mut *conn).await?;
            Ok(())
        }

        /// Compare-and-set: the stored flow must still be at the version before this one.
        async fn save_flow_row(conn: &mut Conn, flow: &Flow) -> StoreResult<()> {
            let read = flow.version - 1;
            let done = sqlx::query(
                "UPDATE teaching_flows SET topic = $3, goal = $4, mind_map_id = $5, status = $6, version = $7, \
                 session_count = $8, state = $9, last_session_at = $10 \
                 WHERE id = $1 AND learner_id = $2 AND version = $11",
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
            .bind(Ts(flow.last_session_at))
            .bind(read)
            .execute(&mut *conn)
            .await?;
            if done.rows_affected() == 1 {
                return Ok(());
            }
            let stored: Option<i64> =
                sqlx::query_scalar("SELECT version FROM teaching_flows WHERE id = $1 AND learner_id = $2")
                    .bind(flow.id.0)
                    .bind(flow.learner_id.0)
                    .fetch_optional(&mut *conn)
                    .await?;
            match stored {
                None => Err(StoreError::NotFound("flow")),
                Some(stored) => Err(stale_flow(read, stored)),
            }
        }

        impl FlowStore for $store {
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
                sqlx::query(&sql).bind(id.0).bind(learner.0).fetch_optional(self.reader()).await?.as_ref().map(flow_from_row).transpose()
            }

            async fn flow_for_map(&self, learner: LearnerId, map: MindMapId) -> StoreResult<Option<Flow>> {
                let sql = format!("SELECT {FLOW_COLUMNS} FROM teaching_flows f WHERE f.mind_map_id = $1 AND f.learner_id = $2");
                sqlx::query(&sql).bind(map.0).bind(learner.0).fetch_optional(self.reader()).await?.as_ref().map(flow_from_row).transpose()
            }

            async fn list_flows(&self, learner: LearnerId, status: Option<FlowStatus>, offset: i64, limit: i64) -> StoreResult<Page<Flow>> {
                let filter = if status.is_some() { " AND f.status = $2" } else { "" };
                let count_sql = format!("SELECT COUNT(*) FROM teaching_flows f WHERE f.learner_id = $1{filter}");
                let page_sql = format!(
                    "SELECT {FLOW_COLUMNS} FROM teaching_flows f WHERE f.learner_id = $1{filter} \
                     ORDER BY f.started_at DESC, f.id LIMIT {limit} OFFSET {offset}"
                );
                let mut count = sqlx::query_scalar::<_, i64>(&count_sql).bind(learner.0);
                let mut page = sqlx::query(&page_sql).bind(learner.0);
                if let Some(status) = status {
                    count = count.bind(status.as_str());
                    page = page.bind(status.as_str());
                }
                let total = count.fetch_one(self.reader()).await?;
                let items = page.fetch_all(self.reader()).await?.iter().map(flow_from_row).collect::<StoreResult<_>>()?;
                Ok(Page { items, total: total as u64 })
            }

            async fn save_flow(&self, flow: &Flow) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                save_flow_row(&mut tx, flow).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn save_flow_with_map(&self, flow: &Flow, map: &MindMap, changes: &MapChanges) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                insert_map_row(&mut tx, map).await?;
                apply_changes(&mut tx, changes).await?;
                save_flow_row(&mut tx, flow).await?;
                tx.commit().await?;
                Ok(())
            }

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
                    sqlx::query("UPDATE mind_maps SET status = 'abandoned', updated_at = $2 WHERE id = $1 AND status = 'active'")
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

        impl JobStore for $store {
            async fn insert_jobs(&self, jobs: &[Job]) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                for job in jobs {
                    insert_job_row(&mut tx, job).await?;
                }
                tx.commit().await?;
                Ok(())
            }

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

            async fn claim_due_jobs(&self, worker: &str, now: DateTime<Utc>, lease_until: DateTime<Utc>, limit: i64) -> StoreResult<Vec<Job>> {
                let sql = format!(
                    "UPDATE jobs SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 \
                     WHERE id IN (SELECT id FROM jobs WHERE run_at <= $3 AND (lease_until IS NULL OR lease_until <= $3) \
                     ORDER BY run_at LIMIT $4 {}) RETURNING {JOB_COLUMNS}",
                    $skip_locked
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

            async fn finish_jobs(&self, finished: &[FinishedJob]) -> StoreResult<u64> {
                let mut tx = self.begin_write().await?;
                let mut recorded = 0;
                for f in finished {
                    let moved = match &f.next {
                        JobNext::Delete => sqlx::query("DELETE FROM jobs WHERE id = $1 AND lease_owner = $2")
                            .bind(f.job.id.0)
                            .bind(&f.worker)
                            .execute(&mut *tx)
                            .await?,
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

            async fn replace_review_jobs<F>(&self, learner: LearnerId, map: MindMapId, now: DateTime<Utc>, plan: F) -> StoreResult<usize>
            where
                F: FnOnce(&ReviewDue) -> Vec<Job> + Send + 'static,
            {
                let mut tx = self.begin_write().await?;
                let status: Option<String> = sqlx::query_scalar(&format!(
                    "SELECT status FROM mind_maps WHERE id = $1 AND learner_id = $2 {}",
                    $for_update
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

            async fn list_jobs(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Job>> {
                let sql = format!(
                    "SELECT {JOB_COLUMNS} FROM jobs WHERE learner_id = $1{} ORDER BY run_at, id",
                    map_filter(map, "mind_map_id", 2)
                );
                let query = sqlx::query(&sql).bind(learner.0);
                bind_map(query, map).fetch_all(self.reader()).await?.iter().map(job_from_row).collect()
            }

            async fn recurring_jobs(&self) -> StoreResult<Vec<Job>> {
                let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE name IS NOT NULL ORDER BY name");
                sqlx::query(&sql).fetch_all(self.reader()).await?.iter().map(job_from_row).collect()
            }

            async fn job_runs(&self, learner: Option<LearnerId>, limit: i64) -> StoreResult<Vec<JobRun>> {
                let filter = if learner.is_some() { "WHERE learner_id = $1" } else { "" };
                let sql = format!("SELECT {RUN_COLUMNS} FROM job_runs {filter} ORDER BY finished_at DESC, seq DESC LIMIT {limit}");
                let mut query = sqlx::query(&sql);
                if let Some(learner) = learner {
                    query = query.bind(learner.0);
                }
                query.fetch_all(self.reader()).await?.iter().map(run_from_row).collect()
            }
        }

        impl PreferenceStore for $store {
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

            async fn node_fsrs(&self, learner: LearnerId, node: NodeId) -> StoreResult<Option<crate::learning_loop::NodeFsrs>> {
                let row = sqlx::query(
                    "SELECT f.stability, f.difficulty FROM node_fsrs f JOIN mind_map_nodes n ON n.id = f.node_id \
                     JOIN mind_maps m ON m.id = n.mind_map_id WHERE f.node_id = $1 AND m.learner_id = $2",
                )
                .bind(node.0)
                .bind(learner.0)
                .fetch_optional(self.reader())
                .await?;
                row.map(|r| {
                    let (stability, difficulty) = (r.try_get("stability")?, r.try_get("difficulty")?);
                    Ok(crate::learning_loop::NodeFsrs { stability, difficulty })
                })
                .transpose()
            }

            async fn apply_fsrs(
                &self,
                learner: LearnerId,
                node: NodeId,
                memory: crate::learning_loop::NodeFsrs,
                interval_days: f64,
                next_review_at: DateTime<Utc>,
                reviewed_at: DateTime<Utc>,
            ) -> StoreResult<bool> {
                let mut tx = self.begin_write().await?;
                let moved = sqlx::query(
                    "UPDATE mind_map_nodes SET interval_days = $3, next_review_at = $4, version = version + 1 \
                     WHERE id = $1 AND last_reviewed_at = $5 \
                     AND mind_map_id IN (SELECT id FROM mind_maps WHERE learner_id = $2)",
                )
                .bind(node.0)
                .bind(learner.0)
                .bind(interval_days)
                .bind(Ts(next_review_at))
                .bind(Ts(reviewed_at))
                .execute(&mut *tx)
                .await?;
                if moved.rows_affected() == 0 {
                    return Ok(false);
                }
                sqlx::query(
                    "INSERT INTO node_fsrs (node_id, stability, difficulty, updated_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (node_id) DO UPDATE SET stability = excluded.stability, \
                     difficulty = excluded.difficulty, updated_at = excluded.updated_at",
                )
                .bind(node.0)
                .bind(memory.stability)
                .bind(memory.difficulty)
                .bind(Ts(reviewed_at))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn learner_fsrs(&self, learner: LearnerId) -> StoreResult<Option<crate::learning_loop::LearnerFsrs>> {
                let row = sqlx::query(
                    "SELECT weights, reviews, fitted_on_reviews, initial_stability_only, checked_reviews, log_loss, \
                     default_log_loss, reason, fitted_at FROM learner_fsrs WHERE learner_id = $1",
                )
                .bind(learner.0)
                .fetch_optional(self.reader())
                .await?;
                row.map(|r| {
                    Ok(crate::learning_loop::LearnerFsrs {
                        weights: r.try_get::<Option<Json<Vec<f32>>>, _>("weights")?.map(|w| w.0),
                        reviews: i64::from(r.try_get::<i32, _>("reviews")?),
                        fitted_on_reviews: i64::from(r.try_get::<i32, _>("fitted_on_reviews")?),
                        initial_stability_only: r.try_get("initial_stability_only")?,
                        checked_reviews: i64::from(r.try_get::<i32, _>("checked_reviews")?),
                        log_loss: r.try_get("log_loss")?,
                        default_log_loss: r.try_get("default_log_loss")?,
                        reason: r.try_get("reason")?,
                        fitted_at: r.try_get::<Ts, _>("fitted_at")?.0,
                    })
                })
                .transpose()
            }

            async fn set_learner_fsrs(&self, learner: LearnerId, fit: &crate::learning_loop::LearnerFsrs) -> StoreResult<()> {
                let count = |n: i64| i32::try_from(n).map_err(StoreError::corrupt);
                sqlx::query(
                    "INSERT INTO learner_fsrs (learner_id, weights, reviews, fitted_on_reviews, initial_stability_only, \
                     checked_reviews, log_loss, default_log_loss, reason, fitted_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (learner_id) DO UPDATE SET \
                     weights = excluded.weights, reviews = excluded.reviews, fitted_on_reviews = excluded.fitted_on_reviews, \
                     initial_stability_only = excluded.initial_stability_only, checked_reviews = excluded.checked_reviews, \
                     log_loss = excluded.log_loss, default_log_loss = excluded.default_log_loss, \
                     reason = excluded.reason, fitted_at = excluded.fitted_at",
                )
                .bind(learner.0)
                .bind(fit.weights.as_ref().map(Json))
                .bind(count(fit.reviews)?)
                .bind(count(fit.fitted_on_reviews)?)
                .bind(fit.initial_stability_only)
                .bind(count(fit.checked_reviews)?)
                .bind(fit.log_loss)
                .bind(fit.default_log_loss)
                .bind(fit.reason.as_deref())
                .bind(Ts(fit.fitted_at))
                .execute(self.writer())
                .await?;
                Ok(())
            }

            async fn replace_fsrs_memories(
                &self,
                learner: LearnerId,
                memories: &[(NodeId, crate::learning_loop::NodeFsrs)],
                now: DateTime<Utc>,
            ) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                sqlx::query(
                    "DELETE FROM node_fsrs WHERE node_id IN (SELECT n.id FROM mind_map_nodes n \
                     JOIN mind_maps m ON m.id = n.mind_map_id WHERE m.learner_id = $1)",
                )
                .bind(learner.0)
                .execute(&mut *tx)
                .await?;
                for (node, memory) in memories {
                    sqlx::query(
                        "INSERT INTO node_fsrs (node_id, stability, difficulty, updated_at) \
                         SELECT n.id, $3, $4, $5 FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
                         WHERE n.id = $1 AND m.learner_id = $2",
                    )
                    .bind(node.0)
                    .bind(learner.0)
                    .bind(memory.stability)
                    .bind(memory.difficulty)
                    .bind(Ts(now))
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn fsrs_learners(&self) -> StoreResult<Vec<LearnerId>> {
                let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
                    "SELECT learner_id FROM learner_preferences WHERE srs_scheduler = 'fsrs' ORDER BY learner_id",
                )
                .fetch_all(self.reader())
                .await?;
                Ok(ids.into_iter().map(LearnerId).collect())
            }

            async fn set_preferences(&self, learner: LearnerId, preferences: &Preferences, now: DateTime<Utc>) -> StoreResult<()> {
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

        impl SnapshotStore for $store {
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

            async fn maps_with_status(&self, status: MapStatus) -> StoreResult<Vec<MindMap>> {
                let sql = format!("SELECT {MAP_COLUMNS} FROM mind_maps m WHERE m.status = $1 ORDER BY m.learner_id, m.created_at, m.id");
                sqlx::query(&sql).bind(status.as_str()).fetch_all(self.reader()).await?.iter().map(map_from_row).collect()
            }

            async fn all_learners(&self) -> StoreResult<Vec<Learner>> {
                sqlx::query("SELECT id, name, is_local, created_at FROM learners ORDER BY created_at, id")
                    .fetch_all(self.reader())
                    .await?
                    .iter()
                    .map(learner_from_row)
                    .collect()
            }

            async fn learner(&self, id: LearnerId) -> StoreResult<Option<Learner>> {
                sqlx::query("SELECT id, name, is_local, created_at FROM learners WHERE id = $1")
                    .bind(id.0)
                    .fetch_optional(self.reader())
                    .await?
                    .as_ref()
                    .map(learner_from_row)
                    .transpose()
            }
        }
    };
}

pub(crate) use loop_store;
