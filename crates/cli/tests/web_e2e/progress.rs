//! Progress in the browser (tests/e2e/progress.mjs): a learner's history over several days,
//! written straight into the server's SQLite with the application on a manual clock, then
//! the portfolio, the mastery chart, the trend and the struggling concepts checked against
//! the API's own numbers, at desktop and phone width.

use super::{ready, run_script, serve};
use chrono::{DateTime, Duration, Utc};
use pathwise_app::maps::{CreateMap, CreateNode};
use pathwise_app::mastery::RecordResponse;
use pathwise_app::{App, Clock, ManualClock};
use pathwise_domain::{LearnerId, MapStatus, MindMapId, NodeId, ResponseType};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_store::prelude::*;
use pathwise_store::{AnyStore, SqliteStore};
use serde_json::{json, Value};
use std::sync::Arc;

/// A model that writes the weekly digest (the only model call the Progress view can cause).
fn digest_writer(request: &Value) -> Script {
    if request["response_format"]["json_schema"]["name"] == "digest" {
        return Script::json(json!({ "subject": "Your week in Pathwise",
            "body": "You mastered new concepts this week. Borrowing and Lifetimes need another look." }));
    }
    Script::json(json!({}))
}

/// What the seeded history left behind, for the script.
struct Seeded {
    map: MindMapId,
    fresh_map: MindMapId,
    /// The points of the week's trend: the nights stored in the last 7 days, and today's.
    snapshot_days: usize,
    /// The same over 30 days.
    month_days: usize,
}

/// One day of study: (concept, response type, quality) in the order answered.
type Day<'a> = (i64, &'a [(usize, ResponseType, i64)]);

