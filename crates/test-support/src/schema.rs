//! A schema of the test database for one test.

use sqlx::postgres::PgConnectOptions;
use sqlx::Connection;

/// A fresh schema of the test database, dropped when this value goes, however the test
/// ends. Connections made from [`TestSchema::connect_options`] carry the schema's name as
/// their application name, so that the drop can end any the test left open.
pub struct TestSchema {
    url: String,
    name: String,
}

impl TestSchema {
    /// A new schema named `pwt_…`, or `None` without a test database (see
    /// [`crate::test_database_url`]).
    pub async fn create() -> Option<TestSchema> {
        let url = crate::test_database_url()?;
        let name = format!("pwt_{}", uuid::Uuid::new_v4().simple());
        let mut admin = sqlx::PgConnection::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to the test database {url}: {e}"));
        sqlx::query(&format!("CREATE SCHEMA {name}")).execute(&mut admin).await.expect("create the test schema");
        admin.close().await.ok();
        Some(TestSchema { url, name })
    }

    /// The schema's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The test database's URL (its default search path does not include the schema).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Options for connections whose search path is this schema.
    pub fn connect_options(&self) -> PgConnectOptions {
        let options: PgConnectOptions = self.url.parse().expect("a PostgreSQL URL in PATHWISE_TEST_DATABASE_URL");
        options.options([("search_path", self.name.as_str())]).application_name(&self.name)
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        // Any connections still open on the schema are ended first (a server task the test
        // spawned may hold some, one of them in a transaction).
        crate::on_a_runtime_of_its_own(&format!("could not drop the test schema {}", self.name), async move {
            let mut admin = sqlx::PgConnection::connect(&url).await.expect("connect to drop the test schema");
            sqlx::query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE application_name = $1 AND pid <> pg_backend_pid()",
            )
            .bind(&name)
            .execute(&mut admin)
            .await
            .expect("end the test's connections");
            sqlx::query("SET lock_timeout = '10s'").execute(&mut admin).await.ok();
            sqlx::query(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                .execute(&mut admin)
                .await
                .expect("drop the test schema");
        });
    }
}
