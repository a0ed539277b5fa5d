//! FSRS as a learner's choice: their reviews are spaced by FSRS, everyone else's by SM-2.
//! On SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use chrono::Duration;
use pathwise_app::preferences::UpdatePreferences;
use pathwise_domain::{ResponseType, SrsScheduler};
use serde_json::json;
use support::{chain, TestApp};

fn rows(counts: &[(String, i64)], table: &str) -> i64 {
    counts.iter().find(|(t, _)| t == table).map(|(_, n)| *n).unwrap()
}

async fn a_learner_who_chooses_fsrs_has_reviews_spaced_by_fsrs(t: &TestApp) {
    let map = t.plan("Spacing", chain(&["A", "B"])).await.mind_map_id;
    let a = t.ids(map).await["A"];
    let sm2 = t.record(map, a, 4, ResponseType::Teach).await.node;
    assert_eq!(sm2.interval_days, 1.0, "SM-2 by default: one day after the first success");

    let choose: UpdatePreferences = serde_json::from_value(json!({ "srs_scheduler": "fsrs" })).unwrap();
    let chosen = t.app().update_preferences(t.learner, choose).await.unwrap();
    assert_eq!(chosen.srs_scheduler, SrsScheduler::Fsrs);
    let b = t.ids(map).await["B"];
    let first = t.record_later(map, b, 4, ResponseType::Teach).await.node;
    assert_ne!(first.interval_days, 1.0, "FSRS's first interval is its initial stability for Good");
    assert_eq!(
        first.next_review_at,
        Some(first.last_reviewed_at.unwrap() + Duration::days(first.interval_days as i64))
    );
    assert_eq!(t.node(b).await.next_review_at, first.next_review_at, "the stored node carries FSRS's schedule");
    assert_eq!(rows(&t.counts().await, "node_fsrs"), 1);

    // A good review on time grows the interval; a lapse shrinks it.
    t.clock.advance(Duration::days(first.interval_days as i64));
    let second = t.record(map, b, 5, ResponseType::Review).await.node;
    assert!(second.interval_days > first.interval_days, "{} then {}", first.interval_days, second.interval_days);
    t.clock.advance(Duration::days(second.interval_days as i64));
    let lapse = t.record(map, b, 1, ResponseType::Review).await.node;
    assert!(lapse.interval_days < second.interval_days, "{} then {}", second.interval_days, lapse.interval_days);

    // Switching back: SM-2 again, from the state it kept on the node.
    let back: UpdatePreferences = serde_json::from_value(json!({ "srs_scheduler": "sm2" })).unwrap();
    assert_eq!(t.app().update_preferences(t.learner, back).await.unwrap().srs_scheduler, SrsScheduler::Sm2);
    let after = t.record_later(map, a, 4, ResponseType::Review).await.node;
    assert_eq!(after.interval_days, 6.0, "back on SM-2: its second interval");
}

conformance!(a_learner_who_chooses_fsrs_has_reviews_spaced_by_fsrs);
