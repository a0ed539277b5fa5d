//! The HTTP front door: a thin axum layer over `pathwise-app`. Handlers parse, call one
//! application operation, and serialize; they decide nothing.

pub mod error;
pub mod extract;
pub mod health;
pub mod idempotency;
pub mod limits;
mod listener;
pub mod mcp;
pub mod metrics;
pub mod routes;
pub mod web;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use pathwise_app::{App, ErrorCode};
use routes::{
    analytics, author, courses, curriculum, docs, flows, learners, library, maps, mastery, math, nodes, sessions, tutor,
};
use serde_json::json;
use std::sync::Arc;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::classify::ServerErrorsFailureClass;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use limits::{Limits, MAX_BODY_BYTES};
pub use listener::serve;

/// What every handler is given: shared, so that handing it to a request costs one
/// reference count, whatever it holds.
#[derive(Clone)]
pub struct AppState(Arc<ServerState>);

impl std::ops::Deref for AppState {
    type Target = ServerState;

    fn deref(&self) -> &ServerState {
        &self.0
    }
}

#[derive(Clone)]
pub struct ServerState {
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
    /// What one client may ask of the server.
    pub limits: Arc<Limits>,
    /// Session streams open now, per learner.
    pub open_streams: limits::OpenStreams,
    /// SHA-256 of the token `/metrics` asks for, when one is configured.
    pub metrics_token_hash: Option<Arc<str>>,
    /// Cancelled when the server starts to stop: open streams end with a reconnect hint.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// Whether requests are counted and timed for `/metrics` (always, for `pathwise serve`).
    pub request_metrics: bool,
}

pub use web::LocalLearner;

/// The services a handler takes instead of the whole application (axum substates): its
/// signature then names the one capability it uses, and it can reach no other.
macro_rules! substates {
    ($($service:ty => $from_app:ident),+ $(,)?) => {$(
        impl axum::extract::FromRef<AppState> for $service {
            fn from_ref(state: &AppState) -> Self {
                state.app.$from_app().clone()
            }
        }
    )+};
}

substates!(
    pathwise_app::fsrs::FsrsService => fsrs,
    pathwise_app::anki_import::AnkiImporter => anki,
    pathwise_app::authoring::Documents => documents,
    pathwise_app::analytics::Analytics => analytics,
);

impl AppState {
    pub fn new(app: App, operator_token: Option<&str>) -> Self {
        AppState(Arc::new(ServerState {
            app,
            operator_token_hash: operator_token.map(|t| pathwise_app::learners::hash_token(t).into()),
            mcp_allowed_hosts: mcp::http::loopback_hosts().into(),
            session_heartbeat: routes::sessions::HEARTBEAT,
            name: "pathwise".into(),
            local_session: None,
            limits: Arc::new(Limits::default().without_rate_limit()),
            open_streams: limits::OpenStreams::default(),
            metrics_token_hash: None,
            shutdown: tokio_util::sync::CancellationToken::new(),
            request_metrics: true,
        }))
    }

    /// The state to change, while it is being set up (a copy if it is shared already).
    fn edit(&mut self) -> &mut ServerState {
        Arc::make_mut(&mut self.0)
    }

    /// The same state with these limits (the default's, without a rate limit, otherwise).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.edit().limits = Arc::new(limits);
        self
    }

    /// The same state with requests neither counted nor timed: the baseline against which the
    /// benchmarks price the request metrics.
    pub fn without_request_metrics(mut self) -> Self {
        self.edit().request_metrics = false;
        self
    }

    /// The same state asking for this token on `/metrics` (open otherwise).
    pub fn with_metrics_token(mut self, token: Option<&str>) -> Self {
        self.edit().metrics_token_hash = token.map(|t| pathwise_app::learners::hash_token(t).into());
        self
    }

    /// The same state naming the server and signing the workspace in as the local learner.
    pub fn with_workspace(mut self, name: &str, local: Option<LocalLearner>) -> Self {
        self.edit().name = name.into();
        self.edit().local_session = local.map(Arc::new);
        self
    }

    /// The same state with session streams sending heartbeats this often.
    pub fn with_session_heartbeat(mut self, every: std::time::Duration) -> Self {
        self.edit().session_heartbeat = every;
        self
    }

    /// The same state answering MCP requests addressed to these hosts (loopback's otherwise).
    pub fn with_mcp_allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        if !hosts.is_empty() {
            self.edit().mcp_allowed_hosts = hosts.into();
        }
        self
    }
}

