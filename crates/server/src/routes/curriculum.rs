//! Planning: a decomposition into a map, re-planning, and the next concept.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, OptionalJsonBody, PathIds};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::curriculum::{GenerateInput, ImportOutline, PlanInput, PlanSummary, ReplanInput, ReplanResult};
use pathwise_domain::model::Node;
use pathwise_domain::MindMapId;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct NextNode {
    /// The frontier node with the lowest sequence; null when there is none.
    node: Option<Node>,
}

/// `curriculum_generate`: a new active map for the topic, planned from the decomposition
/// given or, without one, from the configured language model's (503 `llm_not_configured`
/// when none is configured, naming the settings and the ways that need no model; 502 when
/// the model fails or its graph is rejected after one correction).
#[utoipa::path(post, operation_id = "curriculum_generate", path = "/api/curriculum/generate", tag = "curriculum", request_body = GenerateInput,
    responses((status = 201, body = PlanSummary),
        (status = 409, description = "`map_exists`: the learner has a map for this topic already (its id in \
            `details.mind_map_id`); send `on_existing` `new` or `replace`. Or the decomposition breaks a rule of the \
            graph's structure (`unreachable`: a concept no prerequisite path leads to from the root; \
            `duplicate_label`, `duplicate_edge`).",
            body = ErrorBody),
        (status = 502, body = ErrorBody), (status = 503, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn generate(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<GenerateInput>,
) -> ApiResult<(StatusCode, Json<PlanSummary>)> {
    Ok((StatusCode::CREATED, Json(s.app.curriculum_generate(l.id, input).await?)))
}

/// A new active map from a pasted outline (Markdown headings or a nested list): the first
/// heading or item is the topic, nesting gives prerequisites. Needs no language model.
#[utoipa::path(post, operation_id = "mind_map_import_outline", path = "/api/mind-maps/outline", tag = "curriculum", request_body = ImportOutline,
    responses((status = 201, body = PlanSummary),
        (status = 409, description = "`map_exists`: the learner has a map with this title already (its id in \
            `details.mind_map_id`); send `on_existing` `new` or `replace`.", body = ErrorBody),
        (status = 422, description = "The outline cannot be read (no entries, a second top-level entry, an entry \
            without text) or breaks a rule of every map (`cycle` with its path, `max_depth`, `max_nodes`, \
            `self_loop`); `details.line` is the outline's line.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn import_outline(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<ImportOutline>,
) -> ApiResult<(StatusCode, Json<PlanSummary>)> {
    Ok((StatusCode::CREATED, Json(s.app.import_outline(l.id, input).await?)))
}

/// Plan an empty draft map from a decomposition, all or nothing.
#[utoipa::path(post, operation_id = "curriculum_plan", path = "/api/mind-maps/{id}/plan", tag = "curriculum", params(("id" = MindMapId, Path)), request_body = PlanInput,
    responses((status = 200, body = PlanSummary), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn plan(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    JsonBody(input): JsonBody<PlanInput>,
) -> ApiResult<Json<PlanSummary>> {
    Ok(Json(s.app.plan_map(l.id, id, input).await?))
}

/// `curriculum_replan`: mark mastered nodes skippable, add concepts (the caller's, or with a
/// `reason` and a configured model, the missing prerequisites it proposes), recompute the
/// sequence.
#[utoipa::path(post, operation_id = "curriculum_replan", path = "/api/mind-maps/{id}/replan", tag = "curriculum", params(("id" = MindMapId, Path)), request_body = Option<ReplanInput>,
    responses((status = 200, body = ReplanResult), (status = 409, body = ErrorBody), (status = 502, body = ErrorBody),
        (status = 503, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn replan(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    // The body is optional: an empty one re-plans with no reason and no added concepts.
    OptionalJsonBody(input): OptionalJsonBody<ReplanInput>,
) -> ApiResult<Json<ReplanResult>> {
    Ok(Json(s.app.replan(l.id, id, input).await?))
}

/// `curriculum_next_node`.
#[utoipa::path(get, operation_id = "curriculum_next_node", path = "/api/mind-maps/{id}/next-node", tag = "curriculum", params(("id" = MindMapId, Path)),
    responses((status = 200, body = NextNode)), security(("bearer" = [])))]
pub async fn next_node(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<Json<NextNode>> {
    Ok(Json(NextNode { node: s.app.next_node(l.id, id).await? }))
}
