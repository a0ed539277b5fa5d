//! The data directory holds every learner's answers and the local learner's token, so it is
//! its owner's alone: the directory is made 0700 and every file in it 0600, whatever the
//! umask. SQLite gives its `-wal` and `-shm` files the database file's own permissions, so
//! creating the database file 0600 before SQLite opens it covers them too; files an older
//! version left readable by everyone are tightened when the store opens them.

use std::io;
use std::path::Path;

/// Create `dir` (and any missing parents) readable by its owner alone.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Make the SQLite database at `path` (created empty if missing) and its `-wal` and `-shm`
/// files, where they exist, readable and writable by the owner alone.
pub fn restrict_database(path: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    drop(options.open(path)?);
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        restrict_file(Path::new(&name))?;
    }
    Ok(())
}

/// Take away the group's and others' access to `path`, if it exists.
pub fn restrict_file(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match std::fs::metadata(path) {
            Ok(meta) => meta.permissions().mode(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_data_directory_and_database_are_the_owners_alone() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data/nested");
        create_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&root.path().join("data")), 0o700);
        let db = dir.join("pathwise.db");
        restrict_database(&db).unwrap();
        assert_eq!(mode(&db), 0o600);
    }

    #[test]
    fn files_left_readable_by_everyone_are_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pathwise.db");
        for suffix in ["", "-wal", "-shm"] {
            let file = dir.path().join(format!("pathwise.db{suffix}"));
            std::fs::write(&file, b"").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        restrict_database(&db).unwrap();
        for suffix in ["", "-wal", "-shm"] {
            assert_eq!(mode(&dir.path().join(format!("pathwise.db{suffix}"))), 0o600, "{suffix}");
        }
    }
}
