//! `/api/nodes/{id}`: one concept, its history and what depends on it.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::maps::{Subtree, UpdateNode};
use pathwise_app::queries::HistoryQuery;
use pathwise_domain::model::{Node, QuizResponse};
use pathwise_domain::NodeId;

#[utoipa::path(get, operation_id = "nodes_get", path = "/api/nodes/{id}", tag = "nodes", params(("id" = NodeId, Path)),
    responses((status = 200, body = Node)), security(("bearer" = [])))]
pub async fn get_node(State(s): State<AppState>, Auth(l): Auth, PathIds(id): PathIds<NodeId>) -> ApiResult<Json<Node>> {
    Ok(Json(s.app.get_node(l.id, id).await?))
}

/// Update a node's fields; a status change must follow the mastery state machine.
#[utoipa::path(patch, operation_id = "nodes_update", path = "/api/nodes/{id}", tag = "nodes", params(("id" = NodeId, Path)), request_body = UpdateNode,
    responses((status = 200, body = Node), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn update_node(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<NodeId>,
    JsonBody(input): JsonBody<UpdateNode>,
) -> ApiResult<Json<Node>> {
    Ok(Json(s.app.update_node(l.id, id, input).await?))
}

/// Delete a node with its edges and responses, unless others would be stranded.
#[utoipa::path(delete, operation_id = "nodes_delete", path = "/api/nodes/{id}", tag = "nodes", params(("id" = NodeId, Path)),
    responses((status = 204, description = "Deleted."), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn delete_node(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<NodeId>,
) -> ApiResult<StatusCode> {
    s.app.delete_node(l.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The node's responses, newest first.
#[utoipa::path(get, operation_id = "nodes_history", path = "/api/nodes/{id}/history", tag = "mastery", params(("id" = NodeId, Path), HistoryQuery),
    responses((status = 200, body = Vec<QuizResponse>), (status = 422, description = "`limit` below 1.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn history(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<NodeId>,
    QueryParams(q): QueryParams<HistoryQuery>,
) -> ApiResult<Json<Vec<QuizResponse>>> {
    Ok(Json(s.app.node_history(l.id, id, q.limit).await?))
}

/// The node and every node that depends on it.
#[utoipa::path(get, operation_id = "nodes_subtree", path = "/api/nodes/{id}/subtree", tag = "nodes", params(("id" = NodeId, Path)),
    responses((status = 200, body = Subtree)), security(("bearer" = [])))]
pub async fn subtree(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<NodeId>,
) -> ApiResult<Json<Subtree>> {
    Ok(Json(s.app.subtree(l.id, id).await?))
}
