//! A test's database goes when the test ends, however it ends.

use pathwise_test_support::{TestPgDatabase, TestSchema, TestStore};
use sqlx::Connection;

async fn schema_exists(url: &str, name: &str) -> bool {
    let mut admin = sqlx::PgConnection::connect(url).await.expect("connect");
    sqlx::query_scalar::<_, bool>("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)")
        .bind(name)
        .fetch_one(&mut admin)
        .await
        .expect("ask for the schema")
}

#[tokio::test]
async fn a_test_schema_is_dropped_when_its_test_panics_with_a_connection_open_in_a_transaction() {
    let Some(url) = pathwise_test_support::test_database_url() else { return };
    let (sender, receiver) = std::sync::mpsc::channel();
    // A test of its own, on a runtime of its own, that panics in the middle of a transaction.
    let test = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let store = TestStore::postgres().await.expect("a test store");
            let pathwise_test_support::TestDatabase::Postgres(schema) = &store.database else { unreachable!() };
            sender.send(schema.name().to_string()).unwrap();
            let mut held = sqlx::PgConnection::connect_with(&schema.connect_options()).await.unwrap();
            sqlx::query("BEGIN").execute(&mut held).await.unwrap();
            sqlx::query("LOCK TABLE learners IN ACCESS EXCLUSIVE MODE").execute(&mut held).await.unwrap();
            panic!("the test fails here");
        })
    });
    assert!(test.join().is_err(), "the test was to panic");
    let name = receiver.recv().expect("the schema's name");
    assert!(name.starts_with("pwt_"), "{name}");
    assert!(!schema_exists(&url, &name).await, "{name} outlived its test");
}

#[tokio::test]
async fn a_test_schema_and_a_test_database_go_when_dropped() {
    let Some(url) = pathwise_test_support::test_database_url() else { return };
    let schema = TestSchema::create().await.expect("a schema");
    let name = schema.name().to_string();
    assert!(schema_exists(&url, &name).await);
    drop(schema);
    assert!(!schema_exists(&url, &name).await);

    let database = TestPgDatabase::create("cleanup").await.expect("a database");
    let mut open = sqlx::PgConnection::connect(database.url()).await.expect("connect to the test database");
    sqlx::query("SELECT 1").execute(&mut open).await.unwrap();
    let database_name = database.url().rsplit_once('/').unwrap().1.to_string();
    drop(database);
    let mut admin = sqlx::PgConnection::connect(&url).await.unwrap();
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_database WHERE datname = $1")
        .bind(&database_name)
        .fetch_one(&mut admin)
        .await
        .unwrap();
    assert_eq!(left, 0, "{database_name} outlived its test");
}

#[tokio::test]
async fn a_sqlite_test_store_lives_in_a_directory_that_goes_with_it() {
    let store = TestStore::sqlite().await;
    let path = store.database.sqlite_path().expect("a SQLite file");
    assert!(path.exists());
    drop(store);
    assert!(!path.parent().unwrap().exists());
}
