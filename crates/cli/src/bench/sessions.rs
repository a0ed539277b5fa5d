//! Open session streams on one server: how many it holds and what each costs in memory.
//!
//! The server is this binary's `serve`, in a process of its own, so that its resident memory
//! is the server's alone. Its model is an endpoint that accepts requests and never answers,
//! so every thought session's stream stays open, waiting on its partner, and sends
//! heartbeats; that is the server's most common open stream (a learner waiting for the
//! model). The benchmark opens them all, checks that every one receives heartbeats, and
//! reads the server's resident memory before and while they are open.

use super::served::Server;
use anyhow::{bail, ensure, Context, Result};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const HEARTBEAT_SECS: u64 = 5;
/// Heartbeats every stream must have received when memory is read.
const HEARTBEATS_EACH: usize = 2;

/// A model endpoint that takes every request and never replies: the server's calls wait.
async fn silent_model() -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    Ok(format!("http://{address}/v1"))
}

#[derive(Default)]
struct Counters {
    connected: AtomicUsize,
    /// Streams that have received `HEARTBEATS_EACH` heartbeats.
    beating: AtomicUsize,
    heartbeats: AtomicUsize,
    ended: AtomicUsize,
}

/// `streams` thought sessions, each with its stream open, on one server.
pub async fn open_streams(streams: usize) -> Result<()> {
    let model = silent_model().await?;
    let server = Server::start(&[
        ("PATHWISE_LLM_BASE_URL", model.as_str()),
        ("PATHWISE_LLM_MODEL", "silent"),
        ("PATHWISE_LLM_TIMEOUT_SECS", "3600"),
        ("PATHWISE_SESSION_HEARTBEAT_SECS", &HEARTBEAT_SECS.to_string()),
        // One learner holds every stream here; a server holds them for many.
        ("PATHWISE_STREAMS_PER_LEARNER", &streams.to_string()),
    ])?;
    let client = reqwest::Client::builder().pool_max_idle_per_host(0).build()?;
    let mut sessions = Vec::with_capacity(streams);
    for _ in 0..streams {
        let reply = client
            .post(format!("{}/api/session/", server.base))
            .bearer_auth(&server.token)
            .json(&json!({ "session_type": "thought", "config": { "topic": "Why do bridges stand?" } }))
            .send()
            .await?;
        ensure!(reply.status() == 201, "creating a session answered {}", reply.status());
        let body: serde_json::Value = reply.json().await?;
        sessions.push(body["id"].as_str().context("a session without an id")?.to_string());
    }
    let idle_kib = server.settled_rss_kib().await?;

    let counters = Arc::new(Counters::default());
    let opened = Instant::now();
    let mut tasks = Vec::with_capacity(streams);
    for id in &sessions {
        let (client, counters) = (client.clone(), counters.clone());
        let url = format!("{}/api/session/{id}/stream", server.base);
        let token = server.token.clone();
        tasks.push(tokio::spawn(async move {
            let outcome = follow(&client, &url, &token, &counters).await;
            counters.ended.fetch_add(1, Ordering::Relaxed);
            outcome
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while counters.connected.load(Ordering::Relaxed) < streams {
        ensure!(counters.ended.load(Ordering::Relaxed) == 0, "a stream ended early");
        ensure!(Instant::now() < deadline, "only {} streams connected", counters.connected.load(Ordering::Relaxed));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let all_connected = opened.elapsed();
    let deadline = Instant::now() + Duration::from_secs(HEARTBEAT_SECS * (HEARTBEATS_EACH as u64 + 4));
    while counters.beating.load(Ordering::Relaxed) < streams {
        ensure!(counters.ended.load(Ordering::Relaxed) == 0, "a stream ended while open");
        ensure!(
            Instant::now() < deadline,
            "only {} of {streams} streams received {HEARTBEATS_EACH} heartbeats",
            counters.beating.load(Ordering::Relaxed)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let open_kib = server.settled_rss_kib().await?;
    ensure!(counters.ended.load(Ordering::Relaxed) == 0, "a stream ended while open");
    for task in &tasks {
        task.abort();
    }
    let per_stream_kib = (open_kib.saturating_sub(idle_kib)) as f64 / streams as f64;
    let line = json!({
        "bench": "session_streams",
        "store": "sqlite",
        "streams": streams,
        "heartbeat_secs": HEARTBEAT_SECS,
        "heartbeats_received": counters.heartbeats.load(Ordering::Relaxed),
        "all_connected_ms": all_connected.as_millis(),
        "rss_idle_mib": (idle_kib as f64 / 1024.0 * 10.0).round() / 10.0,
        "rss_open_mib": (open_kib as f64 / 1024.0 * 10.0).round() / 10.0,
        "rss_per_stream_kib": (per_stream_kib * 10.0).round() / 10.0,
    });
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
    Ok(())
}

/// Read one stream until it is aborted, counting what arrives.
async fn follow(client: &reqwest::Client, url: &str, token: &str, counters: &Counters) -> Result<()> {
    let mut response = client.get(url).bearer_auth(token).send().await?;
    ensure!(response.status() == 200, "the stream answered {}", response.status());
    let (mut seen_connected, mut beats, mut pending) = (false, 0usize, String::new());
    while let Some(chunk) = response.chunk().await? {
        pending.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = pending.find("\n\n") {
            let block: String = pending.drain(..end + 2).collect();
            if block.contains("event: connected") && !seen_connected {
                seen_connected = true;
                counters.connected.fetch_add(1, Ordering::Relaxed);
            }
            if block.contains("event: heartbeat") {
                beats += 1;
                counters.heartbeats.fetch_add(1, Ordering::Relaxed);
                if beats == HEARTBEATS_EACH {
                    counters.beating.fetch_add(1, Ordering::Relaxed);
                }
            }
            if block.contains("event: error") {
                bail!("the stream sent an error: {block}");
            }
        }
    }
    Ok(())
}
