//! WAL checkpoints beside the writer.
//!
//! A commit that finds the WAL past `wal_autocheckpoint` pages copies them all into the
//! database file before its callers hear back, which stalls every response queued behind
//! it. Here a thread of its own copies pages shortly after they are written, with a
//! passive checkpoint that runs beside readers and the writer; the writer's own checkpoint
//! then finds little left to copy, and restarts the WAL so that it stays small.

use crate::{StoreError, StoreResult};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How long writes accumulate before they are copied: a page rewritten meanwhile is copied
/// once.
const SETTLE: Duration = Duration::from_millis(100);

/// Tells the checkpoint thread that something was written; the thread ends when the last
/// `Checkpoints` is dropped.
pub(crate) struct Checkpoints {
    nudge: mpsc::SyncSender<()>,
}

impl Checkpoints {
    pub(crate) fn start(path: &Path, busy_timeout: Duration) -> StoreResult<Self> {
        let sqlite = crate::error::sqlite_error;
        let db = rusqlite::Connection::open(path).map_err(sqlite)?;
        db.busy_timeout(busy_timeout).map_err(sqlite)?;
        let (nudge, nudged) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("pathwise-checkpoint".into())
            .spawn(move || copy_while_written(&db, &nudged))
            .map_err(|e| StoreError::Config(format!("cannot start the SQLite checkpoint thread: {e}")))?;
        Ok(Checkpoints { nudge })
    }

    /// Never blocks: a nudge already waiting covers this one.
    pub(crate) fn written(&self) {
        let _ = self.nudge.try_send(());
    }
}

fn copy_while_written(db: &rusqlite::Connection, nudged: &mpsc::Receiver<()>) {
    while nudged.recv().is_ok() {
        std::thread::sleep(SETTLE);
        // A failure (a busy lock, a full disk) leaves the pages in the WAL, where they are
        // safe and readable; the writer's own checkpoint or the next nudge copies them.
        if let Err(error) = db.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!(%error, "SQLite checkpoint failed");
        }
    }
}
