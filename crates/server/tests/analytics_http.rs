//! Analytics over HTTP, read live: answers posted a moment ago show in the portfolio, the
//! digest, a map's analytics and the rest of what the Progress view reads, with no nightly
//! run; the nightly job keeps the history the trend is drawn from. A real server on
//! 127.0.0.1 whose application runs on a manual clock, over SQLite, and over PostgreSQL
//! when `PATHWISE_TEST_DATABASE_URL` is set.

mod support;

use chrono::{DateTime, Duration, Utc};
use pathwise_app::{App, ManualClock};
use serde_json::{json, Value};
use std::sync::Arc;
use support::*;

fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc)
}

fn chain(labels: &[&str]) -> Value {
    json!({
        "root": labels[0],
        "nodes": labels.iter().map(|l| json!({ "label": l, "effort_minutes": 10 })).collect::<Vec<_>>(),
        "edges": labels.windows(2).map(|w| json!({ "parent": w[0], "child": w[1] })).collect::<Vec<_>>(),
    })
}

/// Post an answer a minute after the previous one.
async fn answer(t: &TestApp, clock: &ManualClock, map: &str, node: &str, quality: i64, kind: &str) -> Value {
    clock.advance(Duration::minutes(1));
    let body = json!({ "node_id": node, "mind_map_id": map, "question_text": "Why?", "user_answer": "Because.",
        "quality": quality, "response_type": kind });
    t.post(&t.a, "/api/responses", body).await.expect(201)
}

async fn snapshots_stored(t: &TestApp) -> i64 {
    t.counts().await.into_iter().find(|(table, _)| table == "analytics_snapshots").map(|(_, n)| n).unwrap()
}

async fn answers_show_in_every_progress_read_at_once((t, clock): &(TestApp, Arc<ManualClock>)) {
    let plan = t.generate(&t.a, "Fresh topic", chain(&["Sets", "Relations", "Functions"])).await;
    let map = text(&plan["mind_map_id"]);
    let ids = t.ids(&t.a, &map).await;
    for (label, quality) in [("Sets", 5), ("Relations", 4), ("Sets", 5)] {
        answer(t, clock, &map, &ids[label], quality, "review").await;
    }
    let today = clock.now_date();

    // The Progress view's portfolio page: the map's line and the totals.
    let portfolio = t.get(&t.a, "/api/me/portfolio").await.expect(200);
    let line = portfolio["maps"].as_array().unwrap().iter().find(|m| m["map_id"] == map.as_str()).unwrap();
    assert_eq!((line["total_nodes"].as_i64(), line["snapshot_date"].as_str()), (Some(3), Some(today.as_str())));
    assert_eq!((portfolio["total_nodes"].as_i64(), portfolio["review_responses_7d"].as_i64()), (Some(3), Some(3)));
    assert_eq!(portfolio["retention_rate_7d"], 1.0);
    // Its digest card.
    let digest = t.get(&t.a, "/api/me/digest").await.expect(200);
    let body = text(&digest["body"]);
    assert!(body.contains("Fresh topic: 0 of 3 concepts mastered"), "{body}");
    assert!(body.contains("3 answers in 1 study session this week"), "{body}");
    assert!(!body.contains("No progress was recorded"), "{body}");
    assert_eq!((digest["facts"]["streak_days"].as_i64(), digest["written_by"].as_str()), (Some(1), Some("template")));
    // A map's page: analytics (today's point), the mastery summary and the struggles.
    let analytics = t.get(&t.a, &format!("/api/mind-maps/{map}/analytics?days=7")).await.expect(200);
    let latest = &analytics["latest"];
    assert_eq!(
        (latest["snapshot_date"].as_str(), latest["metrics"]["total_quiz_responses"].as_i64()),
        (Some(today.as_str()), Some(3))
    );
    assert_eq!(latest["metrics"]["retention_rate_7d"], 1.0);
    assert_eq!(analytics["snapshots"], json!([latest]), "today's point is the live one");
    assert_eq!(analytics["trend"], Value::Null);
    let summary = t.get(&t.a, &format!("/api/mind-maps/{map}/mastery-summary")).await.expect(200);
    assert_eq!(summary["total_nodes"], 3);
    t.get(&t.a, &format!("/api/mind-maps/{map}/struggles")).await.expect(200);
    assert_eq!(snapshots_stored(t).await, 0, "reads store nothing and no job ran");

    // One answer more, at once in every read.
    answer(t, clock, &map, &ids["Functions"], 2, "teach").await;
    let analytics = t.get(&t.a, &format!("/api/mind-maps/{map}/analytics")).await.expect(200);
    assert_eq!(analytics["latest"]["metrics"]["total_quiz_responses"], 4);
    let digest = t.get(&t.a, "/api/me/digest").await.expect(200);
    assert!(text(&digest["body"]).contains("4 answers in 1 study session this week"), "{digest}");
    // Learner B sees none of it.
    let theirs = t.get(&t.b, "/api/me/portfolio").await.expect(200);
    assert_eq!((theirs["maps_total"].as_i64(), theirs["total_nodes"].as_i64()), (Some(0), Some(0)));
    t.get(&t.b, &format!("/api/mind-maps/{map}/analytics")).await.expect_error(404, "not_found", &[]);
}

