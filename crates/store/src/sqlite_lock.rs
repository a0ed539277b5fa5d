//! Who has a SQLite database open, so that a restore never replaces a database under a
//! running server. SQLite's own locks cannot tell: in WAL mode an idle connection holds
//! none. So every process that opens the store holds a shared advisory lock on a file
//! beside the database (`pathwise.db.lock`) for as long as it has it open, and a restore
//! takes that lock exclusively: refused, naming the processes, while anyone holds it, and
//! keeping any server from opening the database until the copy is in place.

use crate::{StoreError, StoreResult};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// The advisory lock on a database, held until dropped.
#[derive(Debug)]
pub struct DatabaseLock {
    _file: File,
}

/// The lock file of the database at `database`.
pub fn lock_path(database: &Path) -> PathBuf {
    PathBuf::from(format!("{}.lock", database.display()))
}

impl DatabaseLock {
    /// The lock every process holds while it has the database open; many may hold it.
    pub fn shared(database: &Path) -> StoreResult<DatabaseLock> {
        let (file, path) = open(database)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(DatabaseLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(StoreError::Config(format!(
                "{} is being restored (`pathwise restore` holds {}); start again when it is done",
                database.display(),
                path.display()
            ))),
            Err(TryLockError::Error(e)) => Err(StoreError::Config(format!("cannot lock {}: {e}", path.display()))),
        }
    }

    /// The lock a restore holds while it replaces the database: refused while any process
    /// has the database open, naming those it can see.
    pub fn exclusive(database: &Path) -> StoreResult<DatabaseLock> {
        let (file, path) = open(database)?;
        match file.try_lock() {
            Ok(()) => Ok(DatabaseLock { _file: file }),
            Err(TryLockError::WouldBlock) => {
                let holders = holders(&path);
                let named = if holders.is_empty() { "another process".to_string() } else { holders.join(", ") };
                Err(StoreError::InUse(format!(
                    "{} is open in {named}; stop it first (a running server keeps serving the database it \
                     opened, so replacing the file under it would lose what it writes next)",
                    database.display()
                )))
            }
            Err(TryLockError::Error(e)) => Err(StoreError::Config(format!("cannot lock {}: {e}", path.display()))),
        }
    }
}

fn open(database: &Path) -> StoreResult<(File, PathBuf)> {
    let path = lock_path(database);
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).map_err(|e| StoreError::Config(format!("cannot open {}: {e}", path.display())))?;
    Ok((file, path))
}

/// The processes with `lock` open, as `pid 123 (pathwise serve --port 8080)`, read from
/// `/proc` (Linux; elsewhere none are named, and the refusal says "another process").
fn holders(lock: &Path) -> Vec<String> {
    let Ok(lock) = lock.canonicalize() else { return Vec::new() };
    let me = std::process::id().to_string();
    let Ok(processes) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut found = Vec::new();
    for process in processes.flatten() {
        let pid = process.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else { continue };
        if fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == lock)) {
            let command = std::fs::read(process.path().join("cmdline")).unwrap_or_default();
            let command: Vec<String> = command
                .split(|b| *b == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect();
            let program = command
                .first()
                .map(|p| Path::new(p).file_name().map_or(p.clone(), |f| f.to_string_lossy().into_owned()));
            let shown = program.into_iter().chain(command.into_iter().skip(1)).collect::<Vec<_>>().join(" ");
            found.push(format!("pid {pid} ({shown})"));
        }
    }
    found.sort();
    found
}

/// The identity (device, inode) of the file at `path`, to notice it being replaced.
pub fn file_identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restore_waits_for_no_one_and_is_refused_while_the_database_is_open() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("pathwise.db");
        let first = DatabaseLock::shared(&database).unwrap();
        let second = DatabaseLock::shared(&database).expect("many processes may have it open");
        let refused = DatabaseLock::exclusive(&database).unwrap_err();
        assert!(matches!(refused, StoreError::InUse(_)) && refused.to_string().contains("stop it first"), "{refused}");
        drop((first, second));
        let restoring = DatabaseLock::exclusive(&database).expect("no one has it open");
        let waiting = DatabaseLock::shared(&database).unwrap_err().to_string();
        assert!(waiting.contains("is being restored"), "{waiting}");
        drop(restoring);
        DatabaseLock::shared(&database).expect("open again once the restore is done");
    }
}
