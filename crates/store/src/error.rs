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
            StoreError::Database(sqlx::Error::Database(db)) => match db.code() {
                // SQLite's primary code is the low byte of the extended one.
                Some(code) => match code.parse::<i32>() {
                    Ok(sqlite) => matches!(sqlite & 0xff, 5 | 6),
                    Err(_) => code == "55P03",
                },
                None => false,
            },
            _ => false,
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;
