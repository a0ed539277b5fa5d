//! Responses and what they tell: summaries, struggles, reviews.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use pathwise_app::mastery::{RecordResponse, RecordedResponse};
use pathwise_app::paging::Paged;
use pathwise_app::queries::{PendingReviewsQuery, ResponsesQuery};
use pathwise_app::AppError;
use pathwise_domain::mastery::{MapSummary, Struggle};
use pathwise_domain::model::{Node, QuizResponse};
use pathwise_domain::MindMapId;
use pathwise_store::ResponseFilter;

/// `mastery_record_response`: store a response and update its node in one transaction.
#[utoipa::path(post, operation_id = "mastery_record_response", path = "/api/responses", tag = "mastery", request_body = RecordResponse,
    responses((status = 201, body = RecordedResponse), (status = 404, description = "No such node or map of the caller's.", body = ErrorBody),
        (status = 409, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn record(
    State(s): State<AppState>,
    Auth(l): Auth,
    crate::idempotency::KeyHeader(key): crate::idempotency::KeyHeader,
    JsonBody(mut input): JsonBody<RecordResponse>,
) -> ApiResult<impl IntoResponse> {
    if let Some(key) = key {
        if input.idempotency_key.as_ref().is_some_and(|k| *k != key) {
            return Err(AppError::invalid(
                "idempotency_key",
                "differs from the Idempotency-Key header; send the key once, in either",
            )
            .into());
        }
        input.idempotency_key = Some(key);
    }
    let recorded = s.app.record_response_once(l.id, input).await?;
    let replayed = if recorded.replayed { "true" } else { "false" };
    Ok((StatusCode::CREATED, [(crate::idempotency::REPLAYED, replayed)], Json(recorded.recorded)))
}

/// Responses, newest first, filtered and paged.
#[utoipa::path(get, operation_id = "mastery_list_responses", path = "/api/quiz-responses", tag = "mastery", params(ResponsesQuery),
    responses((status = 200, body = Paged<QuizResponse>), (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn list(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<ResponsesQuery>,
) -> ApiResult<Json<Paged<QuizResponse>>> {
    let filter = ResponseFilter { mind_map_id: q.mind_map_id, node_id: q.node_id, response_type: q.response_type };
    Ok(Json(s.app.list_responses(l.id, filter, q.offset, q.limit).await?))
}

/// `mastery_get_map_summary`.
#[utoipa::path(get, operation_id = "mastery_map_summary", path = "/api/mind-maps/{id}/mastery-summary", tag = "mastery", params(("id" = MindMapId, Path)),
    responses((status = 200, body = MapSummary)), security(("bearer" = [])))]
pub async fn summary(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<Json<MapSummary>> {
    Ok(Json(s.app.map_summary(l.id, id).await?))
}

/// `mastery_detect_struggles`.
#[utoipa::path(get, operation_id = "mastery_struggles", path = "/api/mind-maps/{id}/struggles", tag = "mastery", params(("id" = MindMapId, Path)),
    responses((status = 200, body = Vec<Struggle>)), security(("bearer" = [])))]
pub async fn struggles(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
) -> ApiResult<Json<Vec<Struggle>>> {
    Ok(Json(s.app.detect_struggles(l.id, id).await?))
}

/// Nodes of this map due for review.
#[utoipa::path(get, operation_id = "reviews_pending_for_map", path = "/api/mind-maps/{id}/pending-reviews", tag = "reviews", params(("id" = MindMapId, Path), PendingReviewsQuery),
    responses((status = 200, body = Vec<Node>), (status = 422, description = "`horizon_days` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn map_reviews(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<MindMapId>,
    QueryParams(q): QueryParams<PendingReviewsQuery>,
) -> ApiResult<Json<Vec<Node>>> {
    Ok(Json(s.app.pending_reviews(l.id, Some(id), q.horizon_days).await?))
}

/// Nodes of all active maps due for review.
#[utoipa::path(get, operation_id = "reviews_pending", path = "/api/reviews/pending", tag = "reviews", params(PendingReviewsQuery),
    responses((status = 200, body = Vec<Node>), (status = 422, description = "`horizon_days` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn all_reviews(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<PendingReviewsQuery>,
) -> ApiResult<Json<Vec<Node>>> {
    Ok(Json(s.app.pending_reviews(l.id, None, q.horizon_days).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The horizon the OpenAPI document states is the one the application allows.
    #[test]
    fn the_documented_horizon_is_the_applications() {
        let params = <PendingReviewsQuery as utoipa::IntoParams>::into_params(|| None);
        let schema = serde_json::to_value(&params[0]).unwrap();
        let maximum = schema["schema"]["maximum"].as_f64().or(schema["schema"]["oneOf"][0]["maximum"].as_f64());
        assert_eq!(maximum, Some(pathwise_app::mastery::MAX_HORIZON_DAYS), "{schema}");
    }
}
