//! What the test suites of every crate share about their PostgreSQL database.

/// Set to `1` (CI does) to make every PostgreSQL test fail, rather than skip, when no test
/// database is configured: a run that proves nothing about PostgreSQL must not pass.
pub const POSTGRES_REQUIRED: &str = "PATHWISE_POSTGRES_REQUIRED";

/// The PostgreSQL database the tests run against (`PATHWISE_TEST_DATABASE_URL`), or `None`
/// to skip PostgreSQL tests. Panics when none is set but [`POSTGRES_REQUIRED`] is.
pub fn test_database_url() -> Option<String> {
    let url = std::env::var("PATHWISE_TEST_DATABASE_URL").ok().filter(|u| !u.trim().is_empty());
    if url.is_none() && std::env::var(POSTGRES_REQUIRED).is_ok_and(|v| !v.is_empty() && v != "0") {
        panic!(
            "{POSTGRES_REQUIRED} is set but PATHWISE_TEST_DATABASE_URL is not: the PostgreSQL tests must run here; \
             start PostgreSQL (scripts/test sets the URL up when one answers on 127.0.0.1:5432)"
        );
    }
    url
}
