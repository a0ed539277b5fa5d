//! The learning loop's row readers and writers (flows, jobs, snapshots), which its
//! capabilities' bodies (`learning_loop.rs`) share; stamped into each backend's module next
//! to `shared_store!`, whose imports they use.

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
    ($store:ty, $db:ty) => {
        pub(crate) use crate::learning_loop::{Job, JobNext, JobRun, Preferences, ReviewDue, Snapshot};
        pub(crate) use crate::sql_loop::{stale_flow, FLOW_COLUMNS, JOB_COLUMNS, RUN_COLUMNS};
        pub(crate) use chrono::NaiveDate;
        pub(crate) use pathwise_domain::flow::{Flow, FlowState};
        pub(crate) use pathwise_domain::{FlowId, JobId};

        pub(crate) fn flow_from_row(row: &DbRow) -> StoreResult<Flow> {
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

        pub(crate) fn job_from_row(row: &DbRow) -> StoreResult<Job> {
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

        pub(crate) fn run_from_row(row: &DbRow) -> StoreResult<JobRun> {
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

        pub(crate) fn snapshot_from_row(row: &DbRow) -> StoreResult<Snapshot> {
            Ok(Snapshot {
                mind_map_id: MindMapId(row.try_get("mind_map_id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                snapshot_date: row.try_get::<NaiveDate, _>("snapshot_date")?,
                metrics: row.try_get::<Json<serde_json::Value>, _>("metrics")?.0,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        /// `sql` with a job's columns bound as `$1..$13`, in `JOB_COLUMNS` order.
        pub(crate) fn bind_job<'q>(
            sql: &'q str,
            job: &'q Job,
        ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
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

        pub(crate) async fn insert_job_row(conn: &mut Conn, job: &Job) -> StoreResult<()> {
            let sql = format!(
                "INSERT INTO jobs ({JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
            );
            bind_job(&sql, job).execute(&mut *conn).await?;
            Ok(())
        }

        /// Compare-and-set: the stored flow must still be at the version before this one.
        pub(crate) async fn save_flow_row(conn: &mut Conn, flow: &Flow) -> StoreResult<()> {
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
    };
}

pub(crate) use loop_store;
