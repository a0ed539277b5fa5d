//! The HTTP front door: a thin axum layer over `pathwise-app`. Handlers parse, call one
//! application operation, and serialize; they decide nothing.

pub mod error;
pub mod extract;
pub mod idempotency;
pub mod mcp;
pub mod routes;
pub mod web;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use pathwise_app::App;
use routes::{
    analytics, courses, curriculum, docs, flows, learners, library, maps, mastery, math, nodes, sessions, tutor,
};
use serde_json::json;
use std::sync::Arc;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::classify::ServerErrorsFailureClass;
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub app: App,
    /// SHA-256 of the operator token, when one is configured.
    pub operator_token_hash: Option<Arc<str>>,
    /// The `Host` names `/mcp` answers to.
    pub mcp_allowed_hosts: Arc<[String]>,
    /// How often an open session stream sends a `heartbeat` event.
    pub session_heartbeat: std::time::Duration,
    /// The server's name, for the workspace.
    pub name: Arc<str>,
    /// The local learner's sign-in for the workspace, on a loopback server.
    pub local_session: Option<Arc<LocalLearner>>,
}

pub use web::LocalLearner;

impl AppState {
    pub fn new(app: App, operator_token: Option<&str>) -> Self {
        AppState {
            app,
            operator_token_hash: operator_token.map(|t| pathwise_app::learners::hash_token(t).into()),
            mcp_allowed_hosts: mcp::http::loopback_hosts().into(),
            session_heartbeat: routes::sessions::HEARTBEAT,
            name: "pathwise".into(),
            local_session: None,
        }
    }

    /// The same state naming the server and signing the workspace in as the local learner.
    pub fn with_workspace(mut self, name: &str, local: Option<LocalLearner>) -> Self {
        self.name = name.into();
        self.local_session = local.map(Arc::new);
        self
    }

    /// The same state with session streams sending heartbeats this often.
    pub fn with_session_heartbeat(mut self, every: std::time::Duration) -> Self {
        self.session_heartbeat = every;
        self
    }

