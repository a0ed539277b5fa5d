//! Learners: created by the operator, each with a bearer token.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{bearer, Auth, JsonBody, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::queries::UsageQuery;
use pathwise_app::usage::LlmUsage;
use pathwise_app::{AppError, ErrorKind};
use pathwise_domain::LearnerId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateLearner {
    name: String,
}

#[derive(Serialize, ToSchema)]
pub struct CreatedLearner {
    id: LearnerId,
    name: String,
    /// The learner's API token. It is shown only this once.
    token: String,
}

#[derive(Serialize, ToSchema)]
pub struct Me {
    id: LearnerId,
    name: String,
    is_local: bool,
}

/// Proof that the caller holds the operator token.
pub struct Operator;

impl axum::extract::FromRequestParts<AppState> for Operator {
    type Rejection = crate::error::ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let Some(expected) = &state.operator_token_hash else {
            return Err(AppError::new(
                ErrorKind::Forbidden,
                "no_operator_token",
                "creating learners needs an operator token, and none is configured: set PATHWISE_OPERATOR_TOKEN or operator_token in the config file",
            )
            .into());
        };
        let given = bearer(parts).map(pathwise_app::learners::hash_token);
        // Comparing hashes keeps the comparison's timing independent of the secret.
        if given.as_deref() == Some(&**expected) {
            Ok(Operator)
        } else {
            Err(AppError::new(
                ErrorKind::Unauthorized,
                "unauthorized",
                "this endpoint needs the operator token: send Authorization: Bearer <operator token>",
            )
            .into())
        }
    }
}

/// Create a learner (operator only); the response carries their token.
#[utoipa::path(post, operation_id = "learners_create", path = "/api/learners", tag = "learners", request_body = CreateLearner,
    responses((status = 201, body = CreatedLearner),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn create(
    State(s): State<AppState>,
    _: Operator,
    JsonBody(input): JsonBody<CreateLearner>,
) -> ApiResult<(StatusCode, Json<CreatedLearner>)> {
    let created = s.app.create_learner(&input.name).await?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedLearner { id: created.learner.id, name: created.learner.name, token: created.token }),
    ))
}

/// The learner the token belongs to.
#[utoipa::path(get, operation_id = "learners_me", path = "/api/me", tag = "learners", responses((status = 200, body = Me)), security(("bearer" = [])))]
pub async fn me(Auth(l): Auth) -> ApiResult<Json<Me>> {
    Ok(Json(Me { id: l.id, name: l.name, is_local: l.is_local }))
}

/// The caller's calls to the language model and the tokens they used, per operation.
#[utoipa::path(get, operation_id = "learners_llm_usage", path = "/api/me/llm-usage", tag = "learners", params(UsageQuery),
    responses((status = 200, body = LlmUsage), (status = 422, description = "`since_days` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn llm_usage(
    State(s): State<AppState>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<UsageQuery>,
) -> ApiResult<Json<LlmUsage>> {
    Ok(Json(s.app.llm_usage(l.id, q.since_days).await?))
}

/// The caller's preferences (the daily review cap).
#[utoipa::path(get, operation_id = "learners_get_preferences", path = "/api/me/preferences", tag = "learners",
    responses((status = 200, body = pathwise_store::Preferences)), security(("bearer" = [])))]
pub async fn preferences(State(s): State<AppState>, Auth(l): Auth) -> ApiResult<Json<pathwise_store::Preferences>> {
    Ok(Json(s.app.preferences(l.id).await?))
}

/// Change the caller's preferences; a field left out keeps its value, `null` clears it.
#[utoipa::path(patch, operation_id = "learners_update_preferences", path = "/api/me/preferences", tag = "learners",
    request_body = pathwise_app::preferences::UpdatePreferences,
    responses((status = 200, body = pathwise_store::Preferences)),
    security(("bearer" = [])))]
pub async fn update_preferences(
    State(s): State<AppState>,
    Auth(l): Auth,
    crate::extract::JsonBody(input): crate::extract::JsonBody<pathwise_app::preferences::UpdatePreferences>,
) -> ApiResult<Json<pathwise_store::Preferences>> {
    Ok(Json(s.app.update_preferences(l.id, input).await?))
}

/// The caller's history as a review log (CSV `item_id,timestamp,grade`, oldest first), the
/// format `pathwise srs-eval` compares SM-2 and FSRS on.
#[utoipa::path(get, operation_id = "learners_review_log", path = "/api/me/review-log.csv", tag = "learners",
    responses((status = 200, content_type = "text/csv", body = String,
        description = "The review log: a header line `item_id,timestamp,grade`, then one line per response.")),
    security(("bearer" = [])))]
pub async fn review_log(State(s): State<AppState>, Auth(l): Auth) -> ApiResult<axum::response::Response> {
    use axum::response::IntoResponse;
    let csv = s.app.review_log(l.id).await?;
    Ok(([(axum::http::header::CONTENT_TYPE, "text/csv; charset=utf-8")], csv).into_response())
}
