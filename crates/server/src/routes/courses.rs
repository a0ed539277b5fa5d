//! Courses: authored packs (units, content, exam bank, blueprints) that the policy tutor
//! teaches from. Importing is the operator's, and so is sharing a learner's course with
//! others; a learner reads the server's courses, their own and those shared with them.

use super::learners::Operator;
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, JsonBody, PathIds, QueryParams, TextBody};
use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use pathwise_app::authoring::CourseShares;
use pathwise_app::course_tutor::{CourseOutline, CoursePassage, CourseSummary, ImportedCourse};
use pathwise_app::AppError;
use pathwise_course::PackFormat;
use pathwise_domain::LearnerId;
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ImportQuery {
    /// `toml` or `json`; by default from the Content-Type (`application/json` is JSON,
    /// anything else TOML).
    #[param(pattern = "^([Tt][Oo][Mm][Ll]|[Jj][Ss][Oo][Nn])$")]
    format: Option<String>,
}

/// The courses the learner may see: the operator's and the shipped ones, their own, and those
/// shared with them.
#[utoipa::path(get, operation_id = "courses_list", path = "/api/courses", tag = "courses",
    responses((status = 200, body = Vec<CourseSummary>)), security(("bearer" = [])))]
pub async fn list(State(s): State<AppState>, Auth(l): Auth) -> ApiResult<Json<Vec<CourseSummary>>> {
    Ok(Json(s.app.list_courses(l.id).await?))
}

/// A course's units in learning order, with their prerequisites and how many exam
/// questions each tier has.
#[utoipa::path(get, operation_id = "courses_get", path = "/api/courses/{course_id}", tag = "courses", params(("course_id" = String, Path)),
    responses((status = 200, body = CourseOutline)), security(("bearer" = [])))]
pub async fn get(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<String>,
) -> ApiResult<Json<CourseOutline>> {
    Ok(Json(s.app.course_outline(l.id, &id).await?))
}

