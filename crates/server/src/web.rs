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
use pathwise_app::{AppError, ErrorCode, ErrorKind};
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
            ErrorCode::NotFound,
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

/// The local learner a loopback server signs the workspace in as: only through a one-time
/// link that `pathwise serve` prints (as Jupyter does), so that another user or program on
/// the same machine, which cannot read the server's output or data directory, cannot
/// become this learner by asking.
pub struct LocalLearner {
    token: String,
    name: String,
    /// The code of the link not yet used.
    code: std::sync::Mutex<String>,
    /// Tells whoever started the server the next link, once the current one is used.
    announce: Box<dyn Fn(&str) + Send + Sync>,
}

impl std::fmt::Debug for LocalLearner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalLearner").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The query parameter of a sign-in link: `/?signin=<code>`.
pub const SIGNIN_PARAMETER: &str = "signin";

fn new_code() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

impl LocalLearner {
    /// The local learner with token `token`; `announce` gets the code of each new link once
    /// the previous one is used.
    pub fn new(token: String, name: String, announce: impl Fn(&str) + Send + Sync + 'static) -> Self {
        LocalLearner { token, name, code: std::sync::Mutex::new(new_code()), announce: Box::new(announce) }
    }

    /// The code of the link that signs in next.
    pub fn signin_code(&self) -> String {
        self.code.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The link that signs in next, on the server at `base` (`http://127.0.0.1:8080`).
    pub fn signin_link(&self, base: &str) -> String {
        format!("{base}/?{SIGNIN_PARAMETER}={}", self.signin_code())
    }

    /// Use up `code` if it is the current link's: a new link replaces it (and is announced).
    fn redeem(&self, code: &str) -> bool {
        let mut current = self.code.lock().unwrap_or_else(|p| p.into_inner());
        // Compared by hash, so that the time taken says nothing about how much matched.
        let matches = sha2::Sha256::digest(code.trim().as_bytes()) == sha2::Sha256::digest(current.as_bytes());
        if matches {
            *current = new_code();
            (self.announce)(&current);
        }
        matches
    }
}

/// A one-time sign-in link's code.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignInRequest {
    /// The `signin` parameter of the link `pathwise serve` printed.
    #[schema(min_length = 1)]
    pub code: String,
}

/// The local learner's token, for the page to keep.
#[derive(Serialize, ToSchema)]
pub struct LocalSession {
    pub token: String,
    pub name: String,
}

/// Exchange a one-time sign-in link's code for the local learner's token. Only on a
/// loopback server, to a page loaded from a loopback name (a page of another site reaching
/// this server through DNS rebinding names its own host and is refused); each link signs in
/// once, and the server then prints the next.
#[utoipa::path(post, operation_id = "workspace_sign_in", path = "/api/workspace/signin", tag = "workspace",
    request_body = SignInRequest,
    responses((status = 200, body = LocalSession),
        (status = 401, description = "The link was used already, or is not this server's (`signin_link_used`).",
            body = ErrorBody),
        (status = 404, description = "This server signs no one in by link, or the page is not on a loopback name \
            (`no_local_session`).", body = ErrorBody)))]
pub async fn sign_in(
    State(s): State<AppState>,
    headers: HeaderMap,
    crate::extract::JsonBody(request): crate::extract::JsonBody<SignInRequest>,
) -> ApiResult<Json<LocalSession>> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let Some(local) = s.local_session.as_ref().filter(|_| is_loopback_host(host)) else {
        return Err(AppError::new(
            ErrorKind::NotFound,
            ErrorCode::NoLocalSession,
            "this server signs in no one by link here; sign in with your learner token",
        )
        .into());
    };
    if !local.redeem(&request.code) {
        return Err(AppError::new(
            ErrorKind::Unauthorized,
            ErrorCode::SigninLinkUsed,
            "this sign-in link was used already or is not this server's: each link signs in once. Open the newest \
             link `pathwise serve` printed, or sign in with the token in the data directory's local-token file",
        )
        .into());
    }
    Ok(Json(LocalSession { token: local.token.clone(), name: local.name.clone() }))
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
    /// The model's name, as its server knows it (`llm_model`); absent offline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The longest a tutor turn waits for the model before the tutor answers without it,
    /// in seconds; absent offline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_deadline_secs: Option<u64>,
    /// The longest one request to the model may take (`llm_timeout_secs`), for the steps
    /// that wait on it (plans, explanations, questions); absent offline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_call_deadline_secs: Option<u64>,
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
        model_name: s.app.llm().model_name(),
        model_deadline_secs: s.app.llm().is_configured().then(|| s.app.tutor_settings().model_deadline.as_secs()),
        model_call_deadline_secs: s.app.llm().call_deadline().map(|d| d.as_secs()),
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
