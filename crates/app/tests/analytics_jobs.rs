//! Analytics read live, and the jobs built on them: responses count in the portfolio, the
//! digest and a map's analytics the moment they are recorded; the nightly snapshot keeps
//! the history (with its feedback re-plan); the weekly digest is delivered to a webhook
//! receiver on 127.0.0.1. On SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use axum::routing::post;
use axum::{Json, Router};
use pathwise_app::Clock;
use pathwise_domain::ResponseType;
use pathwise_notify::{build, NotifierConfig, WebhookConfig};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use support::{chain, TestApp};

async fn count(t: &TestApp, table: &str) -> i64 {
    t.counts().await.into_iter().find(|(name, _)| name == table).map(|(_, n)| n).expect("a table")
}

async fn a_map_with_three_struggling_concepts_is_replanned_by_the_nightly_job(t: &TestApp) {
    let map = t.plan("Struggles", chain(&["A", "B", "C", "D"])).await.mind_map_id;
    let ids = t.ids(map).await;
    for label in ["A", "B", "C"] {
        for _ in 0..3 {
            t.record_later(map, ids[label], 1, ResponseType::Teach).await;
        }
    }
    let calm = t.plan("Calm", chain(&["X", "Y"])).await.mind_map_id;
    t.record_later(calm, t.ids(calm).await["X"], 5, ResponseType::Teach).await;

    let summary = t.app().nightly_analytics().await.unwrap();
    assert_eq!(summary, "2 maps snapshotted, 1 re-planned, 0 old idempotent replies forgotten");
    let analytics = t.app().analytics().map_analytics(t.learner, map).await.unwrap();
    let metrics = analytics.latest.metrics;
    assert_eq!(metrics["struggling_nodes"].as_array().unwrap().len(), 3, "{metrics}");
    assert_eq!(metrics["retention_rate_7d"], Value::Null, "no review responses: no retention");

    // The same night again replaces the day's snapshot rather than adding one.
    t.app().nightly_analytics().await.unwrap();
    assert_eq!(t.app().analytics().map_analytics(t.learner, map).await.unwrap().snapshots.len(), 1);
    assert_eq!(count(t, "analytics_snapshots").await, 2, "one a map");
    let portfolio = t.app().portfolio(t.learner).await.unwrap();
    assert_eq!(portfolio.needs_attention, Some(map));
}

/// Twenty nights of snapshots, then a day with no snapshot yet: the last week's nights and
/// today's live point by default, a month when asked for, and a window outside 1-366 days
/// refused.
async fn a_maps_analytics_cover_the_window_asked_for(t: &TestApp) {
    let map = t.plan("Windows", chain(&["A", "B"])).await.mind_map_id;
    let a = t.ids(map).await["A"];
    for _ in 0..20 {
        t.record_later(map, a, 4, ResponseType::Teach).await;
        t.app().nightly_analytics().await.unwrap();
        t.clock.advance(chrono::Duration::days(1));
    }
    let app = t.app();
    let today = t.clock.now().date_naive();
    let week = app.analytics().map_analytics(t.learner, map).await.unwrap();
    assert_eq!((week.days, week.snapshots.len()), (7, 8), "the nights of the last week, and today");
    assert_eq!(week.snapshots.last(), Some(&week.latest));
    assert_eq!(week.latest.snapshot_date, today);
    let month = app.analytics().map_analytics_over(t.learner, map, 30).await.unwrap();
    assert_eq!((month.days, month.snapshots.len()), (30, 21));
    let trend = month.trend.expect("a trend over the month");
    assert_eq!((trend.from_date, trend.to_date), (month.snapshots[0].snapshot_date, today));
    assert_eq!(trend.mastered_nodes.to, month.latest.metrics["mastered_nodes"].as_u64().unwrap() as usize);
    let day = app.analytics().map_analytics_over(t.learner, map, 1).await.unwrap();
    let trend = day.trend.expect("last night to now");
    assert_eq!((trend.from_date, trend.to_date), (today - chrono::Duration::days(1), today));
    for days in [0, 367] {
        let e = app.analytics().map_analytics_over(t.learner, map, days).await.unwrap_err();
        assert_eq!(e.kind, pathwise_app::ErrorKind::Invalid, "{days}");
        assert!(e.message.contains("allowed: 1-366"), "{}", e.message);
    }
}

/// A webhook receiver that keeps every body it is sent.
async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = received.clone();
    let app = Router::new().route(
        "/hook",
        post(move |Json(body): Json<Value>| {
            let sink = sink.clone();
            async move {
                sink.lock().unwrap().push(body);
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, received)
}

async fn the_weekly_digest_is_written_from_the_template_and_delivered_by_webhook(t: &TestApp) {
    let (url, received) = receiver().await;
    let notifier = build(&NotifierConfig::Webhook(WebhookConfig::new(url))).unwrap();
    let app = t.app().clone().with_notifiers(vec![notifier]);
    let map = t.plan("Digest topic", chain(&["A", "B"])).await.mind_map_id;
    t.record_later(map, t.ids(map).await["A"], 4, ResponseType::Teach).await;
    app.nightly_analytics().await.unwrap();
    let other = t.other_learner().await;
    assert_eq!(
        app.analytics().weekly_digests().await.unwrap(),
        "1 digests written",
        "a learner without maps gets none"
    );
    let bodies = received.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["learner_id"], t.learner.to_string());
    assert!(bodies[0]["text"].as_str().unwrap().contains("Digest topic"), "{}", bodies[0]);
    assert!(bodies.iter().all(|b| b["learner_id"] != other.to_string()));
}

conformance!(
    a_map_with_three_struggling_concepts_is_replanned_by_the_nightly_job,
    a_maps_analytics_cover_the_window_asked_for,
    the_weekly_digest_is_written_from_the_template_and_delivered_by_webhook,
);
