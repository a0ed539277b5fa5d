//! `/healthz` (the process is alive) and `/readyz` (it can serve: the store answers and
//! its schema is this build's). A load balancer sends traffic on `/readyz`; a supervisor
//! restarts on `/healthz`. The language model is reported, never a reason to be unready:
//! without it the tutor answers deterministically.

use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use pathwise_app::ErrorCode;
use serde::Serialize;

#[derive(Serialize)]
pub struct Readiness {
    pub ready: bool,
    /// The database answered (`ok`), or why not.
    pub store: String,
    /// `current`, or the schema version found and the one expected.
    pub migrations: String,
    /// `not_configured`, `reachable`, or why the model's server did not answer.
    pub model: String,
    /// How many prompt tokens a tutor turn sends, and why: `llm_prompt_tokens`, or what the
    /// model reads in time at the speed measured from its replies.
    pub model_prompt_budget: String,
    /// The server is stopping: it finishes what it has and takes nothing new.
    pub stopping: bool,
}

pub async fn alive() -> &'static str {
    "ok"
}

pub async fn ready(State(state): State<AppState>) -> Response {
    let (store, migrations) = match state.app.store().schema_status().await {
        Ok(schema) if schema.is_current() => ("ok".to_string(), "current".to_string()),
        Ok(schema) => (
            "ok".to_string(),
            format!(
                "the database has schema {}, this build needs {}: run `pathwise migrate`",
                schema.applied, schema.expected
            ),
        ),
        Err(error) => (format!("the database did not answer: {error}"), "unknown".to_string()),
    };
    let model = match state.app.llm().reachable().await {
        None => "not_configured".to_string(),
        Some(Ok(())) => "reachable".to_string(),
        Some(Err(error)) => format!("unreachable: {}", error.learner_message()),
    };
    let budget = state.app.tutor_prompt_budget();
    let model_prompt_budget = match budget.tokens {
        Some(tokens) => format!("{tokens} tokens: {}", budget.why),
        None => format!("everything: {}", budget.why),
    };
    let stopping = state.shutdown.is_cancelled();
    let ready = store == "ok" && migrations == "current" && !stopping;
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(Readiness { ready, store, migrations, model, model_prompt_budget, stopping })).into_response()
}

/// Refuse every API and MCP request, 503 `database_replaced`, once the SQLite file the server
/// opened is no longer the one at its path: its connections would go on reading the old
/// database, and what they wrote would be lost with it. One `stat` a request.
pub async fn refuse_when_replaced(
    State(state): State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match state.app.store().replaced() {
        None => next.run(request).await,
        Some(why) => {
            tracing::error!(%why, "refusing requests: the database was replaced under the server");
            crate::error::error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::DatabaseReplaced,
                "the server's database was replaced while it ran (a restore or a copy); nothing was read or \
                 saved. The operator must restart the server",
                serde_json::json!({}),
            )
        }
    }
}
