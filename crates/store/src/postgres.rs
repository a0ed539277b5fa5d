//! The production store: PostgreSQL, shared safely by several server processes.

mod groups;
mod live_reads;

use crate::sql::{check_response_target, context_from, shared_store, COMPLETE_MAP_SQL, CONTEXT_SQL};
use groups::{too_many_attempts, ResponseGroups, MAX_ATTEMPTS};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};
use std::sync::Arc;

shared_store!(PgStore, sqlx::Postgres);
crate::sql_loop::loop_store!(PgStore, sqlx::Postgres);
crate::sql_sessions::sessions_store!(PgStore);
crate::sql_tutor::tutor_store!(PgStore);
crate::sql_authoring::authoring_store!(PgStore, sqlx::Postgres);
crate::evidence::evidence_store!(PgStore);
crate::history_import::import_store!(PgStore, sqlx::Postgres);
crate::analytics::analytics_store!(PgStore);
crate::admin::admin_store!(PgStore, sqlx::Postgres);

/// A node's qualities as PostgreSQL keeps them: a `smallint[]`.
fn qualities_array(qualities: &[u8]) -> Vec<i16> {
    qualities.iter().map(|&q| i16::from(q)).collect()
}

impl SqlBackend for PgStore {
    // `NO KEY UPDATE`: edits of one map exclude each other, but a response's foreign-key
    // check (`KEY SHARE` on its map) does not wait for them, so the two never wait on each
    // other in opposite orders.
    const MAP_LOCK: &'static str = "FOR NO KEY UPDATE";
    const ROW_LOCK: &'static str = "FOR UPDATE";
    const SKIP_LOCKED: &'static str = "FOR UPDATE SKIP LOCKED";
    // An export reads every table of a learner as of one moment.
    const SNAPSHOT: Option<&'static str> = Some("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    type Qualities = Vec<i16>;

    fn read_qualities(kept: Vec<i16>) -> StoreResult<Vec<u8>> {
        crate::sql::qualities_of_array(kept)
    }

    fn write_qualities(qualities: &[u8]) -> Vec<i16> {
        qualities_array(qualities)
    }
}

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The node update (the response counted in its totals), the learner's study day and the
/// response insert as one statement: atomic without an explicit transaction, and the
/// inserts happen only if the node is still at the version read.
const WRITE_SQL: &str = "WITH updated AS ( \
       UPDATE mind_map_nodes SET mastery_score = $3, mastery_status = $4, ease_factor = $5, repetitions = $6, \
         interval_days = $7, next_review_at = $8, last_reviewed_at = $9, updated_at = $10, \
         recent_qualities = $18, recent_review_qualities = $19, response_count = response_count + 1, \
         quality_sum = quality_sum + $14, mastered_at = $22, version = version + 1 \
       WHERE id = $1 AND version = $2 RETURNING id, mind_map_id), \
     studied AS ( \
       INSERT INTO study_days (learner_id, day) SELECT $21, ($17 AT TIME ZONE 'UTC')::date FROM updated \
       ON CONFLICT DO NOTHING) \
     INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, user_answer, quality, response_type, \
       session_id, responded_at, idempotency_key, rating) \
     SELECT $11, updated.id, updated.mind_map_id, $12, $13, $14, $15, $16, $17, $20, $23 FROM updated";

#[derive(Clone, Debug)]
pub struct PgStore {
    pool: PgPool,
    groups: Arc<ResponseGroups>,
}

impl PgStore {
    pub(crate) const ENGINE: &'static str = "postgres";

    pub(crate) async fn schema_status(&self) -> StoreResult<crate::SchemaStatus> {
        let applied: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success")
            .fetch_one(&self.pool)
            .await?;
        let expected = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        Ok(crate::SchemaStatus { applied, expected })
    }

    pub(crate) fn pool_status(&self) -> crate::PoolStatus {
        crate::PoolStatus {
            open: self.pool.size(),
            idle: u32::try_from(self.pool.num_idle()).unwrap_or(u32::MAX),
            max: self.pool.options().get_max_connections(),
            write_queue: None,
        }
    }

    /// Connect and bring the schema up to date.
    pub async fn connect(url: &str, max_connections: u32) -> StoreResult<Self> {
        let options: PgConnectOptions =
            url.parse().map_err(|e| StoreError::Config(format!("database URL is not a valid PostgreSQL URL: {e}")))?;
        Self::connect_with(options, max_connections).await
    }

    pub async fn connect_with(options: PgConnectOptions, max_connections: u32) -> StoreResult<Self> {
        let pool = PgPoolOptions::new().max_connections(max_connections).connect_with(options).await?;
        MIGRATOR.run(&pool).await?;
        Ok(PgStore { pool, groups: Arc::default() })
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    pub(crate) fn reader(&self) -> &PgPool {
        &self.pool
    }

    pub(crate) fn writer(&self) -> &PgPool {
        &self.pool
    }

    pub(crate) async fn begin_write(&self) -> StoreResult<Transaction<'static, Postgres>> {
        Ok(self.pool.begin().await?)
    }

