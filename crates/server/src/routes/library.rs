//! The item library as a learner chooses from it: the assessments an evaluation can take
//! (`blueprint_id`) and the skills whose blueprints a learning session practises
//! (`item_templates`). Read-only; answer keys and generators stay on the server.

use crate::error::ApiResult;
use crate::extract::Auth;
use crate::AppState;
use axum::extract::State;
use axum::Json;
use pathwise_app::sessions::library::{AssessmentSummary, SkillSummary};

/// The assessments an evaluation can take, by id.
#[utoipa::path(get, operation_id = "library_assessments", path = "/api/library/assessments", tag = "library",
    responses((status = 200, body = Vec<AssessmentSummary>)), security(("bearer" = [])))]
pub async fn assessments(State(s): State<AppState>, _learner: Auth) -> ApiResult<Json<Vec<AssessmentSummary>>> {
    Ok(Json(s.app.library_assessments()))
}

/// The skill blueprints a learning session can practise, by id.
#[utoipa::path(get, operation_id = "library_skills", path = "/api/library/skills", tag = "library",
    responses((status = 200, body = Vec<SkillSummary>)), security(("bearer" = [])))]
pub async fn skills(State(s): State<AppState>, _learner: Auth) -> ApiResult<Json<Vec<SkillSummary>>> {
    Ok(Json(s.app.library_skills()))
}
