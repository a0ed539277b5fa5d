//! FSRS as a learner's choice: their reviews are spaced by FSRS, everyone else's by SM-2.
//! On SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use chrono::Duration;
use pathwise_app::fsrs_parameters::FsrsParametersInUse;
use pathwise_app::preferences::UpdatePreferences;
use pathwise_domain::evidence::Rating;
use pathwise_domain::{NodeId, ResponseType, SrsScheduler};
use pathwise_srs::{fsrs_review, FsrsMemory, FsrsParameters, FsrsScheduler, DEFAULT_DESIRED_RETENTION};
use pathwise_store::prelude::*;
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
    assert_eq!(rows(&t.counts().await, "node_fsrs"), 2, "A's memory replayed at the switch, and B's");

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

/// A map of `count` concepts under one root, for histories over many concepts.
fn star(count: usize) -> serde_json::Value {
    let labels: Vec<String> = (0..count).map(|i| format!("Concept {i}")).collect();
    let mut nodes = vec![json!({ "label": "Root", "effort_minutes": 10 })];
    nodes.extend(labels.iter().map(|l| json!({ "label": l, "effort_minutes": 10 })));
    let edges: Vec<_> = labels.iter().map(|l| json!({ "parent": "Root", "child": l })).collect();
    json!({ "root": "Root", "nodes": nodes, "edges": edges })
}

/// Each of 24 concepts taught (Good), then reviewed 3, 10, 25 and 60 days later and recalled
/// without effort (Easy) but every seventh review, forgotten: memories that last longer than
/// FSRS's defaults expect. Concepts start on different days; the clock ends on day 70.
async fn a_long_memory_history(t: &TestApp, map: pathwise_domain::MindMapId) -> Vec<NodeId> {
    let ids = t.ids(map).await;
    let concepts: Vec<NodeId> = (0..24).map(|i| ids[&format!("Concept {i}")]).collect();
    let mut events: Vec<(i64, usize, i64, ResponseType)> = Vec::new();
    for (index, _) in concepts.iter().enumerate() {
        let start = (index % 6) as i64;
        events.push((start, index, 4, ResponseType::Teach));
        for (step, gap) in [3, 10, 25, 60].into_iter().enumerate() {
            let grade = if (index * 3 + step) % 7 == 0 { 1 } else { 5 };
            events.push((start + gap, index, grade, ResponseType::Review));
        }
    }
    events.sort_by_key(|&(day, index, _, _)| (day, index));
    let start = t.clock_now();
    for (day, index, grade, kind) in events {
        let at = start + Duration::days(day) + Duration::minutes(index as i64);
        if at > t.clock_now() {
            t.clock.advance(at - t.clock_now());
        }
        t.record(map, concepts[index], grade, kind).await;
    }
    t.clock.advance(start + Duration::days(70) - t.clock_now());
    concepts
}

async fn a_learner_s_own_fsrs_parameters_schedule_them_once_fitted(t: &TestApp) {
    let choose: UpdatePreferences = serde_json::from_value(json!({ "srs_scheduler": "fsrs" })).unwrap();
    t.app().update_preferences(t.learner, choose).await.unwrap();
    let before = t.app().preferences(t.learner).await.unwrap().fsrs;
    assert_eq!(before.parameters, FsrsParametersInUse::Defaults);
    assert_eq!(before.weights, FsrsParameters::default().weights(), "the defaults until a fit");
    assert!(before.reason.unwrap().contains("not fitted yet"));

    let map = t.plan("Long memories", star(24)).await.mind_map_id;
    let concepts = a_long_memory_history(t, map).await;
    let status = t.app().fsrs().fit(t.learner).await.unwrap();
    assert_eq!(status.parameters, FsrsParametersInUse::Fitted, "{status:?}");
    assert_eq!((status.reviews, status.fitted_on_reviews, status.checked_reviews), (96, 96, 20));
    let (fitted, defaults) = (status.log_loss.unwrap(), status.default_log_loss.unwrap());
    assert!(fitted <= defaults, "the learner's own parameters predict them better: {fitted} against {defaults}");
    assert_ne!(status.weights, FsrsParameters::default().weights());
    assert_eq!(status.fitted_at, Some(t.clock_now()));
    assert_eq!(t.app().preferences(t.learner).await.unwrap().fsrs, status, "the preferences show what is in use");

    // The next review is scheduled with them: from the memory FSRS kept, the fitted
    // parameters' interval, not the defaults'.
    let concept = concepts[1];
    let memory = t.app().store().node_fsrs(t.learner, concept).await.unwrap().unwrap();
    let prior = FsrsMemory { stability: memory.stability, difficulty: memory.difficulty };
    let last = t.node(concept).await.last_reviewed_at.unwrap();
    let elapsed = (t.clock_now() - last).num_seconds() as f64 / 86_400.0;
    let own = FsrsParameters::new(&status.weights).unwrap();
    let expected = fsrs_review(Some(prior), elapsed, Rating::Easy, DEFAULT_DESIRED_RETENTION, &own).unwrap();
    let by_default =
        fsrs_review(Some(prior), elapsed, Rating::Easy, DEFAULT_DESIRED_RETENTION, &FsrsParameters::default()).unwrap();
    let node = t.record(map, concept, 5, ResponseType::Review).await.node;
    assert_eq!(node.interval_days, expected.interval_days);
    assert_ne!(node.interval_days, by_default.interval_days, "the defaults would schedule otherwise");

    // The weekly job fits every FSRS learner again; a learner on SM-2 is left alone.
    let other = t.other_learner().await;
    let done = t.app().fsrs().refit_learners().await.unwrap();
    assert_eq!(done, "1 FSRS learner refitted, 1 on parameters of their own");
    assert_eq!(t.app().fsrs().status(other).await.unwrap().fitted_at, None);
    assert_eq!(t.app().fsrs().status(t.learner).await.unwrap().reviews, 97, "the review just made counts");
}

