//! What the test suites of every crate share about their databases.
//!
//! - [`test_database_url`]: the PostgreSQL database the tests run against
//!   (`PATHWISE_TEST_DATABASE_URL`), and the switch ([`POSTGRES_REQUIRED`]) that makes a
//!   PostgreSQL test fail rather than skip where there is none (CI sets it: a run that proves
//!   nothing about PostgreSQL must not pass).
//! - [`TestSchema`]: a fresh schema of that database, dropped when it goes out of scope,
//!   however the test ends (a panic included).
//! - [`TestStore`]: a store on either backend over a temporary directory or a test schema.
//! - [`TestPgDatabase`]: a whole database, for a `pathwise` process the test starts.
//! - [`conformance!`]: each scenario once on SQLite and once on PostgreSQL.
//!
//! A development crate only: nothing here is part of the shipped binary.

pub mod anki;
mod database;
mod schema;
mod store;

pub use database::TestPgDatabase;
pub use schema::TestSchema;
pub use store::{Backend, TestDatabase, TestStore};

/// Set to `1` (CI does) to make every PostgreSQL test fail, rather than skip, when no test
/// database is configured.
pub const POSTGRES_REQUIRED: &str = "PATHWISE_POSTGRES_REQUIRED";

/// The variable naming the PostgreSQL database the tests run against.
pub const TEST_DATABASE_URL: &str = "PATHWISE_TEST_DATABASE_URL";

/// The PostgreSQL database the tests run against, or `None` to skip PostgreSQL tests.
/// Panics when none is set but [`POSTGRES_REQUIRED`] is.
pub fn test_database_url() -> Option<String> {
    let url = std::env::var(TEST_DATABASE_URL).ok().filter(|u| !u.trim().is_empty());
    if url.is_none() && std::env::var(POSTGRES_REQUIRED).is_ok_and(|v| !v.is_empty() && v != "0") {
        panic!(
            "{POSTGRES_REQUIRED} is set but {TEST_DATABASE_URL} is not: the PostgreSQL tests must run here; \
             start PostgreSQL (scripts/test sets the URL up when one answers on 127.0.0.1:5432)"
        );
    }
    url
}

/// Runs `work` to its end on a runtime of its own, on a thread of its own: what a `Drop`
/// does with the database, since the test's runtime may be shutting down or unwinding.
/// Panics with `what` if the work failed, unless the thread is already panicking.
fn on_a_runtime_of_its_own<F>(what: &str, work: F)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let done = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(work);
    })
    .join();
    if done.is_err() && !std::thread::panicking() {
        panic!("{what}");
    }
}

/// Runs each scenario once on SQLite and once on PostgreSQL (skipped without a test
/// database, failed instead where [`POSTGRES_REQUIRED`] is set).
///
/// `conformance!(make; a, b)` makes modules `on_sqlite` and `on_postgres` with a test per
/// scenario: `make(TestStore)` builds the scenario's fixture (an `async fn` taking the
/// [`TestStore`] it must keep alive for as long as the scenario runs; a path as seen from
/// the invoking module), and the scenario `async fn a(fixture: &Fixture)` is called with it.
/// The test's database goes with the fixture. Without `make;`, the scenario is given the
/// [`TestStore`] itself (which dereferences to the store).
#[macro_export]
macro_rules! conformance {
    ($make:path; $($scenario:ident),* $(,)?) => {
        mod on_sqlite {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test]
                async fn $scenario() {
                    let store = $crate::TestStore::sqlite().await;
                    let fixture = $make(store).await;
                    super::$scenario(&fixture).await;
                }
            )*
        }
        mod on_postgres {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test]
                async fn $scenario() {
                    let Some(store) = $crate::TestStore::postgres().await else { return };
                    let fixture = $make(store).await;
                    super::$scenario(&fixture).await;
                }
            )*
        }
    };
    ($($scenario:ident),* $(,)?) => {
        $crate::conformance!(std::future::ready; $($scenario),*);
    };
}
