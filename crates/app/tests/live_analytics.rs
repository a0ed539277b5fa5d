//! Analytics are read live: a response counts in the portfolio, the digest and the map's
//! analytics the moment it is recorded, with no nightly run; the nightly job keeps the
//! history a trend is drawn from, and stores what a read would have shown; and the live
//! figures, read from the totals and recent history the nodes keep, agree with figures
//! computed from the whole history. On SQLite and (with `PATHWISE_TEST_DATABASE_URL`)
//! PostgreSQL.

mod support;

use chrono::Duration;
use pathwise_analytics::{self as analytics, MapInput, MapMetrics, ResponseTotals};
use pathwise_app::Clock;
use pathwise_domain::model::{NodeProgress, ResponseEvent};
use pathwise_domain::{MasteryStatus, MindMapId, ResponseType};
use pathwise_store::prelude::*;
use pathwise_store::ResponseFilter;
use support::{chain, TestApp};

async fn count(t: &TestApp, table: &str) -> i64 {
    t.counts().await.into_iter().find(|(name, _)| name == table).map(|(_, n)| n).expect("a table")
}

fn metrics(value: &serde_json::Value) -> MapMetrics {
    serde_json::from_value(value.clone()).expect("metrics")
}

async fn reviews_on_a_brand_new_map_count_at_once_without_a_nightly_run(t: &TestApp) {
    let map = t.plan("Brand new", chain(&["A", "B", "C"])).await.mind_map_id;
    let ids = t.ids(map).await;
    for (label, quality) in [("A", 5), ("B", 4), ("A", 5)] {
        t.record_later(map, ids[label], quality, ResponseType::Review).await;
    }
    let (app, today) = (t.app(), t.clock.now().date_naive());

    let portfolio = app.portfolio(t.learner).await.unwrap();
    let entry = portfolio.maps.iter().find(|m| m.map_id == map).expect("the map");
    assert_eq!((entry.snapshot_date, entry.total_nodes, portfolio.total_nodes), (Some(today), 3, 3));
    assert_eq!((portfolio.review_responses_7d, portfolio.retention_rate_7d), (3, Some(1.0)));
    assert_eq!(portfolio.needs_attention, Some(map));

    let digest = app.analytics().digest(t.learner).await.unwrap();
    let week = digest.facts.maps.iter().find(|m| m.map_id == map).expect("the map's week");
    assert_eq!((week.answers_this_week, week.sessions_this_week, week.total_nodes), (3, 1, 3));
    assert_eq!((week.retention_rate_7d, week.newly_mastered), (Some(1.0), Some(0)), "begun this week");
    assert_eq!(digest.facts.streak_days, Some(1));
    assert!(digest.body.contains("Brand new: 0 of 3 concepts mastered (0%)"), "{}", digest.body);
    assert!(digest.body.contains("- 3 answers in 1 study session this week."), "{}", digest.body);
    assert!(digest.body.contains("- Remembered in reviews: 100%."), "{}", digest.body);
    assert!(!digest.body.contains("No progress was recorded"), "{}", digest.body);

    let analytics = app.analytics().map_analytics(t.learner, map).await.unwrap();
    let now = metrics(&analytics.latest.metrics);
    assert_eq!((now.total_quiz_responses, now.review_responses_7d, now.sessions_this_period), (3, 3, 1));
    assert_eq!(now.avg_quality_score, Some(14.0 / 3.0));
    assert_eq!((analytics.latest.snapshot_date, analytics.snapshots.len()), (today, 1));
    assert!(analytics.trend.is_none(), "one day is no trend");
    assert_eq!(count(t, "analytics_snapshots").await, 0, "reads store nothing; no job ran");

    // And the next answer shows at once too.
    t.record_later(map, ids["C"], 1, ResponseType::Teach).await;
    let now = metrics(&app.analytics().map_analytics(t.learner, map).await.unwrap().latest.metrics);
    assert_eq!((now.total_quiz_responses, now.review_responses_7d), (4, 3));
    assert_eq!(app.analytics().digest(t.learner).await.unwrap().facts.maps[0].answers_this_week, 4);
}

