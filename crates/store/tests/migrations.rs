//! Upgrading a database that already holds responses: migration 0002 moves each node's
//! recent history onto the node, where the response path now reads it; 0010 lengthens it to
//! the seven qualities struggle detection reads, adds each node's response totals, and the
//! learner's study days, which live analytics read.

use sqlx::migrate::Migrator;
use std::path::Path;
use uuid::Uuid;

/// Quality, type and time (seconds) of each response, oldest first.
const ANSWERS: [(i32, &str, i64); 6] =
    [(1, "review", 1), (2, "teach", 2), (3, "review", 3), (4, "diagnostic", 4), (5, "review", 5), (0, "review", 6)];

async fn migrator(engine: &str) -> Migrator {
    Migrator::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(engine)).await.expect("migrations")
}

fn only_first(mut full: Migrator) -> Migrator {
    full.migrations = full.migrations.iter().take(1).cloned().collect::<Vec<_>>().into();
    full
}

/// A learner with one active map of two nodes, one of them answered as in `ANSWERS`,
/// written in the 0001 schema; `$now` is the dialect's time literal and `$at` the
/// placeholder of a response's time, bound to `$time(seconds)`.
macro_rules! seed_old_database {
    ($pool:expr, $now:literal, $at:literal, $time:expr) => {{
        let pool = $pool;
        let (learner, map, node, quiet) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        sqlx::query(concat!("INSERT INTO learners (id, name, created_at) VALUES ($1, 'old learner', ", $now, ")"))
            .bind(learner)
            .execute(pool)
            .await
            .unwrap();
        sqlx::query(concat!(
            "INSERT INTO mind_maps (id, learner_id, title, status, created_at, updated_at) \
             VALUES ($1, $2, 'old map', 'active', ",
            $now,
            ", ",
            $now,
            ")"
        ))
        .bind(map)
        .bind(learner)
        .execute(pool)
        .await
        .unwrap();
        for (id, label) in [(node, "answered"), (quiet, "never answered")] {
            sqlx::query(concat!(
                "INSERT INTO mind_map_nodes (id, mind_map_id, label, created_at, updated_at) VALUES ($1, $2, $3, ",
                $now,
                ", ",
                $now,
                ")"
            ))
            .bind(id)
            .bind(map)
            .bind(label)
            .execute(pool)
            .await
            .unwrap();
        }
        for (quality, kind, seconds) in ANSWERS {
            sqlx::query(concat!(
                "INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, quality, response_type, \
                 responded_at) VALUES ($1, $2, $3, 'q', $4, $5, ",
                $at,
                ")"
            ))
            .bind(Uuid::now_v7())
            .bind(node)
            .bind(map)
            .bind(quality)
            .bind(kind)
            .bind($time(seconds))
            .execute(pool)
            .await
            .unwrap();
        }
        (node, quiet)
    }};
}

#[tokio::test]
async fn sqlite_upgrade_backfills_each_nodes_history_totals_and_study_days() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let pool = sqlx::SqlitePool::connect(&url).await.expect("sqlite");
    let full = migrator("sqlite").await;
    only_first(migrator("sqlite").await).run(&pool).await.expect("0001");

    let (node, quiet) = seed_old_database!(&pool, "0", "$6", |s: i64| s * 1_000_000);

    full.run(&pool).await.expect("upgrade");
    let recent = |id: Uuid| {
        let pool = pool.clone();
        async move {
            sqlx::query_as::<_, (String, String, i64, i64)>(
                "SELECT recent_qualities, recent_review_qualities, response_count, quality_sum \
                 FROM mind_map_nodes WHERE id = $1",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    assert_eq!(recent(node).await, ("0,5,4,3,2,1".to_string(), "0,5,3".to_string(), 6, 15));
    assert_eq!(recent(quiet).await, (String::new(), String::new(), 0, 0));
    let days: Vec<String> = sqlx::query_scalar("SELECT day FROM study_days").fetch_all(&pool).await.unwrap();
    assert_eq!(days, vec!["1970-01-01".to_string()]);
}

#[tokio::test]
async fn postgres_upgrade_backfills_each_nodes_history_totals_and_study_days() {
    let Some(schema) = pathwise_test_support::TestSchema::create().await else {
        return;
    };
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(2)
        .connect_with(schema.connect_options())
        .await
        .expect("pool");
    let full = migrator("postgres").await;
    only_first(migrator("postgres").await).run(&pool).await.expect("0001");

    let (node, quiet) = seed_old_database!(&pool, "now()", "to_timestamp($6)", |s: i64| s as f64);

    full.run(&pool).await.expect("upgrade");
    let recent = |id: Uuid| {
        let pool = pool.clone();
        async move {
            sqlx::query_as::<_, (Vec<i16>, Vec<i16>, i64, i64)>(
                "SELECT recent_qualities, recent_review_qualities, response_count, quality_sum \
                 FROM mind_map_nodes WHERE id = $1",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    let answered = recent(node).await;
    let never = recent(quiet).await;
    let days: Vec<String> = sqlx::query_scalar("SELECT day::text FROM study_days").fetch_all(&pool).await.unwrap();
    pool.close().await;
    drop(schema);
    assert_eq!(answered, (vec![0, 5, 4, 3, 2, 1], vec![0, 5, 3], 6, 15));
    assert_eq!(never, (vec![], vec![], 0, 0));
    assert_eq!(days, vec!["1970-01-01".to_string()]);
}
