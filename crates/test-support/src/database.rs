//! A whole database of the test server for one test, for what runs in a process of its own.

use sqlx::Connection;

/// A fresh database beside the test database, for a `pathwise` process the test starts
/// (which takes a URL, not a schema); dropped with its connections when this value goes.
pub struct TestPgDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl TestPgDatabase {
    /// A new database named `pwt_<prefix>_…`, or `None` without a test database (see
    /// [`crate::test_database_url`]).
    pub async fn create(prefix: &str) -> Option<TestPgDatabase> {
        let admin_url = crate::test_database_url()?;
        let name = format!("pwt_{prefix}_{}", uuid::Uuid::new_v4().simple());
        let mut admin = sqlx::PgConnection::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to the test database {admin_url}: {e}"));
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.expect("create the test database");
        admin.close().await.ok();
        let server = admin_url.rsplit_once('/').expect("a PostgreSQL URL naming a database").0;
        let url = format!("{server}/{name}");
        Some(TestPgDatabase { admin_url, name, url })
    }

    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestPgDatabase {
    fn drop(&mut self) {
        let (admin_url, name) = (self.admin_url.clone(), self.name.clone());
        crate::on_a_runtime_of_its_own(&format!("could not drop the test database {}", self.name), async move {
            let mut admin = sqlx::PgConnection::connect(&admin_url).await.expect("connect to drop the test database");
            sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut admin)
                .await
                .expect("drop the test database");
        });
    }
}