/// A passage of a course's material, by the id a tutor's card cites it by
/// (`sources[].passageId`): its unit, citation and text.
#[utoipa::path(get, operation_id = "courses_passage", path = "/api/courses/{course_id}/passages/{passage_id}", tag = "courses",
    params(("course_id" = String, Path), ("passage_id" = String, Path)),
    responses((status = 200, body = CoursePassage),
        (status = 404, description = "No such course, or no such passage in it.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn passage(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds((id, passage)): PathIds<(String, String)>,
) -> ApiResult<Json<CoursePassage>> {
    Ok(Json(s.app.course_passage(l.id, &id, &passage).await?))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PackQuery {
    /// `toml` (the default) or `json`.
    #[param(pattern = "^([Tt][Oo][Mm][Ll]|[Jj][Ss][Oo][Nn])$")]
    pub format: Option<String>,
}

/// A course's pack (operator only: it holds the exam bank's keys), to edit and import again:
/// a shipped course's own TOML source, any other course written out from what is stored.
#[utoipa::path(get, operation_id = "courses_pack", path = "/api/courses/{course_id}/pack", tag = "courses",
    params(("course_id" = String, Path), PackQuery),
    responses((status = 200, description = "The pack, as TOML or JSON text.",
            content((String = "application/toml"), (Object = "application/json"))),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such course (`not_found`).", body = ErrorBody),
        (status = 422, description = "`format` is neither `toml` nor `json`.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn pack(
    State(s): State<AppState>,
    _: Operator,
    PathIds(id): PathIds<String>,
    QueryParams(q): QueryParams<PackQuery>,
) -> ApiResult<impl axum::response::IntoResponse> {
    let format = q.format.as_deref().map(named_format).transpose()?.unwrap_or(PackFormat::Toml);
    Ok(pack_reply(format, s.app.course_pack_text(&id, format).await?))
}

/// Whom a course is shared with: a learner here.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareWith {
    /// The learner to share the course with (the operator's `pathwise learners list` names them).
    pub learner_id: LearnerId,
}

/// A pack's text, with the media type of its format.
pub(crate) fn pack_reply(format: PackFormat, text: String) -> impl axum::response::IntoResponse {
    let content_type = match format {
        PackFormat::Toml => "application/toml; charset=utf-8",
        PackFormat::Json => "application/json",
    };
    ([(axum::http::header::CONTENT_TYPE, content_type)], text)
}

/// Import a course pack (operator only): the body is the pack in TOML or JSON. It is
/// checked whole (references resolve, prerequisites acyclic, tiers valid); every problem is
/// reported with its field and line, and nothing is stored unless there are none. 201 when
/// the course is new or changed, 200 when it was already this content.
#[utoipa::path(post, operation_id = "courses_import", path = "/api/courses", tag = "courses", params(ImportQuery),
    request_body(description = "The course pack, as TOML text or as a JSON object (by `format`, else by Content-Type).",
        content(
            (String = "application/toml"),
            (Object = "application/json"),
            (String = "text/plain"),
        )),
    responses((status = 201, body = ImportedCourse, description = "The course is new or changed, and stored."),
        (status = 200, body = ImportedCourse, description = "The course was already stored with this content."),
        (status = 400, description = "A malformed request: `bad_query`; `malformed_json` (a body that is not UTF-8 text).",
            body = ErrorBody),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 422, description = "The pack does not parse or breaks a rule (`invalid_course`, with every problem, its \
            field and line, in `details`), or `format` is neither `toml` nor `json`.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn import(
    State(s): State<AppState>,
    _: Operator,
    headers: HeaderMap,
    QueryParams(q): QueryParams<ImportQuery>,
    TextBody(text): TextBody,
) -> ApiResult<(StatusCode, Json<ImportedCourse>)> {
    let format = match q.format.as_deref() {
        Some(name) => named_format(name)?,
        None => {
            let json = headers
                .get(axum::http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("application/json"));
            if json {
                PackFormat::Json
            } else {
                PackFormat::Toml
            }
        }
    };
    let imported = s.app.import_course(&text, format).await?;
    let status = if imported.changed { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(imported)))
}

/// A pack format named in a query (`toml` or `json`, any case).
pub(crate) fn named_format(name: &str) -> Result<PackFormat, AppError> {
    match name.to_ascii_lowercase().as_str() {
        "toml" => Ok(PackFormat::Toml),
        "json" => Ok(PackFormat::Json),
        other => Err(AppError::invalid("format", format!("'{other}' is not a format; allowed: toml, json"))),
    }
}

/// Share a learner's course with another learner (operator only): they then list it and
/// open tutor threads on it. Sharing twice is sharing once.
#[utoipa::path(post, operation_id = "courses_share", path = "/api/courses/{course_id}/shares", tag = "courses",
    params(("course_id" = String, Path)), request_body = ShareWith,
    responses((status = 200, body = CourseShares),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such course, or no such learner (`not_found`).", body = ErrorBody),
        (status = 422, description = "The course is the server's, which every learner sees, or the learner named \
            is its owner (`invalid`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn share(
    State(s): State<AppState>,
    _: Operator,
    PathIds(id): PathIds<String>,
    JsonBody(with): JsonBody<ShareWith>,
) -> ApiResult<Json<CourseShares>> {
    Ok(Json(s.app.operator_share_course(&id, with.learner_id).await?))
}

/// Stop sharing a learner's course with another learner (operator only).
#[utoipa::path(delete, operation_id = "courses_unshare", path = "/api/courses/{course_id}/shares/{learner_id}", tag = "courses",
    params(("course_id" = String, Path), ("learner_id" = LearnerId, Path)),
    responses((status = 200, body = CourseShares),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such course, or not shared with that learner (`not_found`).", body = ErrorBody),
        (status = 422, description = "The course is the server's (`invalid`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn unshare(
    State(s): State<AppState>,
    _: Operator,
    PathIds((id, learner)): PathIds<(String, LearnerId)>,
) -> ApiResult<Json<CourseShares>> {
    Ok(Json(s.app.operator_unshare_course(&id, learner).await?))
}
