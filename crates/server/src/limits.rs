//! What one client may ask of the server, stated in one place: request rates per token, the
//! size of a request's body and headers, how long its headers may take to arrive and the
//! server may work on it, and how many session streams a learner may hold open. A client
//! over a limit gets an error naming the limit and what to do; no limit drops work already
//! acknowledged.

use crate::error::error_response;
use crate::AppState;
use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use governor::middleware::NoOpMiddleware;
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use pathwise_domain::LearnerId;
use serde_json::json;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

/// The largest request body accepted (JSON, a course pack, a recording to transcribe).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// The most bytes a request's line and headers may take (a longer head is answered 431).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// The most headers one request may carry.
pub const MAX_HEADERS: usize = 100;

/// The limits a server applies; [`Limits::default`] is what `pathwise serve` starts with.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Requests one token (or, without one, one address) may make per second, sustained;
    /// none for no rate limit.
    pub rate_per_second: Option<u32>,
    /// Requests it may make at once above that rate.
    pub rate_burst: u32,
    /// How long the server works on a request before answering 503 (a session's stream,
    /// once open, runs as long as the session: this bounds the wait for its first byte).
    pub request_timeout: Duration,
    /// How long a client may take to send a request's headers, and how long an idle
    /// connection is kept; past it the connection is closed.
    pub header_read_timeout: Duration,
    /// Session streams one learner may have open at once.
    pub streams_per_learner: usize,
    /// How long a stopping server waits for requests in flight before it closes them.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rate_per_second: Some(30),
            rate_burst: 120,
            request_timeout: Duration::from_secs(300),
            header_read_timeout: Duration::from_secs(10),
            streams_per_learner: 8,
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// No rate limit, for an embedded server whose one client is the process itself
    /// (benchmarks, tests of other behaviour).
    pub fn without_rate_limit(self) -> Self {
        Limits { rate_per_second: None, ..self }
    }
}

/// Whom a request's rate is counted against: its bearer token, or the address it came
/// from when it has none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RateKey {
    Token(Arc<str>),
    Address(IpAddr),
    /// Neither is known (a server run without connection information).
    Unknown,
}

#[derive(Debug, Clone, Copy)]
pub struct TokenOrAddress;

impl KeyExtractor for TokenOrAddress {
    type Key = RateKey;

    fn extract<T>(&self, request: &axum::http::Request<T>) -> Result<RateKey, GovernorError> {
        if let Some(token) = crate::extract::bearer_value(request.headers()) {
            return Ok(RateKey::Token(token.into()));
        }
        Ok(request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(RateKey::Unknown, |ConnectInfo(peer)| RateKey::Address(peer.ip())))
    }
}

/// The rate-limit layer for the API and MCP routes, or none when the limits set no rate.
/// Its keys are dropped once their bucket is full again (see [`forget_idle_keys`]).
pub fn rate_limit_layer(limits: &Limits) -> Option<GovernorLayer<TokenOrAddress, NoOpMiddleware, axum::body::Body>> {
    let per_second = limits.rate_per_second.filter(|r| *r > 0)?;
    let config = GovernorConfigBuilder::default()
        .period(Duration::from_secs(1) / per_second)
        .burst_size(limits.rate_burst.max(1))
        .key_extractor(TokenOrAddress)
        .finish()?;
    let config = Arc::new(config);
    forget_idle_keys(Arc::clone(&config));
    Some(GovernorLayer::new(config).error_handler(too_many_requests))
}

/// The limiter keeps a bucket per key; one whose bucket has refilled holds nothing worth
/// keeping, so it is dropped every minute (else every token and address ever seen stays).
/// The task ends with the last server using the limiter.
fn forget_idle_keys(config: Arc<GovernorConfig<TokenOrAddress, NoOpMiddleware>>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    let limiter = Arc::downgrade(config.limiter());
    runtime.spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        every.tick().await;
        loop {
            every.tick().await;
            let Some(limiter) = limiter.upgrade() else { return };
            limiter.retain_recent();
        }
    });
}

fn too_many_requests(error: GovernorError) -> Response {
    match error {
        GovernorError::TooManyRequests { wait_time, .. } => {
            metrics::counter!("pathwise_http_rate_limited_total").increment(1);
            let wait = wait_time.max(1);
            let mut response = error_response(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                &format!(
                    "too many requests for this token; try again in {wait} s (the server allows a sustained rate \
                     with bursts above it: rate_limit_per_second and rate_limit_burst)"
                ),
                json!({ "retry_after_secs": wait }),
            );
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, HeaderValue::from(wait));
            response
        }
        other => error_response(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, &other.to_string(), json!({})),
    }
}

/// Stop working on a request past the request timeout and answer 503 saying so.
pub async fn request_timeout(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limit = state.limits.request_timeout;
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string());
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            metrics::counter!("pathwise_http_timeouts_total", "route" => route.unwrap_or_else(|| "unmatched".into()))
                .increment(1);
            error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::RequestTimeout,
                &format!(
                    "the server stopped working on this request after {} s (request_timeout_secs); \
                     try again, or ask the operator to raise the limit",
                    limit.as_secs()
                ),
                json!({ "timeout_secs": limit.as_secs() }),
            )
        }
    }
}

/// Open session streams per learner, with a cap.
#[derive(Clone, Default)]
pub struct OpenStreams {
    open: Arc<Mutex<HashMap<LearnerId, usize>>>,
}

/// One open stream, counted until it is dropped.
pub struct StreamSlot {
    open: Arc<Mutex<HashMap<LearnerId, usize>>>,
    learner: LearnerId,
}

impl OpenStreams {
    /// A slot for another stream of `learner`'s, or a 429 when they hold `cap` already.
    pub fn open(&self, learner: LearnerId, cap: usize) -> Result<StreamSlot, AppError> {
        let mut open = self.open.lock().expect("open streams lock");
        let count = open.entry(learner).or_default();
        if *count >= cap {
            metrics::counter!("pathwise_sse_streams_refused_total").increment(1);
            return Err(AppError::new(
                ErrorKind::TooManyRequests,
                ErrorCode::TooManyStreams,
                format!(
                    "this learner has {cap} session streams open, the most allowed (streams_per_learner); \
                     close one (a browser tab, a client) and try again"
                ),
            ));
        }
        *count += 1;
        metrics::gauge!("pathwise_sse_streams_open").increment(1.0);
        Ok(StreamSlot { open: Arc::clone(&self.open), learner })
    }

    /// The learner's open streams.
    pub fn count(&self, learner: LearnerId) -> usize {
        self.open.lock().expect("open streams lock").get(&learner).copied().unwrap_or(0)
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().expect("open streams lock");
        if let Some(count) = open.get_mut(&self.learner) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.learner);
            }
        }
        metrics::gauge!("pathwise_sse_streams_open").decrement(1.0);
    }
}
