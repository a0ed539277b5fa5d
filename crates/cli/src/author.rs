//! A learner's own material from the command line: files and folders ingested into chunks
//! that keep where they came from, listed, shown with their citations, removed; course
//! drafts made from them, shown with their problems, edited as a file, exported as a course
//! pack. The files are read here, on the machine the command runs on, for the local learner
//! (or the learner of `--token`).

use crate::config::Settings;
use crate::learn::{learner, open_app};
use anyhow::{Context, Result};
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use pathwise_app::authoring::documents::files_under;
use pathwise_app::authoring::{DraftEdit, DraftUnits, NewDraft};
use pathwise_course::PackFormat;
use pathwise_domain::{CourseDraftId, LearnerId, SourceDocumentId};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum AuthorCommand {
    /// Read Markdown (.md), plain text (.txt), HTML (.html) and PDF (.pdf) files, or folders
    /// of them, into the learner's material: each split on its headings and paragraphs into
    /// chunks that keep their file, page and headings. A file ingested again is updated,
    /// keeping the chunks it still has; all files are checked before any is stored.
    Ingest {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// The learner's documents.
    Documents,
    /// One document's chunks, each with its citation.
    Show { id: SourceDocumentId },
    /// Remove a document and its chunks.
    Remove { id: SourceDocumentId },
    /// Draft a course's outline from the learner's documents (all, or those named, in that
    /// order): a unit per section of their headings, each the prerequisite of the next.
    /// Prints the draft with its problems; edit it with `author edit`.
    Draft {
        /// The course's title; its id is made from it.
        #[arg(long)]
        title: String,
        /// A document to draft from (repeat for several); every document when left out.
        #[arg(long = "document")]
        documents: Vec<SourceDocumentId>,
        /// Have the configured language model group the sections into units and order them
        /// (checked; if it fails twice, the headings' outline stands).
        #[arg(long = "model")]
        use_model: bool,
    },
    /// The learner's course drafts.
    Drafts,
    /// A course draft with its problems and the passages its units cover.
    DraftShow { id: CourseDraftId },
    /// Replace a course draft with FILE: what `author draft-show` printed, edited (its
    /// `version` and `draft` are read; an edit of an old version is refused).
    Edit { id: CourseDraftId, file: PathBuf },
    /// Draft the units' exam questions (bronze, silver, gold) and drills from their passages:
    /// each a sentence of the unit's material with a key term to fill in, citing it. Every
    /// unit without any yet, or those named (their earlier ones replaced).
    DraftUnits {
        id: CourseDraftId,
        /// A unit to draft (repeat for several).
        #[arg(long = "unit")]
        units: Vec<String>,
        /// Have the configured language model write them (each proposal checked; a unit
        /// whose proposals are refused twice is drafted from its material). `author
        /// draft-show` gives `model_estimate`, the calls and tokens it takes.
        #[arg(long = "model")]
        use_model: bool,
    },
    /// Write a course draft out as a course pack (TOML unless `--format json`), which
    /// `pathwise import-course --check` accepts; a draft with problems is refused with them.
    Export {
        id: CourseDraftId,
        #[arg(long, value_parser = ["toml", "json"], default_value = "toml")]
        format: String,
    },
    /// Remove a course draft.
    DraftRemove { id: CourseDraftId },
    /// Publish a course draft without problems as a course of the learner's, which the tutor,
    /// sessions, maps and MCP see; publishing again replaces it.
    Publish { id: CourseDraftId },
    /// Share a course the learner published with another learner (ids from `pathwise
    /// learners list`).
    Share { course_id: String, learner_id: LearnerId },
    /// Stop sharing a course the learner published with another learner.
    Unshare { course_id: String, learner_id: LearnerId },
    /// Who a course the learner published is shared with.
    Shares { course_id: String },
}

pub async fn run(settings: &Settings, token: Option<&str>, command: AuthorCommand) -> Result<()> {
    let app = open_app(settings).await?;
    let me = learner(&app, settings, token).await?;
    match command {
        AuthorCommand::Ingest { paths } => {
            let max_files = app.authoring_settings().max_files;
            let mut files = Vec::new();
            for path in &paths {
                files.extend(files_under(path, max_files)?);
            }
            let bar = ProgressBar::new(files.len() as u64).with_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            let progress = {
                let bar = bar.clone();
                move |done: usize, _total: usize, name: &str| {
                    bar.set_position(done as u64);
                    bar.set_message(name.to_string());
                }
            };
            let ingested = app.documents().ingest_files(me, &files, &progress).await;
            bar.finish_and_clear();
            crate::output::json(&ingested?)
        }
        AuthorCommand::Documents => crate::output::json(&app.documents().list(me).await?),
        AuthorCommand::Show { id } => crate::output::json(&app.documents().get(me, id).await?),
        AuthorCommand::Remove { id } => {
            app.documents().delete(me, id).await?;
            crate::output::json(&serde_json::json!({ "removed": id }))
        }
        AuthorCommand::Draft { title, documents, use_model } => {
            let documents = (!documents.is_empty()).then_some(documents);
            crate::output::json(&app.draft_course(me, NewDraft { title, documents, use_model }).await?)
        }
        AuthorCommand::Drafts => crate::output::json(&app.course_drafts(me).await?),
        AuthorCommand::DraftShow { id } => crate::output::json(&app.course_draft(me, id).await?),
        AuthorCommand::Edit { id, file } => {
            let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
            // What `author draft-show` printed, changed: its `version` and `draft` are the edit.
            let shown: serde_json::Value =
                serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
            let edit = serde_json::json!({ "version": shown["version"], "draft": shown["draft"] });
            let edit: DraftEdit = serde_json::from_value(edit).with_context(|| {
                format!(
                    "{}: not a draft (JSON with `version` and `draft`, as author draft-show prints)",
                    file.display()
                )
            })?;
            crate::output::json(&app.edit_course_draft(me, id, edit).await?)
        }
        AuthorCommand::DraftUnits { id, units, use_model } => {
            let version = app.course_draft(me, id).await?.version;
            crate::output::json(&app.draft_units(me, id, DraftUnits { version, units, use_model }).await?)
        }
        AuthorCommand::Export { id, format } => {
            let format = if format == "json" { PackFormat::Json } else { PackFormat::Toml };
            crate::output::text(app.export_course_draft(me, id, format).await?)
        }
        AuthorCommand::DraftRemove { id } => {
            app.delete_course_draft(me, id).await?;
            crate::output::json(&serde_json::json!({ "removed": id }))
        }
        AuthorCommand::Publish { id } => crate::output::json(&app.publish_course_draft(me, id).await?),
        AuthorCommand::Share { course_id, learner_id } => {
            crate::output::json(&app.share_course(me, &course_id, learner_id).await?)
        }
        AuthorCommand::Unshare { course_id, learner_id } => {
            crate::output::json(&app.unshare_course(me, &course_id, learner_id).await?)
        }
        AuthorCommand::Shares { course_id } => crate::output::json(&app.course_shares(me, &course_id).await?),
    }
}