    /// The same state answering MCP requests addressed to these hosts (loopback's otherwise).
    pub fn with_mcp_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        if !hosts.is_empty() {
            self.mcp_allowed_hosts = hosts.into();
        }
        self
    }
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/learners", post(learners::create))
        .route("/me", get(learners::me))
        .route("/me/llm-usage", get(learners::llm_usage))
        .route("/mind-maps", get(maps::list_maps).post(maps::create_map))
        .route("/mind-maps/outline", post(curriculum::import_outline))
        .route("/mind-maps/{id}", get(maps::get_map).patch(maps::update_map).delete(maps::delete_map))
        .route("/mind-maps/{id}/nodes", get(maps::list_nodes).post(maps::create_node))
        .route("/mind-maps/{id}/edges", post(maps::create_edge))
        .route("/mind-maps/{id}/edges/{parent_id}/{child_id}", axum::routing::delete(maps::delete_edge))
        .route("/mind-maps/{id}/frontier", get(maps::frontier))
        .route("/mind-maps/{id}/plan", post(curriculum::plan))
        .route("/mind-maps/{id}/replan", post(curriculum::replan))
        .route("/mind-maps/{id}/next-node", get(curriculum::next_node))
        .route("/mind-maps/{id}/mastery-summary", get(mastery::summary))
        .route("/mind-maps/{id}/struggles", get(mastery::struggles))
        .route("/mind-maps/{id}/pending-reviews", get(mastery::map_reviews))
        .route("/curriculum/generate", post(curriculum::generate))
        .route("/nodes/{id}", get(nodes::get_node).patch(nodes::update_node).delete(nodes::delete_node))
        .route("/nodes/{id}/history", get(nodes::history))
        .route("/nodes/{id}/subtree", get(nodes::subtree))
        .route("/responses", post(mastery::record))
        .route("/quiz-responses", get(mastery::list))
        .route("/reviews/pending", get(mastery::all_reviews))
        .route("/flows", get(flows::list).post(flows::start))
        .route("/flows/{id}", get(flows::get))
        .route("/flows/{id}/abandon", post(flows::abandon))
        .route("/flows/{id}/diagnostic/start", post(flows::diagnostic_start))
        .route("/flows/{id}/diagnostic/answer", post(flows::diagnostic_answer))
        .route("/flows/{id}/diagnostic/complete", post(flows::diagnostic_complete))
        .route("/flows/{id}/plan", post(flows::plan))
        .route("/flows/{id}/teach", post(flows::teach))
        .route("/flows/{id}/quiz", post(flows::quiz))
        .route("/flows/{id}/answer", post(flows::answer))
        .route("/flows/{id}/review", post(flows::review))
        .route("/flows/{id}/advance", post(flows::advance))
        .route("/mind-maps/{id}/analytics", get(analytics::map_analytics))
        .route("/mind-maps/{id}/analytics/snapshot", post(analytics::snapshot))
        .route("/me/portfolio", get(analytics::portfolio))
        .route("/me/review-log.csv", get(learners::review_log))
        .route("/me/preferences", get(learners::preferences).patch(learners::update_preferences))
        .route("/me/digest", get(analytics::digest))
        .route("/jobs", get(analytics::jobs))
        .route("/jobs/runs", get(analytics::runs))
        .route("/session/", get(sessions::list).post(sessions::create))
        .route("/session/{id}", get(sessions::get).delete(sessions::terminate))
        .route("/session/{id}/stream", get(sessions::stream))
        .route("/session/{id}/respond", post(sessions::respond))
        .route("/session/{id}/messages", get(sessions::messages))
        .route("/library/assessments", get(library::assessments))
        .route("/library/skills", get(library::skills))
        .route("/courses", get(courses::list).post(courses::import))
        .route("/courses/{course_id}", get(courses::get))
        .route("/tutor/courses/{course_id}/snapshot", get(tutor::snapshot))
        .route("/tutor/threads", get(tutor::list_threads).post(tutor::create_thread))
        .route("/tutor/threads/{thread_id}", get(tutor::get_thread))
        .route("/tutor/threads/{thread_id}/messages", get(tutor::messages))
        .route("/tutor/threads/{thread_id}/turns", get(tutor::turns))
        .route("/tutor/threads/{thread_id}/turn", post(tutor::turn))
        .route("/tutor/threads/{thread_id}/drill/grade", post(tutor::grade_drill))
        .route("/tutor/threads/{thread_id}/exam/mcq-submit", post(tutor::mcq_submit))
        .route("/tutor/threads/{thread_id}/exam/support-viewed", post(tutor::support_viewed))
        .route("/math", post(math::render))
        .route("/transcribe", post(web::transcribe))
        .route("/workspace/signin", post(web::sign_in))
        .route("/workspace/config", get(web::config))
        .route("/openapi.json", get(docs::openapi_json))
        .route("/docs", get(docs::docs_page))
        .layer(axum::middleware::from_fn_with_state(state.clone(), idempotency::idempotent_posts));
    Router::new()
        .nest("/api", api)
        .merge(mcp::http::router(state.clone()))
        .route("/healthz", get(|| async { "ok" }))
        .route("/", get(web::index))
        .route("/assets/{*path}", get(web::asset))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CompressionLayer::new())
        .layer(CatchPanicLayer::custom(|_| internal_error()))
        .layer(TraceLayer::new_for_http().on_failure(log_failure))
        .with_state(state)
}

/// A failed request in the log, at the level its cause deserves: a 500 is a bug (ERROR); a
/// dependency that failed, such as the language model (502, 504), is the operator's to look
/// at (WARN); a 503 is a known condition answered with what to do about it (no model
/// configured, said once at start; a busy database, warned where it happens), so each such
/// request is only a DEBUG line rather than an ERROR the client's request did not cause.
fn log_failure(class: ServerErrorsFailureClass, latency: std::time::Duration, _span: &tracing::Span) {
    let latency_ms = latency.as_millis();
    match class {
        ServerErrorsFailureClass::StatusCode(StatusCode::SERVICE_UNAVAILABLE) => {
            tracing::debug!(%class, latency_ms, "response failed")
        }
        ServerErrorsFailureClass::StatusCode(status) if status != StatusCode::INTERNAL_SERVER_ERROR => {
            tracing::warn!(%class, latency_ms, "response failed")
        }
        class => tracing::error!(%class, latency_ms, "response failed"),
    }
}

async fn not_found(uri: axum::http::Uri) -> Response {
    error::error_response(
        StatusCode::NOT_FOUND,
        "not_found",
        &format!("no route for {}; the API is described at /api/openapi.json", uri.path()),
        json!({ "path": uri.path() }),
    )
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    error::error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        &format!("{method} is not allowed on {}; see /api/openapi.json", uri.path()),
        json!({ "path": uri.path(), "method": method.as_str() }),
    )
}

fn internal_error() -> Response {
    error::error_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "internal error; the server log has the details",
        json!({}),
    )
    .into_response()
}

/// Serve until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state)).with_graceful_shutdown(shutdown).await
}