async fn the_nightly_job_keeps_the_history_and_the_trend_ends_now((t, clock): &(TestApp, Arc<ManualClock>)) {
    let plan = t.generate(&t.a, "Week topic", chain(&["Atoms", "Molecules"])).await;
    let map = text(&plan["mind_map_id"]);
    let atoms = t.ids(&t.a, &map).await["Atoms"].clone();
    answer(t, clock, &map, &atoms, 4, "teach").await;
    let before = t.get(&t.a, &format!("/api/mind-maps/{map}/analytics")).await.expect(200);
    t.app.nightly_analytics().await.unwrap();
    assert_eq!(snapshots_stored(t).await, 1);
    let yesterday = clock.now_date();

    clock.advance(Duration::days(1));
    let today = clock.now_date();
    let mut reviews = 0;
    loop {
        let recorded = answer(t, clock, &map, &atoms, 5, "review").await;
        reviews += 1;
        if recorded["node"]["mastery_status"] == "mastered" {
            break;
        }
        assert!(reviews < 10, "never mastered: {recorded}");
    }
    let analytics = t.get(&t.a, &format!("/api/mind-maps/{map}/analytics")).await.expect(200);
    let days: Vec<&str> =
        analytics["snapshots"].as_array().unwrap().iter().map(|s| s["snapshot_date"].as_str().unwrap()).collect();
    assert_eq!(days, vec![yesterday.as_str(), today.as_str()]);
    assert_eq!(analytics["snapshots"][0]["metrics"], before["latest"]["metrics"], "the night kept what was read");
    let trend = &analytics["trend"];
    assert_eq!(
        (trend["from_date"].as_str(), trend["to_date"].as_str()),
        (Some(yesterday.as_str()), Some(today.as_str()))
    );
    assert_eq!((trend["mastered_nodes"]["change"].as_i64(), trend["overall"].as_str()), (Some(1), Some("improving")));
    let digest = t.get(&t.a, "/api/me/digest").await.expect(200);
    assert_eq!(
        (digest["facts"]["newly_mastered"].as_i64(), digest["facts"]["streak_days"].as_i64()),
        (Some(1), Some(2))
    );
    let portfolio = t.get(&t.a, "/api/me/portfolio").await.expect(200);
    assert_eq!(portfolio["mastered_nodes"], 1);

    // Storing today's snapshot from the API keeps the same point, now in the history.
    let stored = t.post(&t.a, &format!("/api/mind-maps/{map}/analytics/snapshot"), json!({})).await.expect(200);
    assert_eq!(stored["mastered_nodes"], 1);
    assert_eq!(snapshots_stored(t).await, 2);
    let again = t.get(&t.a, &format!("/api/mind-maps/{map}/analytics?days=30")).await.expect(200);
    assert_eq!(again["snapshots"].as_array().unwrap().len(), 2);
}

trait Today {
    fn now_date(&self) -> String;
}

impl Today for ManualClock {
    fn now_date(&self) -> String {
        pathwise_app::Clock::now(self).date_naive().to_string()
    }
}

/// A server whose application reads the time from a manual clock the scenario moves.
async fn with_a_clock(test_store: TestStore) -> (TestApp, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start_time()));
    let made = clock.clone();
    (spawn_app_made(test_store, move |s| App::with_clock(s, made)).await, clock)
}

pathwise_test_support::conformance!(
    with_a_clock;
    answers_show_in_every_progress_read_at_once,
    the_nightly_job_keeps_the_history_and_the_trend_ends_now,
);
