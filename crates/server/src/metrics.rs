//! `/metrics`: the server's operational metrics in the Prometheus text format, for an
//! operator to graph and alert on (`deploy/grafana/pathwise.json` is a dashboard of them).
//!
//! The crates record through the `metrics` facade (the model calls in `pathwise-llm`, the
//! tutor's fallbacks and the jobs in `pathwise-app`, requests and streams here); this module
//! installs the Prometheus recorder once per process and renders it. Gauges of the store's
//! pools are read when a scrape asks, so that they cost nothing between scrapes.

use crate::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{OnceLock, PoisonError, RwLock};
use std::time::Instant;

/// Latency buckets, in seconds: from a cached read (a millisecond) to a model's reply
/// (minutes).
const LATENCY_BUCKETS: &[f64] =
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];

/// Every metric the server exports, with its help text: what the dashboard may query.
pub const METRICS: &[(&str, &str)] = &[
    ("pathwise_http_requests_total", "HTTP requests answered, by method, route and status."),
    ("pathwise_http_request_duration_seconds", "Time to answer an HTTP request (to its headers), by method and route."),
    (
        "pathwise_http_rate_limited_total",
        "Requests refused with 429 because their token or address went over its rate.",
    ),
    ("pathwise_http_timeouts_total", "Requests cut off at the request timeout, by route."),
    ("pathwise_sse_streams_open", "Session event streams open now."),
    ("pathwise_sse_streams_refused_total", "Session streams refused because the learner had the most open."),
    (
        "pathwise_llm_calls_total",
        "Calls to the language model, by operation and how they ended (answered, failed, timed_out).",
    ),
    ("pathwise_llm_call_duration_seconds", "Time a language model call took, by operation."),
    ("pathwise_llm_tokens_total", "Tokens the language model reported, by operation and kind (prompt, completion)."),
    ("pathwise_llm_failures_total", "Failed language model calls, by operation and reason."),
    ("pathwise_tutor_fallbacks_total", "Tutor turns the deterministic tutor answered instead of the model, by reason."),
    ("pathwise_jobs_runs_total", "Scheduled jobs run, by job and outcome (done, failed, expired)."),
    ("pathwise_job_duration_seconds", "Time a scheduled job took, by job."),
    ("pathwise_jobs_lag_seconds", "How late the latest run of each job started after it was due."),
    ("pathwise_store_connections", "Store connections, by state (in_use, idle)."),
    ("pathwise_store_connections_max", "The most connections the store's pools may open."),
    ("pathwise_sqlite_write_queue", "Responses waiting for SQLite's writer thread."),
];

/// The process's recorder, installed the first time a server is built. Several servers in
/// one process (tests) share it; a process where another recorder was installed first gets
/// a handle of its own, which renders only what this module records directly.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = || {
            PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
                .expect("the buckets are not empty")
        };
        let handle = builder().install_recorder().unwrap_or_else(|_| builder().build_recorder().handle());
        for (name, help) in METRICS {
            metrics::describe_counter!(*name, *help);
        }
        // Series without labels exist from the start, at zero, so that a graph or an alert
        // on them has something to read before the first event.
        metrics::counter!("pathwise_http_rate_limited_total").absolute(0);
        metrics::counter!("pathwise_sse_streams_refused_total").absolute(0);
        metrics::gauge!("pathwise_sse_streams_open").increment(0.0);
        handle
    })
}

/// Count and time every request, by the route it matched (its template, so that ids do
/// not make a series each) rather than its path.
pub async fn track_requests(request: Request, next: Next) -> Response {
    let method = method_label(request.method());
    let route =
        request.extensions().get::<MatchedPath>().map_or("unmatched", |path| RequestSeries::route(path.as_str()));
    let started = Instant::now();
    let response = next.run(request).await;
    let seconds = started.elapsed().as_secs_f64();
    RequestSeries::with(method, route, response.status(), |series| {
        series.duration.record(seconds);
        series.answered.increment(1);
    });
    response
}

/// The handles of one series of request metrics. Naming a metric by its labels costs a key
/// built and looked up in the recorder's registry; a request looks its series up here instead,
/// in a table of its worker thread's own (no lock, nothing shared but the counts themselves).
struct RequestSeries {
    method: &'static str,
    status: StatusCode,
    duration: metrics::Histogram,
    answered: metrics::Counter,
}

thread_local! {
    /// Per route template, the series seen on this thread (a handful of methods and statuses).
    static SERIES: RefCell<HashMap<&'static str, Vec<RequestSeries>>> = RefCell::new(HashMap::new());
}

