//! The embedded store: one SQLite file in WAL mode, a single sqlx writer connection
//! (SQLite allows one writer at a time, so queueing in the pool beats retrying on
//! SQLITE_BUSY), the response writer thread (sqlite_batch.rs) and a few read-only
//! connections.

use crate::sql::shared_store;
use crate::sqlite_batch::ResponseWriter;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, Transaction};
use std::path::{Path, PathBuf};
use std::time::Duration;

shared_store!(SqliteStore, sqlx::Sqlite, "");
crate::sql_loop::loop_store!(SqliteStore, sqlx::Sqlite, "", "");
crate::sql_sessions::sessions_store!(SqliteStore);
crate::sql_tutor::tutor_store!(SqliteStore, "");

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

#[derive(Clone)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    responses: ResponseWriter,
    path: PathBuf,
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
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Config(format!("cannot create data directory {}: {e}", dir.display())))?;
        }
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
        Ok(SqliteStore { writer, reader, responses, path: path.to_path_buf() })
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
        F: Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync + 'static,
    {
        self.responses.record(learner, new, Box::new(decide)).await
    }
}
