//! The `Idempotency-Key` header on POST requests: a request retried with the same key and
//! the same body is answered with the first reply (and `Idempotent-Replayed: true`) without
//! running again; the same key with another request is a 422. Replies are kept per learner
//! for a week (`pathwise_app::idempotency`). `POST /api/responses` keeps its key with the
//! response itself, in the same transaction, so it is handled by its own handler.

use crate::error::ApiError;
use crate::extract::bearer;
use crate::AppState;
use axum::body::{to_bytes, Body};
use axum::extract::{OriginalUri, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use pathwise_app::idempotency::fingerprint;
use pathwise_app::{AppError, ErrorCode, ErrorKind};

pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Set on a reply that repeats the one a key kept.
pub const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// Routes whose handler takes the key itself, or that a repeat cannot harm and whose body
/// may be larger than a kept request: a file uploaded again is answered as unchanged, a
/// learner imported again is a conflict.
const OWN_KEYS: &[&str] = &["/api/responses", "/api/author/documents", "/api/learners/import"];

/// The request's `Idempotency-Key`, if it has one; a header that is not text is refused.
pub fn key_of(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get(&IDEMPOTENCY_KEY) {
        None => Ok(None),
        Some(value) => value.to_str().map(|k| Some(k.trim().to_string())).map_err(|_| {
            AppError::new(
                ErrorKind::BadRequest,
                ErrorCode::BadIdempotencyKey,
                "Idempotency-Key: must be printable ASCII (a UUID is a good key)",
            )
            .with_details(serde_json::json!({ "field": "Idempotency-Key" }))
            .into()
        }),
    }
}

/// Answer a POST with a kept reply when its key has one, or run it and keep its reply.
pub async fn idempotent_posts(State(state): State<AppState>, request: Request, next: Next) -> Response {
    // Most requests are not keyed POSTs: they pass untouched, before anything is copied.
    if request.method() != Method::POST || !request.headers().contains_key(&IDEMPOTENCY_KEY) {
        return next.run(request).await;
    }
    // The whole URI, as the client sent it (a nested router sees its own part of the path).
    let uri = request.extensions().get::<OriginalUri>().map_or_else(|| request.uri().clone(), |u| u.0.clone());
    if OWN_KEYS.contains(&uri.path()) {
        return next.run(request).await;
    }
    let key = match key_of(request.headers()) {
        Ok(Some(key)) => key,
        Ok(None) => return next.run(request).await,
        Err(error) => return error.into_response(),
    };
    // Without a learner there is nothing to keep a reply for: the handler refuses the call.
    let (mut parts, body) = request.into_parts();
    let learner = match bearer(&parts) {
        Some(token) => state.app.authenticate(token).await.ok(),
        None => None,
    };
    let Some(learner) = learner else {
        return next.run(Request::from_parts(parts, body)).await;
    };
    let bytes = match to_bytes(body, crate::MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => return crate::extract::too_large().into_response(),
    };
    let asked = fingerprint(&[parts.method.as_str().as_bytes(), uri.to_string().as_bytes(), &bytes]);
    match state.app.kept_reply(learner.id, &key, &asked).await {
        Ok(Some(kept)) => return replay(kept.status, kept.body),
        Ok(None) => {}
        Err(error) => return ApiError(error).into_response(),
    }
    // The handler's Auth reads the learner found here rather than asking the store again.
    parts.extensions.insert(learner.clone());
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    if !response.status().is_success() || !is_json(response.headers()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return AppError::internal("a reply could not be read to keep it").into_response_via_api();
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if let Err(error) = state.app.keep_reply(learner.id, &key, &asked, parts.status.as_u16(), text).await {
        // The request did what it was asked; only its replay is lost, which its own binding
        // (a drill graded once, a question answered once) makes safe.
        tracing::warn!(%error, "a reply could not be kept under its idempotency key");
    }
    Response::from_parts(parts, Body::from(bytes))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"))
}

fn replay(status: u16, body: String) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (
        status,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (REPLAYED, HeaderValue::from_static("true")),
        ],
        body,
    )
        .into_response()
}

/// The request's `Idempotency-Key` header, for a handler that keeps the key itself (read from
/// the request's parts, without copying its other headers).
pub struct KeyHeader(pub Option<String>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for KeyHeader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, _: &S) -> Result<Self, Self::Rejection> {
        key_of(&parts.headers).map(KeyHeader)
    }
}

trait ViaApi {
    fn into_response_via_api(self) -> Response;
}

impl ViaApi for AppError {
    fn into_response_via_api(self) -> Response {
        ApiError(self).into_response()
    }
}