async fn a_short_history_keeps_the_defaults_and_says_why(t: &TestApp) {
    let map = t.plan("Short", chain(&["A", "B"])).await.mind_map_id;
    let a = t.ids(map).await["A"];
    t.record(map, a, 4, ResponseType::Teach).await;
    t.clock.advance(Duration::days(2));
    t.record(map, a, 4, ResponseType::Review).await;
    let status = t.app().fsrs().fit(t.learner).await.unwrap();
    assert_eq!(status.parameters, FsrsParametersInUse::Defaults);
    assert_eq!(status.weights, FsrsParameters::default().weights());
    assert_eq!((status.reviews, status.checked_reviews), (1, 0), "one review: nothing to hold out");
    let reason = status.reason.unwrap();
    assert!(reason.contains("1 of your reviews") && reason.contains("needs 8"), "{reason}");
    assert_eq!(rows(&t.counts().await, "learner_fsrs"), 1, "the attempt is kept, with its reason");
}

async fn choosing_fsrs_replays_the_history_into_each_concept_s_memory(t: &TestApp) {
    let map = t.plan("Replayed", star(24)).await.mind_map_id;
    let concepts = a_long_memory_history(t, map).await;
    assert_eq!(rows(&t.counts().await, "node_fsrs"), 0, "SM-2 keeps no FSRS memory");

    let choose: UpdatePreferences = serde_json::from_value(json!({ "srs_scheduler": "fsrs" })).unwrap();
    t.app().update_preferences(t.learner, choose).await.unwrap();
    assert_eq!(rows(&t.counts().await, "node_fsrs"), 24, "every answered concept has a memory");
    // Concept 0: taught on day 0 (Good), reviews on days 3, 10, 25, 60 graded 1, 5, 5, 5.
    let history = t.app().review_log(t.learner).await.unwrap();
    let log = pathwise_srs::parse_review_log(&history).unwrap();
    let item = log.items().iter().find(|i| i.item_id == concepts[0].to_string()).unwrap();
    assert_eq!(item.events.iter().map(|e| e.grade).collect::<Vec<_>>(), vec![4, 1, 5, 5, 5]);
    let replayed = FsrsScheduler::default().replay(&item.events).unwrap().unwrap();
    let stored = t.app().store().node_fsrs(t.learner, concepts[0]).await.unwrap().unwrap();
    assert!(
        (stored.stability - replayed.stability).abs() < 1e-9 && (stored.difficulty - replayed.difficulty).abs() < 1e-9
    );
    assert!(stored.stability > 20.0, "four reviews over two months leave a lasting memory: {}", stored.stability);
}

conformance!(
    a_learner_who_chooses_fsrs_has_reviews_spaced_by_fsrs,
    a_learner_s_own_fsrs_parameters_schedule_them_once_fitted,
    a_short_history_keeps_the_defaults_and_says_why,
    choosing_fsrs_replays_the_history_into_each_concept_s_memory,
);
