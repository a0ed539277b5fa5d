//! The learner's path at a fixed offered load. `http_record_response` measures the most the
//! server answers with 32 clients each waiting for its reply (a closed loop), which is its
//! saturated rate; a learner, though, meets a server that is rarely saturated. Here
//! responses are sent on a schedule whatever the server does (an open loop), and each
//! latency is counted from the moment its request was due, not from when it was sent, so a
//! server that falls behind shows its queue instead of hiding it by slowing the clients.

use super::fixtures::learner_with_map;
use super::stats::Stats;
use super::{bench_state, keyed_response, Keys};
use anyhow::Result;
use pathwise_app::{App, Store};
use pathwise_domain::{MindMapId, NodeId};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Learners whose responses the schedule takes in turn.
const LEARNERS: usize = 32;

/// The shares of the saturated rate offered, when no rate is given.
pub(crate) const SHARES: [f64; 3] = [0.25, 0.5, 0.75];

struct Learner {
    map: MindMapId,
    nodes: Vec<NodeId>,
    token: String,
}

/// Responses offered at `rate` a second for `seconds`, as `pathwise serve` takes them
/// (request metrics and the rate limiter on), through one HTTP/1.1 connection pool.
/// `share` is the share of the saturated rate `rate` stands for, when it was derived from it.
pub(crate) async fn http_record(app: App, rate: f64, seconds: f64, share: Option<f64>) -> Result<()> {
    anyhow::ensure!(rate > 0.0 && rate.is_finite(), "the offered rate must be a positive number of requests a second");
    let mut learners = Vec::with_capacity(LEARNERS);
    for _ in 0..LEARNERS {
        let (_, map, nodes, token) = learner_with_map(&app).await?;
        learners.push(Learner { map, nodes, token });
    }
    let learners = Arc::new(learners);
    let engine = app.store().engine();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/api/responses", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(pathwise_server::serve(listener, bench_state(app, true), async {
        stopped.await.ok();
    }));
    let client = reqwest::Client::builder().pool_max_idle_per_host(256).build()?;

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
        let (client, url, learners) = (client.clone(), url.clone(), learners.clone());
        requests.push(tokio::spawn(async move {
            let learner = &learners[i % learners.len()];
            let body =
                keyed_response(learner.map, learner.nodes[(i / learners.len()) % learner.nodes.len()], i, Keys::None);
            let body = json!({
                "node_id": body.node_id, "mind_map_id": body.mind_map_id, "question_text": body.question_text,
                "user_answer": body.user_answer, "quality": body.quality, "response_type": body.response_type,
            });
            let reply = client.post(&url).bearer_auth(&learner.token).json(&body).send().await?;
            anyhow::ensure!(reply.status() == 201, "unexpected status {}", reply.status());
            reply.bytes().await?;
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
    stop.send(()).ok();
    server.await??;
    let stats = Stats { ops: latencies.len(), concurrency: LEARNERS, elapsed, latencies };
    stats.print(
        "http_record_response_fixed_rate",
        engine,
        json!({ "offered_per_sec": rate.round(), "share_of_saturated": share, "seconds": seconds }),
    );
    Ok(())
}
