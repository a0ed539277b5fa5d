//! A SQLite database copied while it serves, and put back: SQLite's online backup, which
//! copies every page inside one read transaction, so the copy is the database as of one
//! moment whatever is being written meanwhile (a file copy of a database in WAL mode can
//! miss what is still in the log, or catch a page half-written).
//!
//! Neither direction leaves a half-written file: the copy is made beside its destination
//! and renamed into place once it is whole and checked.

use crate::error::sqlite_error;
use crate::sqlite_lock::DatabaseLock;
use crate::{StoreError, StoreResult};
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a backup or a restore copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub pages: i64,
    pub bytes: u64,
}

/// Copy the database at `database` to a new file `destination`, which must not exist.
pub fn backup(database: &Path, destination: &Path) -> StoreResult<Copied> {
    if !database.exists() {
        return Err(StoreError::Config(format!("there is no database at {}", database.display())));
    }
    refuse_existing(destination)?;
    let source = Connection::open_with_flags(database, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite_error)?;
    source.busy_timeout(Duration::from_secs(30)).map_err(sqlite_error)?;
    copy_to(&source, destination, Replace::No)
}

/// Put the backup `backup` in place of the database at `database`: refused while any
/// process has the database open (a running server, naming it), the backup checked whole
/// first, and the database replaced only by a whole copy. No server can open the database
/// until the copy is in place.
pub fn restore(backup: &Path, database: &Path) -> StoreResult<Copied> {
    if let Some(dir) = database.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::private_files::create_dir(dir)
            .map_err(|e| StoreError::Config(format!("cannot create data directory {}: {e}", dir.display())))?;
    }
    let _restoring = DatabaseLock::exclusive(database)?;
    let source = Connection::open_with_flags(backup, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| StoreError::Config(format!("cannot open the backup {}: {e}", backup.display())))?;
    let check: String = source
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .map_err(|e| StoreError::Config(format!("{} is not a SQLite database: {e}", backup.display())))?;
    if check != "ok" {
        return Err(StoreError::Config(format!("the backup {} is damaged: {check}", backup.display())));
    }
    let migrated: bool = source
        .query_row("SELECT count(*) > 0 FROM sqlite_master WHERE name = '_sqlx_migrations'", [], |row| row.get(0))
        .map_err(sqlite_error)?;
    if !migrated {
        return Err(StoreError::Config(format!("{} is a SQLite database, but not a Pathwise one", backup.display())));
    }
    let copied = copy_to(&source, database, Replace::Yes)?;
    tracing::info!(pages = copied.pages, "restored the database from {}", backup.display());
    Ok(copied)
}

/// Whether the copy may take the place of a file that is there.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Replace {
    Yes,
    No,
}

fn refuse_existing(destination: &Path) -> StoreResult<()> {
    if destination.exists() {
        return Err(StoreError::Config(format!(
            "{} exists already; a backup never overwrites a file: name a new one",
            destination.display()
        )));
    }
    Ok(())
}

fn partial_path(destination: &Path) -> PathBuf {
    PathBuf::from(format!("{}.partial", destination.display()))
}

/// Copy every page of `source` into `{destination}.partial` in one step (one read
/// transaction: a consistent copy that a writer cannot make start over), check it, and
/// rename it to `destination`. On any failure the partial file is removed and `destination`
/// is as it was.
fn copy_to(source: &Connection, destination: &Path, replace: Replace) -> StoreResult<Copied> {
    let partial = partial_path(destination);
    let made = copy_pages(source, &partial);
    let pages = match made {
        Ok(pages) => pages,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
    };
    let placed = (|| {
        match replace {
            Replace::No => refuse_existing(destination)?,
            // The log and shared memory beside a replaced database are the old one's.
            Replace::Yes => {
                for suffix in ["-wal", "-shm"] {
                    let side = PathBuf::from(format!("{}{suffix}", destination.display()));
                    if side.exists() {
                        std::fs::remove_file(&side)
                            .map_err(|e| StoreError::Config(format!("cannot remove {}: {e}", side.display())))?;
                    }
                }
            }
        }
        std::fs::rename(&partial, destination)
            .map_err(|e| StoreError::Config(format!("cannot write {}: {e}", destination.display())))
    })();
    if let Err(error) = placed {
        let _ = std::fs::remove_file(&partial);
        return Err(error);
    }
    let bytes = std::fs::metadata(destination).map(|m| m.len()).unwrap_or_default();
    Ok(Copied { pages, bytes })
}

fn copy_pages(source: &Connection, partial: &Path) -> StoreResult<i64> {
    if partial.exists() {
        std::fs::remove_file(partial)
            .map_err(|e| StoreError::Config(format!("cannot remove the leftover {}: {e}", partial.display())))?;
    }
    let mut target = Connection::open(partial)
        .map_err(|e| StoreError::Config(format!("cannot write {}: {e}", partial.display())))?;
    let pages = {
        let backup = Backup::new(source, &mut target)
            .map_err(|e| StoreError::Config(format!("cannot write {}: {e}", partial.display())))?;
        loop {
            match backup.step(-1).map_err(sqlite_error)? {
                StepResult::Done => break,
                // A writer holds a lock the copy waits for; it tries again shortly.
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        i64::from(backup.progress().pagecount)
    };
    let check: String = target.query_row("PRAGMA quick_check", [], |row| row.get(0)).map_err(sqlite_error)?;
    if check != "ok" {
        return Err(StoreError::Backend(format!("the copy failed its check: {check}")));
    }
    // One file, without a log beside it.
    let _: String = target.query_row("PRAGMA journal_mode = DELETE", [], |row| row.get(0)).map_err(sqlite_error)?;
    drop(target);
    crate::private_files::restrict_file(partial)
        .map_err(|e| StoreError::Config(format!("cannot make {} private: {e}", partial.display())))?;
    Ok(pages)
}
