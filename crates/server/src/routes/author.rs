//! A learner's own material: files uploaded into chunks that keep their file, page and
//! headings, listed, read with their citations, removed; course drafts made from them,
//! edited, checked and written out as a course pack. Each learner sees only their own.

use super::courses::{named_format, pack_reply, PackQuery, ShareWith};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Auth, FileBody, JsonBody, PathIds, QueryParams};
use crate::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use pathwise_app::authoring::{
    CourseShares, Documents, DraftEdit, DraftSummary, DraftUnits, DraftView, IngestedDocument, NewDraft,
    SourceDocument, SourceDocumentWithChunks,
};
use pathwise_app::course_tutor::ImportedCourse;
use pathwise_course::PackFormat;
use pathwise_domain::{CourseDraftId, LearnerId, SourceDocumentId};
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// The file's name; its extension picks the format (`.md`, `.markdown`, `.txt`,
    /// `.text`, `.html`, `.htm`, `.pdf`; a PDF is also known by its first bytes). A file of
    /// a name already ingested is updated, keeping the chunks it still has. Not blank, no
    /// control characters.
    #[param(
        min_length = 1,
        max_length = 300,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\u0000-\\u001F\\u007F-\\u009F \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000][^\\u0000-\\u001F\\u007F-\\u009F]*$"
    )]
    name: String,
}

/// Ingest a file: its bytes are the body (Markdown, plain text and HTML as UTF-8). It is
/// split on headings and paragraphs into chunks that keep the file, page and headings they
/// come from. 201 when stored or updated, 200 when the same file was already ingested.
#[utoipa::path(post, operation_id = "author_upload", path = "/api/author/documents", tag = "authoring", params(UploadQuery),
    request_body(description = "The file's bytes.", content(
        (Vec<u8> = "application/octet-stream"), (Vec<u8> = "application/pdf"), (String = "text/markdown"),
        (String = "text/plain"), (String = "text/html"))),
    responses(
        (status = 201, body = IngestedDocument, description = "Stored, or updated."),
        (status = 200, body = IngestedDocument, description = "The same file was already ingested; nothing changed."),
        (status = 413, description = "The file is over `ingest_max_mb` (`too_large`).", body = ErrorBody),
        (status = 422, description = "The file cannot be read, and nothing is stored: `empty`, `unsupported_format`, \
            `binary` (a text format that is not UTF-8 text), `encrypted_pdf`, `no_text_layer` (a scanned PDF), \
            `malformed_pdf`, `too_many_pages`; or `name` is blank.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn upload(
    State(documents): State<Documents>,
    Auth(l): Auth,
    QueryParams(q): QueryParams<UploadQuery>,
    FileBody(bytes): FileBody,
) -> ApiResult<(StatusCode, Json<IngestedDocument>)> {
    let ingested = documents.ingest(l.id, &q.name, bytes).await?;
    let status = if ingested.unchanged { StatusCode::OK } else { StatusCode::CREATED };
    Ok((status, Json(ingested)))
}

/// The learner's documents, by name.
#[utoipa::path(get, operation_id = "author_documents", path = "/api/author/documents", tag = "authoring",
    responses((status = 200, body = Vec<SourceDocument>)), security(("bearer" = [])))]
pub async fn documents(State(documents): State<Documents>, Auth(l): Auth) -> ApiResult<Json<Vec<SourceDocument>>> {
    Ok(Json(documents.list(l.id).await?))
}

/// One of the learner's documents with its chunks in order, each with its citation.
#[utoipa::path(get, operation_id = "author_document", path = "/api/author/documents/{id}", tag = "authoring",
    params(("id" = SourceDocumentId, Path)),
    responses((status = 200, body = SourceDocumentWithChunks), (status = 404, body = ErrorBody)), security(("bearer" = [])))]
pub async fn document(
    State(documents): State<Documents>,
    Auth(l): Auth,
    PathIds(id): PathIds<SourceDocumentId>,
) -> ApiResult<Json<SourceDocumentWithChunks>> {
    Ok(Json(documents.get(l.id, id).await?))
}

/// Remove one of the learner's documents with its chunks.
#[utoipa::path(delete, operation_id = "author_delete_document", path = "/api/author/documents/{id}", tag = "authoring",
    params(("id" = SourceDocumentId, Path)),
    responses((status = 204, description = "Removed."), (status = 404, body = ErrorBody)), security(("bearer" = [])))]
