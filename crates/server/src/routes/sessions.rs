//! Sessions (session-flow.md D1): create, read, stream over SSE, respond, terminate. The
//! stream runs the session's agent until it suspends on a client tool, then closes; the
//! answer goes to respond; the next stream, on any server process, continues.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures::stream::{Stream, StreamExt};
use pathwise_app::paging::Paged;
use pathwise_app::queries::PageQuery;
use pathwise_app::sessions::config::CreateSession;
use pathwise_app::sessions::{MessageView, Respond, RespondOutcome, SessionView, StreamItem};
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use pathwise_domain::SessionId;
use serde::Deserialize;
use serde_json::json;
use std::convert::Infallible;
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};

/// How often an open stream sends a `heartbeat` event, unless configured otherwise.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// Replay the events after this id, like the `Last-Event-ID` header (which wins).
    #[param(minimum = 0)]
    last_event_id: Option<i64>,
}

/// One server-sent event of a session's stream, as an SSE parser reads it.
#[derive(ToSchema)]
#[allow(dead_code)] // Documents the `text/event-stream` lines the stream writes; never built.
pub struct SessionStreamEvent {
    /// `connected`, `heartbeat`, `error`, or an event kind of the session's log
    /// (`session_created`, `text_delta`, `item_presented`, `client_action`, `run_suspended`, ...).
    event: String,
    /// A JSON object: `{"seq", "at", "data"}` for an event of the log, the connection's facts for
    /// `connected`, `{}` for `heartbeat`, `{"error": {"code", "message", "details"}}` for `error`.
    #[schema(content_media_type = "application/json")]
    data: String,
    /// The event's `seq` in the session's log, for `Last-Event-ID`; absent on `connected`,
    /// `heartbeat` and `error`.
    id: Option<String>,
}

/// Create a session: `thought`, `learning`, `evaluation` or `survey`, with its `config`.
#[utoipa::path(post, operation_id = "sessions_create", path = "/api/session/", tag = "sessions", request_body = CreateSession,
    responses((status = 201, body = SessionView),
        (status = 404, description = "What the config names is not there: the learning session's map, the \
            evaluation's blueprint, or the evaluation whose missed items to practise.", body = ErrorBody),
        (status = 503, description = "A thought or learning session needs a language model and none is configured \
            (`llm_not_configured`), or a code assessment needs the sandbox and it is not available.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn create(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<CreateSession>,
) -> ApiResult<(StatusCode, Json<SessionView>)> {
    Ok((StatusCode::CREATED, Json(s.app.create_session(l.id, input).await?)))
}

/// The learner's sessions, newest first.
#[utoipa::path(get, operation_id = "sessions_list", path = "/api/session/", tag = "sessions", params(PageQuery),
    responses((status = 200, body = Paged<SessionView>), (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn list(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<PageQuery>,
) -> ApiResult<Json<Paged<SessionView>>> {
    Ok(Json(s.app.list_sessions(l.id, q.offset, q.limit).await?))
}

/// A session: status, the widget waiting for an answer, its context, and its results once over.
#[utoipa::path(get, operation_id = "sessions_get", path = "/api/session/{id}", tag = "sessions", params(("id" = SessionId, Path)),
    responses((status = 200, body = SessionView)), security(("bearer" = [])))]
pub async fn get(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<SessionId>,
) -> ApiResult<Json<SessionView>> {
    Ok(Json(s.app.get_session(l.id, id).await?))
}

/// The session's conversation: system, user, assistant and tool messages.
#[utoipa::path(get, operation_id = "sessions_messages", path = "/api/session/{id}/messages", tag = "sessions", params(("id" = SessionId, Path)),
    responses((status = 200, body = Vec<MessageView>)), security(("bearer" = [])))]
pub async fn messages(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<SessionId>,
) -> ApiResult<Json<Vec<MessageView>>> {
    Ok(Json(s.app.session_messages(l.id, id).await?))
}

