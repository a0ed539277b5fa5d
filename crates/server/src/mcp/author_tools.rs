//! The tools of a learner's own material: ingest a file (by path on the server's machine,
//! under its `ingest_dir`, or as text), list the documents, read one with its chunks and
//! their citations, remove one; draft a course's outline from them, read it with its
//! problems, edit it, export it as a course pack. Each calls one application operation, as
//! over HTTP.

use super::args::{CourseArg, DocumentArg, DraftArg, Nothing, With};
use super::registry::{tool, Effect::Reads, Effect::Writes, ToolSpec};
use pathwise_app::authoring::{DraftEdit, DraftSummary, DraftUnits, IngestedDocument, NewDraft, SourceDocument};
use pathwise_app::AppError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A file to ingest: a `path` on the server's machine, or a `name` and its `text`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestInput {
    /// A file or folder under the server's ingest_dir (relative paths are from it).
    #[schemars(length(min = 1, max = 4096))]
    pub path: Option<String>,
    /// The document's name, with the extension that says its format (`notes.md`,
    /// `chapter.txt`, `page.html`); with `text`.
    #[schemars(length(min = 1, max = 300))]
    pub name: Option<String>,
    /// The document's text (Markdown, plain text or HTML); with `name`.
    #[schemars(length(min = 1))]
    pub text: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct Ingested {
    /// One per file, in name order.
    pub documents: Vec<IngestedDocument>,
}

#[derive(Serialize, JsonSchema)]
pub struct Documents {
    pub documents: Vec<SourceDocument>,
}

#[derive(Serialize, JsonSchema)]
pub struct Removed {
    pub removed: pathwise_domain::SourceDocumentId,
}

#[derive(Serialize, JsonSchema)]
pub struct Drafts {
    pub drafts: Vec<DraftSummary>,
}

#[derive(Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct ExportInput {
    /// `toml` (the default) or `json`.
    pub format: Option<FormatName>,
}

#[derive(Deserialize, Serialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "lowercase")]
pub enum FormatName {
    #[default]
    Toml,
    Json,
}

