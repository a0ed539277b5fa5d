//! The learner's path at a fixed offered load, against `pathwise serve` in a process of its
//! own (`served`), so that the load generator's tasks never share the server's threads.
//!
//! First the saturated rate: 32 clients each waiting for its reply (a closed loop). Then
//! responses sent on a schedule whatever the server does (an open loop), each latency counted
//! from the moment its request was due, not from when it was sent, so a server that falls
//! behind shows its queue instead of hiding it by slowing the clients.

use super::fixtures::learner_with_map;
use super::served::Server;
use super::stats::Stats;
use super::{fresh_app, keyed_response, Keys, PgSchema};
use anyhow::Result;
use pathwise_app::{App, Store};
use pathwise_domain::{MindMapId, NodeId};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Learners whose responses the clients and the schedule take in turn.
const LEARNERS: usize = 32;

/// The shares of the saturated rate offered, when no rate is given.
pub(crate) const SHARES: [f64; 3] = [0.25, 0.5, 0.75];

struct Learner {
    map: MindMapId,
    nodes: Vec<NodeId>,
    token: String,
}

/// A served database with 32 learners, each with a map, and a client for it.
pub(crate) struct Served {
    app: App,
    schema: Option<PgSchema>,
    learners: Arc<Vec<Learner>>,
    server: Server,
    client: reqwest::Client,
    engine: &'static str,
}

impl Served {
    /// A fresh database (a SQLite file in `dir`, or a new schema at `url`) with the learners
    /// written, then `pathwise serve` started on it as it ships: request metrics on, the rate
    /// limiter on (with a limit a benchmark's learner never reaches), 16 connections.
    pub(crate) async fn start(dir: &std::path::Path, url: Option<&String>, name: &str) -> Result<Served> {
        let (app, schema) = fresh_app(dir, url, name).await?;
        let mut learners = Vec::with_capacity(LEARNERS);
        for _ in 0..LEARNERS {
            let (_, map, nodes, token) = learner_with_map(&app).await?;
            learners.push(Learner { map, nodes, token });
        }
        let database_url = match (url, &schema) {
            (Some(url), Some(schema)) => {
                let joiner = if url.contains('?') { '&' } else { '?' };
                format!("{url}{joiner}options[search_path]={}", schema.schema)
            }
            _ => format!("sqlite://{}", dir.join(format!("{name}.db")).display()),
        };
        let server = Server::start(&[
            ("PATHWISE_DATABASE_URL", &database_url),
            ("PATHWISE_RATE_LIMIT_PER_SECOND", "1000000"),
            ("PATHWISE_RATE_LIMIT_BURST", "1000000"),
        ])?;
        let client = reqwest::Client::builder().pool_max_idle_per_host(256).build()?;
        let engine = app.store().engine();
        Ok(Served { app, schema, learners: Arc::new(learners), server, client, engine })
    }

    /// The database's schema dropped (PostgreSQL), once the server has stopped.
    pub(crate) async fn stop(self) -> Result<()> {
        drop(self.server);
        if let Some(schema) = self.schema {
            schema.drop(self.app).await?;
        }
        Ok(())
    }

    fn url(&self) -> String {
        format!("{}/api/responses", self.server.base)
    }
}

/// The `i`th response of the run: learners in turn, each through the nodes of their map.
fn body(learners: &[Learner], i: usize) -> (Value, &str) {
    let learner = &learners[i % learners.len()];
    let node = learner.nodes[(i / learners.len()) % learner.nodes.len()];
    let r = keyed_response(learner.map, node, i, Keys::None);
    let body = json!({
        "node_id": r.node_id, "mind_map_id": r.mind_map_id, "question_text": r.question_text,
        "user_answer": r.user_answer, "quality": r.quality, "response_type": r.response_type,
    });
    (body, learner.token.as_str())
}

async fn post(client: &reqwest::Client, url: &str, learners: &[Learner], i: usize) -> Result<()> {
    let (body, token) = body(learners, i);
    let reply = client.post(url).bearer_auth(token).json(&body).send().await?;
    anyhow::ensure!(reply.status() == 201, "unexpected status {}", reply.status());
    reply.bytes().await?;
    Ok(())
}

/// The saturated rate: `total` responses from 32 clients, each sending its next when its
/// last was answered.
pub(crate) async fn saturated(served: &Served, total: usize) -> Result<f64> {
    let per_client = total / LEARNERS;
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(LEARNERS);
    for client_number in 0..LEARNERS {
        let (client, url, learners) = (served.client.clone(), served.url(), served.learners.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_client);
            for round in 0..per_client {
                let t = Instant::now();
                post(&client, &url, &learners, round * LEARNERS + client_number).await?;
                latencies.push(t.elapsed());
            }
            anyhow::Ok(latencies)
        }));
    }
    let mut latencies = Vec::with_capacity(total);
    for task in tasks {
        latencies.extend(task.await??);
    }
    let elapsed = start.elapsed();
    let rate = latencies.len() as f64 / elapsed.as_secs_f64();
    Stats { ops: latencies.len(), concurrency: LEARNERS, elapsed, latencies }.print(
        "http_record_response_served",
        served.engine,
        json!({ "clients": LEARNERS, "server": "a process of its own" }),
    );
    Ok(rate)
}

/// Responses offered at `rate` a second for `seconds`. `share` is the share of the saturated
/// rate `rate` stands for, when it was derived from it.
pub(crate) async fn offered(served: &Served, rate: f64, seconds: f64, share: Option<f64>) -> Result<()> {
    anyhow::ensure!(rate > 0.0 && rate.is_finite(), "the offered rate must be a positive number of requests a second");
    // The first second warms the connection pool and the server's caches up, and is not
    // counted: a learner meets a server that has been running.
    let warm_up = rate.round() as usize;
    let total = warm_up + ((rate * seconds).round() as usize).max(1);
    let interval = Duration::from_secs_f64(1.0 / rate);
    let start = tokio::time::Instant::now();
    let mut requests = Vec::with_capacity(total);
    for i in 0..total {
        let due = start + interval.mul_f64(i as f64);
        tokio::time::sleep_until(due).await;
        let (client, url, learners) = (served.client.clone(), served.url(), served.learners.clone());
        requests.push(tokio::spawn(async move {
            post(&client, &url, &learners, i).await?;
            // From when it was due: a request the schedule could not send on time waited too.
            anyhow::Ok(due.into_std().elapsed())
        }));
    }
    let mut latencies = Vec::with_capacity(total - warm_up);
    for (i, request) in requests.into_iter().enumerate() {
        let latency = request.await??;
        if i >= warm_up {
            latencies.push(latency);
        }
    }
    let elapsed = Instant::now() - (start + interval.mul_f64(warm_up as f64)).into_std();
    Stats { ops: latencies.len(), concurrency: LEARNERS, elapsed, latencies }.print(
        "http_record_response_fixed_rate",
        served.engine,
        json!({
            "offered_per_sec": rate.round(), "share_of_saturated": share, "seconds": seconds,
            "server": "a process of its own",
        }),
    );
    Ok(())
}