async fn the_nightly_job_keeps_the_history_and_today_is_the_live_point(t: &TestApp) {
    let map = t.plan("History", chain(&["A", "B"])).await.mind_map_id;
    let a = t.ids(map).await["A"];
    t.record_later(map, a, 4, ResponseType::Teach).await;
    let app = t.app();
    let read = app.analytics().map_analytics(t.learner, map).await.unwrap().latest;
    app.nightly_analytics().await.unwrap();
    let yesterday = t.clock.now().date_naive();
    let stored = app.store().snapshots(t.learner, map, yesterday).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].metrics, read.metrics, "the night stores what a read showed");

    // The next day: the node is answered until mastered; the stored night is the start of
    // the trend and today's live figures its end.
    t.clock.advance(Duration::days(1));
    let today = t.clock.now().date_naive();
    let mut reviews = 0;
    while t.node(a).await.mastery_status != MasteryStatus::Mastered {
        t.record_later(map, a, 5, ResponseType::Review).await;
        reviews += 1;
        assert!(reviews < 10, "A was never mastered");
    }
    let analytics = app.analytics().map_analytics(t.learner, map).await.unwrap();
    let days: Vec<_> = analytics.snapshots.iter().map(|s| s.snapshot_date).collect();
    assert_eq!(days, vec![yesterday, today]);
    assert_eq!(analytics.snapshots[0].metrics, read.metrics, "history is what was stored");
    let trend = analytics.trend.expect("a trend from last night to now");
    assert_eq!((trend.from_date, trend.to_date), (yesterday, today));
    assert_eq!((trend.mastered_nodes.from, trend.mastered_nodes.to, trend.mastered_nodes.change), (0, 1, 1));
    assert_eq!(trend.mastered_nodes.direction, analytics::Direction::Improving);
    assert_eq!(metrics(&analytics.latest.metrics).total_quiz_responses, 1 + reviews);

    let digest = app.analytics().digest(t.learner).await.unwrap();
    assert_eq!((digest.facts.newly_mastered, digest.facts.streak_days), (1, Some(2)));
    assert_eq!(digest.facts.maps[0].trend.as_ref().map(|t| t.from_date), Some(yesterday));
    assert_eq!(app.portfolio(t.learner).await.unwrap().mastered_nodes, 1);

    // Tonight's run keeps today's point; reads still show the live one in its place.
    app.nightly_analytics().await.unwrap();
    assert_eq!(count(t, "analytics_snapshots").await, 2);
    let again = app.analytics().map_analytics(t.learner, map).await.unwrap();
    assert_eq!(again.snapshots.len(), 2);
    assert_eq!(again.snapshots[1], again.latest);
}