impl From<FormatName> for pathwise_course::PackFormat {
    fn from(name: FormatName) -> Self {
        match name {
            FormatName::Toml => pathwise_course::PackFormat::Toml,
            FormatName::Json => pathwise_course::PackFormat::Json,
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct Exported {
    pub format: FormatName,
    /// The course pack's text, which `pathwise import-course --check` accepts.
    pub pack: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareInput {
    /// The other learner's id.
    pub learner_id: pathwise_domain::LearnerId,
}

#[derive(Serialize, JsonSchema)]
pub struct DraftRemoved {
    pub removed: pathwise_domain::CourseDraftId,
}

pub fn all() -> Vec<ToolSpec> {
    vec![
        tool(
            "author_ingest",
            "Ingest the learner's own material into chunks that cite their file, page and headings: either \
             `path` (a Markdown, text, HTML or PDF file, or a folder of them, under the server's ingest_dir) or \
             `name` with `text`. A file ingested again is updated, keeping the chunks it still has; every file \
             is checked before any is stored.",
            Writes,
            |app, l, input: IngestInput| async move {
                let documents = match (input.path, input.name, input.text) {
                    (Some(path), None, None) => app.documents().ingest_path(l, Path::new(&path), &|_, _, _| {}).await?,
                    (None, Some(name), Some(text)) => vec![app.documents().ingest(l, &name, text.into_bytes()).await?],
                    _ => {
                        return Err(AppError::invalid(
                            "path",
                            "give either path (a file or folder under the server's ingest_dir) or name and text",
                        ))
                    }
                };
                Ok(Ingested { documents })
            },
        ),
        tool(
            "author_documents",
            "The learner's ingested documents, by name: format, title, pages, how many chunks.",
            Reads,
            |app, l, _: Nothing| async move { Ok(Documents { documents: app.documents().list(l).await? }) },
        ),
        tool(
            "author_document_get",
            "One of the learner's documents with its chunks in order, each with its headings, page and citation.",
            Reads,
            |app, l, a: With<DocumentArg, Nothing>| async move { app.documents().get(l, a.id).await },
        ),
        tool(
            "author_document_delete",
            "Remove one of the learner's documents with its chunks.",
            Writes,
            |app, l, a: With<DocumentArg, Nothing>| async move {
                app.documents().delete(l, a.id).await?;
                Ok(Removed { removed: a.id })
            },
        ),
        tool(
            "author_draft_outline",
            "Draft a course's outline from the learner's documents (all of them, or `documents` in the order the \
             course takes them): a unit per section of their headings, each the prerequisite of the next, its \
             anchor the section's first sentence, its passages cited by file, page and headings. The draft is \
             the author's to review and edit (author_draft_edit); it lists its problems on every read.",
            Writes,
            |app, l, input: NewDraft| async move { app.draft_course(l, input).await },
        ),
        tool(
            "author_drafts",
            "The learner's course drafts, most recently edited first.",
            Reads,
            |app, l, _: Nothing| async move { Ok(Drafts { drafts: app.course_drafts(l).await? }) },
        ),
        tool(
            "author_draft_get",
            "A course draft with its problems (each with its field, e.g. units[2].chunks) and the passages its \
             units cover, each with its citation.",
            Reads,
            |app, l, a: With<DraftArg, Nothing>| async move { app.course_draft(l, a.id).await },
        ),
        tool(
            "author_draft_edit",
            "Replace a course draft with an edit of it: the whole `draft` (as author_draft_get gave it, changed) \
             and the `version` it was read at. Units may be renamed, reordered, merged, split (moving passage ids \
             between them), removed, or given other prerequisites. An edit made from an old version is refused \
             (version_conflict): read the draft again and redo it.",
            Writes,
            |app, l, a: With<DraftArg, DraftEdit>| async move { app.edit_course_draft(l, a.id, a.input).await },
        ),
        tool(
            "author_draft_units",
            "Draft units' exam questions (bronze to gold) and drills from their passages, each a sentence of the \
             material with a key term to fill in, citing its passage: every unit without any, or `units` (theirs \
             replaced). `version` as for author_draft_edit.",
            Writes,
            |app, l, a: With<DraftArg, DraftUnits>| async move { app.draft_units(l, a.id, a.input).await },
        ),
        tool(
            "author_draft_export",
            "A course draft written out as a course pack (TOML by default) that the operator can check and import \
             (pathwise import-course); a draft with problems is refused with them.",
            Reads,
            |app, l, a: With<DraftArg, ExportInput>| async move {
                let format = a.input.format.unwrap_or_default();
                Ok(Exported { format, pack: app.export_course_draft(l, a.id, format.into()).await? })
            },
        ),
        tool(
            "author_draft_delete",
            "Remove one of the learner's course drafts.",
            Writes,
            |app, l, a: With<DraftArg, Nothing>| async move {
                app.delete_course_draft(l, a.id).await?;
                Ok(DraftRemoved { removed: a.id })
            },
        ),
        tool(
            "author_draft_publish",
            "Publish a course draft without problems as a course of the learner's: the tutor, sessions, maps \
             and the course tools see it like a shipped course, and so do the learners it is shared with. \
             Publishing again replaces it; a course_id someone else holds is refused (course_id_taken).",
            Writes,
            |app, l, a: With<DraftArg, Nothing>| async move { app.publish_course_draft(l, a.id).await },
        ),
        tool(
            "author_course_shares",
            "Who a course the learner published is shared with.",
            Reads,
            |app, l, a: With<CourseArg, Nothing>| async move { app.course_shares(l, &a.id).await },
        ),
        tool(
            "author_course_share",
            "Share a course the learner published with another learner (by learner id), who then lists it and \
             opens tutor threads on it.",
            Writes,
            |app, l, a: With<CourseArg, ShareInput>| async move { app.share_course(l, &a.id, a.input.learner_id).await },
        ),
        tool(
            "author_course_unshare",
            "Stop sharing a course the learner published with another learner.",
            Writes,
            |app, l, a: With<CourseArg, ShareInput>| async move { app.unshare_course(l, &a.id, a.input.learner_id).await },
        ),
    ]
}
