use pathwise_domain::DomainError;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A domain rule refused the change; nothing was written.
    #[error(transparent)]
    Rejected(#[from] DomainError),

    /// The learner has no such record (or it belongs to someone else).
    #[error("{0} not found")]
    NotFound(&'static str),

    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),

    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),

    #[error("stored data is unreadable: {0}")]
    Corrupt(String),

    /// The store is set up wrongly (a bad URL, a directory it cannot create).
    #[error("{0}")]
    Config(String),

    /// The database stayed busy (locked by another writer) past its timeout; nothing was
    /// written, and the same request may succeed in a moment.
    #[error("the database is busy: {0}")]
    Busy(String),

    /// The database engine failed outside sqlx (rusqlite's reads and writer, a store
    /// thread that stopped).
    #[error("database error: {0}")]
    Backend(String),

    /// The write was made before (an idempotency key used, a drill graded): nothing new was
    /// written, and the caller answers with what was stored the first time.
    #[error("already recorded: {0}")]
    Duplicate(&'static str),

    /// A record to create under an id that is taken (a learner imported twice); nothing
    /// was written.
    #[error("{0} exists already")]
    Exists(String),

    /// The database cannot be written: its file was replaced (a restore, a copy) or made
    /// read-only under a server that has it open. Nothing was written; a restart serves the
    /// file that is there now.
    #[error("the database cannot be written: {0}")]
    ReadOnly(String),

    /// Another process has the database open, and what was asked needs it alone (a
    /// restore); nothing was changed.
    #[error("{0}")]
    InUse(String),
}

impl StoreError {
    pub(crate) fn corrupt(what: impl std::fmt::Display) -> Self {
        StoreError::Corrupt(what.to_string())
    }

    /// Whether this is the database being busy: a lock held past the busy timeout
    /// (SQLite's BUSY and LOCKED, with their extended codes), PostgreSQL's lock timeout, or
    /// no connection free in time.
    pub fn is_busy(&self) -> bool {
        match self {
            StoreError::Busy(_) => true,
            StoreError::Database(sqlx::Error::PoolTimedOut) => true,
            StoreError::Database(sqlx::Error::Database(db)) => {
                let code = db.code();
                if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                    // SQLite's primary code is the low byte of the extended one.
                    code.and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| matches!(c & 0xff, 5 | 6))
                } else {
                    db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some()
                        && code.as_deref() == Some("55P03")
                }
            }
            _ => false,
        }
    }

    /// Whether the database refused a write because it cannot be written: SQLite's
    /// READONLY with its extended codes (the file moved or replaced under the connection,
    /// or made read-only).
    pub fn is_read_only(&self) -> bool {
        match self {
            StoreError::ReadOnly(_) => true,
            StoreError::Database(sqlx::Error::Database(db)) => {
                db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some()
                    && db.code().and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| c & 0xff == 8)
            }
            _ => false,
        }
    }

    /// Whether the database refused text it cannot hold: PostgreSQL stores no NUL
    /// character in text or JSON (SQLSTATE 22021, 22P05), which SQLite does. The caller's
    /// text is at fault, not the store.
    pub fn is_unstorable_text(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(db)) => {
                db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some()
                    && matches!(db.code().as_deref(), Some("22021" | "22P05"))
            }
            _ => false,
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// An error of the SQLite connection the response writer and the readers hold through
/// rusqlite: busy when a lock outlived the busy timeout, the backend's otherwise.
pub(crate) fn sqlite_error(error: rusqlite::Error) -> StoreError {
    match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            StoreError::Busy(format!("SQLite: {error}"))
        }
        Some(rusqlite::ErrorCode::ReadOnly) => StoreError::ReadOnly(format!("SQLite: {error}")),
        _ => StoreError::Backend(format!("SQLite: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    use std::time::Duration;

    /// A write that finds another writer's lock past its busy timeout is `Busy`; a broken
    /// statement is not.
    #[tokio::test]
    async fn sqlites_lock_held_past_the_timeout_is_busy() {
        let dir = tempfile::tempdir().unwrap();
        let options = SqliteConnectOptions::new()
            .filename(dir.path().join("busy.db"))
            .create_if_missing(true)
            .busy_timeout(Duration::from_millis(10));
        let pool = SqlitePoolOptions::new().max_connections(2).connect_with(options).await.unwrap();
        sqlx::query("CREATE TABLE t (x INTEGER)").execute(&pool).await.unwrap();
        let mut holder = pool.begin_with("BEGIN IMMEDIATE").await.unwrap();
        sqlx::query("INSERT INTO t VALUES (1)").execute(&mut *holder).await.unwrap();
        let waited = StoreError::from(sqlx::query("INSERT INTO t VALUES (2)").execute(&pool).await.unwrap_err());
        assert!(waited.is_busy(), "{waited}");
        holder.rollback().await.unwrap();
        let broken = StoreError::from(sqlx::query("INSERT INTO missing VALUES (1)").execute(&pool).await.unwrap_err());
        assert!(!broken.is_busy(), "{broken}");
        assert!(!StoreError::corrupt("x").is_busy());
    }
}