impl RequestSeries {
    /// The route template as a label value.
    fn route(template: &str) -> &'static str {
        SERIES.with_borrow_mut(|series| match series.get_key_value(template) {
            Some((known, _)) => *known,
            None => {
                let route = label(template);
                series.insert(route, Vec::new());
                route
            }
        })
    }

    fn with(method: &'static str, route: &'static str, status: StatusCode, record: impl FnOnce(&RequestSeries)) {
        SERIES.with_borrow_mut(|series| {
            if let Some(known) =
                series.get(route).and_then(|r| r.iter().find(|s| s.method == method && s.status == status))
            {
                return record(known);
            }
            let status_label = label(status.as_str());
            let new = RequestSeries {
                method,
                status,
                duration: metrics::histogram!(
                    "pathwise_http_request_duration_seconds", "method" => method, "route" => route
                ),
                answered: metrics::counter!(
                    "pathwise_http_requests_total", "method" => method, "route" => route, "status" => status_label
                ),
            };
            record(&new);
            series.entry(route).or_default().push(new);
        })
    }
}

/// The standard methods by name; any other a client makes up is one series, `other`, so
/// that clients cannot make series without end.
fn method_label(method: &Method) -> &'static str {
    const STANDARD: [(Method, &str); 9] = [
        (Method::GET, "GET"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::PATCH, "PATCH"),
        (Method::DELETE, "DELETE"),
        (Method::HEAD, "HEAD"),
        (Method::OPTIONS, "OPTIONS"),
        (Method::TRACE, "TRACE"),
        (Method::CONNECT, "CONNECT"),
    ];
    STANDARD.iter().find(|(m, _)| m == method).map_or("other", |(_, name)| name)
}

/// A label value kept for the life of the process, so that labelling a request allocates
/// nothing. Only bounded sets come here: the router's route templates, the standard
/// methods and status codes.
fn label(value: &str) -> &'static str {
    static LABELS: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();
    let labels = LABELS.get_or_init(Default::default);
    if let Some(known) = labels.read().unwrap_or_else(PoisonError::into_inner).get(value) {
        return known;
    }
    let mut labels = labels.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = labels.get(value) {
        return known;
    }
    let kept: &'static str = Box::leak(value.to_owned().into_boxed_str());
    labels.insert(kept);
    kept
}

/// `GET /metrics`: open, or for the holder of `metrics_token` when one is set.
pub async fn render(State(state): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    if let Some(expected) = &state.metrics_token_hash {
        let given = crate::extract::bearer_value(&headers).map(pathwise_app::learners::hash_token);
        if given.as_deref() != Some(&**expected) {
            return crate::error::ApiError::from(AppError::new(
                ErrorKind::Unauthorized,
                ErrorCode::Unauthorized,
                "/metrics needs the metrics token: send Authorization: Bearer <metrics_token>",
            ))
            .into_response();
        }
    }
    let pool = state.app.store().pool_status();
    metrics::gauge!("pathwise_store_connections", "state" => "in_use")
        .set(f64::from(pool.open - pool.idle.min(pool.open)));
    metrics::gauge!("pathwise_store_connections", "state" => "idle").set(f64::from(pool.idle));
    metrics::gauge!("pathwise_store_connections_max").set(f64::from(pool.max));
    if let Some(queue) = pool.write_queue {
        metrics::gauge!("pathwise_sqlite_write_queue").set(queue as f64);
    }
    let body = handle().render();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"))],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_counts_in_the_series_of_its_method_route_and_status() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let rendered = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            for (method, status) in [("GET", 200), ("GET", 200), ("GET", 404), ("POST", 201)] {
                let route = RequestSeries::route("/api/series-test/{id}");
                RequestSeries::with(method, route, StatusCode::from_u16(status).unwrap(), |series| {
                    series.duration.record(0.002);
                    series.answered.increment(1);
                });
            }
        });
        let text = rendered.render();
        for (series, count) in [
            (r#"method="GET",route="/api/series-test/{id}",status="200""#, 2),
            (r#"method="GET",route="/api/series-test/{id}",status="404""#, 1),
            (r#"method="POST",route="/api/series-test/{id}",status="201""#, 1),
        ] {
            assert!(text.contains(&format!("pathwise_http_requests_total{{{series}}} {count}\n")), "{series}:\n{text}");
        }
        assert!(
            text.contains(
                r#"pathwise_http_request_duration_seconds_count{method="GET",route="/api/series-test/{id}"} 3"#
            ),
            "{text}"
        );
    }
}
