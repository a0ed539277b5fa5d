//! `pathwise bench`: the performance targets, measured on this machine. Each benchmark
//! prints one JSON object per line: bench, store, ops, concurrency, ops_per_sec, p50_ms, p99_ms.

mod analytics;
mod anki;
mod doors;
mod fixed_rate;
mod fixtures;
mod ingest;
mod irt;
mod items;
mod learning_loop;
mod mcp;
mod served;
mod sessions;
mod slow_clients;
mod srs;
mod stats;
mod tutor;

use anyhow::{Context, Result};
use chrono::Utc;
use fixtures::{learner_with_map, response};
use pathwise_app::mastery::RecordResponse;
use pathwise_app::{AnyStore, App, Store};
use pathwise_domain::graph::{recompute_depths, GraphLimits};
use pathwise_domain::model::{Edge, MapAggregate, MapChanges, Metadata, Node};
use pathwise_domain::{curriculum, lifecycle, EdgeType, LearnerId, MindMapId, NodeId};
use pathwise_store::{MapStore, PgStore, SqliteStore};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use stats::Stats;
use std::time::Instant;
use tutor::Tutor;
use uuid::Uuid;

#[derive(Debug, Clone, clap::Args)]
pub struct BenchFlags {
    /// PostgreSQL URL for the PostgreSQL benchmarks (or PATHWISE_BENCH_DATABASE_URL); they are skipped without one.
    #[arg(long, env = "PATHWISE_BENCH_DATABASE_URL")]
    postgres_url: Option<String>,
    /// Run only the benchmarks whose name contains this.
    #[arg(long)]
    only: Option<String>,
    /// Run only the benchmarks of this store (`sqlite` or `postgres`); the learning order
    /// touches no store and runs either way.
    #[arg(long, value_parser = ["sqlite", "postgres"])]
    store: Option<String>,
    /// Fewer operations, for a quick check that every benchmark runs.
    #[arg(long)]
    quick: bool,
    /// For `http_fixed_rate`: offer this many responses a second, instead of 25%, 50% and
    /// 75% of the rate the server saturates at (measured first).
    #[arg(long, value_parser = positive_rate)]
    rate: Option<f64>,
}

fn positive_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate > 0.0 && rate.is_finite() => Ok(rate),
        _ => Err(format!("'{text}' is not a rate; give a positive number of requests a second, such as 2000")),
    }
}