/// Server-sent events: `connected`, then the events after `Last-Event-ID` (by default
/// those since the learner's last answer), then the agent's: `text_delta`, `item_presented`,
/// `client_action`, `run_suspended` (after which the stream closes), `item_evaluated`,
/// `session_completed`, `session_terminated`; `heartbeat` every 15 s; `error` on failure.
#[utoipa::path(get, operation_id = "sessions_stream", path = "/api/session/{id}/stream", tag = "sessions",
    params(("id" = SessionId, Path), StreamQuery,
        ("Last-Event-ID" = Option<i64>, Header, nullable = false, minimum = 0, description = "Replay the events after this id")),
    responses((status = 200, content_type = "text/event-stream", body = SessionStreamEvent,
            description = "The session's events, as server-sent events; the schema is that of one event."),
        (status = 400, description = "A malformed request: `bad_path` (an id that is not a UUID); `bad_query`; \
            `bad_header` (a `Last-Event-ID` that is not a whole number).", body = ErrorBody),
        (status = 422, description = "A negative `Last-Event-ID` or `last_event_id`.", body = ErrorBody),
        (status = 429, description = "The learner has `streams_per_learner` session streams open already \
            (`too_many_streams`: close one and try again), or the token went over its rate (`rate_limited`, \
            with `Retry-After`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn stream(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<SessionId>,
    QueryParams(q): QueryParams<StreamQuery>,
    headers: HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let header = headers.get("last-event-id").map(|v| {
        v.to_str().ok().and_then(|t| t.trim().parse::<i64>().ok()).ok_or_else(|| {
            AppError::new(
                ErrorKind::BadRequest,
                ErrorCode::BadHeader,
                "Last-Event-ID: expected an event id (a whole number)",
            )
        })
    });
    if q.last_event_id.is_some_and(|id| id < 0) {
        return Err(AppError::invalid("last_event_id", "must be an event id, 0 or more").into());
    }
    let after = match header {
        Some(parsed) => Some(parsed?),
        None => q.last_event_id,
    };
    let heartbeat = s.session_heartbeat;
    let slot = s.open_streams.open(l.id, s.limits.streams_per_learner)?;
    let receiver = s.app.session_stream(l.id, id, after).await?;
    // A stopping server ends the stream with a `shutdown` event and a reconnect delay; the
    // session's events are in its log, so the client resumes from its Last-Event-ID.
    let stopping = s.shutdown.clone();
    let events = tokio_stream::wrappers::ReceiverStream::new(receiver)
        .map(|item| Some(Ok(sse_event(item))))
        .take_until(stopping.clone().cancelled_owned())
        .chain(futures::stream::once(async move { stopping.is_cancelled().then(|| Ok(shutdown_event())) }))
        .filter_map(|event| async move { event })
        // Counted as open until the client or the server closes it.
        .map(move |event| {
            let _ = &slot;
            event
        });
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::new().interval(heartbeat).event(Event::default().event("heartbeat").data("{}"))))
}

/// How long a client waits before reconnecting to a stopping server's stream, in ms.
const RECONNECT_AFTER_MS: u64 = 2_000;

fn shutdown_event() -> Event {
    Event::default().event("shutdown").retry(std::time::Duration::from_millis(RECONNECT_AFTER_MS)).data(
        json!({ "message": "the server is restarting; reconnect with Last-Event-ID to go on where this stream ended",
                "retry_after_ms": RECONNECT_AFTER_MS })
        .to_string(),
    )
}

fn sse_event(item: StreamItem) -> Event {
    match item {
        StreamItem::Connected(data) => Event::default().event("connected").data(data.to_string()),
        StreamItem::Event(event) => Event::default()
            .id(event.seq.to_string())
            .event(event.kind.as_str())
            .data(json!({ "seq": event.seq, "at": event.created_at, "data": event.payload }).to_string()),
        StreamItem::Error(error) => Event::default().event("error").data(
            json!({ "error": { "code": error.code, "message": error.message, "details": error.details } }).to_string(),
        ),
    }
}

/// Answer the widget the session waits on; then open the stream again to continue.
#[utoipa::path(post, operation_id = "sessions_respond", path = "/api/session/{id}/respond", tag = "sessions", params(("id" = SessionId, Path)),
    request_body = Respond,
    responses((status = 200, body = RespondOutcome), (status = 409, body = ErrorBody),
        (status = 503, description = "A code answer needs the sandbox and it is not available (`sandbox_unavailable`).",
            body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn respond(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<SessionId>,
    JsonBody(input): JsonBody<Respond>,
) -> ApiResult<Json<RespondOutcome>> {
    Ok(Json(s.app.respond_session(l.id, id, input).await?))
}

/// End the session now (the learner's choice); its results so far are kept.
#[utoipa::path(delete, operation_id = "sessions_terminate", path = "/api/session/{id}", tag = "sessions", params(("id" = SessionId, Path)),
    responses((status = 200, body = SessionView), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn terminate(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<SessionId>,
) -> ApiResult<Json<SessionView>> {
    Ok(Json(s.app.terminate_session(l.id, id).await?))
}
