//! Reads of many rows on SQLite, through rusqlite.
//!
//! sqlx hands each SQLite row from the connection's thread to the caller as a message of
//! its own, which costs several microseconds a row on a small machine: a learner's
//! portfolio reads every node of every map (1,500 rows for 30 maps of 50), and that
//! hand-over alone was most of the read. These few reads run instead on a blocking thread
//! with a read-only rusqlite connection of their own, kept for the next read, and decode
//! the rows where they are read. Their SQL is the same as PostgreSQL's.

use crate::analytics::NodeActivity;
use crate::sqlite_batch::{node_from, qualities_of, sqlite_error};
use crate::{StoreError, StoreResult};
use pathwise_domain::{LearnerId, MindMapId};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Connections kept between reads; more are opened while more reads run at once.
const KEPT: usize = 4;

/// Read-only connections to the database file, opened on first use.
#[derive(Clone)]
pub(crate) struct ReadConnections {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    busy_timeout: Duration,
    idle: Mutex<Vec<rusqlite::Connection>>,
}

impl ReadConnections {
    pub(crate) fn new(path: &Path, busy_timeout: Duration) -> Self {
        ReadConnections {
            inner: Arc::new(Inner { path: path.to_path_buf(), busy_timeout, idle: Mutex::new(Vec::new()) }),
        }
    }

    /// Run `read` with a connection on a blocking thread.
    async fn with<T: Send + 'static>(
        &self,
        read: impl FnOnce(&rusqlite::Connection) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let db = inner.take()?;
            let result = read(&db);
            inner.give_back(db);
            result
        })
        .await
        .map_err(|e| StoreError::corrupt(format!("a SQLite read stopped: {e}")))?
    }

    /// Every node of the learner's maps (or of `map`) with its response totals, by `sql`:
    /// the node's columns, then its recent qualities, response count and quality sum, the
    /// learner as `$1` and the map as `$2`.
    pub(crate) async fn node_activity(
        &self,
        sql: String,
        learner: LearnerId,
        map: Option<MindMapId>,
    ) -> StoreResult<Vec<NodeActivity>> {
        self.with(move |db| {
            let mut statement = db.prepare_cached(&sql).map_err(sqlite_error)?;
            let learner = learner.0.as_bytes().to_vec();
            let mut rows = match map {
                Some(map) => statement.query(rusqlite::params![learner, map.0.as_bytes().to_vec()]),
                None => statement.query(rusqlite::params![learner]),
            }
            .map_err(sqlite_error)?;
            let count = |value: i64| u64::try_from(value).map_err(StoreError::corrupt);
            let mut nodes = Vec::new();
            while let Some(row) = rows.next().map_err(sqlite_error)? {
                let recent: String = row.get(17).map_err(sqlite_error)?;
                nodes.push(NodeActivity {
                    node: node_from(row)?,
                    recent_qualities: qualities_of(&recent)?,
                    responses: count(row.get(18).map_err(sqlite_error)?)?,
                    quality_sum: count(row.get(19).map_err(sqlite_error)?)?,
                });
            }
            Ok(nodes)
        })
        .await
    }
}

impl Inner {
    fn take(&self) -> StoreResult<rusqlite::Connection> {
        if let Some(db) = self.idle.lock().expect("idle connections").pop() {
            return Ok(db);
        }
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let db = rusqlite::Connection::open_with_flags(&self.path, flags).map_err(sqlite_error)?;
        db.busy_timeout(self.busy_timeout).map_err(sqlite_error)?;
        db.set_prepared_statement_cache_capacity(8);
        Ok(db)
    }

    fn give_back(&self, db: rusqlite::Connection) {
        let mut idle = self.idle.lock().expect("idle connections");
        if idle.len() < KEPT {
            idle.push(db);
        }
    }
}
