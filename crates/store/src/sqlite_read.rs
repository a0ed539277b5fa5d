//! Reads of many rows on SQLite, through rusqlite.
//!
//! sqlx hands each SQLite row from the connection's thread to the caller as a message of
//! its own, which costs several microseconds a row on a small machine: a learner's
//! portfolio reads every node of every map (1,500 rows for 30 maps of 50), and that
//! hand-over alone was most of the read. These few reads run instead on a blocking thread
//! with a read-only rusqlite connection of their own, kept for the next read, and decode
//! the rows where they are read. Their SQL is in `sqlite/live_reads.rs`; the rows are decoded here, by column name
//! (a node's activity by `analytics::activity_from`, as PostgreSQL's are).

use crate::error::sqlite_error;
use crate::sql::Columns;
use crate::sqlite_batch::{column_names, NamedRow};
use crate::{StoreError, StoreResult};
use pathwise_domain::model::{Edge, ResponseEvent};
use pathwise_domain::{MindMapId, NodeId};
use rusqlite::types::Value;
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
        .map_err(|e| StoreError::Backend(format!("a SQLite read stopped: {e}")))?
    }

    /// The rows of `sql` with `params` bound in order (`$1`, `$2`, ...), each decoded by
    /// `decode` where it is read.
    pub(crate) async fn rows<T: Send + 'static>(
        &self,
        sql: String,
        params: Vec<Value>,
        decode: fn(&NamedRow) -> StoreResult<T>,
    ) -> StoreResult<Vec<T>> {
        self.with(move |db| {
            let mut statement = db.prepare_cached(&sql).map_err(sqlite_error)?;
            let names = column_names(&statement);
            let mut rows = statement.query(rusqlite::params_from_iter(params)).map_err(sqlite_error)?;
            let mut decoded = Vec::new();
            while let Some(row) = rows.next().map_err(sqlite_error)? {
                decoded.push(decode(&NamedRow { row, names: &names })?);
            }
            Ok(decoded)
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

/// A row of `r.node_id, r.mind_map_id, r.quality, r.rating, r.response_type, r.session_id,
/// r.responded_at`.
pub(crate) fn response_event_from(row: &NamedRow) -> StoreResult<ResponseEvent> {
    Ok(ResponseEvent {
        node_id: NodeId(row.id("node_id")?),
        mind_map_id: MindMapId(row.id("mind_map_id")?),
        quality: u8::try_from(row.plain::<i64>("quality")?).map_err(StoreError::corrupt)?,
        rating: crate::sql::rating_from(row.plain::<i64>("rating")?)?,
        response_type: row.word("response_type")?,
        session_id: row.maybe_id("session_id")?,
        responded_at: row.time("responded_at")?,
    })
}

/// A row of `e.mind_map_id, e.parent_node_id, e.child_node_id, e.edge_type, e.created_at`.
pub(crate) fn edge_from(row: &NamedRow) -> StoreResult<Edge> {
    Ok(Edge {
        mind_map_id: MindMapId(row.id("mind_map_id")?),
        parent_node_id: NodeId(row.id("parent_node_id")?),
        child_node_id: NodeId(row.id("child_node_id")?),
        edge_type: row.word("edge_type")?,
        created_at: row.time("created_at")?,
    })
}
