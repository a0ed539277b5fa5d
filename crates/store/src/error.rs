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

    #[error("{0}")]
    Config(String),

    /// The write was made before (an idempotency key used, a drill graded): nothing new was
    /// written, and the caller answers with what was stored the first time.
    #[error("already recorded: {0}")]
    Duplicate(&'static str),
}

impl StoreError {
    pub(crate) fn corrupt(what: impl std::fmt::Display) -> Self {
        StoreError::Corrupt(what.to_string())
    }
}

pub type StoreResult<T> = Result<T, StoreError>;