/// The local learner's history: "Rust ownership" (7 concepts) studied on four days within
/// the last week, and once three weeks before, with a snapshot after each day, so that its
/// week's trend has four points (today's being its live figures) and its month's five; two
/// concepts mastered along the way, and two that keep going wrong (struggling). Also an
/// active map with no snapshot stored ("Linear algebra"): its figures and its one point are
/// live.
async fn seed(data_dir: &std::path::Path) -> Seeded {
    let store = AnyStore::Sqlite(SqliteStore::open(&data_dir.join("pathwise.db")).await.expect("open the database"));
    // The server writes its local learner just after it prints its address.
    let learner: LearnerId = {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            if let Some(learner) = store.local_learner().await.expect("read the local learner") {
                break learner.id;
            }
            assert!(std::time::Instant::now() < deadline, "the server made no local learner");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    // The server's analytics read the real date: the history ends an hour ago (or, in the
    // first hour of a day, halfway through it so far: still today) and stays within the week
    // the trend covers.
    let now = Utc::now();
    let midnight = now.date_naive().and_hms_opt(0, 0, 0).expect("midnight").and_utc();
    let end: DateTime<Utc> = (now - Duration::hours(1)).max(midnight + (now - midnight) / 2);
    let clock = Arc::new(ManualClock::new(end - Duration::days(21)));
    let app = App::with_clock(store, clock.clone() as Arc<dyn Clock>);

    let map = app
        .create_map(learner, CreateMap { title: "Rust ownership".into(), metadata: None })
        .await
        .expect("create the map")
        .id;
    let labels =
        ["Values and variables", "Moves and copies", "Ownership", "Borrowing", "Lifetimes", "Slices", "Smart pointers"];
    // Each concept needs the one before it, except Slices and Smart pointers, which need Borrowing.
    let mut nodes: Vec<NodeId> = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        let prerequisite_ids = match i {
            0 => vec![],
            5 | 6 => vec![nodes[3]],
            _ => vec![nodes[i - 1]],
        };
        let node = CreateNode {
            label: label.to_string(),
            description: Some(format!("The idea of {}", label.to_lowercase())),
            effort_minutes: Some(20),
            prerequisite_ids,
            metadata: None,
        };
        nodes.push(app.create_node(learner, map, node).await.expect("create a node").id);
    }
    app.update_map_status(learner, map, MapStatus::Active).await.expect("activate the map");

    use ResponseType::{Review, Teach};
    let days: [Day; 5] = [
        (20, &[(0, Teach, 4)]),
        (6, &[(0, Teach, 4), (1, Teach, 4), (2, Teach, 3), (3, Teach, 2)]),
        (4, &[(0, Review, 5), (1, Review, 5), (2, Review, 4), (3, Review, 2), (4, Teach, 2)]),
        (2, &[(0, Review, 5), (0, Review, 5), (1, Review, 5), (2, Review, 2), (3, Review, 1), (4, Review, 1)]),
        (0, &[(1, Review, 5), (2, Review, 1), (4, Review, 0), (3, Review, 2), (5, Teach, 3)]),
    ];
    for (days_ago, answers) in days {
        clock.set(end - Duration::days(days_ago));
        for (k, &(node, kind, quality)) in answers.iter().enumerate() {
            let input = RecordResponse::new(
                nodes[node],
                map,
                format!("Explain {}", labels[node].to_lowercase()),
                Some("my answer"),
                quality,
                Some(kind),
            );
            app.record_response(learner, input).await.expect("record a response");
            clock.advance(Duration::minutes(3 + k as i64));
        }
        app.analytics().snapshot_map(learner, map).await.expect("take the day's snapshot");
    }

    let fresh = app
        .create_map(learner, CreateMap { title: "Linear algebra".into(), metadata: None })
        .await
        .expect("create the second map")
        .id;
    app.create_node(
        learner,
        fresh,
        CreateNode {
            label: "Vectors".into(),
            description: None,
            effort_minutes: None,
            prerequisite_ids: vec![],
            metadata: None,
        },
    )
    .await
    .expect("create a node");
    app.update_map_status(learner, fresh, MapStatus::Active).await.expect("activate the second map");
    // The nights before today within the window, and today's live point.
    let today = Utc::now().date_naive();
    let points = |window: i64| {
        let nights: std::collections::BTreeSet<_> = days
            .iter()
            .map(|(days_ago, _)| (end - Duration::days(*days_ago)).date_naive())
            .filter(|&day| day < today && day >= today - Duration::days(window))
            .collect();
        nights.len() + 1
    };
    Seeded { map, fresh_map: fresh, snapshot_days: points(7), month_days: points(30) }
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_charts_match_the_api() {
    if !ready() {
        return;
    }
    let fake = FakeLlm::start().await;
    fake.respond_with(Arc::new(digest_writer));
    let served = serve(fake.base_url());
    let seeded = seed(&served.dir.path().join("data")).await;
    // A real Anki package for the import card, where genanki is at hand.
    let package = pathwise_test_support::anki::anki_python().map(|python| {
        let spec = pathwise_test_support::anki::sample_spec();
        pathwise_test_support::anki::make_package(&python, &spec, served.dir.path(), "sample.apkg")
    });
    let env = [
        ("MAP_ID", seeded.map.to_string()),
        ("FRESH_MAP_ID", seeded.fresh_map.to_string()),
        ("SNAPSHOT_DAYS", seeded.snapshot_days.to_string()),
        ("ANKI_PACKAGE", package.as_ref().map(|p| p.display().to_string()).unwrap_or_default()),
        ("ANKI_ANSWERS", "11".to_string()),
    ];
    let report = run_script("progress.mjs", &served, env).await;
    if package.is_some() {
        assert_eq!(report["anki"]["answers"], 11, "{report}");
    }
    // The script compared what it saw with the API; these say it saw enough to compare.
    assert_eq!(report["trend_points"], seeded.snapshot_days, "{report}");
    assert_eq!(report["month_points"], seeded.month_days, "the day three weeks ago: {report}");
    assert!(report["struggling"].as_u64().unwrap_or(0) >= 2, "{report}");
    assert!(report["mastered"].as_u64().unwrap_or(0) >= 2, "{report}");
    assert!(
        fake.requests().iter().any(|r| r["response_format"]["json_schema"]["name"] == "digest"),
        "the digest asked the model"
    );
}
