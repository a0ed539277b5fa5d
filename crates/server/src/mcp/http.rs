//! MCP over streamable HTTP at `/mcp`. Each request carries a learner's bearer token, which
//! the layer here checks before the MCP service sees the request; the service runs
//! stateless (no MCP session held in memory), so any replica can answer any request.
//! `Host` headers are checked against the allowed hosts (loopback by default) so that a
//! page on another site cannot reach a local server through DNS rebinding.

use super::PathwiseMcp;
use crate::extract::Auth;
use crate::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;

pub const PATH: &str = "/mcp";

/// The hosts a loopback deployment is reached by.
pub fn loopback_hosts() -> Vec<String> {
    vec!["localhost".into(), "127.0.0.1".into(), "::1".into(), "[::1]".into()]
}

pub fn router(state: AppState) -> Router<AppState> {
    let app = state.app.clone();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_allowed_hosts(state.mcp_allowed_hosts.iter().cloned())
        .with_max_request_body_bytes(crate::MAX_BODY_BYTES);
    let service = StreamableHttpService::new(
        move || Ok(PathwiseMcp::per_request(app.clone())),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new().route_service(PATH, service).route_layer(middleware::from_fn_with_state(state, authenticate))
}

async fn authenticate(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    match Auth::from_request_parts(&mut parts, &state).await {
        Ok(Auth(learner)) => {
            parts.extensions.insert(learner);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(refused) => refused.into_response(),
    }
}
