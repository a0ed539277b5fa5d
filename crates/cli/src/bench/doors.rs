//! The MCP door's cost on a tutor turn: the same learners take turns on their threads, each
//! call over HTTP (`POST /api/tutor/threads/{id}/turn`) and the next over MCP (`tools/call
//! tutor_turn`), alternating, every client keeping its connections (the method of the MCP
//! benchmark in `mcp.rs`). The course's own tutor answers (no model), so what is timed is
//! Pathwise's work and each door's. Prints a line per door and one with the difference of
//! their percentiles (the MCP door's extra work on a turn).

use super::mcp::Connections;
use super::stats::Stats;
use anyhow::{Context, Result};
use pathwise_app::course_tutor::CreateThread;
use pathwise_app::{App, Store};
use rmcp::model::{CallToolRequestParams, ClientConfig, JsonObject, ProtocolVersion};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::json;
use std::time::{Duration, Instant};

const COURSE: &str = "MATH-FOUNDATIONS";
const WORDS: [&str; 4] =
    ["where do I start?", "I think the answer is 12", "can you give me a hint?", "why does carrying work?"];

/// `clients` learners, each with a thread, take `total` turns between them, half through
/// each door.
pub async fn tutor_turns(app: App, clients: usize, total: usize) -> Result<()> {
    app.install_builtin_courses().await.context("the shipped courses")?;
    let engine = app.store().engine();
    let mut setups = Vec::with_capacity(clients);
    for i in 0..clients {
        let created = app.create_learner(&format!("doors {i}")).await?;
        let thread = CreateThread { course_id: COURSE.into(), title: None };
        let thread = app.create_thread(created.learner.id, thread).await?;
        setups.push((created.token, thread.id));
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(pathwise_server::serve(listener, pathwise_server::AppState::new(app, None), async {
        stopped.await.ok();
    }));
    let http = reqwest::Client::builder().pool_max_idle_per_host(clients).build()?;
    let mut connected = Vec::with_capacity(clients);
    for (token, thread) in setups {
        let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let transport = Connections::KeptAlive.transport(&format!("{base}/mcp"), token.clone())?;
        let mcp = ClientConfig::default()
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .context("an MCP client could not discover the server")?;
        connected.push((token, thread, mcp));
    }

    let per_client = total / clients;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (token, thread, mcp) in connected {
        let (http, url) = (http.clone(), format!("{base}/api/tutor/threads/{thread}/turn"));
        tasks.push(tokio::spawn(async move {
            let (mut over_http, mut over_mcp) = (Vec::new(), Vec::new());
            for i in 0..per_client {
                let words = WORDS[i % WORDS.len()];
                let t = Instant::now();
                if i % 2 == 0 {
                    let reply =
                        http.post(&url).bearer_auth(&token).json(&json!({ "messageText": words })).send().await?;
                    anyhow::ensure!(reply.status() == 200, "a turn over HTTP answered {}", reply.status());
                    reply.bytes().await?;
                    over_http.push(t.elapsed());
                } else {
                    let mut arguments = JsonObject::new();
                    arguments.insert("thread_id".into(), json!(thread));
                    arguments.insert("messageText".into(), json!(words));
                    let result =
                        mcp.call_tool(CallToolRequestParams::new("tutor_turn").with_arguments(arguments)).await?;
                    anyhow::ensure!(result.is_error != Some(true), "a turn over MCP failed: {:?}", result.content);
                    over_mcp.push(t.elapsed());
                }
            }
            mcp.cancel().await.ok();
            anyhow::Ok((over_http, over_mcp))
        }));
    }
    let (mut over_http, mut over_mcp) = (Vec::new(), Vec::new());
    for task in tasks {
        let (h, m) = task.await??;
        over_http.extend(h);
        over_mcp.extend(m);
    }
    let elapsed = start.elapsed();
    stop.send(()).ok();
    server.await??;

    let (http_p50, http_p99) = (percentile(&mut over_http, 0.5), percentile(&mut over_http, 0.99));
    let (mcp_p50, mcp_p99) = (percentile(&mut over_mcp, 0.5), percentile(&mut over_mcp, 0.99));
    let extra = json!({ "clients": clients, "course": COURSE, "tutor": "offline" });
    Stats { ops: over_http.len(), concurrency: clients, elapsed, latencies: over_http }.print(
        "tutor_turn_http",
        engine,
        extra.clone(),
    );
    Stats { ops: over_mcp.len(), concurrency: clients, elapsed, latencies: over_mcp }.print(
        "tutor_turn_mcp",
        engine,
        extra,
    );
    let overhead = json!({
        "bench": "tutor_turn_mcp_overhead", "store": engine,
        "p50_ms": round3(mcp_p50 - http_p50), "p99_ms": round3(mcp_p99 - http_p99),
        "target": "p99 at most 1 ms more than over HTTP",
        "verdict": if mcp_p99 - http_p99 <= 1.0 { "met" } else { "not met" },
    });
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{overhead}");
    Ok(())
}

/// The `q` quantile of `latencies` in milliseconds.
fn percentile(latencies: &mut [Duration], q: f64) -> f64 {
    latencies.sort();
    let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
    latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
