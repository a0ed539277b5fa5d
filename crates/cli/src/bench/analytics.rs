//! `pathwise bench --only analytics`: a learner's portfolio and digest (and one map's
//! analytics) read live, with a long history behind them. One learner with 50 maps of 30
//! concepts and 100,000 answers spread evenly over the past year (one answer on every map
//! in each round, about five rounds a day), recorded through the application on a manual
//! clock that ends now, with the nightly job run for each of the last 30 days. The reads
//! then run one after another on the real clock, so each counts every answer up to now.

use super::stats::Stats;
use anyhow::{ensure, Result};
use chrono::{Duration, Utc};
use pathwise_app::curriculum::GenerateInput;
use pathwise_app::mastery::RecordResponse;
use pathwise_app::{AnyStore, App, Clock, ManualClock};
use pathwise_domain::{LearnerId, MindMapId, NodeId, ResponseType};
use pathwise_store::Store as _;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// What the benchmark reads, and what it was seeded with.
pub(crate) struct Shape {
    pub maps: usize,
    pub responses: usize,
    pub reads: usize,
}

/// The seeded history covers this many days, ending now.
const HISTORY_DAYS: i64 = 365;
/// The nightly job runs for each of the last this many days of the history.
const NIGHTS: i64 = 30;
const CONCEPTS: usize = 30;

/// Seed the history on `app`'s store, then time the reads.
pub(crate) async fn live_reads(app: &App, shape: &Shape) -> Result<()> {
    let store = app.store().clone();
    let (learner, maps) = seed(&store, shape).await?;
    if let AnyStore::Postgres(pg) = &store {
        // A live system's autovacuum would have analysed the tables after so many inserts.
        sqlx::query("VACUUM ANALYZE").execute(pg.pool()).await?;
    }
    let reader = App::new(store.clone());
    check(&reader, learner, &maps, shape).await?;
    let engine = store.engine();
    let extra = json!({ "maps": shape.maps, "responses": shape.responses, "history_days": HISTORY_DAYS });
    time(shape.reads, || async { reader.portfolio(learner).await.map(drop) }).await?.print(
        "analytics_portfolio",
        engine,
        extra.clone(),
    );
    time(shape.reads, || async { reader.analytics().digest(learner).await.map(drop) }).await?.print(
        "analytics_digest",
        engine,
        extra.clone(),
    );
    let one = maps[0].0;
    time(shape.reads, || async { reader.analytics().map_analytics(learner, one).await.map(drop) }).await?.print(
        "analytics_map",
        engine,
        extra,
    );
    Ok(())
}

/// `reads` calls one after another, after a few unmeasured ones.
async fn time<F, Fut>(reads: usize, read: F) -> Result<Stats>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = pathwise_app::AppResult<()>>,
{
    for _ in 0..5 {
        read().await?;
    }
    let mut latencies = Vec::with_capacity(reads);
    let start = Instant::now();
    for _ in 0..reads {
        let t = Instant::now();
        read().await?;
        latencies.push(t.elapsed());
    }
    Ok(Stats { ops: reads, concurrency: 1, elapsed: start.elapsed(), latencies })
}

/// The learner, and each map with its concepts.
async fn seed(store: &AnyStore, shape: &Shape) -> Result<(LearnerId, Vec<(MindMapId, Vec<NodeId>)>)> {
    let end = Utc::now() - Duration::minutes(1);
    let start = end - Duration::days(HISTORY_DAYS);
    let clock = Arc::new(ManualClock::new(start));
    let app = App::with_clock(store.clone(), clock.clone());
    let learner = app.create_learner("bench learner").await?.learner.id;
    let mut maps = Vec::with_capacity(shape.maps);
    for m in 0..shape.maps {
        // A binary tree of concepts: depth 4 for 30.
        let labels: Vec<String> = (0..CONCEPTS).map(|i| format!("Topic {m} concept {i}")).collect();
        let nodes: Vec<_> = labels.iter().map(|l| json!({ "label": l, "effort_minutes": 15 })).collect();
        let edges: Vec<_> =
            (1..CONCEPTS).map(|i| json!({ "parent": labels[(i - 1) / 2], "child": labels[i] })).collect();
        let input: GenerateInput = serde_json::from_value(json!({
            "topic": format!("Topic {m}"), "decomposition": { "root": labels[0], "nodes": nodes, "edges": edges }
        }))?;
        let plan = app.curriculum_generate(learner, input).await?;
        let map = app.get_map(learner, plan.mind_map_id).await?;
        maps.push((map.map.id, map.nodes.iter().map(|n| n.id).collect::<Vec<_>>()));
    }
    let rounds = shape.responses / shape.maps;
    let step = (end - start) / rounds as i32;
    let nights_from = (end - Duration::days(NIGHTS)).date_naive();
    let mut rng = StdRng::seed_from_u64(19);
    for round in 0..rounds {
        let at = start + step * round as i32;
        let day = at.date_naive();
        // The night between the last round and this one, for the last weeks of the history.
        if round > 0 && day > clock.now().date_naive() && day > nights_from {
            clock.set(day.and_hms_opt(0, 0, 0).expect("midnight").and_utc() - Duration::minutes(1));
            app.nightly_analytics().await?;
        }
        clock.set(at);
        let mut answers = tokio::task::JoinSet::new();
        for (map, nodes) in &maps {
            let node = nodes[rng.gen_range(0..nodes.len())];
            let quality = [5, 4, 4, 3, 5, 2, 4, 1, 5, 3][rng.gen_range(0..10)];
            let kind = match rng.gen_range(0..20) {
                0 => ResponseType::Diagnostic,
                1..=6 => ResponseType::Teach,
                _ => ResponseType::Review,
            };
            let answer = RecordResponse::new(node, *map, "What does it mean?", Some("an answer"), quality, Some(kind));
            let app = app.clone();
            answers.spawn(async move { app.record_response(learner, answer).await });
        }
        while let Some(recorded) = answers.join_next().await {
            recorded??;
        }
    }
    Ok((learner, maps))
}

/// The reads see the whole history: every answer, every map and concept.
async fn check(app: &App, learner: LearnerId, maps: &[(MindMapId, Vec<NodeId>)], shape: &Shape) -> Result<()> {
    let portfolio = app.portfolio(learner).await?;
    ensure!(portfolio.maps_total == shape.maps && portfolio.total_nodes == shape.maps * CONCEPTS, "portfolio");
    let mut answers = 0;
    for (map, _) in maps {
        let latest = app.analytics().map_analytics(learner, *map).await?.latest;
        answers += latest.metrics["total_quiz_responses"].as_u64().unwrap_or(0);
    }
    let expected = (shape.responses / shape.maps * shape.maps) as u64;
    ensure!(answers == expected, "the maps' figures count {answers} answers of {expected}");
    let digest = app.analytics().digest(learner).await?;
    ensure!(!digest.facts.maps.is_empty() && digest.facts.streak_days.is_some(), "digest");
    Ok(())
}