/// Every operation of the API, each registered once, with its OpenAPI annotation: the router
/// and the document served at `/api/openapi.json` are both made from this list (the paths
/// are the annotations'). Handlers that share a path are registered together.
fn operations() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(docs::ApiDoc::openapi())
        .routes(routes!(learners::list, learners::create))
        .routes(routes!(learners::delete))
        .routes(routes!(learners::tokens, learners::create_token))
        .routes(routes!(learners::revoke_token))
        .routes(routes!(learners::rotate_token))
        .routes(routes!(learners::export))
        .routes(routes!(learners::import))
        .routes(routes!(learners::me))
        .routes(routes!(learners::llm_usage))
        .routes(routes!(learners::import_anki))
        .routes(routes!(author::upload, author::documents))
        .routes(routes!(author::document, author::delete_document))
        .routes(routes!(author::drafts, author::create_draft))
        .routes(routes!(author::draft, author::edit_draft, author::delete_draft))
        .routes(routes!(author::export_draft))
        .routes(routes!(author::draft_units))
        .routes(routes!(author::publish_draft))
        .routes(routes!(author::course_shares, author::share_course))
        .routes(routes!(author::unshare_course))
        .routes(routes!(courses::share))
        .routes(routes!(courses::unshare))
        .routes(routes!(maps::list_maps, maps::create_map))
        .routes(routes!(curriculum::import_outline))
        .routes(routes!(maps::get_map, maps::update_map, maps::delete_map))
        .routes(routes!(maps::list_nodes, maps::create_node))
        .routes(routes!(maps::create_edge))
        .routes(routes!(maps::delete_edge))
        .routes(routes!(maps::frontier))
        .routes(routes!(curriculum::plan))
        .routes(routes!(curriculum::replan))
        .routes(routes!(curriculum::next_node))
        .routes(routes!(mastery::summary))
        .routes(routes!(mastery::struggles))
        .routes(routes!(mastery::map_reviews))
        .routes(routes!(curriculum::generate))
        .routes(routes!(nodes::get_node, nodes::update_node, nodes::delete_node))
        .routes(routes!(nodes::history))
        .routes(routes!(nodes::subtree))
        .routes(routes!(mastery::record))
        .routes(routes!(mastery::list))
        .routes(routes!(mastery::all_reviews))
        .routes(routes!(flows::list, flows::start))
        .routes(routes!(flows::get))
        .routes(routes!(flows::abandon))
        .routes(routes!(flows::diagnostic_start))
        .routes(routes!(flows::diagnostic_answer))
        .routes(routes!(flows::diagnostic_complete))
        .routes(routes!(flows::plan))
        .routes(routes!(flows::teach))
        .routes(routes!(flows::quiz))
        .routes(routes!(flows::answer))
        .routes(routes!(flows::review))
        .routes(routes!(flows::advance))
        .routes(routes!(analytics::map_analytics))
        .routes(routes!(analytics::snapshot))
        .routes(routes!(analytics::portfolio))
        .routes(routes!(learners::review_log))
        .routes(routes!(learners::preferences, learners::update_preferences))
        .routes(routes!(learners::fit_fsrs))
        .routes(routes!(analytics::digest))
        .routes(routes!(analytics::jobs))
        .routes(routes!(analytics::runs))
        .routes(routes!(sessions::list, sessions::create))
        .routes(routes!(sessions::get, sessions::terminate))
        .routes(routes!(sessions::stream))
        .routes(routes!(sessions::respond))
        .routes(routes!(sessions::messages))
        .routes(routes!(library::assessments))
        .routes(routes!(library::skills))
        .routes(routes!(courses::list, courses::import))
        .routes(routes!(courses::get))
        .routes(routes!(courses::passage))
        .routes(routes!(courses::pack))
        .routes(routes!(tutor::snapshot))
        .routes(routes!(tutor::list_threads, tutor::create_thread))
        .routes(routes!(tutor::get_thread))
        .routes(routes!(tutor::messages))
        .routes(routes!(tutor::turns))
        .routes(routes!(tutor::turn))
        .routes(routes!(tutor::grade_drill))
        .routes(routes!(tutor::mcq_submit))
        .routes(routes!(tutor::support_viewed))
        .routes(routes!(math::render))
        .routes(routes!(web::transcribe))
        .routes(routes!(web::sign_in))
        .routes(routes!(web::config))
}

