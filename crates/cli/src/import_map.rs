//! `pathwise import-map FILE`: a map from a file the learner wrote, with no language model.
//! A `.json` file holds a decomposition (as `POST /api/curriculum/generate` takes it); a
//! Markdown outline (`.md`, `.markdown`, `.txt`) holds headings or a nested list (as
//! `POST /api/mind-maps/outline` takes it). The file is read whole before anything is
//! written, so a bad one creates no local learner.

use crate::config::Settings;
use anyhow::{bail, Context, Result};
use pathwise_app::curriculum::{parse_json, GenerateInput, ImportOutline};
use pathwise_app::{App, AppError, ErrorCode};
use pathwise_domain::curriculum::OnExisting;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ImportMapFlags {
    /// The file: a decomposition (.json) or an outline (.md, .markdown, .txt).
    file: PathBuf,
    /// Import for the learner with this API token instead of the local learner.
    #[arg(long, env = "PATHWISE_TOKEN")]
    token: Option<String>,
    /// An outline's map title; its first heading or item by default.
    #[arg(long)]
    title: Option<String>,
    /// When the learner has a map for this topic already: refuse (the default), new (keep
    /// both) or replace (delete it, with its progress, and import this one).
    #[arg(long)]
    on_existing: Option<OnExisting>,
}

/// What the file asks for.
enum Import {
    Decomposition(GenerateInput),
    Outline(ImportOutline),
}

pub async fn run(settings: &Settings, flags: ImportMapFlags) -> Result<()> {
    let shown = flags.file.display();
    let is_outline = match flags.file.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("json") => false,
        Some("md" | "markdown" | "txt") => true,
        _ => bail!("{shown}: import-map reads a decomposition (.json) or an outline (.md, .markdown or .txt)"),
    };
    let text = std::fs::read_to_string(&flags.file).with_context(|| format!("cannot read {shown}"))?;
    let import = if is_outline {
        pathwise_domain::outline::parse(&text).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
        Import::Outline(ImportOutline {
            outline: text,
            title: flags.title,
            on_existing: flags.on_existing.unwrap_or_default(),
        })
    } else {
        let mut input: GenerateInput = parse_json(&text).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
        if input.decomposition.is_none() {
            bail!(
                "{shown}: decomposition: missing; import-map plans the concept graph given in the file (root, nodes, \
                 edges), or an outline in a .md file"
            );
        }
        if flags.title.is_some() {
            bail!("--title is for outlines; a decomposition file names its map with `topic`");
        }
        if let Some(on_existing) = flags.on_existing {
            input.on_existing = on_existing;
        }
        Import::Decomposition(input)
    };
    let app = App::new(crate::open_store(settings).await?);
    let learner = match flags.token {
        Some(token) => app.authenticate(&token).await?,
        None => crate::serve::local_learner(&app, settings).await?.learner,
    };
    let summary = match import {
        Import::Decomposition(input) => app.curriculum_generate(learner.id, input).await,
        Import::Outline(input) => app.import_outline(learner.id, input).await,
    }
    .map_err(|e| anyhow::anyhow!("{shown}: {}", for_the_command_line(e)))?;
    crate::output::json(&summary)
}

/// The refusal, with the flag that answers it where the message names a field.
fn for_the_command_line(error: AppError) -> String {
    if error.code == ErrorCode::MapExists {
        format!("{} (here: --on-existing replace, or --on-existing new)", error.message)
    } else {
        error.message
    }
}
