//! A store for one test on either backend.

use crate::TestSchema;
use pathwise_store::{AnyStore, PgStore, SqliteStore};
use std::path::PathBuf;

/// The two backends every conformance scenario runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Where a test store keeps its data; removed when dropped.
pub enum TestDatabase {
    /// A temporary directory holding `pathwise.db`.
    Sqlite(tempfile::TempDir),
    Postgres(TestSchema),
}

impl TestDatabase {
    /// The SQLite database file, if this is SQLite.
    pub fn sqlite_path(&self) -> Option<PathBuf> {
        match self {
            TestDatabase::Sqlite(dir) => Some(dir.path().join("pathwise.db")),
            TestDatabase::Postgres(_) => None,
        }
    }
}

/// A migrated store over a database of its own, which goes when the test store does.
pub struct TestStore {
    pub store: AnyStore,
    /// Dropped after the store (fields drop in order), so the store's connections end first.
    pub database: TestDatabase,
}

impl TestStore {
    /// A store over SQLite in a temporary directory.
    pub async fn sqlite() -> TestStore {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(&dir.path().join("pathwise.db")).await.expect("SQLite store");
        TestStore { store: AnyStore::Sqlite(store), database: TestDatabase::Sqlite(dir) }
    }

    /// A store in a fresh PostgreSQL schema, or `None` without a test database (which
    /// panics instead where PostgreSQL is required).
    pub async fn postgres() -> Option<TestStore> {
        let schema = TestSchema::create().await?;
        let store = PgStore::connect_with(schema.connect_options(), 4).await.expect("PostgreSQL store");
        Some(TestStore { store: AnyStore::Postgres(store), database: TestDatabase::Postgres(schema) })
    }

    /// A store on `backend`, or `None` for PostgreSQL without a test database.
    pub async fn on(backend: Backend) -> Option<TestStore> {
        match backend {
            Backend::Sqlite => Some(TestStore::sqlite().await),
            Backend::Postgres => TestStore::postgres().await,
        }
    }

    /// The backend this store runs on.
    pub fn backend(&self) -> Backend {
        match self.database {
            TestDatabase::Sqlite(_) => Backend::Sqlite,
            TestDatabase::Postgres(_) => Backend::Postgres,
        }
    }
}

impl std::ops::Deref for TestStore {
    type Target = AnyStore;

    fn deref(&self) -> &AnyStore {
        &self.store
    }
}