/// The OpenAPI document, as `/api/openapi.json` serves it.
pub fn openapi() -> serde_json::Value {
    docs::finish(operations().into_openapi())
}

pub fn router(state: AppState) -> Router {
    metrics::handle();
    let (operations, document) = operations().split_for_parts();
    let api = operations
        .route("/api/openapi.json", docs::openapi_json(&docs::finish(document)))
        .route("/api/docs", get(docs::docs_page))
        // The session-flow document writes `POST /session/` with its slash; a client that
        // leaves it out means the same collection.
        .route("/api/session", get(routes::sessions::list).post(routes::sessions::create))
        .layer(axum::middleware::from_fn_with_state(state.clone(), idempotency::idempotent_posts));
    // What clients call is rate-limited and timed out; the probes, the metrics and the
    // workspace's files are not.
    let mut limited = Router::new()
        .merge(api)
        .merge(mcp::http::router(state.clone()))
        .layer(axum::middleware::from_fn_with_state(state.clone(), limits::request_timeout))
        .layer(axum::middleware::from_fn_with_state(state.clone(), health::refuse_when_replaced));
    if let Some(rate_limit) = limits::rate_limit_layer(&state.limits) {
        limited = limited.layer(rate_limit);
    }
    let mut router = Router::new()
        .merge(limited)
        .route("/healthz", get(health::alive))
        .route("/readyz", get(health::ready))
        .route("/metrics", get(metrics::render))
        .route("/", get(web::index))
        .route("/assets/{*path}", get(web::asset))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CompressionLayer::new())
        .layer(CatchPanicLayer::custom(|_| internal_error()));
    if state.request_metrics {
        router = router.layer(axum::middleware::from_fn(metrics::track_requests));
    }
    router
        .layer(TraceLayer::new_for_http().make_span_with(request_span).on_failure(log_failure))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(RequestIds::default()))
        .with_state(state)
}

/// Request ids for requests that bring none: a random prefix drawn once per server and a
/// counter, unique without a random draw per request (an id names a request in the logs;
/// it is not a secret).
#[derive(Clone)]
struct RequestIds {
    prefix: Arc<str>,
    next: Arc<std::sync::atomic::AtomicU64>,
}

impl Default for RequestIds {
    fn default() -> Self {
        let random = uuid::Uuid::new_v4().simple().to_string();
        RequestIds { prefix: random[..12].into(), next: Default::default() }
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = format!("{}-{n:012x}", self.prefix);
        axum::http::HeaderValue::from_str(&id).ok().map(RequestId::new)
    }
}

/// Each request's span: its method, path (never its query, which can carry a sign-in
/// code) and request id, which the response's `x-request-id` header also carries, so that
/// everything logged while it runs (model calls included) can be found from a client's
/// report.
fn request_span(request: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let id = request.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or_default();
    tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), request_id = %id)
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
        ErrorCode::NotFound,
        &format!("no route for {}; the API is described at /api/openapi.json", uri.path()),
        json!({ "path": uri.path() }),
    )
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    error::error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        &format!("{method} is not allowed on {}; see /api/openapi.json", uri.path()),
        json!({ "path": uri.path(), "method": method.as_str() }),
    )
}

fn internal_error() -> Response {
    error::error_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Internal,
        "internal error; the server log has the details",
        json!({}),
    )
    .into_response()
}
