//! Either store behind one type, chosen at start-up from the configuration.

use crate::{PgStore, SqliteStore, StoreResult};
use std::path::Path;

#[derive(Clone, Debug)]
pub enum AnyStore {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

/// Where the configured database is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Postgres(String),
    Sqlite(std::path::PathBuf),
}

impl Location {
    /// PostgreSQL when `database_url` is a `postgres://` URL; otherwise SQLite, at the
    /// `sqlite://` path given or at `pathwise.db` in `data_dir`.
    pub fn of(database_url: Option<&str>, data_dir: &Path) -> StoreResult<Location> {
        match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Location::Postgres(url.to_string()))
            }
            Some(url) if url.starts_with("sqlite://") => {
                Ok(Location::Sqlite(Path::new(url.trim_start_matches("sqlite://")).to_path_buf()))
            }
            Some(url) => Err(crate::StoreError::Config(format!(
                "database URL '{}' is not supported; use postgres://… or sqlite://PATH, or leave it unset for SQLite in the data directory",
                url.split('@').next_back().unwrap_or(url)
            ))),
            None => Ok(Location::Sqlite(data_dir.join("pathwise.db"))),
        }
    }
}

impl AnyStore {
    /// Why the store must not be used any more: its SQLite file was replaced under it.
    /// PostgreSQL's database cannot be swapped under a connection, so never.
    pub fn replaced(&self) -> Option<String> {
        match self {
            AnyStore::Sqlite(store) => store.replaced(),
            AnyStore::Postgres(_) => None,
        }
    }

    /// Open the configured database (see [`Location::of`]) and bring its schema up to date.
    pub async fn open(database_url: Option<&str>, data_dir: &Path, max_connections: u32) -> StoreResult<Self> {
        match Location::of(database_url, data_dir)? {
            Location::Postgres(url) => Ok(AnyStore::Postgres(PgStore::connect(&url, max_connections).await?)),
            Location::Sqlite(path) => Ok(AnyStore::Sqlite(SqliteStore::open(&path).await?)),
        }
    }
}

/// How busy the store's connections are, for the operator's metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStatus {
    /// Connections open, in use or idle, over the store's pools.
    pub open: u32,
    /// Of those, the idle ones.
    pub idle: u32,
    /// The most the pools may open.
    pub max: u32,
    /// Responses waiting for SQLite's writer thread (none for PostgreSQL).
    pub write_queue: Option<usize>,
}

/// The schema version a database has and the one this build expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaStatus {
    pub applied: i64,
    pub expected: i64,
}

impl SchemaStatus {
    pub fn is_current(&self) -> bool {
        self.applied == self.expected
    }
}

impl AnyStore {
    /// Ask the database for its newest migration: an error when it does not answer.
    pub async fn schema_status(&self) -> StoreResult<SchemaStatus> {
        match self {
            AnyStore::Sqlite(store) => store.schema_status().await,
            AnyStore::Postgres(store) => store.schema_status().await,
        }
    }

    pub fn pool_status(&self) -> PoolStatus {
        match self {
            AnyStore::Sqlite(store) => store.pool_status(),
            AnyStore::Postgres(store) => store.pool_status(),
        }
    }
}
