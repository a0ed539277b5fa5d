//! Extractors that turn every malformed request into the JSON error shape, naming what was
//! wrong, instead of axum's plain-text rejections.

use crate::error::ApiError;
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use pathwise_app::{AppError, ErrorCode, ErrorKind, Learner};
use serde::de::DeserializeOwned;

/// The learner the bearer token belongs to.
pub struct Auth(pub Learner);

/// The learner an earlier layer (the idempotency layer) authenticated for this request, if
/// one did.
fn known_learner(parts: &Parts) -> Option<Learner> {
    parts.extensions.get::<Learner>().cloned()
}

pub fn bearer(parts: &Parts) -> Option<&str> {
    bearer_value(&parts.headers)
}

/// The token of an `Authorization: Bearer` header, if there is one.
pub fn bearer_value(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        if let Some(learner) = known_learner(parts) {
            return Ok(Auth(learner));
        }
        let token = bearer(parts).ok_or_else(|| {
            AppError::new(
                ErrorKind::Unauthorized,
                ErrorCode::Unauthorized,
                "this endpoint needs a learner's API token: send Authorization: Bearer <token>",
            )
        })?;
        Ok(Auth(state.app.authenticate(token).await?))
    }
}

/// A JSON body, parsed with the path of any field at fault.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        parse_object(&body_text(request, state).await?).map(JsonBody)
    }
}

/// A text body of up to `LIMIT` bytes, past the usual [`crate::MAX_BODY_BYTES`]: a
/// learner's whole document, which its own reader parses.
pub struct LargeTextBody<const LIMIT: usize>(pub String);

impl<const LIMIT: usize> FromRequest<AppState> for LargeTextBody<LIMIT> {
    type Rejection = ApiError;

    async fn from_request(request: Request, _: &AppState) -> Result<Self, Self::Rejection> {
        let bytes =
            bytes_up_to(request, LIMIT, ErrorCode::BodyTooLarge, format!("body: larger than the {LIMIT} byte limit"))
                .await?;
        utf8(&bytes).map(LargeTextBody)
    }
}

/// A file's bytes, up to the server's `ingest_max_mb` rather than the usual
/// [`crate::MAX_BODY_BYTES`]: a learner's document, which the ingest readers check.
pub struct FileBody(pub Vec<u8>);

impl FromRequest<AppState> for FileBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let limit = state.app.authoring_settings().limits.max_bytes;
        let too_large =
            format!("body: the file is larger than the server's {} MiB limit (ingest_max_mb)", limit / (1024 * 1024));
        let bytes = bytes_up_to(request, limit, ErrorCode::TooLarge, too_large).await?;
        Ok(FileBody(bytes.to_vec()))
    }
}

/// A body of up to `limit` bytes, read past the usual limit; a larger one is refused (413)
/// with `code` and `message`, naming the limit, before the rest of it is read.
async fn bytes_up_to(request: Request, limit: usize, code: ErrorCode, message: String) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(request.into_body(), limit).await.map_err(|_| {
        AppError::new(ErrorKind::TooLarge, code, message)
            .with_details(serde_json::json!({ "field": "body", "max_bytes": limit }))
            .into()
    })
}

/// A JSON body that may be left out: an empty body, or `null` (what the document's
/// optional body allows), is `T::default()`.
pub struct OptionalJsonBody<T>(pub T);

impl<T: DeserializeOwned + Default> FromRequest<AppState> for OptionalJsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let text = body_text(request, state).await?;
        if matches!(text.trim(), "" | "null") {
            return Ok(OptionalJsonBody(T::default()));
        }
        parse_object(&text).map(OptionalJsonBody)
    }
}

/// A body over [`crate::MAX_BODY_BYTES`].
pub fn too_large() -> ApiError {
    AppError::new(
        ErrorKind::TooLarge,
        ErrorCode::BodyTooLarge,
        format!("body: larger than the {} byte limit", crate::MAX_BODY_BYTES),
    )
    .with_details(serde_json::json!({ "field": "body", "max_bytes": crate::MAX_BODY_BYTES }))
    .into()
}

async fn body_bytes(request: Request, state: &AppState) -> Result<Bytes, ApiError> {
    Bytes::from_request(request, state).await.map_err(|rejection| {
        let status = rejection.status();
        if status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            too_large().0
        } else {
            AppError::new(ErrorKind::BadRequest, ErrorCode::BadBody, format!("body: {}", rejection.body_text()))
        }
        .into()
    })
}

async fn body_text(request: Request, state: &AppState) -> Result<String, ApiError> {
    utf8(&body_bytes(request, state).await?)
}

fn utf8(bytes: &[u8]) -> Result<String, ApiError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        AppError::new(ErrorKind::BadRequest, ErrorCode::MalformedJson, "body: not valid UTF-8 text").into()
    })
}

/// A body that must hold a JSON object.
fn parse_object<T: DeserializeOwned>(text: &str) -> Result<T, ApiError> {
    pathwise_app::curriculum::expect_json_object(text)?;
    Ok(pathwise_app::curriculum::parse_json(text)?)
}

/// Query-string parameters, with a clear error for a bad one.
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        let deserializer = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        // The path names the parameter at fault, which the plain error does not.
        serde_path_to_error::deserialize(deserializer).map(QueryParams).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." { "query".to_string() } else { path };
            AppError::new(ErrorKind::BadRequest, ErrorCode::BadQuery, format!("{field}: {}", e.into_inner()))
                .with_details(serde_json::json!({ "field": field }))
                .into()
        })
    }
}

/// Path parameters (ids), with a clear error for one that is not a UUID.
pub struct PathIds<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PathIds<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state).await.map(|p| PathIds(p.0)).map_err(|e| {
            AppError::new(ErrorKind::BadRequest, ErrorCode::BadPath, format!("path: {}; ids are UUIDs", e.body_text()))
                .into()
        })
    }
}

/// A body taken as it is (a recording), with the JSON error of every other body when it is
/// over the size limit rather than axum's plain-text one.
pub struct RawBody(pub Bytes);

impl FromRequest<AppState> for RawBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        body_bytes(request, state).await.map(RawBody)
    }
}

/// A body taken as text (a course pack in TOML or JSON).
pub struct TextBody(pub String);

impl FromRequest<AppState> for TextBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        body_text(request, state).await.map(TextBody)
    }
}
