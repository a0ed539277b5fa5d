//! Slow and idle clients beside a normal one: what they cost the normal client's latency.
//!
//! The server is `pathwise serve` in a process of its own, with its default limits (a head
//! must arrive within 10 s; `--quick` makes it 1 s). One client asks for `GET /api/me` over
//! a kept connection, one request after another, first on a quiet server, then while 500
//! connections sit open without a byte and 50 slowloris clients each send a request's head
//! one byte every 500 ms, all reconnecting whenever the server closes them, as an attacker
//! would. Each phase
//! lasts over twice the header timeout, so the server closes and the attackers reopen
//! connections while it is measured.

use super::served::Server;
use super::stats::Stats;
use anyhow::{ensure, Result};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const IDLE: usize = 500;
const SLOW: usize = 50;
/// How long a slow client waits between two bytes of its head.
const SLOW_BYTE_EVERY: Duration = Duration::from_millis(500);

/// Each phase lasts twice the header timeout and two seconds more, long enough for every
/// slow client to be closed and to find out (a write after the close).
pub async fn slow_clients(header_timeout_secs: u64) -> Result<()> {
    let phase = Duration::from_secs(header_timeout_secs * 2 + 2);
    let server = Server::start(&[("PATHWISE_HEADER_READ_TIMEOUT_SECS", &header_timeout_secs.to_string())])?;
    let client = reqwest::Client::builder().pool_max_idle_per_host(1).build()?;
    let quiet = measure(&client, &server, phase).await?;
    let timeout = json!(header_timeout_secs);
    quiet.print(
        "slow_clients_quiet",
        "sqlite",
        json!({ "idle_connections": 0, "slow_clients": 0, "header_timeout_secs": timeout }),
    );

    let closed = Arc::new(AtomicUsize::new(0));
    let mut attackers = Vec::with_capacity(IDLE + SLOW);
    for _ in 0..IDLE {
        // Connect and send nothing; when the server closes the connection, open another.
        let address = server.address().to_string();
        attackers.push(tokio::spawn(async move {
            loop {
                let Ok(mut stream) = tokio::net::TcpStream::connect(&address).await else {
                    tokio::time::sleep(SLOW_BYTE_EVERY).await;
                    continue;
                };
                let mut byte = [0u8; 1];
                while matches!(stream.read(&mut byte).await, Ok(1..)) {}
            }
        }));
    }
    for _ in 0..SLOW {
        let (address, closed) = (server.address().to_string(), closed.clone());
        attackers.push(tokio::spawn(async move {
            loop {
                let Ok(mut stream) = tokio::net::TcpStream::connect(&address).await else {
                    tokio::time::sleep(SLOW_BYTE_EVERY).await;
                    continue;
                };
                if stream.write_all(b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.is_err() {
                    continue;
                }
                for byte in b"X-Slow: ".iter().cycle() {
                    tokio::time::sleep(SLOW_BYTE_EVERY).await;
                    if stream.write_all(&[*byte]).await.is_err() {
                        closed.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                }
            }
        }));
    }
    let held = measure(&client, &server, phase).await;
    for attacker in &attackers {
        attacker.abort();
    }
    let held = held?;
    let closed = closed.load(Ordering::Relaxed);
    ensure!(closed >= SLOW, "the server closed only {closed} of {SLOW} slow heads within {phase:?}");
    held.print(
        "slow_clients_held",
        "sqlite",
        json!({ "idle_connections": IDLE, "slow_clients": SLOW, "slow_heads_closed": closed,
                "header_timeout_secs": timeout }),
    );
    Ok(())
}

/// `GET /api/me`, one after another, for `phase`.
async fn measure(client: &reqwest::Client, server: &Server, phase: Duration) -> Result<Stats> {
    let url = format!("{}/api/me", server.base);
    let mut latencies = Vec::new();
    let start = Instant::now();
    while start.elapsed() < phase {
        let t = Instant::now();
        let reply = client.get(&url).bearer_auth(&server.token).send().await?;
        ensure!(reply.status() == 200, "GET /api/me answered {}", reply.status());
        reply.bytes().await?;
        latencies.push(t.elapsed());
    }
    Ok(Stats { ops: latencies.len(), concurrency: 1, elapsed: start.elapsed(), latencies })
}