/// Six weeks of answers, some of them struggling, with a few nights snapshotted and a
/// streak of five days at the end: the live
/// figures (node totals, node histories, the last 30 days' responses) equal those computed
/// from the map loaded whole with every response, and the streak equals the one counted
/// from every response's day.
async fn live_figures_agree_with_the_whole_history(t: &TestApp) {
    let map = t.plan("Agreement", chain(&["A", "B", "C", "D", "E"])).await.mind_map_id;
    let ids = t.ids(map).await;
    let labels = ["A", "B", "C", "D", "E"];
    let qualities = [5, 4, 2, 1, 0, 3, 5, 2];
    let kinds = [ResponseType::Teach, ResponseType::Review, ResponseType::Review, ResponseType::Diagnostic];
    let mut i = 0;
    for day in 0..44 {
        if day % 5 == 4 {
            t.clock.advance(Duration::days(1));
            continue; // a day off now and then breaks the streak
        }
        for _ in 0..(1 + day % 3) {
            let label = labels[(i * 7 + day) % labels.len()];
            t.record_later(map, ids[label], qualities[i % qualities.len()], kinds[i % kinds.len()]).await;
            i += 1;
        }
        if day % 10 == 0 || day > 38 {
            t.app().nightly_analytics().await.unwrap();
        }
        t.clock.advance(Duration::days(1) - Duration::minutes(1 + day as i64 % 3));
    }
    for quality in [1, 2, 0] {
        t.record_later(map, ids["C"], quality, ResponseType::Review).await;
    }
    let last = t.record_later(map, ids["B"], 2, ResponseType::Review).await;
    let app = t.app();
    let now = t.clock.now();
    let live = metrics(&app.analytics().map_analytics(t.learner, map).await.unwrap().latest.metrics);

    let whole = app.get_map(t.learner, map).await.unwrap();
    let filter = ResponseFilter { mind_map_id: Some(map), ..Default::default() };
    let all = app.store().list_responses(t.learner, &filter, 0, 10_000).await.unwrap();
    assert!(all.items.iter().any(|r| r.responded_at < now - Duration::days(30)), "history older than the windows");
    let earlier = app.store().snapshots(t.learner, map, now.date_naive() - Duration::days(28)).await.unwrap();
    let earlier: Vec<analytics::Snapshot> = earlier
        .iter()
        .filter(|s| s.snapshot_date < now.date_naive())
        .map(|s| analytics::Snapshot::from_json(s.snapshot_date, &s.metrics).unwrap())
        .collect();
    // Oldest first, as answered: of two at one instant the later listed is the newer.
    let mut responses: Vec<ResponseEvent> = all.items.iter().map(ResponseEvent::from).collect();
    responses.reverse();
    let input = MapInput {
        map: whole.map,
        nodes: whole.nodes.iter().map(NodeProgress::from).collect(),
        edges: whole.edges,
        responses,
        older_responses: ResponseTotals::default(),
        month_reviews: None,
        recent_qualities: None,
    };
    let reference = analytics::compute(&input, &earlier, now, 0);
    assert_eq!(live, reference);
    assert_eq!(live.total_quiz_responses, all.total);
    assert!(live.struggling_nodes.contains(&ids["C"]), "three low answers in a row: {live:?}");
    assert!(live.retention_rate_30d.is_some() && live.velocity_nodes_per_week >= 0.0);

    let streak = analytics::current_streak_days(all.items.iter().map(|r| r.responded_at), now, 0);
    assert_eq!(streak, 5);
    assert_eq!(app.analytics().digest(t.learner).await.unwrap().facts.streak_days, Some(streak));
    assert_eq!(last.response.responded_at, now);

    // Each node's totals are its responses'.
    for activity in app.store().node_activity(t.learner, Some(map)).await.unwrap() {
        let own: Vec<_> = all.items.iter().filter(|r| r.node_id == activity.node.id).collect();
        assert_eq!(activity.responses, own.len() as u64, "{}", activity.node.label);
        assert_eq!(activity.quality_sum, own.iter().map(|r| u64::from(r.quality)).sum::<u64>());
        let latest: Vec<u8> = own.iter().take(7).map(|r| r.quality).collect();
        assert_eq!(activity.recent_qualities, latest, "{}: the latest seven, newest first", activity.node.label);
    }
}

/// Another learner's answers count in neither the portfolio nor the streak, and a map
/// without answers still has its figures.
async fn figures_are_the_learners_own(t: &TestApp) {
    let mine = t.plan("Mine", chain(&["A", "B"])).await.mind_map_id;
    let other = t.other_learner().await;
    let input: pathwise_app::curriculum::GenerateInput =
        serde_json::from_value(serde_json::json!({ "topic": "Theirs", "decomposition": chain(&["X", "Y", "Z"]) }))
            .unwrap();
    let theirs = t.app().curriculum_generate(other, input).await.unwrap().mind_map_id;
    let x = t.app().get_map(other, theirs).await.unwrap().nodes[0].id;
    let answer = pathwise_app::mastery::RecordResponse::new(x, theirs, "q", Some("a"), 5, Some(ResponseType::Review));
    t.app().record_response(other, answer).await.unwrap();

    let portfolio = t.app().portfolio(t.learner).await.unwrap();
    assert_eq!((portfolio.maps_total, portfolio.total_nodes, portfolio.review_responses_7d), (1, 2, 0));
    let digest = t.app().analytics().digest(t.learner).await.unwrap();
    assert_eq!(digest.facts.streak_days, Some(0));
    let ids: Vec<MindMapId> = digest.facts.maps.iter().map(|m| m.map_id).collect();
    assert_eq!(ids, vec![mine]);
    let theirs_read = t.app().analytics().map_analytics(t.learner, theirs).await.unwrap_err();
    assert_eq!(theirs_read.kind, pathwise_app::ErrorKind::NotFound);
    assert_eq!(t.app().analytics().digest(other).await.unwrap().facts.streak_days, Some(1));
}

conformance!(
    reviews_on_a_brand_new_map_count_at_once_without_a_nightly_run,
    the_nightly_job_keeps_the_history_and_today_is_the_live_point,
    live_figures_agree_with_the_whole_history,
    figures_are_the_learners_own,
);
