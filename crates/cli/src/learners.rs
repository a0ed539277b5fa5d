//! `pathwise learners`: the operator's commands, on the configured database directly (no
//! server needed, and none stopped): each is one application operation, printed as JSON.

use crate::config::Settings;
use crate::output;
use anyhow::{Context, Result};
use clap::Subcommand;
use pathwise_app::learners::transfer::LearnerDocument;
use pathwise_app::App;
use pathwise_domain::{LearnerId, TokenId};
use std::io::Read;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum LearnersCommand {
    /// Every learner with when they were last active and their tokens in force.
    List {
        /// How many to skip (default 0).
        #[arg(long)]
        offset: Option<i64>,
        /// How many to print (default 50, at most 500).
        #[arg(long)]
        limit: Option<i64>,
    },
    /// Create a learner and print their id and first token (named `default`), shown only this once.
    Create { name: String },
    /// A learner's tokens, revoked ones included (never the tokens themselves).
    Tokens { learner: LearnerId },
    /// Issue a learner another token, named; it is printed only this once.
    TokenCreate {
        learner: LearnerId,
        /// What the token is for (`laptop`, `assistant`).
        #[arg(long)]
        name: String,
    },
    /// Revoke one of a learner's tokens: requests with it are refused, saying it was revoked.
    TokenRevoke { learner: LearnerId, token: TokenId },
    /// Replace a token with a new one of the same name, revoking the old one at once.
    TokenRotate { learner: LearnerId, token: TokenId },
    /// Delete a learner and everything that is theirs; their open sessions are ended first.
    Delete { learner: LearnerId },
    /// Everything about a learner as one JSON document, for `learners import` on another server.
    Export {
        learner: LearnerId,
        /// Write the document here rather than to standard output (the file is made private).
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Write a learner's document into this database under the same ids; `-` reads standard input.
    Import { file: PathBuf },
}

pub async fn run(settings: &Settings, command: LearnersCommand) -> Result<()> {
    let app = App::new(crate::open_store(settings).await?);
    match command {
        LearnersCommand::List { offset, limit } => output::json(&app.list_learners(offset, limit).await?),
        LearnersCommand::Create { name } => {
            let created = app.create_learner(&name).await?;
            output::line(
                serde_json::json!({ "id": created.learner.id, "name": created.learner.name, "token": created.token }),
            )
        }
        LearnersCommand::Tokens { learner } => output::json(&app.learner_tokens(learner).await?),
        LearnersCommand::TokenCreate { learner, name } => output::json(&app.create_token(learner, &name).await?),
        LearnersCommand::TokenRevoke { learner, token } => output::json(&app.revoke_token(learner, token).await?),
        LearnersCommand::TokenRotate { learner, token } => output::json(&app.rotate_token(learner, token).await?),
        LearnersCommand::Delete { learner } => output::json(&app.delete_learner(learner).await?),
        LearnersCommand::Export { learner, output: file } => {
            let document = app.export_learner(learner).await?;
            match file {
                Some(path) => {
                    let text = serde_json::to_vec_pretty(&document)?;
                    // It holds the learner's token hashes and all their work: theirs and the operator's only.
                    write_private(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
                    output::line(serde_json::json!({ "id": learner, "written": path }))
                }
                None => output::json(&document),
            }
        }
        LearnersCommand::Import { file } => {
            let mut text = String::new();
            if file.as_os_str() == "-" {
                std::io::stdin().read_to_string(&mut text).context("cannot read standard input")?;
            } else {
                text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            }
            let document = LearnerDocument::from_json(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let imported =
                app.import_learner(&document).await.map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            output::json(&imported)
        }
    }
}

/// Write a file only its owner may read (made so before anything is written to it).
fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    // A file that was there keeps its mode through `open`: take the others' access away.
    #[cfg(unix)]
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    file.write_all(bytes)?;
    file.sync_all()
}
