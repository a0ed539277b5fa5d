//! `pathwise course`: the operator's commands on the configured database's courses: a
//! pack written out, a learner's course shared with another learner or no longer.

use crate::config::Settings;
use anyhow::{Context, Result};
use clap::Subcommand;
use pathwise_app::App;
use pathwise_course::PackFormat;
use pathwise_domain::LearnerId;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum CourseCommand {
    /// Write a course's pack (a shipped course's own TOML source, or an imported course as
    /// stored) to edit and import again with `import-course`. It holds the exam bank's keys.
    Export {
        /// The course's id, as `GET /api/courses` lists it (e.g. MATH-FOUNDATIONS).
        id: String,
        /// Write the pack here rather than to standard output; its format follows the
        /// extension (.toml or .json) unless `--format` says otherwise.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// `toml` (the default) or `json`.
        #[arg(long)]
        format: Option<String>,
    },
    /// Let a learner see another learner's published course (ids from `pathwise learners
    /// list` and `GET /api/courses`).
    Share { id: String, learner_id: LearnerId },
    /// Stop letting a learner see another learner's published course.
    Unshare { id: String, learner_id: LearnerId },
}

pub async fn run(settings: &Settings, command: CourseCommand) -> Result<()> {
    match command {
        CourseCommand::Share { id, learner_id } => {
            let app = App::new(crate::open_store(settings).await?);
            crate::output::json(&app.operator_share_course(&id, learner_id).await.map_err(|e| anyhow::anyhow!("{e}"))?)
        }
        CourseCommand::Unshare { id, learner_id } => {
            let app = App::new(crate::open_store(settings).await?);
            let shares = app.operator_unshare_course(&id, learner_id).await.map_err(|e| anyhow::anyhow!("{e}"))?;
            crate::output::json(&shares)
        }
        CourseCommand::Export { id, output, format } => {
            let format = pack_format(format.as_deref(), output.as_ref())?;
            let (library, _) = crate::serve::item_library(&settings.item_packs)?;
            let app = App::new(crate::open_store(settings).await?).with_library(library);
            // A database no server has started on yet still knows the shipped courses.
            app.install_builtin_courses().await.context("cannot install the shipped courses")?;
            let text = app.course_pack_text(&id, format).await.map_err(|e| anyhow::anyhow!("{e}"))?;
            match output {
                Some(path) => {
                    std::fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
                    crate::output::line(serde_json::json!({ "id": id, "written": path }))
                }
                None => {
                    use std::io::Write;
                    let mut out = std::io::stdout().lock();
                    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(anyhow::Error::from)
                }
            }
        }
    }
}

/// `--format`, else the output file's extension, else TOML.
fn pack_format(flag: Option<&str>, output: Option<&PathBuf>) -> Result<PackFormat> {
    match flag.map(str::to_ascii_lowercase).as_deref() {
        Some("toml") => Ok(PackFormat::Toml),
        Some("json") => Ok(PackFormat::Json),
        Some(other) => anyhow::bail!("--format: '{other}' is not a format; allowed: toml, json"),
        None => Ok(output.and_then(|p| PackFormat::from_path(&p.to_string_lossy())).unwrap_or(PackFormat::Toml)),
    }
}
