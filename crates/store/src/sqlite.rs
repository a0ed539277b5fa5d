//! The embedded store: one SQLite file in WAL mode, a single sqlx writer connection
//! (SQLite allows one writer at a time, so queueing in the pool beats retrying on
//! SQLITE_BUSY), the response writer thread (sqlite_batch.rs) and a few read-only
//! connections.

use crate::private_files;
use crate::sql::shared_store;
use crate::sqlite_batch::ResponseWriter;
use crate::sqlite_lock::{file_identity, DatabaseLock};
use crate::sqlite_read::ReadConnections;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, Transaction};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

mod live_reads;

shared_store!(SqliteStore, sqlx::Sqlite);
crate::sql_loop::loop_store!(SqliteStore, sqlx::Sqlite);
crate::sql_sessions::sessions_store!(SqliteStore);
crate::sql_tutor::tutor_store!(SqliteStore);
crate::sql_authoring::authoring_store!(SqliteStore, sqlx::Sqlite);
crate::evidence::evidence_store!(SqliteStore);
crate::history_import::import_store!(SqliteStore, sqlx::Sqlite);
crate::analytics::analytics_store!(SqliteStore);
crate::admin::admin_store!(SqliteStore, sqlx::Sqlite);

/// A node's qualities as SQLite keeps them (comma-separated text), read.
fn read_qualities(kept: String) -> StoreResult<Vec<u8>> {
    crate::sql::qualities_of(&kept)
}

/// SQLite has one writer at a time, so no row is locked or skipped; a read-only
/// transaction is one snapshot already.
impl SqlBackend for SqliteStore {
    const MAP_LOCK: &'static str = "";
    const ROW_LOCK: &'static str = "";
    const SKIP_LOCKED: &'static str = "";
    const SNAPSHOT: Option<&'static str> = None;
    type Qualities = String;

    fn read_qualities(kept: String) -> StoreResult<Vec<u8>> {
        read_qualities(kept)
    }

    fn write_qualities(qualities: &[u8]) -> String {
        crate::sqlite_batch::list_of(qualities)
    }
}

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

#[derive(Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    responses: ResponseWriter,
    /// For the reads of many rows (`sqlite_read.rs`).
    many_rows: ReadConnections,
    /// Shared: the store is cloned into every service that holds it, and a clone should
    /// cost reference counts only.
    path: Arc<Path>,
    /// Held while the store is open, so that a restore is refused meanwhile.
    _lock: Arc<DatabaseLock>,
    /// The database file as opened (device, inode), to notice it replaced under the store.
    identity: Option<(u64, u64)>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish()
    }
}

impl SqliteStore {
    pub(crate) const ENGINE: &'static str = "sqlite";

