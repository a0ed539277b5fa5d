//! The embedded store: one SQLite file in WAL mode, a single writer connection (SQLite
//! allows one writer at a time, so queueing in the pool beats retrying on SQLITE_BUSY) and
//! a few read-only connections.

use crate::sql::shared_store;
use pathwise_domain::mastery::RecentHistory;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, Transaction};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

shared_store!(SqliteStore, sqlx::Sqlite, "");

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// The node, its map's status, its version and its recent history in one statement.
/// History comes back as comma-separated qualities, newest first (SQLite has no arrays).
static CONTEXT_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {NODE_COLUMNS}, m.status, n.version, \
           (SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM ( \
              SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses \
              WHERE node_id = n.id ORDER BY responded_at DESC, seq DESC LIMIT {any})), \
           (SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM ( \
              SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses \
              WHERE node_id = n.id AND response_type = 'review' ORDER BY responded_at DESC, seq DESC LIMIT {reviews})) \
         FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id WHERE n.id = $1 AND m.learner_id = $2",
        any = crate::HISTORY_ANY,
        reviews = crate::HISTORY_REVIEWS,
    )
});

#[derive(Clone, Debug)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    path: PathBuf,
}

impl SqliteStore {
    pub(crate) const ENGINE: &'static str = "sqlite";

    /// Open (creating if needed) the database file at `path` and bring its schema up to date.
    pub async fn open(path: &Path) -> StoreResult<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Config(format!("cannot create data directory {}: {e}", dir.display())))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.read_only(true))
            .await?;
        Ok(SqliteStore { writer, reader, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    /// `BEGIN IMMEDIATE` takes the write lock up front, so a transaction that reads before
    /// it writes can never fail to upgrade its lock half-way through.
    async fn begin_write(&self) -> StoreResult<Transaction<'static, Sqlite>> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    async fn record_response_impl<F>(
        &self,
        learner: LearnerId,
        new: NewResponse,
        decide: F,
    ) -> StoreResult<(QuizResponse, Node)>
    where
        F: Fn(&ResponseContext) -> Result<ResponseDecision, DomainError>,
    {
        let mut tx = self.begin_write().await?;
        let row = sqlx::query(&CONTEXT_SQL)
            .bind(new.node_id.0)
            .bind(learner.0)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(StoreError::NotFound("node"))?;
        let node = node_from_row(&row)?;
        check_response_target(&new, &node)?;
        let map_status: MapStatus = parse(&row.try_get::<String, _>(17)?)?;
        let version: i64 = row.try_get(18)?;
        let qualities = qualities_of(row.try_get(19)?)?;
        let review_qualities = qualities_of(row.try_get(20)?)?;
        let context = ResponseContext { map_status, node, history: RecentHistory { qualities, review_qualities } };
        let decision = decide(&context)?;
        if !write_response(&mut tx, &new, &decision.node, version).await? {
            return Err(StoreError::corrupt("node changed inside its own write transaction"));
        }
        if decision.became_mastered {
            complete_map_if_all_mastered(&mut tx, new.mind_map_id, new.responded_at).await?;
        }
        tx.commit().await?;
        Ok((response_of(&new), decision.node))
    }
}

fn qualities_of(list: Option<String>) -> StoreResult<Vec<u8>> {
    list.as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|q| !q.is_empty())
        .map(|q| q.parse::<u8>().map_err(StoreError::corrupt))
        .collect()
}

/// Insert a response row and write the node's new mastery state; `false` if the
/// node changed since it was read (its version moved on).
async fn write_response(conn: &mut Conn, new: &NewResponse, node: &Node, version: i64) -> StoreResult<bool> {
    let updated = sqlx::query(
        "UPDATE mind_map_nodes SET mastery_score = $3, mastery_status = $4, ease_factor = $5, \
         repetitions = $6, interval_days = $7, next_review_at = $8, last_reviewed_at = $9, \
         updated_at = $10, version = version + 1 WHERE id = $1 AND version = $2",
    )
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
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() != 1 {
        return Ok(false);
    }
    insert_response_row(conn, new).await?;
    Ok(true)
}

async fn insert_response_row(conn: &mut Conn, new: &NewResponse) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, user_answer, quality, \
         response_type, session_id, responded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(new.id.0)
    .bind(new.node_id.0)
    .bind(new.mind_map_id.0)
    .bind(&new.question_text)
    .bind(&new.user_answer)
    .bind(i32::from(new.quality))
    .bind(new.response_type.as_str())
    .bind(new.session_id)
    .bind(Ts(new.responded_at))
    .execute(&mut *conn)
    .await?;
    Ok(())
}