pub async fn delete_document(
    State(documents): State<Documents>,
    Auth(l): Auth,
    PathIds(id): PathIds<SourceDocumentId>,
) -> ApiResult<StatusCode> {
    documents.delete(l.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Draft a course's outline from the learner's documents, without a model: a unit per
/// section of their headings, in document order, each the prerequisite of the next, its
/// anchor the section's first sentence. The draft is the author's to edit; it is not a
/// course until exported and imported.
#[utoipa::path(post, operation_id = "author_create_draft", path = "/api/author/drafts", tag = "authoring",
    request_body = NewDraft,
    responses((status = 201, body = DraftView),
        (status = 404, description = "A document named is not the learner's (`not_found`).", body = ErrorBody),
        (status = 422, description = "No title, a document named twice, no documents to draft from, or more \
            sections than a draft holds, or than a model outlines at once (`invalid`, `details.field`).", body = ErrorBody),
        (status = 503, description = "`use_model` with no language model configured (`llm_not_configured`); \
            nothing is stored.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn create_draft(
    State(s): State<AppState>,
    Auth(l): Auth,
    JsonBody(input): JsonBody<NewDraft>,
) -> ApiResult<(StatusCode, Json<DraftView>)> {
    Ok((StatusCode::CREATED, Json(s.app.draft_course(l.id, input).await?)))
}

/// The learner's drafts, most recently edited first.
#[utoipa::path(get, operation_id = "author_drafts", path = "/api/author/drafts", tag = "authoring",
    responses((status = 200, body = Vec<DraftSummary>)), security(("bearer" = [])))]
pub async fn drafts(State(s): State<AppState>, Auth(l): Auth) -> ApiResult<Json<Vec<DraftSummary>>> {
    Ok(Json(s.app.course_drafts(l.id).await?))
}

/// One of the learner's drafts with its problems (each with its field) and the passages
/// its units cover, each with its citation.
#[utoipa::path(get, operation_id = "author_draft", path = "/api/author/drafts/{id}", tag = "authoring",
    params(("id" = CourseDraftId, Path)),
    responses((status = 200, body = DraftView), (status = 404, body = ErrorBody)), security(("bearer" = [])))]
pub async fn draft(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<CourseDraftId>,
) -> ApiResult<Json<DraftView>> {
    Ok(Json(s.app.course_draft(l.id, id).await?))
}

/// Replace the draft with an edit made from `version`. An edit may leave problems (they are
/// listed on every read); another edit since `version` is a conflict, and nothing changes.
#[utoipa::path(put, operation_id = "author_edit_draft", path = "/api/author/drafts/{id}", tag = "authoring",
    params(("id" = CourseDraftId, Path)), request_body = DraftEdit,
    responses((status = 200, body = DraftView), (status = 404, body = ErrorBody),
        (status = 409, description = "The draft was edited since `version` (`version_conflict`, with \
            `details.version`, the version it is at).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn edit_draft(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<CourseDraftId>,
    JsonBody(edit): JsonBody<DraftEdit>,
) -> ApiResult<Json<DraftView>> {
    Ok(Json(s.app.edit_course_draft(l.id, id, edit).await?))
}

/// Draft the units' exam questions (bronze, silver, gold) and drills from their passages,
/// without a model: each a sentence of the unit's material with a key term to fill in,
/// citing its passage. Every unit without any yet, or those named (their earlier ones
/// replaced); made from `version`, like an edit.
#[utoipa::path(post, operation_id = "author_draft_units", path = "/api/author/drafts/{id}/units", tag = "authoring",
    params(("id" = CourseDraftId, Path)), request_body = DraftUnits,
    responses((status = 200, body = DraftView), (status = 404, body = ErrorBody),
        (status = 409, description = "The draft was edited since `version` (`version_conflict`, with \
            `details.version`, the version it is at).", body = ErrorBody),
        (status = 422, description = "`units` names a unit the draft does not have.", body = ErrorBody),
        (status = 503, description = "`use_model` with no language model configured (`llm_not_configured`); \
            nothing changes.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn draft_units(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<CourseDraftId>,
    JsonBody(request): JsonBody<DraftUnits>,
) -> ApiResult<Json<DraftView>> {
    Ok(Json(s.app.draft_units(l.id, id, request).await?))
}

/// Remove one of the learner's drafts.
#[utoipa::path(delete, operation_id = "author_delete_draft", path = "/api/author/drafts/{id}", tag = "authoring",
    params(("id" = CourseDraftId, Path)),
    responses((status = 204, description = "Removed."), (status = 404, body = ErrorBody)), security(("bearer" = [])))]
