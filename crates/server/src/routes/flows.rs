//! Teaching flows: start one for a topic, diagnose, plan, teach, quiz, answer, review,
//! abandon, or take any step with the caller's own content (`advance`). Each step answers
//! 409 when the flow is not where the step needs it, 502 when the model fails (the flow is
//! left as it was) and 503 when the model is needed and none is configured.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, OptionalJsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::advance::AdvanceFlow;
use pathwise_app::diagnostics::{DiagnosticStep, RecordProbe, StartDiagnostic};
use pathwise_app::flows::StartFlow;
use pathwise_app::paging::Paged;
use pathwise_app::queries::ListFlowsQuery;
use pathwise_app::teaching::{AnswerInput, TeachingStep};
use pathwise_domain::flow::Flow;
use pathwise_domain::FlowId;

/// Start learning a topic: a pending flow. With no language model configured, refused
/// (503, nothing stored) unless the caller writes the steps itself (`caller_writes_steps`).
#[utoipa::path(post, operation_id = "flows_start", path = "/api/flows", tag = "flows", request_body = StartFlow,
    responses((status = 201, body = Flow),
        (status = 503, description = "`llm_not_configured`: no language model is configured and the caller does not \
            write the steps; the message names the settings and the ways to make a map without a model.",
            body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn start(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<StartFlow>,
) -> ApiResult<(StatusCode, Json<Flow>)> {
    Ok((StatusCode::CREATED, Json(s.app.flow_start(l.id, input).await?)))
}

/// The learner's flows, newest first.
#[utoipa::path(get, operation_id = "flows_list", path = "/api/flows", tag = "flows", params(ListFlowsQuery),
    responses((status = 200, body = Paged<Flow>), (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn list(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<ListFlowsQuery>,
) -> ApiResult<Json<Paged<Flow>>> {
    Ok(Json(s.app.flow_list(l.id, q.status, q.offset, q.limit).await?))
}

/// One flow, with the question waiting for an answer (without its key).
#[utoipa::path(get, operation_id = "flows_get", path = "/api/flows/{id}", tag = "flows", params(("id" = FlowId, Path)),
    responses((status = 200, body = Flow)), security(("bearer" = [])))]
pub async fn get(State(s): State<AppState>, Auth(l): Auth, PathIds(id): PathIds<FlowId>) -> ApiResult<Json<Flow>> {
    Ok(Json(s.app.flow_get(l.id, id).await?))
}

/// Abandon a flow; its active map is abandoned too, and its pending reviews removed.
#[utoipa::path(post, operation_id = "flows_abandon", path = "/api/flows/{id}/abandon", tag = "flows", params(("id" = FlowId, Path)),
    responses((status = 200, body = Flow), (status = 409, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn abandon(State(s): State<AppState>, Auth(l): Auth, PathIds(id): PathIds<FlowId>) -> ApiResult<Json<Flow>> {
    Ok(Json(s.app.flow_abandon(l.id, id).await?))
}

macro_rules! diagnostic_step {
    ($(#[$doc:meta])* $name:ident, $operation_id:literal, $path:literal, $method:ident) => {
        $(#[$doc])*
        #[utoipa::path(post, operation_id = $operation_id, path = $path, tag = "diagnostic", params(("id" = FlowId, Path)),
            responses((status = 200, body = DiagnosticStep), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
                (status = 503, body = ErrorBody)), security(("bearer" = [])))]
        pub async fn $name(
            State(s): State<AppState>,
            Auth(l): Auth,
            PathIds(id): PathIds<FlowId>,
        ) -> ApiResult<Json<DiagnosticStep>> {
            Ok(Json(s.app.$method(l.id, id).await?))
        }
    };
}

diagnostic_step!(
    /// End the diagnostic (early, too); its findings are kept for planning.
    diagnostic_complete, "flows_diagnostic_complete", "/api/flows/{id}/diagnostic/complete", diagnostic_complete
);

/// Start the diagnostic of a pending flow. With no body (or no `inventory`), the model lists
/// the topic's concepts, easiest first, and asks about the median one; with the caller's
/// `inventory`, no model is asked and the caller writes the probes about `next_concept`.
#[utoipa::path(post, operation_id = "flows_diagnostic_start", path = "/api/flows/{id}/diagnostic/start", tag = "diagnostic", params(("id" = FlowId, Path)),
    request_body = Option<StartDiagnostic>,
    responses((status = 200, body = DiagnosticStep), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
        (status = 503, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn diagnostic_start(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<FlowId>,
    OptionalJsonBody(input): OptionalJsonBody<StartDiagnostic>,
) -> ApiResult<Json<DiagnosticStep>> {
    Ok(Json(s.app.diagnostic_begin(l.id, id, input).await?))
}

/// Answer a probe: the waiting one, or (when the caller wrote the inventory) the caller's
/// own `question` about `next_concept`. Graded exactly for a choice, by the caller's
/// `quality` or the model for free text; then the next probe, if any.
#[utoipa::path(post, operation_id = "flows_diagnostic_answer", path = "/api/flows/{id}/diagnostic/answer", tag = "diagnostic", params(("id" = FlowId, Path)),
    request_body = RecordProbe,
    responses((status = 200, body = DiagnosticStep), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
        (status = 503, body = ErrorBody)), security(("bearer" = [])))]
pub async fn diagnostic_answer(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<FlowId>,
    JsonBody(input): JsonBody<RecordProbe>,
) -> ApiResult<Json<DiagnosticStep>> {
    Ok(Json(s.app.diagnostic_record_probe(l.id, id, input).await?))
}

macro_rules! teaching_step {
    ($(#[$doc:meta])* $name:ident, $operation_id:literal, $path:literal, $method:ident) => {
        $(#[$doc])*
        #[utoipa::path(post, operation_id = $operation_id, path = $path, tag = "teaching", params(("id" = FlowId, Path)),
            responses((status = 200, body = TeachingStep), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
                (status = 503, body = ErrorBody)), security(("bearer" = [])))]
        pub async fn $name(
            State(s): State<AppState>,
            Auth(l): Auth,
            PathIds(id): PathIds<FlowId>,
        ) -> ApiResult<Json<TeachingStep>> {
            Ok(Json(s.app.$method(l.id, id).await?))
        }
    };
}

teaching_step!(
    /// Plan the flow's map with the model (after the diagnostic, or straight from a pending
    /// flow); the map and the flow are stored together or not at all.
    plan, "flows_plan", "/api/flows/{id}/plan", flow_plan
);
teaching_step!(
    /// Explain the next concept of the learning order; completes the flow when every
    /// concept is mastered.
    teach, "flows_teach", "/api/flows/{id}/teach", flow_teach
);
teaching_step!(
    /// Ask a question on the concept just taught.
    quiz, "flows_quiz", "/api/flows/{id}/quiz", flow_quiz
);
teaching_step!(
    /// Ask the most overdue review of the flow's map, or say when the next one falls due.
    review, "flows_review", "/api/flows/{id}/review", flow_review
);

/// Answer the waiting quiz or review question: graded and recorded as a response.
#[utoipa::path(post, operation_id = "flows_answer", path = "/api/flows/{id}/answer", tag = "teaching", params(("id" = FlowId, Path)),
    request_body = AnswerInput,
    responses((status = 200, body = TeachingStep), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
        (status = 503, body = ErrorBody)), security(("bearer" = [])))]
pub async fn answer(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<FlowId>,
    JsonBody(input): JsonBody<AnswerInput>,
) -> ApiResult<Json<TeachingStep>> {
    Ok(Json(s.app.flow_answer(l.id, id, input).await?))
}

/// Take one step of the flow (`plan`, `teach`, `quiz`, `answer` or `review`) with what the
/// caller wrote for it: a decomposition, its own explanation (`caller_explains` returns the
/// context), a question, a grade of a free-text answer. Whatever the caller leaves out,
/// the model writes. Each step takes only its own fields; others are refused (422).
#[utoipa::path(post, operation_id = "flows_advance", path = "/api/flows/{id}/advance", tag = "teaching", params(("id" = FlowId, Path)),
    request_body = AdvanceFlow,
    responses((status = 200, body = TeachingStep), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
        (status = 503, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn advance(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<FlowId>,
    JsonBody(input): JsonBody<AdvanceFlow>,
) -> ApiResult<Json<TeachingStep>> {
    Ok(Json(s.app.flow_advance(l.id, id, input).await?))
}
