//! Learners: created and administered by the operator (tokens, deletion, export and
//! import), each signing in with a bearer token of their own.

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{bearer, Auth, JsonBody, LargeTextBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::anki_import::AnkiImporter;
use pathwise_app::fsrs::FsrsService;
use pathwise_app::learners::administration::{DeletedLearner, LearnerSummary};
use pathwise_app::learners::transfer::{ImportedLearner, LearnerDocument};
use pathwise_app::learners::{IssuedToken, RotatedToken, TokenInfo};
use pathwise_app::paging::Paged;
use pathwise_app::queries::{PageQuery, UsageQuery};
use pathwise_app::usage::LlmUsage;
use pathwise_app::{AppError, ErrorCode, ErrorKind};
use pathwise_domain::{LearnerId, TokenId};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateLearner {
    #[schema(min_length = 1, max_length = 200)]
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
                ErrorCode::NoOperatorToken,
                "administering learners needs an operator token, and none is configured: set PATHWISE_OPERATOR_TOKEN or operator_token in the config file",
            )
            .into());
        };
        if holds_operator_token(parts, expected) {
            Ok(Operator)
        } else {
            Err(AppError::new(
                ErrorKind::Unauthorized,
                ErrorCode::Unauthorized,
                "this endpoint needs the operator token: send Authorization: Bearer <operator token>",
            )
            .into())
        }
    }
}

/// Whether the request's bearer token is the operator's (hash `expected`). Comparing hashes
/// keeps the comparison's timing independent of the secret.
fn holds_operator_token(parts: &Parts, expected: &str) -> bool {
    bearer(parts).map(pathwise_app::learners::hash_token).as_deref() == Some(expected)
}

/// Who calls a route that both a learner and the operator may read: the operator token,
/// else a learner's.
pub enum Caller {
    Operator,
    Learner(pathwise_app::Learner),
}

impl axum::extract::FromRequestParts<AppState> for Caller {
    type Rejection = crate::error::ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        if state.operator_token_hash.as_deref().is_some_and(|expected| holds_operator_token(parts, expected)) {
            return Ok(Caller::Operator);
        }
        let Auth(learner) = Auth::from_request_parts(parts, state).await?;
        Ok(Caller::Learner(learner))
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

/// The caller's preferences: the daily review cap, the scheduler, and the FSRS parameters
/// that schedule them (their own once fitted) with how well those predict them.
#[utoipa::path(get, operation_id = "learners_get_preferences", path = "/api/me/preferences", tag = "learners",
    responses((status = 200, body = pathwise_app::preferences::LearnerPreferences)), security(("bearer" = [])))]
pub async fn preferences(
    State(s): State<AppState>,
    Auth(l): Auth,
) -> ApiResult<Json<pathwise_app::preferences::LearnerPreferences>> {
    Ok(Json(s.app.preferences(l.id).await?))
}

/// Fit the caller's FSRS parameters on their review log now (a weekly job does it for every
/// FSRS learner): their own parameters when they have 8 reviews or more a day or more
/// apart and the fit predicts their latest reviews no worse than the defaults (within 1%).
#[utoipa::path(post, operation_id = "learners_fit_fsrs", path = "/api/me/preferences/fsrs/fit", tag = "learners",
    responses((status = 200, body = pathwise_app::fsrs_parameters::FsrsStatus)), security(("bearer" = [])))]
pub async fn fit_fsrs(
    State(fsrs): State<FsrsService>,
    Auth(l): Auth,
) -> ApiResult<Json<pathwise_app::fsrs_parameters::FsrsStatus>> {
    Ok(Json(fsrs.fit(l.id).await?))
}

