//! The policy tutor (policy-tutor.md): threads on a course, turns, drill grading, exam
//! submissions and opened support, the turn log and the learner's snapshot.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::course_tutor::{
    CreateThread, DrillGradeReply, DrillGradeRequest, McqSubmitReply, McqSubmitRequest, SnapshotView,
    SupportViewedReply, SupportViewedRequest, Thread, TurnLog, TurnReply, TurnRequest, TutorMessage,
};
use pathwise_app::paging::Paged;
use pathwise_app::queries::{ListThreadsQuery, MessagesQuery, PageQuery};
use pathwise_domain::ThreadId;

/// Start a thread on a course ("New session"); the learner's snapshot of the course (and
/// their map of it) is made on first use.
#[utoipa::path(post, operation_id = "tutor_create_thread", path = "/api/tutor/threads", tag = "tutor", request_body = CreateThread,
    responses((status = 201, body = Thread),
        (status = 404, description = "No course of that id (`not_found`, `details.field` is `courseId`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn create_thread(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<CreateThread>,
) -> ApiResult<(StatusCode, Json<Thread>)> {
    Ok((StatusCode::CREATED, Json(s.app.create_thread(l.id, input).await?)))
}

/// The learner's threads, most recently active first.
#[utoipa::path(get, operation_id = "tutor_list_threads", path = "/api/tutor/threads", tag = "tutor", params(ListThreadsQuery),
    responses((status = 200, body = Paged<Thread>), (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn list_threads(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<ListThreadsQuery>,
) -> ApiResult<Json<Paged<Thread>>> {
    Ok(Json(s.app.list_threads(l.id, &q).await?))
}

#[utoipa::path(get, operation_id = "tutor_get_thread", path = "/api/tutor/threads/{thread_id}", tag = "tutor", params(("thread_id" = ThreadId, Path)),
    responses((status = 200, body = Thread)), security(("bearer" = [])))]
pub async fn get_thread(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
) -> ApiResult<Json<Thread>> {
    Ok(Json(s.app.get_thread(l.id, id).await?))
}

/// The thread's timeline, oldest first: messages with their cards.
#[utoipa::path(get, operation_id = "tutor_thread_messages", path = "/api/tutor/threads/{thread_id}/messages", tag = "tutor",
    params(("thread_id" = ThreadId, Path), MessagesQuery),
    responses((status = 200, body = Vec<TutorMessage>), (status = 422, description = "`after` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn messages(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
    QueryParams(q): QueryParams<MessagesQuery>,
) -> ApiResult<Json<Vec<TutorMessage>>> {
    Ok(Json(s.app.thread_messages(l.id, id, &q).await?))
}

/// The thread's turn log (PF-7.1): for every turn the mapped units, focus, blocker,
/// allowed actions, desired tier, exam availability and next eligible time, the action
/// chosen and whether the model's turn was valid or fell back.
#[utoipa::path(get, operation_id = "tutor_thread_turns", path = "/api/tutor/threads/{thread_id}/turns", tag = "tutor",
    params(("thread_id" = ThreadId, Path), PageQuery),
    responses((status = 200, body = Paged<TurnLog>), (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn turns(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
    QueryParams(q): QueryParams<PageQuery>,
) -> ApiResult<Json<Paged<TurnLog>>> {
    Ok(Json(s.app.thread_turns(l.id, id, &q).await?))
}

/// One tutor turn: the learner's message and/or a button's `clientEvent` in; the tutor's
/// reply (a Socratic question, a concept card, a drill or an exam block) and SnapshotLite out.
#[utoipa::path(post, operation_id = "tutor_turn", path = "/api/tutor/threads/{thread_id}/turn", tag = "tutor", params(("thread_id" = ThreadId, Path)),
    request_body = TurnRequest,
    responses((status = 200, body = TurnReply), (status = 409, body = ErrorBody),
        (status = 503, description = "The external exam service is not reachable (`exam_service_unavailable`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn turn(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
    JsonBody(input): JsonBody<TurnRequest>,
) -> ApiResult<Json<TurnReply>> {
    Ok(Json(s.app.tutor_turn(l.id, id, input).await?))
}

/// Grade a drill: the drill as shown and the learner's answer. Blueprint drills (with a
/// `drill_id`) are graded exactly; others by the model (503 without one).
#[utoipa::path(post, operation_id = "tutor_grade_drill", path = "/api/tutor/threads/{thread_id}/drill/grade", tag = "tutor",
    params(("thread_id" = ThreadId, Path)), request_body = DrillGradeRequest,
    responses((status = 200, body = DrillGradeReply), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
        (status = 503, description = "A drill the model wrote is graded by the model, and none is configured \
            (`llm_not_configured`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn grade_drill(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
    JsonBody(input): JsonBody<DrillGradeRequest>,
) -> ApiResult<Json<DrillGradeReply>> {
    Ok(Json(s.app.grade_drill(l.id, id, input).await?))
}

/// Answer an exam question the tutor offered in this thread. The exam service grades it; a
/// locked question is refused (409) with its next eligible time.
#[utoipa::path(post, operation_id = "tutor_exam_mcq_submit", path = "/api/tutor/threads/{thread_id}/exam/mcq-submit", tag = "tutor",
    params(("thread_id" = ThreadId, Path)), request_body = McqSubmitRequest,
    responses((status = 200, body = McqSubmitReply),
        (status = 409, description = "The question is locked (`question_locked`, with its next eligible time) or \
            already passed.", body = ErrorBody),
        (status = 503, description = "The external exam service is not reachable (`exam_service_unavailable`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn mcq_submit(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
    JsonBody(input): JsonBody<McqSubmitRequest>,
) -> ApiResult<Json<McqSubmitReply>> {
    Ok(Json(s.app.exam_mcq_submit(l.id, id, input).await?))
}

/// Open an exam question's memo or video: it is returned, and the question locks.
#[utoipa::path(post, operation_id = "tutor_exam_support_viewed", path = "/api/tutor/threads/{thread_id}/exam/support-viewed", tag = "tutor",
    params(("thread_id" = ThreadId, Path)), request_body = SupportViewedRequest,
    responses((status = 200, body = SupportViewedReply), (status = 409, body = ErrorBody),
        (status = 503, description = "The external exam service is not reachable (`exam_service_unavailable`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn support_viewed(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<ThreadId>,
    JsonBody(input): JsonBody<SupportViewedRequest>,
) -> ApiResult<Json<SupportViewedReply>> {
    Ok(Json(s.app.exam_support_viewed(l.id, id, input).await?))
}

/// The learner's snapshot of a course (made on first use) with its SnapshotLite.
#[utoipa::path(get, operation_id = "tutor_course_snapshot", path = "/api/tutor/courses/{course_id}/snapshot", tag = "tutor", params(("course_id" = String, Path)),
    responses((status = 200, body = SnapshotView)), security(("bearer" = [])))]
pub async fn snapshot(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(course): PathIds<String>,
) -> ApiResult<Json<SnapshotView>> {
    Ok(Json(s.app.tutor_snapshot(l.id, &course).await?))
}
