//! The MCP door under load: `tools/call` of `mastery_record_response` over streamable HTTP
//! at `/mcp`, as an MCP client sees it. The real server runs in-process on 127.0.0.1; each
//! client is an rmcp client of its own (protocol 2026-07-28, `server/discover`, no session),
//! with its learner's bearer token, making one call after another. A call that fails or
//! comes back as a tool error counts as an error, and a run with errors fails.
//!
//! rmcp's own HTTP client keeps no idle connections (`pool_max_idle_per_host(0)`, against
//! stalls on bodies left unread), so each of its calls opens a TCP connection. The
//! benchmark measures the server with clients that keep their connection, as the HTTP
//! benchmark's do, and, on SQLite, also with rmcp's default client.

use super::fixtures::{learner_with_map, response};
use super::stats::Stats;
use anyhow::{Context, Result};
use pathwise_app::mastery::RecordResponse;
use pathwise_app::{App, Store};
use rmcp::model::{CallToolRequestParams, ClientConfig, JsonObject, ProtocolVersion};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::json;
use std::time::Instant;

/// The SQLite target, in calls a second.
const TARGET_PER_SEC: f64 = 1_000.0;

/// How each client's HTTP connections are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connections {
    /// One connection per client, kept alive between calls (a pooled reqwest client).
    KeptAlive,
    /// rmcp's default client: a new connection for every call.
    PerCall,
}

impl Connections {
    fn label(self) -> &'static str {
        match self {
            Connections::KeptAlive => "kept alive",
            Connections::PerCall => "one per call (rmcp's default client)",
        }
    }

    pub(super) fn transport(
        self,
        url: &str,
        token: String,
    ) -> Result<StreamableHttpClientTransport<rmcp_reqwest::Client>> {
        let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
        Ok(match self {
            Connections::PerCall => StreamableHttpClientTransport::from_config(config),
            Connections::KeptAlive => {
                StreamableHttpClientTransport::with_client(rmcp_reqwest::Client::builder().build()?, config)
            }
        })
    }
}

/// `clients` MCP clients, each its own learner with a planned 30-node map, make `total`
/// calls between them.
pub async fn record_responses(app: App, clients: usize, total: usize, connections: Connections) -> Result<()> {
    let mut setups = Vec::new();
    for _ in 0..clients {
        setups.push(learner_with_map(&app).await?);
    }
    let engine = app.store().engine();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(pathwise_server::serve(listener, pathwise_server::AppState::new(app, None), async {
        stopped.await.ok();
    }));

    // Connect every client before the clock starts: discovery is once per client.
    let mut connected = Vec::with_capacity(clients);
    for (_, map, nodes, token) in setups {
        let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let client = ClientConfig::default()
            .serve_with_lifecycle(connections.transport(&url, token)?, lifecycle)
            .await
            .context("an MCP client could not discover the server")?;
        connected.push((client, map, nodes));
    }

    let per_client = total / clients;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (client, map, nodes) in connected {
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_client);
            let mut errors = Vec::new();
            for i in 0..per_client {
                let params = CallToolRequestParams::new("mastery_record_response")
                    .with_arguments(arguments(&response(map, nodes[i % nodes.len()], i)));
                let t = Instant::now();
                match client.call_tool(params).await {
                    Ok(result) if result.is_error != Some(true) && result.structured_content.is_some() => {
                        latencies.push(t.elapsed());
                    }
                    Ok(result) => errors.push(format!("tool error: {:?}", result.content)),
                    Err(error) => errors.push(format!("call failed: {error}")),
                }
            }
            client.cancel().await.ok();
            (latencies, errors)
        }));
    }
    let (mut latencies, mut errors) = (Vec::new(), Vec::new());
    for task in tasks {
        let (done, failed) = task.await?;
        latencies.extend(done);
        errors.extend(failed);
    }
    let elapsed = start.elapsed();
    stop.send(()).ok();
    server.await??;

    let calls_per_sec = latencies.len() as f64 / elapsed.as_secs_f64();
    let mut extra = json!({
        "clients": clients, "connections": connections.label(), "errors": errors.len(), "protocol": "2026-07-28",
    });
    if engine == "sqlite" {
        let met = errors.is_empty() && calls_per_sec >= TARGET_PER_SEC;
        extra["target"] = json!(">= 1,000 calls/s");
        extra["verdict"] = json!(if met { "met" } else { "not met" });
    }
    let stats = Stats { ops: latencies.len(), concurrency: clients, elapsed, latencies };
    stats.print("mcp_record_response", engine, extra);
    if let Some(first) = errors.first() {
        let calls = per_client * clients;
        anyhow::bail!("mcp_record_response: {} of {calls} calls failed; the first: {first}", errors.len());
    }
    Ok(())
}

/// The tool's arguments for a response, as the HTTP benchmark sends its body.
fn arguments(r: &RecordResponse) -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("node_id".into(), json!(r.node_id));
    arguments.insert("mind_map_id".into(), json!(r.mind_map_id));
    arguments.insert("question_text".into(), json!(r.question_text));
    arguments.insert("user_answer".into(), json!(r.user_answer));
    arguments.insert("quality".into(), json!(r.quality));
    arguments.insert("response_type".into(), json!(r.response_type));
    arguments
}