pub async fn run(flags: BenchFlags) -> Result<()> {
    let wanted = |name: &str| flags.only.as_deref().is_none_or(|o| name.contains(o));
    let scale = if flags.quick { 20 } else { 1 };
    let on = |store: &str| flags.store.as_deref().is_none_or(|s| s == store);
    let (sqlite, postgres_url) = (on("sqlite"), flags.postgres_url.as_ref().filter(|_| on("postgres")));
    let dir = tempfile::tempdir()?;

    if wanted("fsrs_fit") {
        srs::fsrs_fit(50_000 / scale, if flags.quick { 1 } else { 5 })?;
    }
    if wanted("learning_order") {
        learning_order(if flags.quick { 2 } else { 15 })?;
    }
    if wanted("frontier") && sqlite {
        let app = sqlite_app(dir.path(), "frontier").await?;
        frontier(&app, 500, 2000 / scale).await?;
    }
    if wanted("record_response") {
        // Without and with an idempotency key on every response: time-ordered keys (UUIDv7,
        // what the workspace sends) and random ones (UUIDv4). The key is one more column and
        // unique index entry in the response's own transaction.
        for keyed in [Keys::None, Keys::TimeOrdered, Keys::Random] {
            // SQLite writes responses in groups, so more callers at once make larger groups.
            for learners in [16, 64].into_iter().filter(|_| sqlite) {
                let app = sqlite_app(dir.path(), &format!("record-{learners}-{keyed:?}")).await?;
                record_responses(&app, learners, 64_000 / scale, keyed).await?;
            }
            if let Some(url) = postgres_url {
                let (app, schema) = postgres_app(url).await?;
                record_responses(&app, 16, 40_000 / scale, keyed).await?;
                schema.drop(app).await?;
            }
        }
    }
    if wanted("history") {
        if sqlite {
            let app = sqlite_app(dir.path(), "history").await?;
            for prior in [10, 10_000 / scale] {
                history_cost(&app, prior, 5_000 / scale).await?;
            }
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            for prior in [10, 10_000 / scale] {
                history_cost(&app, prior, 5_000 / scale).await?;
            }
            schema.drop(app).await?;
        }
    }
    if wanted("scheduler") {
        if sqlite {
            let app = sqlite_app(dir.path(), "scheduler").await?;
            learning_loop::jobs(&app, "sqlite", 10_000 / scale).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            learning_loop::jobs(&app, "postgres", 10_000 / scale).await?;
            schema.drop(app).await?;
        }
    }
    if wanted("teaching_step") && sqlite {
        let store = SqliteStore::open(&dir.path().join("teaching.db")).await?;
        learning_loop::teaching_step_tokens(AnyStore::Sqlite(store)).await?;
    }
    if wanted("request_layers") && sqlite {
        let app = sqlite_app(dir.path(), "request-layers").await?;
        request_layers(app, 200_000 / scale).await?;
    }
    if wanted("http") {
        // Each run twice, with and without what the operations target prices (request
        // metrics and the rate limiter), in turn, the order swapped from one key mode to the
        // next, so that the two are compared on the same machine in the same minute.
        let mut operations = [true, false];
        for keyed in [Keys::None, Keys::TimeOrdered, Keys::Random] {
            for &with_operations in &operations {
                if sqlite {
                    let app = sqlite_app(dir.path(), &format!("http-{keyed:?}-{with_operations}")).await?;
                    http_record(app, 32, 40_000 / scale, keyed, with_operations).await?;
                }
                if let Some(url) = postgres_url {
                    let (app, schema) = postgres_app(url).await?;
                    http_record(app.clone(), 32, 20_000 / scale, keyed, with_operations).await?;
                    schema.drop(app).await?;
                }
            }
            operations.reverse();
        }
    }
    if wanted("http_fixed_rate") {
        // The learner's path below saturation, against the server in a process of its own:
        // the saturated rate first, then each share of it offered on a schedule, each run on
        // a fresh database.
        let seconds = if flags.quick { 1.0 } else { 10.0 };
        let stores = [sqlite.then_some(None), postgres_url.map(Some)];
        for url in stores.into_iter().flatten() {
            let rates: Vec<(f64, Option<f64>)> = match flags.rate {
                Some(rate) => vec![(rate, None)],
                None => {
                    let served = fixed_rate::Served::start(dir.path(), url, "fixed-rate-saturated").await?;
                    let saturated = fixed_rate::saturated(&served, 40_000 / scale).await;
                    served.stop().await?;
                    let saturated = saturated?;
                    fixed_rate::SHARES.iter().map(|&share| (saturated * share, Some(share))).collect()
                }
            };
            for (rate, share) in rates {
                let served = fixed_rate::Served::start(dir.path(), url, &format!("fixed-rate-{rate:.0}")).await?;
                let offered = fixed_rate::offered(&served, rate, seconds, share).await;
                served.stop().await?;
                offered?;
            }
        }
    }
    if wanted("mcp_record_response") {
        use mcp::{record_responses as mcp_record, Connections};
        // Clients that keep their connection, then rmcp's default client, which opens one per
        // call; the latter's cost is the same whatever the store, so it runs on SQLite only.
        for connections in [Connections::KeptAlive, Connections::PerCall].into_iter().filter(|_| sqlite) {
            let app = sqlite_app(dir.path(), &format!("mcp-{connections:?}")).await?;
            mcp_record(app, 16, 20_000 / scale, connections).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = mcp_record(app.clone(), 16, 20_000 / scale, Connections::KeptAlive).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("tutor_turn_mcp") {
        // The same offline turns through HTTP and MCP, alternating, one client: each call's
        // own time, without other calls queued beside it.
        if sqlite {
            doors::tutor_turns(sqlite_app(dir.path(), "doors").await?, 1, 2_000 / scale).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = doors::tutor_turns(app.clone(), 1, 2_000 / scale).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("ingest") {
        let runs = if flags.quick { 1 } else { 5 };
        if sqlite {
            ingest::pdf(&sqlite_app(dir.path(), "ingest").await?, "sqlite", 500, runs).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = ingest::pdf(&app, "postgres", 500, runs).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("anki_import") {
        // Alone in its process (`--only anki_import`), its peak memory is the import's.
        let runs = if flags.quick { 1 } else { 5 };
        if sqlite {
            anki::import(&sqlite_app(dir.path(), "anki").await?, "sqlite", 100_000 / scale, runs, dir.path()).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = anki::import(&app, "postgres", 100_000 / scale, runs, dir.path()).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("adaptive_step") {
        irt::adaptive_step(flags.quick)?;
    }
    if wanted("item_generation") {
        items::run(flags.quick)?;
    }
    for (name, model) in [("tutor_turn", Tutor::Model), ("tutor_turn_offline", Tutor::Offline)] {
        if !wanted(name) {
            continue;
        }
        let turns = if flags.quick { 60 } else { 3_000 };
        if sqlite {
            let app = sqlite_app(dir.path(), name).await?;
            tutor::turns(app, "sqlite", turns, model).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = tutor::turns(app.clone(), "postgres", turns, model).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("tutor_turn_drafted") {
        let turns = if flags.quick { 60 } else { 3_000 };
        if sqlite {
            let app = sqlite_app(dir.path(), "tutor_turn_drafted").await?;
            tutor::drafted_turns(app, "sqlite", turns).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = tutor::drafted_turns(app.clone(), "postgres", turns).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("tutor_turn_questions") {
        let turns = if flags.quick { 60 } else { 3_000 };
        if sqlite {
            let app = sqlite_app(dir.path(), "tutor_turn_questions").await?;
            tutor::question_turns(app, "sqlite", turns).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = tutor::question_turns(app.clone(), "postgres", turns).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("analytics") {
        use analytics::{live_reads, Shape};
        let reads = if flags.quick { 30 } else { 300 };
        let shape = Shape { maps: 50, responses: 100_000 / scale, reads };
        if sqlite {
            let app = sqlite_app(dir.path(), "analytics").await?;
            live_reads(&app, &shape).await?;
        }
        if let Some(url) = postgres_url {
            let (app, schema) = postgres_app(url).await?;
            let outcome = live_reads(&app, &shape).await;
            schema.drop(app).await?;
            outcome?;
        }
    }
    if wanted("session_streams") && sqlite {
        sessions::open_streams(if flags.quick { 200 } else { 2_000 }).await?;
    }
    if wanted("slow_clients") && sqlite {
        slow_clients::slow_clients(if flags.quick { 1 } else { 10 }).await?;
    }
    Ok(())
}

async fn sqlite_app(dir: &std::path::Path, name: &str) -> Result<App> {
    Ok(App::new(AnyStore::Sqlite(SqliteStore::open(&dir.join(format!("{name}.db"))).await?)))
}

/// A PostgreSQL-backed app in a fresh schema of its own, so that every run starts from the
/// same empty tables; the schema is dropped afterwards.
async fn postgres_app(url: &str) -> Result<(App, PgSchema)> {
    use sqlx::Connection;
    let schema = format!("pathwise_bench_{}", Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(url).await.context("cannot connect to the benchmark PostgreSQL")?;
    sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut admin).await?;
    let options: sqlx::postgres::PgConnectOptions = url.parse()?;
    let store = PgStore::connect_with(options.options([("search_path", schema.as_str())]), 32).await?;
    Ok((App::new(AnyStore::Postgres(store)), PgSchema { url: url.to_string(), schema }))
}

/// An application on a fresh database: a SQLite file in `dir`, or a new schema at `url`.
pub(crate) async fn fresh_app(
    dir: &std::path::Path,
    url: Option<&String>,
    name: &str,
) -> Result<(App, Option<PgSchema>)> {
    match url {
        None => Ok((sqlite_app(dir, name).await?, None)),
        Some(url) => postgres_app(url).await.map(|(app, schema)| (app, Some(schema))),
    }
}

pub(crate) struct PgSchema {
    url: String,
    schema: String,
}

impl PgSchema {
    pub(crate) async fn drop(self, app: App) -> Result<()> {
        use sqlx::Connection;
        if let AnyStore::Postgres(store) = app.store() {
            store.pool().close().await;
        }
        let mut admin = sqlx::PgConnection::connect(&self.url).await?;
        sqlx::query(&format!("DROP SCHEMA {} CASCADE", self.schema)).execute(&mut admin).await?;
        Ok(())
    }
}

/// Which idempotency keys a benchmark's responses carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
enum Keys {
    None,
    /// UUIDv7: ordered by time, as the workspace makes them.
    TimeOrdered,
    /// UUIDv4.
    Random,
}

impl Keys {
    fn key(self) -> Option<String> {
        match self {
            Keys::None => None,
            Keys::TimeOrdered => Some(Uuid::now_v7().to_string()),
            Keys::Random => Some(Uuid::new_v4().to_string()),
        }
    }
}

/// The `i`th response of a benchmark task, with an idempotency key of its own unless none.
fn keyed_response(map: MindMapId, node: NodeId, i: usize, keys: Keys) -> RecordResponse {
    RecordResponse { idempotency_key: keys.key(), ..response(map, node, i) }
}

async fn record_responses(app: &App, learners: usize, total: usize, keyed: Keys) -> Result<()> {
    let mut tasks = Vec::new();
    let per_task = total / learners;
    let mut setups = Vec::new();
    for _ in 0..learners {
        setups.push(learner_with_map(app).await?);
    }
    let start = Instant::now();
    for (learner, map, nodes, _) in setups {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_task);
            for i in 0..per_task {
                let t = Instant::now();
                app.record_response(learner, keyed_response(map, nodes[i % nodes.len()], i, keyed)).await?;
                latencies.push(t.elapsed());
            }
            anyhow::Ok(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let stats = Stats { ops: latencies.len(), concurrency: learners, elapsed: start.elapsed(), latencies };
    stats.print("record_response", app.store().engine(), json!({ "learners": learners, "idempotency_keys": keyed }));
    Ok(())
}

/// The cost of a response on a node that already has `prior` responses.
async fn history_cost(app: &App, prior: usize, measured: usize) -> Result<()> {
    let (learner, map, nodes, _) = learner_with_map(app).await?;
    let node = nodes[1];
    for i in 0..prior {
        app.record_response(learner, response(map, node, i)).await?;
    }
    if let AnyStore::Postgres(store) = app.store() {
        // Measure the cost of a long history, not of the dead row versions that writing it
        // in one burst leaves behind: in use, vacuum runs between a node's answers.
        sqlx::query("VACUUM ANALYZE").execute(store.pool()).await?;
    }
    let mut latencies = Vec::with_capacity(measured);
    let start = Instant::now();
    for i in 0..measured {
        let t = Instant::now();
        app.record_response(learner, response(map, node, i)).await?;
        latencies.push(t.elapsed());
    }
    let stats = Stats { ops: measured, concurrency: 1, elapsed: start.elapsed(), latencies };
    stats.print("record_response_with_history", app.store().engine(), json!({ "prior_responses": prior }));
    Ok(())
}

/// The state a benchmark's server runs with: as `pathwise serve` runs (request metrics, and
/// every request through the per-token rate limiter, with a rate no client reaches, so that
/// its bookkeeping is what is measured), or without those two.
fn bench_state(app: App, with_operations: bool) -> pathwise_server::AppState {
    let limits = pathwise_server::Limits {
        rate_per_second: with_operations.then_some(1_000_000),
        rate_burst: 1_000_000,
        ..pathwise_server::Limits::default()
    };
    let state = pathwise_server::AppState::new(app, None).with_limits(limits);
    if with_operations {
        state
    } else {
        state.without_request_metrics()
    }
}

/// What the request metrics and the rate limiter cost a request by themselves: requests
/// through the whole router, in the process, with no network and no store (`GET /api/docs`
/// answers a page it holds), on one task, with and without them, in alternating rounds.
async fn request_layers(app: App, n: usize) -> Result<()> {
    use tower::ServiceExt;
    let (_, _, _, token) = learner_with_map(&app).await?;
    let auth = format!("Bearer {token}");
    let routers = [true, false].map(|with| (with, pathwise_server::router(bench_state(app.clone(), with))));
    let rounds = 10;
    let mut latencies = [Vec::with_capacity(n), Vec::with_capacity(n)];
    let mut elapsed = [std::time::Duration::ZERO; 2];
    for round in 0..rounds {
        for turn in 0..2 {
            // Alternate which goes first, so that neither always follows the other.
            let i = if round % 2 == 0 { turn } else { 1 - turn };
            let router = &routers[i].1;
            let start = Instant::now();
            for _ in 0..n / rounds {
                let request = axum::http::Request::get("/api/docs")
                    .header(axum::http::header::AUTHORIZATION, &auth)
                    .body(axum::body::Body::empty())?;
                let t = Instant::now();
                let response = router.clone().oneshot(request).await?;
                latencies[i].push(t.elapsed());
                anyhow::ensure!(response.status() == 200, "unexpected status {}", response.status());
            }
            elapsed[i] += start.elapsed();
        }
    }
    for (i, latencies) in latencies.into_iter().enumerate() {
        let with_operations = routers[i].0;
        let stats = Stats { ops: latencies.len(), concurrency: 1, elapsed: elapsed[i], latencies };
        stats.print("request_layers", "none", json!({ "metrics_and_rate_limit": with_operations }));
    }
    Ok(())
}

/// `clients` each sending `total / clients` responses, each waiting for its reply; returns
/// the rate the server answered at.
async fn http_record(app: App, clients: usize, total: usize, keyed: Keys, with_operations: bool) -> Result<f64> {
    let mut setups = Vec::new();
    for _ in 0..clients {
        setups.push(learner_with_map(&app).await?);
    }
    let engine = app.store().engine();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let state = bench_state(app, with_operations);
    let server = tokio::spawn(pathwise_server::serve(listener, state, async {
        stopped.await.ok();
    }));
    let client = reqwest::Client::builder().pool_max_idle_per_host(clients).build()?;
    let per_client = total / clients;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (_, map, nodes, token) in setups {
        let (client, url) = (client.clone(), format!("{base}/api/responses"));
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_client);
            for i in 0..per_client {
                let body = keyed_response(map, nodes[i % nodes.len()], i, keyed);
                let key = body.idempotency_key.clone();
                let body = json!({
                    "node_id": body.node_id, "mind_map_id": body.mind_map_id, "question_text": body.question_text,
                    "user_answer": body.user_answer, "quality": body.quality, "response_type": body.response_type,
                });
                let t = Instant::now();
                let mut request = client.post(&url).bearer_auth(&token).json(&body);
                if let Some(key) = key {
                    request = request.header("Idempotency-Key", key);
                }
                let reply = request.send().await?;
                anyhow::ensure!(reply.status() == 201, "unexpected status {}", reply.status());
                reply.bytes().await?;
                latencies.push(t.elapsed());
            }
            anyhow::Ok(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let elapsed = start.elapsed();
    stop.send(()).ok();
    server.await??;
    let rate = latencies.len() as f64 / elapsed.as_secs_f64();
    let stats = Stats { ops: latencies.len(), concurrency: clients, elapsed, latencies };
    stats.print(
        "http_record_response",
        engine,
        json!({ "clients": clients, "idempotency_keys": keyed, "metrics_and_rate_limit": with_operations }),
    );
    Ok(rate)
}

/// A random DAG in which node i may only depend on nodes before it, so it is acyclic.
fn random_dag(nodes: usize, edges: usize, seed: u64) -> MapAggregate {
    let mut rng = StdRng::seed_from_u64(seed);
    let now = Utc::now();
    let map =
        lifecycle::new_map(MindMapId(Uuid::from_u128(1)), LearnerId(Uuid::from_u128(2)), "bench", Metadata::new(), now)
            .expect("valid map");
    let ids: Vec<NodeId> = (0..nodes).map(|i| NodeId(Uuid::from_u128(1000 + i as u128))).collect();
    let mut agg = MapAggregate { map, nodes: Vec::with_capacity(nodes), edges: Vec::with_capacity(edges) };
    agg.map.root_node_id = Some(ids[0]);
    for (i, id) in ids.iter().enumerate() {
        let node = Node::new(
            *id,
            agg.map.id,
            format!("Concept {i:05}"),
            None,
            Some(rng.gen_range(5..90)),
            Metadata::new(),
            now,
        );
        agg.nodes.push(node);
    }
    let mut seen = std::collections::HashSet::new();
    let edge = |parent: usize, child: usize| Edge {
        mind_map_id: agg.map.id,
        parent_node_id: ids[parent],
        child_node_id: ids[child],
        edge_type: EdgeType::Prerequisite,
        created_at: now,
    };
    let mut list = Vec::with_capacity(edges);
    // Every node hangs from an earlier one, so all are reachable from the root.
    for child in 1..nodes {
        let parent = rng.gen_range(0..child);
        seen.insert((parent, child));
        list.push(edge(parent, child));
    }
    while list.len() < edges {
        let child = rng.gen_range(1..nodes);
        let parent = rng.gen_range(0..child);
        if seen.insert((parent, child)) {
            list.push(edge(parent, child));
        }
    }
    agg.edges = list;
    recompute_depths(&mut agg, GraphLimits { max_nodes: None, max_depth: None }).expect("a DAG");
    agg
}

fn learning_order(runs: usize) -> Result<()> {
    let agg = random_dag(10_000, 30_000, 7);
    let mut latencies = Vec::with_capacity(runs);
    let start = Instant::now();
    for _ in 0..runs {
        let t = Instant::now();
        let order = curriculum::learning_order(&agg);
        latencies.push(t.elapsed());
        anyhow::ensure!(order.len() == agg.nodes.len());
    }
    let stats = Stats { ops: runs, concurrency: 1, elapsed: start.elapsed(), latencies };
    stats.print("learning_order", "none", json!({ "nodes": agg.nodes.len(), "edges": agg.edges.len() }));
    Ok(())
}

async fn frontier(app: &App, nodes: usize, runs: usize) -> Result<()> {
    let learner = app.create_learner("bench learner").await?.learner;
    let mut agg = random_dag(nodes, nodes * 3, 11);
    agg.map.id = MindMapId(Uuid::now_v7());
    agg.map.learner_id = learner.id;
    agg.map.status = pathwise_domain::MapStatus::Active;
    for node in &mut agg.nodes {
        node.mind_map_id = agg.map.id;
        node.id = NodeId(Uuid::now_v7());
    }
    // Re-key the edges to the fresh node ids.
    let by_old: std::collections::HashMap<Uuid, NodeId> =
        (0..nodes).map(|i| (Uuid::from_u128(1000 + i as u128), agg.nodes[i].id)).collect();
    for edge in &mut agg.edges {
        edge.mind_map_id = agg.map.id;
        edge.parent_node_id = by_old[&edge.parent_node_id.0];
        edge.child_node_id = by_old[&edge.child_node_id.0];
    }
    agg.map.root_node_id = Some(agg.nodes[0].id);
    curriculum::assign_sequence(&mut agg);
    let empty = MapAggregate { map: agg.map.clone(), nodes: Vec::new(), edges: Vec::new() };
    let mut changes = MapChanges::between(&empty, &agg);
    changes.map = None;
    app.store().insert_map(&agg.map, &changes).await?;
    let mut latencies = Vec::with_capacity(runs);
    let start = Instant::now();
    for _ in 0..runs {
        let t = Instant::now();
        app.frontier(learner.id, agg.map.id).await?;
        latencies.push(t.elapsed());
    }
    let stats = Stats { ops: runs, concurrency: 1, elapsed: start.elapsed(), latencies };
    stats.print("frontier", app.store().engine(), json!({ "nodes": nodes }));
    Ok(())
}
