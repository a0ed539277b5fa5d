//! Every error leaves as `{"error": {"code", "message", "details"}}` with a status that
//! says whose mistake it was.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

#[derive(Debug)]
pub struct ApiError(pub AppError);

/// The body of every error response.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// A stable code for the rule or problem (`cycle`, `max_depth`, `invalid`, `not_found`, ...).
    pub code: ErrorCode,
    /// What was wrong and what is allowed.
    pub message: String,
    /// Structured facts: the field at fault, the cycle's path, limits; `{}` when there are none.
    #[schema(value_type = Object)]
    pub details: Value,
}

impl<E: Into<AppError>> From<E> for ApiError {
    fn from(error: E) -> Self {
        ApiError(error.into())
    }
}

pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::BadRequest => StatusCode::BAD_REQUEST,
        ErrorKind::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorKind::Forbidden => StatusCode::FORBIDDEN,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Conflict => StatusCode::CONFLICT,
        ErrorKind::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorKind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
        ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Upstream => StatusCode::BAD_GATEWAY,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

pub fn error_response(status: StatusCode, code: ErrorCode, message: &str, details: Value) -> Response {
    // The document promises an object; an error made with nothing to add says so with `{}`.
    let details = if details.is_null() { json!({}) } else { details };
    let body = json!({ "error": { "code": code, "message": message, "details": details } });
    let mut response = (status, Json(body)).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(axum::http::header::WWW_AUTHENTICATE, axum::http::HeaderValue::from_static("Bearer"));
    }
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let AppError { kind, code, message, details } = self.0;
        error_response(status_of(kind), code, &message, details)
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