    /// A tutor step's response, in the step's transaction, in the order the lone response
    /// path takes its locks (the map's, when the node becomes mastered, then the node's):
    /// a node another server wrote meanwhile fails the step with a conflict, and the step
    /// is tried again.
    pub(crate) async fn step_response(
        tx: &mut Transaction<'static, Postgres>,
        learner: LearnerId,
        new: &NewResponse,
        decide: &crate::Decide,
    ) -> StoreResult<(QuizResponse, Node)> {
        let (context, version) = read_context(&mut **tx, learner, new).await?;
        let decision = decide(&context)?;
        if decision.became_mastered {
            sqlx::query("SELECT 1 FROM mind_maps WHERE id = $1 FOR NO KEY UPDATE")
                .bind(new.mind_map_id.0)
                .execute(&mut **tx)
                .await?;
        }
        if !write(tx, new, learner, &decision, version).await? {
            return Err(StoreError::Rejected(DomainError::Conflict {
                message: "the concept's mastery changed meanwhile (another answer was recorded); try again".into(),
            }));
        }
        if decision.became_mastered {
            sqlx::query(&COMPLETE_MAP_SQL)
                .bind(new.mind_map_id.0)
                .bind(Ts(new.responded_at))
                .execute(&mut **tx)
                .await?;
        }
        Ok((new.response.clone(), decision.node))
    }

    pub(crate) async fn record_response_impl<F>(
        &self,
        learner: LearnerId,
        new: NewResponse,
        decide: F,
    ) -> StoreResult<(QuizResponse, Node)>
    where
        F: Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync + 'static,
    {
        self.groups.record(&self.pool, learner, new, Box::new(decide)).await
    }
}

/// What the mastery rules read before a response, and the node's version a write must find.
async fn read_context<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    learner: LearnerId,
    new: &NewResponse,
) -> StoreResult<(ResponseContext, i64)> {
    let row = sqlx::query(&CONTEXT_SQL)
        .bind(new.node_id.0)
        .bind(learner.0)
        .fetch_optional(executor)
        .await?
        .ok_or(StoreError::NotFound("node"))?;
    let context = context_from(&row)?;
    check_response_target(new, &context.node)?;
    let version: i64 = row.try_get("version")?;
    Ok((context, version))
}

/// One response on its own: read, decide, write guarded by the node's version, and when
/// the node becomes mastered, complete the map under the map's lock.
async fn record_alone(
    pool: &PgPool,
    learner: LearnerId,
    new: &NewResponse,
    decide: &crate::BoxedDecide,
) -> StoreResult<(QuizResponse, Node)> {
    for _ in 0..MAX_ATTEMPTS {
        let (context, version) = read_context(pool, learner, new).await?;
        let decision = decide(&context)?;
        let written = if decision.became_mastered {
            // Lock the map so that two nodes mastered at once still complete it.
            let mut tx = pool.begin().await?;
            sqlx::query("SELECT 1 FROM mind_maps WHERE id = $1 FOR NO KEY UPDATE")
                .bind(new.mind_map_id.0)
                .execute(&mut *tx)
                .await?;
            let written = write(&mut tx, new, learner, &decision, version).await?;
            if written {
                sqlx::query(&COMPLETE_MAP_SQL)
                    .bind(new.mind_map_id.0)
                    .bind(Ts(new.responded_at))
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
            }
            written
        } else {
            let mut conn = pool.acquire().await?;
            write(&mut conn, new, learner, &decision, version).await?
        };
        if written {
            return Ok((new.response.clone(), decision.node));
        }
    }
    Err(too_many_attempts())
}

async fn write(
    conn: &mut Conn,
    new: &NewResponse,
    learner: LearnerId,
    decision: &ResponseDecision,
    version: i64,
) -> StoreResult<bool> {
    let (node, history) = (&decision.node, &decision.history);
    let done = sqlx::query(WRITE_SQL)
        .bind(node.id.0)
        .bind(version)
        .bind(node.mastery_score)
        .bind(node.mastery_status.as_str())
        .bind(node.ease_factor)
        .bind(node.repetitions)
        .bind(node.interval_days)
        .bind(node.next_review_at.map(Ts))
        .bind(node.last_reviewed_at.map(Ts))
        .bind(Ts(node.updated_at))
        .bind(new.id.0)
        .bind(&new.question_text)
        .bind(&new.user_answer)
        .bind(i32::from(new.quality))
        .bind(new.response_type.as_str())
        .bind(new.session_id)
        .bind(Ts(new.responded_at))
        .bind(history.qualities.iter().map(|&q| i16::from(q)).collect::<Vec<_>>())
        .bind(history.review_qualities.iter().map(|&q| i16::from(q)).collect::<Vec<_>>())
        .bind(new.stored_key(learner))
        .bind(learner.0)
        .bind(node.mastered_at.map(Ts))
        .bind(i32::from(new.rating.number()))
        .execute(&mut *conn)
        .await
        .map_err(duplicate_key)?;
    Ok(done.rows_affected() == 1)
}

/// A second response with an idempotency key already used is refused as a duplicate,
/// whichever server stored the first.
pub(crate) fn duplicate_key(error: sqlx::Error) -> StoreError {
    match &error {
        sqlx::Error::Database(db) if db.constraint() == Some("idx_qr_idempotency") => {
            StoreError::Duplicate("a response with this idempotency key")
        }
        _ => StoreError::Database(error),
    }
}
