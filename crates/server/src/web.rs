//! The web workspace: static HTML, CSS and ES modules from `web/`, embedded in the binary at
//! compile time (no front-end build step), served with their content type, an ETag from
//! their content and compression (the router's layer); plus the little the page needs to
//! start: the local learner's sign-in on loopback and what this server offers.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, RawBody};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use pathwise_app::{AppError, ErrorKind};
use rust_embed::Embed;
use serde::Serialize;
use sha2::Digest;
use utoipa::ToSchema;

#[derive(Embed)]
#[folder = "web/"]
struct Assets;

/// The workspace page.
pub async fn index(headers: HeaderMap) -> Response {
    asset_response("index.html", &headers)
}

/// A file of the workspace (`/assets/app.js`, `/assets/app.css`, ...).
pub async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    asset_response(&path, &headers)
}

/// `PATHWISE_WEB_DIR`: serve the workspace from this directory instead of the embedded copy,
/// so that its files can be edited and reloaded without rebuilding.
fn web_dir() -> Option<&'static std::path::Path> {
    static DIR: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| std::env::var_os("PATHWISE_WEB_DIR").map(std::path::PathBuf::from)).as_deref()
}

/// A file to serve: its bytes, a hash of them, its content type.
struct Served {
    data: std::borrow::Cow<'static, [u8]>,
    hash: [u8; 32],
    mime: String,
}

fn from_disk(dir: &std::path::Path, path: &str) -> Option<Served> {
    if path.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    let data = std::fs::read(dir.join(path)).ok()?;
    let hash = sha2::Sha256::digest(&data).into();
    let mime = mime_guess::from_path(path).first_or_octet_stream().to_string();
    Some(Served { data: std::borrow::Cow::Owned(data), hash, mime })
}

fn embedded(path: &str) -> Option<Served> {
    let file = Assets::get(path)?;
    Some(Served { hash: file.metadata.sha256_hash(), mime: file.metadata.mimetype().to_string(), data: file.data })
}

fn asset_response(path: &str, headers: &HeaderMap) -> Response {
    let file = match web_dir() {
        Some(dir) => from_disk(dir, path),
        None => embedded(path),
    };
    let Some(file) = file else {
        return crate::error::error_response(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no workspace file {path}"),
            serde_json::json!({ "path": path }),
        );
    };
    let etag = format!("\"{}\"", hex(&file.hash[..12]));
    let cache = if path == "index.html" { "no-cache" } else { "public, max-age=300, must-revalidate" };
    if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag), (header::CACHE_CONTROL, cache.to_string())])
            .into_response();
    }
    let mime = file.mime;
    let mime =
        if mime.starts_with("text/") && !mime.contains("charset") { format!("{mime}; charset=utf-8") } else { mime };
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache.to_string()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
        ],
        file.data.into_owned(),
    )
        .into_response()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The local learner's token, for the page to sign in without one on this machine.
#[derive(Serialize, ToSchema)]
pub struct LocalSession {
    pub token: String,
    pub name: String,
}

/// On a loopback server, the local learner's token, to a page loaded from a loopback name
/// (a page of another site, reaching this server through DNS rebinding, is refused).
#[utoipa::path(get, operation_id = "workspace_local_session", path = "/api/workspace/session", tag = "workspace",
    responses((status = 200, body = LocalSession),
        (status = 404, description = "This server signs no one in automatically, or the page is not on a loopback name \
            (`no_local_session`).", body = ErrorBody)))]
pub async fn local_session(State(s): State<AppState>, headers: HeaderMap) -> ApiResult<Json<LocalSession>> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let from_loopback = is_loopback_host(host);
    match (&s.local_session, from_loopback) {
        (Some(local), true) => Ok(Json(LocalSession { token: local.token.clone(), name: local.name.clone() })),
        _ => Err(AppError::new(
            ErrorKind::NotFound,
            "no_local_session",
            "this server signs in no one automatically here; sign in with your learner token",
        )
        .into()),
    }
}

/// Whether a `Host` header names this machine (`localhost:8080`, `127.0.0.1`, `[::1]:8080`).
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':')
            .map_or(host, |(name, port)| if port.bytes().all(|b| b.is_ascii_digit()) { name } else { host })
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// What this server offers the workspace.
#[derive(Serialize, ToSchema)]
pub struct WorkspaceConfig {
    pub name: String,
    /// A language model is configured (tutor turns are the model's; offline they are the
    /// deterministic tutor's).
    pub model: bool,
    /// Voice input: a transcription model is configured.
    pub voice: bool,
    /// Turn replies carry the debug payload.
    pub debug: bool,
}

#[utoipa::path(get, operation_id = "workspace_config", path = "/api/workspace/config", tag = "workspace",
    responses((status = 200, body = WorkspaceConfig)), security(("bearer" = [])))]
pub async fn config(State(s): State<AppState>, _learner: Auth) -> ApiResult<Json<WorkspaceConfig>> {
    Ok(Json(WorkspaceConfig {
        name: s.name.to_string(),
        model: s.app.llm().is_configured(),
        voice: s.app.transcriber().is_some(),
        debug: s.app.tutor_settings().debug,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_with_and_without_ports() {
        for host in ["localhost", "localhost:8080", "127.0.0.1:8080", "127.0.0.1", "[::1]:8080", "[::1]", "LOCALHOST:1"]
        {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in
            ["", "example.com", "example.com:8080", "10.0.0.1:8080", "127.0.0.1.evil.com", "localhost.evil.com:80"]
        {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn the_workspace_page_is_embedded() {
        assert!(Assets::get("index.html").is_some());
    }
}

/// The text of a voice recording.
#[derive(Serialize, ToSchema)]
pub struct Transcript {
    pub text: String,
}

/// Transcribe a recording (the body, with its audio content type) for the learner to
/// confirm; 503 when no transcription model is configured.
#[utoipa::path(post, operation_id = "workspace_transcribe", path = "/api/transcribe", tag = "workspace", request_body(description = "The recording, with its audio content type.",
        content((Vec<u8> = "audio/webm"), (Vec<u8> = "audio/ogg"), (Vec<u8> = "audio/wav"), (Vec<u8> = "audio/mpeg"))),
    responses((status = 200, body = Transcript), (status = 502, body = ErrorBody),
        (status = 503, description = "No transcription model is configured (`voice_not_configured`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn transcribe(
    State(s): State<AppState>,
    _learner: Auth,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> ApiResult<Json<Transcript>> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    Ok(Json(Transcript { text: s.app.transcribe(body.to_vec(), content_type).await? }))
}