pub async fn delete_draft(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<CourseDraftId>,
) -> ApiResult<StatusCode> {
    s.app.delete_course_draft(l.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The draft as a course pack (TOML by default), which `pathwise import-course --check`
/// accepts: each unit's passages are its content, cited by file, page and headings.
#[utoipa::path(get, operation_id = "author_export_draft", path = "/api/author/drafts/{id}/pack", tag = "authoring",
    params(("id" = CourseDraftId, Path), PackQuery),
    responses((status = 200, description = "The pack, as TOML or JSON text.",
            content((String = "application/toml"), (Object = "application/json"))),
        (status = 404, body = ErrorBody),
        (status = 422, description = "The draft has problems (`draft_has_problems`, each with its field in \
            `details.problems`), or `format` is neither `toml` nor `json`.", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn export_draft(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<CourseDraftId>,
    QueryParams(q): QueryParams<PackQuery>,
) -> ApiResult<impl axum::response::IntoResponse> {
    let format = q.format.as_deref().map(named_format).transpose()?.unwrap_or(PackFormat::Toml);
    Ok(pack_reply(format, s.app.export_course_draft(l.id, id, format).await?))
}

/// Publish the draft as a course of the learner's: the tutor, sessions, maps and MCP see it
/// like a shipped one, and so do the learners it is shared with. Publishing again replaces it.
#[utoipa::path(post, operation_id = "author_publish_draft", path = "/api/author/drafts/{id}/publish", tag = "authoring",
    params(("id" = CourseDraftId, Path)),
    responses(
        (status = 201, body = ImportedCourse, description = "Published, or replaced."),
        (status = 200, body = ImportedCourse, description = "Already published as it is; nothing changed."),
        (status = 404, body = ErrorBody),
        (status = 409, description = "Another course has the draft's `course_id` (someone else's, or the \
            server's): `course_id_taken`, `details.field` = `draft.course_id`.", body = ErrorBody),
        (status = 422, description = "The draft has problems (`draft_has_problems`, each with its field in \
            `details.problems`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn publish_draft(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(id): PathIds<CourseDraftId>,
) -> ApiResult<(StatusCode, Json<ImportedCourse>)> {
    let published = s.app.publish_course_draft(l.id, id).await?;
    let status = if published.changed { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(published)))
}

/// Who a course the learner published is shared with.
#[utoipa::path(get, operation_id = "author_course_shares", path = "/api/author/courses/{course_id}/shares", tag = "authoring",
    params(("course_id" = String, Path)),
    responses((status = 200, body = CourseShares),
        (status = 404, description = "No course of the learner's by that id (`not_found`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn course_shares(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(course): PathIds<String>,
) -> ApiResult<Json<CourseShares>> {
    Ok(Json(s.app.course_shares(l.id, &course).await?))
}

/// Share a course the learner published with another learner, who then lists it, opens
/// tutor threads on it and reads its outline. Sharing twice is sharing once.
#[utoipa::path(post, operation_id = "author_share_course", path = "/api/author/courses/{course_id}/shares", tag = "authoring",
    params(("course_id" = String, Path)), request_body = ShareWith,
    responses((status = 200, body = CourseShares),
        (status = 404, description = "No course of the learner's by that id, or no such learner (`not_found`).", body = ErrorBody),
        (status = 422, description = "The learner named is the owner (`invalid`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn share_course(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds(course): PathIds<String>,
    JsonBody(with): JsonBody<ShareWith>,
) -> ApiResult<Json<CourseShares>> {
    Ok(Json(s.app.share_course(l.id, &course, with.learner_id).await?))
}

/// Stop sharing a course the learner published with another learner: they no longer list
/// it or start threads on it.
#[utoipa::path(delete, operation_id = "author_unshare_course", path = "/api/author/courses/{course_id}/shares/{learner_id}",
    tag = "authoring", params(("course_id" = String, Path), ("learner_id" = LearnerId, Path)),
    responses((status = 200, body = CourseShares),
        (status = 404, description = "No course of the learner's by that id, or not shared with that learner \
            (`not_found`).", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn unshare_course(
    State(s): State<AppState>,
    Auth(l): Auth,
    PathIds((course, learner)): PathIds<(String, LearnerId)>,
) -> ApiResult<Json<CourseShares>> {
    Ok(Json(s.app.unshare_course(l.id, &course, learner).await?))
}