/// Bring in an Anki package (`.apkg` deck or `.colpkg` collection, as Anki exports them; the
/// body is the file): a map per deck with a concept per card, the review log as answers with
/// their real times and grades (each row used or skipped with a counted reason), then the
/// caller's FSRS memory replayed and parameters fitted. Importing the same package again
/// adds only what is new and keeps what was done in Pathwise since. Media files are counted,
/// not imported (export without media to keep the upload small).
#[utoipa::path(post, operation_id = "learners_import_anki", path = "/api/me/anki-import", tag = "learners",
    request_body(description = "The package's bytes.", content((Vec<u8> = "application/octet-stream"))),
    responses(
        (status = 200, body = pathwise_app::anki_import::AnkiImport),
        (status = 413, description = "The package is over `ingest_max_mb` (`too_large`).", body = ErrorBody),
        (status = 422, description = "The file cannot be read as an Anki package, and nothing is stored: \
            `not_an_anki_package`, `anki_package_encrypted`, `anki_package_damaged`, `anki_package_too_new`.",
            body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn import_anki(
    State(anki): State<AnkiImporter>,
    Auth(l): Auth,
    crate::extract::FileBody(bytes): crate::extract::FileBody,
) -> ApiResult<Json<pathwise_app::anki_import::AnkiImport>> {
    Ok(Json(anki.import(l.id, std::io::Cursor::new(bytes), |_| {}).await?))
}

/// Change the caller's preferences; a field left out keeps its value, `null` clears it.
#[utoipa::path(patch, operation_id = "learners_update_preferences", path = "/api/me/preferences", tag = "learners",
    request_body = pathwise_app::preferences::UpdatePreferences,
    responses((status = 200, body = pathwise_app::preferences::LearnerPreferences)),
    security(("bearer" = [])))]
pub async fn update_preferences(
    State(s): State<AppState>,
    Auth(l): Auth,
    crate::extract::JsonBody(input): crate::extract::JsonBody<pathwise_app::preferences::UpdatePreferences>,
) -> ApiResult<Json<pathwise_app::preferences::LearnerPreferences>> {
    Ok(Json(s.app.update_preferences(l.id, input).await?))
}

/// The caller's history as a review log (CSV `item_id,timestamp,grade,rating`, oldest first), the
/// format `pathwise srs-eval` compares SM-2 and FSRS on.
#[utoipa::path(get, operation_id = "learners_review_log", path = "/api/me/review-log.csv", tag = "learners",
    responses((status = 200, content_type = "text/csv", body = String,
        description = "The review log: a header line `item_id,timestamp,grade,rating`, then one line per response.")),
    security(("bearer" = [])))]
pub async fn review_log(State(s): State<AppState>, Auth(l): Auth) -> ApiResult<axum::response::Response> {
    use axum::response::IntoResponse;
    let csv = s.app.review_log(l.id).await?;
    Ok(([(axum::http::header::CONTENT_TYPE, "text/csv; charset=utf-8")], csv).into_response())
}

/// The largest learner document an import takes over HTTP; `pathwise learners import`
/// reads a file of any size.
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateToken {
    /// What the token is for (`laptop`, `assistant`), 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    name: String,
}

/// Every learner with when they were last active (operator only), in the order they were made.
#[utoipa::path(get, operation_id = "learners_list", path = "/api/learners", tag = "learners", params(PageQuery),
    responses((status = 200, body = Paged<LearnerSummary>),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 422, description = "`offset` or `limit` out of range.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn list(
    State(s): State<AppState>,
    _: Operator,
    QueryParams(q): QueryParams<PageQuery>,
) -> ApiResult<Json<Paged<LearnerSummary>>> {
    Ok(Json(s.app.list_learners(q.offset, q.limit).await?))
}

