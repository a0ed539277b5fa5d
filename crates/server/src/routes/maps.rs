//! `/api/mind-maps`: the learner's concept graphs.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::maps::{CreateEdge, CreateMap, CreateNode, UpdateMap};
use pathwise_app::paging::Paged;
use pathwise_app::queries::{ListMapsQuery, ListNodesQuery};
use pathwise_domain::model::{Edge, MapAggregate, MindMap, Node};
use pathwise_domain::{MindMapId, NodeId};

/// Create an empty map in `draft`.
#[utoipa::path(post, operation_id = "maps_create", path = "/api/mind-maps", tag = "mind maps", request_body = CreateMap,
    responses((status = 201, body = MindMap)), security(("bearer" = [])))]
pub async fn create_map(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<CreateMap>,
) -> ApiResult<(StatusCode, Json<MindMap>)> {
    Ok((StatusCode::CREATED, Json(s.app.create_map(l.id, input).await?)))
}

/// The learner's maps, newest first.
#[utoipa::path(get, operation_id = "maps_list", path = "/api/mind-maps", tag = "mind maps", params(ListMapsQuery),
    responses((status = 200, body = Paged<MindMap>), (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn list_maps(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<ListMapsQuery>,
) -> ApiResult<Json<Paged<MindMap>>> {
    Ok(Json(s.app.list_maps(l.id, q.status, q.offset, q.limit).await?))
}

/// A map with its nodes (in learning order) and edges.
#[utoipa::path(get, operation_id = "maps_get", path = "/api/mind-maps/{id}", tag = "mind maps", params(("id" = MindMapId, Path)),
    responses((status = 200, body = MapAggregate)), security(("bearer" = [])))]
pub async fn get_map(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<Json<MapAggregate>> {
    Ok(Json(s.app.get_map(l.id, id).await?))
}

/// Change a map's status: draft -> active -> completed, or abandoned.
#[utoipa::path(patch, operation_id = "maps_update_status", path = "/api/mind-maps/{id}", tag = "mind maps", params(("id" = MindMapId, Path)), request_body = UpdateMap,
    responses((status = 200, body = MindMap), (status = 409, description = "The lifecycle does not allow this move (`invalid_transition`, with `details.allowed`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn update_map(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    JsonBody(input): JsonBody<UpdateMap>,
) -> ApiResult<Json<MindMap>> {
    Ok(Json(s.app.update_map_status(l.id, id, input.status).await?))
}

/// Delete a map with its nodes, edges and responses.
#[utoipa::path(delete, operation_id = "maps_delete", path = "/api/mind-maps/{id}", tag = "mind maps", params(("id" = MindMapId, Path)),
    responses((status = 204, description = "Deleted.")), security(("bearer" = [])))]
pub async fn delete_map(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<StatusCode> {
    s.app.delete_map(l.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Add a concept; the first becomes the root, later ones need prerequisites.
#[utoipa::path(post, operation_id = "maps_create_node", path = "/api/mind-maps/{id}/nodes", tag = "nodes", params(("id" = MindMapId, Path)), request_body = CreateNode,
    responses((status = 201, body = Node), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn create_node(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    JsonBody(input): JsonBody<CreateNode>,
) -> ApiResult<(StatusCode, Json<Node>)> {
    Ok((StatusCode::CREATED, Json(s.app.create_node(l.id, id, input).await?)))
}

/// A map's nodes in learning order.
#[utoipa::path(get, operation_id = "maps_list_nodes", path = "/api/mind-maps/{id}/nodes", tag = "nodes", params(("id" = MindMapId, Path), ListNodesQuery),
    responses((status = 200, body = Vec<Node>)), security(("bearer" = [])))]
pub async fn list_nodes(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    QueryParams(q): QueryParams<ListNodesQuery>,
) -> ApiResult<Json<Vec<Node>>> {
    Ok(Json(s.app.list_nodes(l.id, id, q.mastery_status).await?))
}

/// Add an edge `parent -> child` (the parent is a prerequisite of the child).
#[utoipa::path(post, operation_id = "maps_create_edge", path = "/api/mind-maps/{id}/edges", tag = "edges", params(("id" = MindMapId, Path)), request_body = CreateEdge,
    responses((status = 201, body = Edge), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn create_edge(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    JsonBody(input): JsonBody<CreateEdge>,
) -> ApiResult<(StatusCode, Json<Edge>)> {
    Ok((StatusCode::CREATED, Json(s.app.create_edge(l.id, id, input).await?)))
}

/// Remove an edge, unless a node would lose its path from the root.
#[utoipa::path(delete, operation_id = "maps_delete_edge", path = "/api/mind-maps/{id}/edges/{parent_id}/{child_id}", tag = "edges",
    params(("id" = MindMapId, Path), ("parent_id" = NodeId, Path), ("child_id" = NodeId, Path)),
    responses((status = 204, description = "Removed."), (status = 409, body = ErrorBody)), security(("bearer" = [])))]
pub async fn delete_edge(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds((id, parent, child)): PathIds<(MindMapId, NodeId, NodeId)>,
) -> ApiResult<StatusCode> {
    s.app.delete_edge(l.id, id, parent, child).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Nodes ready to learn: every prerequisite mastered, the node itself not yet.
#[utoipa::path(get, operation_id = "maps_frontier", path = "/api/mind-maps/{id}/frontier", tag = "mind maps", params(("id" = MindMapId, Path)),
    responses((status = 200, body = Vec<Node>)), security(("bearer" = [])))]
pub async fn frontier(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<Json<Vec<Node>>> {
    Ok(Json(s.app.frontier(l.id, id).await?))
}
