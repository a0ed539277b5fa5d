//! Teaching flows: start one for a topic, diagnose, plan, teach, quiz, answer, review,
//! abandon. Each step answers 409 when the flow is not where the step needs it, 502 when
//! the model fails (the flow is left as it was) and 503 when no model is configured.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::diagnostics::DiagnosticStep;
use pathwise_app::flows::StartFlow;
use pathwise_app::paging::Paged;
use pathwise_app::teaching::{AnswerInput, TeachingStep};
use pathwise_domain::flow::Flow;
use pathwise_domain::{FlowId, FlowStatus};
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListFlowsQuery {
    /// Only flows in this status.
    status: Option<FlowStatus>,
    /// How many to skip (default 0).
    offset: Option<i64>,
    /// How many to return, 1-500 (default 50).
    limit: Option<i64>,
}

/// Start learning a topic: a pending flow.
#[utoipa::path(post, path = "/api/flows", tag = "flows", request_body = StartFlow,
    responses((status = 201, body = Flow), (status = 422, body = ErrorBody)), security(("bearer" = [])))]
pub async fn start(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<StartFlow>,
) -> ApiResult<(StatusCode, Json<Flow>)> {
    Ok((StatusCode::CREATED, Json(s.app.flow_start(l.id, input).await?)))
}

/// The learner's flows, newest first.
#[utoipa::path(get, path = "/api/flows", tag = "flows", params(ListFlowsQuery),
    responses((status = 200, body = Paged<Flow>), (status = 422, body = ErrorBody)), security(("bearer" = [])))]
pub async fn list(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<ListFlowsQuery>,
) -> ApiResult<Json<Paged<Flow>>> {
    Ok(Json(s.app.flow_list(l.id, q.status, q.offset, q.limit).await?))
}

/// One flow, with the question waiting for an answer (without its key).
#[utoipa::path(get, path = "/api/flows/{id}", tag = "flows", params(("id" = FlowId, Path)),
    responses((status = 200, body = Flow), (status = 404, body = ErrorBody)), security(("bearer" = [])))]
pub async fn get(State(s): State<AppState>, Auth(l): Auth, PathIds(id): PathIds<FlowId>) -> ApiResult<Json<Flow>> {
    Ok(Json(s.app.flow_get(l.id, id).await?))
}

/// Abandon a flow; its active map is abandoned too, and its pending reviews removed.
#[utoipa::path(post, path = "/api/flows/{id}/abandon", tag = "flows", params(("id" = FlowId, Path)),
    responses((status = 200, body = Flow), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn abandon(State(s): State<AppState>, Auth(l): Auth, PathIds(id): PathIds<FlowId>) -> ApiResult<Json<Flow>> {
    Ok(Json(s.app.flow_abandon(l.id, id).await?))
}

macro_rules! diagnostic_step {
    ($(#[$doc:meta])* $name:ident, $path:literal, $method:ident) => {
        $(#[$doc])*
        #[utoipa::path(post, path = $path, tag = "diagnostic", params(("id" = FlowId, Path)),
            responses((status = 200, body = DiagnosticStep), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
                (status = 502, body = ErrorBody), (status = 503, body = ErrorBody)), security(("bearer" = [])))]
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
    /// Start the diagnostic of a pending flow: the model lists the topic's concepts, easiest
    /// first, and asks about the median one.
    diagnostic_start, "/api/flows/{id}/diagnostic/start", diagnostic_start
);
diagnostic_step!(
    /// End the diagnostic (early, too); its findings are kept for planning.
    diagnostic_complete, "/api/flows/{id}/diagnostic/complete", diagnostic_complete
);

/// Answer the waiting probe: graded (exactly for a choice), then the next probe, if any.
#[utoipa::path(post, path = "/api/flows/{id}/diagnostic/answer", tag = "diagnostic", params(("id" = FlowId, Path)),
    request_body = AnswerInput,
    responses((status = 200, body = DiagnosticStep), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody),
        (status = 502, body = ErrorBody)), security(("bearer" = [])))]
pub async fn diagnostic_answer(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<FlowId>,
    JsonBody(input): JsonBody<AnswerInput>,
) -> ApiResult<Json<DiagnosticStep>> {
    Ok(Json(s.app.diagnostic_answer(l.id, id, input).await?))
}

macro_rules! teaching_step {
    ($(#[$doc:meta])* $name:ident, $path:literal, $method:ident) => {
        $(#[$doc])*
        #[utoipa::path(post, path = $path, tag = "teaching", params(("id" = FlowId, Path)),
            responses((status = 200, body = TeachingStep), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
                (status = 502, body = ErrorBody), (status = 503, body = ErrorBody)), security(("bearer" = [])))]
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
    plan, "/api/flows/{id}/plan", flow_plan
);
teaching_step!(
    /// Explain the next concept of the learning order; completes the flow when every
    /// concept is mastered.
    teach, "/api/flows/{id}/teach", flow_teach
);
teaching_step!(
    /// Ask a question on the concept just taught.
    quiz, "/api/flows/{id}/quiz", flow_quiz
);
teaching_step!(
    /// Ask the most overdue review of the flow's map, or say when the next one falls due.
    review, "/api/flows/{id}/review", flow_review
);

/// Answer the waiting quiz or review question: graded and recorded as a response.
#[utoipa::path(post, path = "/api/flows/{id}/answer", tag = "teaching", params(("id" = FlowId, Path)),
    request_body = AnswerInput,
    responses((status = 200, body = TeachingStep), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody),
        (status = 502, body = ErrorBody)), security(("bearer" = [])))]
pub async fn answer(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<FlowId>,
    JsonBody(input): JsonBody<AnswerInput>,
) -> ApiResult<Json<TeachingStep>> {
    Ok(Json(s.app.flow_answer(l.id, id, input).await?))
}