    /// Open (creating if needed) the database file at `path` and bring its schema up to date.
    pub async fn open(path: &Path) -> StoreResult<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            private_files::create_dir(dir)
                .map_err(|e| StoreError::Config(format!("cannot create data directory {}: {e}", dir.display())))?;
        }
        let lock = Arc::new(DatabaseLock::shared(path)?);
        private_files::restrict_database(path)
            .map_err(|e| StoreError::Config(format!("cannot make {} private: {e}", path.display())))?;
        let busy_timeout = Duration::from_secs(10);
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(busy_timeout)
            .page_size(2048);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            // A local file needs no liveness ping on every checkout.
            .test_before_acquire(false)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .test_before_acquire(false)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.read_only(true))
            .await?;
        let responses = ResponseWriter::start(path, busy_timeout)?;
        let many_rows = ReadConnections::new(path, busy_timeout);
        let identity = file_identity(path);
        Ok(SqliteStore { writer, reader, responses, many_rows, path: path.into(), _lock: lock, identity })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) async fn schema_status(&self) -> StoreResult<crate::SchemaStatus> {
        // A file put in place of the database under the store (a restore or a copy while the
        // server ran) is not what the store's connections have open: they would keep serving
        // the old one and fail every write.
        if let Some(why) = self.replaced() {
            return Err(StoreError::ReadOnly(why));
        }
        let applied: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success")
            .fetch_one(&self.reader)
            .await?;
        let expected = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        Ok(crate::SchemaStatus { applied, expected })
    }

    /// Why the store must not be used any more, if the file at its path is not the database
    /// it opened (a restore or a copy put another in its place while it ran): its
    /// connections would go on reading the old one, and its writes would be lost with it.
    /// One `stat`, cheap enough for every request.
    pub fn replaced(&self) -> Option<String> {
        (self.identity.is_some() && file_identity(&self.path) != self.identity).then(|| {
            format!(
                "{} was replaced while this server had it open; restart the server to serve the file there now",
                self.path.display()
            )
        })
    }

    pub(crate) fn pool_status(&self) -> crate::PoolStatus {
        let (writer, reader) = (&self.writer, &self.reader);
        let idle = |pool: &SqlitePool| u32::try_from(pool.num_idle()).unwrap_or(u32::MAX);
        crate::PoolStatus {
            open: writer.size() + reader.size(),
            idle: idle(writer) + idle(reader),
            max: writer.options().get_max_connections() + reader.options().get_max_connections(),
            write_queue: Some(self.responses.queue_depth()),
        }
    }

    pub(crate) fn reader(&self) -> &SqlitePool {
        &self.reader
    }

    pub(crate) fn writer(&self) -> &SqlitePool {
        &self.writer
    }

    /// `BEGIN IMMEDIATE` takes the write lock up front, so a transaction that reads before
    /// it writes can never fail to upgrade its lock half-way through.
    pub(crate) async fn begin_write(&self) -> StoreResult<Transaction<'static, Sqlite>> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// A tutor step's response, in the step's transaction (which holds SQLite's write
    /// lock): the same statements as the response writer's, through sqlx.
    pub(crate) async fn step_response(
        tx: &mut Transaction<'static, Sqlite>,
        learner: LearnerId,
        new: &NewResponse,
        decide: &crate::Decide,
    ) -> StoreResult<(QuizResponse, Node)> {
        use crate::sqlite_batch::{list_of, study_day, INSERT_RESPONSE_SQL, INSERT_STUDY_DAY_SQL, UPDATE_NODE_SQL};
        let row = sqlx::query(&crate::sql::CONTEXT_SQL)
            .bind(new.node_id.0)
            .bind(learner.0)
            .fetch_optional(&mut **tx)
            .await?
            .ok_or(StoreError::NotFound("node"))?;
        let context = crate::sql::context_from(&row)?;
        crate::sql::check_response_target(new, &context.node)?;
        let decision = decide(&context)?;
        let node = &decision.node;
        sqlx::query(UPDATE_NODE_SQL)
            .bind(node.id.0)
            .bind(node.mastery_score)
            .bind(node.mastery_status.as_str())
            .bind(node.ease_factor)
            .bind(node.repetitions)
            .bind(node.interval_days)
            .bind(node.next_review_at.map(Ts))
            .bind(node.last_reviewed_at.map(Ts))
            .bind(Ts(node.updated_at))
            .bind(list_of(&decision.history.qualities))
            .bind(list_of(&decision.history.review_qualities))
            .bind(i32::from(new.quality))
            .bind(node.mastered_at.map(Ts))
            .execute(&mut **tx)
            .await?;
        sqlx::query(INSERT_RESPONSE_SQL)
            .bind(new.id.0)
            .bind(new.node_id.0)
            .bind(new.mind_map_id.0)
            .bind(&new.question_text)
            .bind(&new.user_answer)
            .bind(i32::from(new.quality))
            .bind(new.response_type.as_str())
            .bind(new.session_id)
            .bind(Ts(new.responded_at))
            .bind(new.stored_key(learner))
            .bind(i32::from(new.rating.number()))
            .execute(&mut **tx)
            .await?;
        sqlx::query(INSERT_STUDY_DAY_SQL).bind(learner.0).bind(study_day(new.responded_at)).execute(&mut **tx).await?;
        if decision.became_mastered {
            sqlx::query(&crate::sql::COMPLETE_MAP_SQL)
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
        self.responses.record(learner, new, Box::new(decide)).await
    }
}