/// Delete a learner with everything that is theirs, in one transaction (operator only).
/// Their open sessions are ended first and their streams close. The local learner is not
/// deleted (409 `local_learner`).
#[utoipa::path(delete, operation_id = "learners_delete", path = "/api/learners/{id}", tag = "learners",
    params(("id" = LearnerId, Path)),
    responses((status = 200, body = DeletedLearner),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such learner (`not_found`).", body = ErrorBody),
        (status = 409, description = "The learner is the server's local learner (`local_learner`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn delete(
    State(s): State<AppState>,
    _: Operator,
    PathIds(id): PathIds<LearnerId>,
) -> ApiResult<Json<DeletedLearner>> {
    Ok(Json(s.app.delete_learner(id).await?))
}

/// A learner's tokens, revoked ones included, oldest first (operator only); never the
/// tokens themselves.
#[utoipa::path(get, operation_id = "learners_list_tokens", path = "/api/learners/{id}/tokens", tag = "learners",
    params(("id" = LearnerId, Path)),
    responses((status = 200, body = Vec<TokenInfo>),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such learner (`not_found`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn tokens(
    State(s): State<AppState>,
    _: Operator,
    PathIds(id): PathIds<LearnerId>,
) -> ApiResult<Json<Vec<TokenInfo>>> {
    Ok(Json(s.app.learner_tokens(id).await?))
}

/// Issue the learner another token, named (operator only); the response carries the token,
/// shown only this once.
#[utoipa::path(post, operation_id = "learners_create_token", path = "/api/learners/{id}/tokens", tag = "learners",
    params(("id" = LearnerId, Path)), request_body = CreateToken,
    responses((status = 201, body = IssuedToken),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such learner (`not_found`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn create_token(
    State(s): State<AppState>,
    _: Operator,
    PathIds(id): PathIds<LearnerId>,
    JsonBody(input): JsonBody<CreateToken>,
) -> ApiResult<(StatusCode, Json<IssuedToken>)> {
    Ok((StatusCode::CREATED, Json(s.app.create_token(id, &input.name).await?)))
}

/// Revoke one of the learner's tokens (operator only): a request with it is refused with 401
/// `token_revoked`, saying when. Revoking it again changes nothing.
#[utoipa::path(delete, operation_id = "learners_revoke_token", path = "/api/learners/{id}/tokens/{token_id}",
    tag = "learners", params(("id" = LearnerId, Path), ("token_id" = TokenId, Path)),
    responses((status = 200, body = TokenInfo),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such learner, or no such token of theirs (`not_found`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn revoke_token(
    State(s): State<AppState>,
    _: Operator,
    PathIds((id, token)): PathIds<(LearnerId, TokenId)>,
) -> ApiResult<Json<TokenInfo>> {
    Ok(Json(s.app.revoke_token(id, token).await?))
}

/// Replace a token in force with a new one of the same name, revoking the old one in the
/// same transaction (operator only); the new token is shown only this once.
#[utoipa::path(post, operation_id = "learners_rotate_token", path = "/api/learners/{id}/tokens/{token_id}/rotate",
    tag = "learners", params(("id" = LearnerId, Path), ("token_id" = TokenId, Path)),
    responses((status = 201, body = RotatedToken),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such learner, or no such token of theirs (`not_found`).", body = ErrorBody),
        (status = 409, description = "The token is revoked already (`token_revoked`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn rotate_token(
    State(s): State<AppState>,
    _: Operator,
    PathIds((id, token)): PathIds<(LearnerId, TokenId)>,
) -> ApiResult<(StatusCode, Json<RotatedToken>)> {
    Ok((StatusCode::CREATED, Json(s.app.rotate_token(id, token).await?)))
}

/// Everything about a learner as one JSON document (operator only): their maps, responses,
/// flows, jobs, sessions, tutor threads, snapshots, preferences, language-model usage and
/// tokens (as hashes, never the tokens), for `POST /api/learners/import` on another server.
#[utoipa::path(get, operation_id = "learners_export", path = "/api/learners/{id}/export", tag = "learners",
    params(("id" = LearnerId, Path)),
    responses((status = 200, body = LearnerDocument),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 404, description = "No such learner (`not_found`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn export(
    State(s): State<AppState>,
    _: Operator,
    PathIds(id): PathIds<LearnerId>,
) -> ApiResult<Json<LearnerDocument>> {
    Ok(Json(s.app.export_learner(id).await?))
}

/// Write a learner's document (from `GET /api/learners/{id}/export`) into this server under
/// the same ids, in one transaction (operator only). Nothing is written unless all is.
#[utoipa::path(post, operation_id = "learners_import", path = "/api/learners/import", tag = "learners",
    request_body = LearnerDocument,
    responses((status = 201, body = ImportedLearner),
        (status = 401, description = "No bearer token, or not the operator token (`unauthorized`).", body = ErrorBody),
        (status = 403, description = "The server has no operator token configured (`no_operator_token`).", body = ErrorBody),
        (status = 409, description = "A learner of that id is here already (`learner_exists`), a course their rows \
            need is not (`course_missing`, with `details.courses`), or a row's key is taken (`conflict`).", body = ErrorBody),
        (status = 413, description = "The document is larger than 64 MiB (`body_too_large`); `pathwise learners \
            import` takes any size.", body = ErrorBody),
        (status = 422, description = "Not a learner document of version 1, or a row that does not fit its table or \
            is not the learner's; `details.field` names it (`tables.mind_maps[3].title`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn import(
    State(s): State<AppState>,
    _: Operator,
    LargeTextBody(text): LargeTextBody<MAX_IMPORT_BYTES>,
) -> ApiResult<(StatusCode, Json<ImportedLearner>)> {
    let document = LearnerDocument::from_json(&text)?;
    Ok((StatusCode::CREATED, Json(s.app.import_learner(&document).await?)))
}
