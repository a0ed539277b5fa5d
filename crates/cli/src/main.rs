//! `pathwise`: the adaptive tutoring engine's one binary.

// Every command prints through `output`, which ends quietly when its reader has gone.
#![deny(clippy::print_stdout)]

mod author;
#[cfg(feature = "bench")]
mod bench;
mod cat_sim;
mod config;
mod course;
mod import_map;
mod learn;
mod learners;
mod mcp;
mod model_check;
mod output;
mod serve;
mod srs_eval;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use config::{Settings, StoreFlags};
use pathwise_app::{AnyStore, App};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "pathwise", version, about = "Pathwise: a self-hosted adaptive tutoring engine")]
struct Cli {
    /// Config file (TOML); ./pathwise.toml is read when present. PATHWISE_CONFIG works too.
    #[arg(long, global = true, env = "PATHWISE_CONFIG")]
    config: Option<PathBuf>,
    #[command(flatten)]
    store: StoreFlags,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server (default http://127.0.0.1:8080, SQLite in ./data), with MCP at /mcp.
    Serve(serve::ServeFlags),
    /// Serve MCP over stdio for an assistant (Claude Desktop, an IDE agent); logs go to stderr.
    Mcp {
        /// Act for the learner with this API token instead of the local learner.
        #[arg(long, env = "PATHWISE_TOKEN")]
        token: Option<String>,
    },
    /// Create or upgrade the database schema, then exit.
    Migrate,
    /// Copy the SQLite database to a new file while the server runs (SQLite's online
    /// backup: the database as of one moment). For PostgreSQL, use pg_dump.
    Backup {
        /// The file to write; it must not exist.
        destination: PathBuf,
    },
    /// Put a backup in place of the SQLite database; refused, naming the process, while a
    /// server (or any process) has the database open: stop it first.
    Restore {
        /// A file `pathwise backup` wrote.
        backup: PathBuf,
    },
    /// Plan a new mind map from a file: a decomposition (JSON: topic, goal?, diagnostic_results?,
    /// decomposition, on_existing?) or an outline (Markdown: headings or a nested list, the
    /// first heading or item being the topic). No language model is needed.
    ImportMap(import_map::ImportMapFlags),
    /// Check a course pack (TOML or JSON: units, prerequisites, anchors, content, exam bank,
    /// blueprints) and store it; every problem is reported with its field and line, and
    /// nothing is stored unless there are none.
    ImportCourse {
        /// The pack; its format comes from its extension (.toml or .json).
        file: PathBuf,
        /// Only check the pack; store nothing.
        #[arg(long)]
        check: bool,
    },
    /// The operator's commands on courses: export a course's pack (the shipped ones too),
    /// share a learner's published course with another learner or stop sharing it.
    Course {
        #[command(subcommand)]
        command: course::CourseCommand,
    },
    /// Create a learner and print their API token (the same as `learners create`).
    CreateLearner { name: String },
    /// The operator's commands on the configured database: list learners with their last
    /// activity, create, issue, revoke and rotate named tokens, delete a learner with
    /// everything that is theirs, export a learner as one JSON document and import it.
    Learners {
        #[command(subcommand)]
        command: learners::LearnersCommand,
    },
    /// Measure throughput and latency; prints one JSON object per line.
    #[cfg(feature = "bench")]
    Bench(bench::BenchFlags),
    /// Measure throughput and latency (in a build with `--features bench`).
    #[cfg(not(feature = "bench"))]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
    /// Teaching flows step by step: start, diagnose, answer, plan, teach, quiz, review.
    Flow {
        #[command(subcommand)]
        command: learn::FlowCommand,
        /// Act for the learner with this API token instead of the local learner.
        #[arg(long, env = "PATHWISE_TOKEN", global = true)]
        token: Option<String>,
    },
    /// The learner's own material: ingest files and folders (Markdown, text, HTML, PDF) into
    /// chunks that cite their source, list them, show them, remove them.
    Author {
        #[command(subcommand)]
        command: author::AuthorCommand,
        /// Act for the learner with this API token instead of the local learner.
        #[arg(long, env = "PATHWISE_TOKEN", global = true)]
        token: Option<String>,
    },
    /// Scheduled jobs: list the learner's, or run every due one once.
    Jobs {
        #[command(subcommand)]
        command: learn::JobsCommand,
        #[arg(long, env = "PATHWISE_TOKEN", global = true)]
        token: Option<String>,
    },
    /// Learning analytics, live: a map's figures and trend, the portfolio; the nightly snapshot now.
    Analytics {
        #[command(subcommand)]
        command: learn::AnalyticsCommand,
        #[arg(long, env = "PATHWISE_TOKEN", global = true)]
        token: Option<String>,
    },
    /// This week's learning digest; --send delivers it through the configured notifiers.
    Digest {
        #[arg(long)]
        send: bool,
        #[arg(long, env = "PATHWISE_TOKEN")]
        token: Option<String>,
    },
    /// Show the learner's preferences (with the FSRS parameters in use and how well they
    /// predict the learner), or change them.
    Preferences {
        /// Reviews a day at most (1-1000), or `none` for no limit.
        #[arg(long)]
        daily_review_cap: Option<String>,
        /// Which scheduler spaces reviews: sm2 (the default) or fsrs.
        #[arg(long)]
        srs_scheduler: Option<pathwise_domain::SrsScheduler>,
        /// Fit the learner's FSRS parameters on their reviews now (a weekly job also does).
        #[arg(long)]
        fit_fsrs: bool,
        #[arg(long, env = "PATHWISE_TOKEN")]
        token: Option<String>,
    },
    /// Bring in an Anki package (.apkg deck or .colpkg collection, any format Anki writes):
    /// a map per deck, a concept per card, the review history with its real times and
    /// grades; again later to add what is new. Prints what was brought in, skipped and why.
    ImportAnki {
        /// The package Anki exported (File > Export).
        file: std::path::PathBuf,
        #[arg(long, env = "PATHWISE_TOKEN")]
        token: Option<String>,
    },
    /// Print the learner's history as a review log (CSV: item_id,timestamp,grade,rating) for srs-eval.
    ExportReviews {
        #[arg(long, env = "PATHWISE_TOKEN")]
        token: Option<String>,
    },
    /// Compare SM-2 and FSRS on a review log (CSV: item_id,timestamp,grade[,rating]) and print log loss, RMSE (bins) and AUC.
    SrsEval(srs_eval::SrsEvalFlags),
    /// The configured language model, tried: `model check` runs tutor turns and teaching
    /// flows against it on a scratch database and prints how many replies were valid.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// Simulate adaptive tests (IRT) on an item bank at known abilities, or on a generated one
    /// (--generate, --compare for every selection rule); prints bias, RMSE and SE after 5-30 items.
    CatSim(cat_sim::CatSimFlags),
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Tutor turns, diagnostic inventory, free-text grading, curriculum generation, teaching
    /// and question writing against the configured model: per operation, the replies that
    /// were valid, those that fell back or failed (by reason), the median and longest wait.
    Check(model_check::CheckFlags),
}

#[derive(Serialize)]
struct StoreOverrides<'a>(&'a StoreFlags);

/// The SQLite database the settings name; PostgreSQL has tools of its own for `what`.
fn sqlite_database(settings: &Settings, what: &str) -> Result<PathBuf> {
    match pathwise_store::Location::of(settings.database_url.as_deref(), &settings.data_dir)? {
        pathwise_store::Location::Sqlite(path) => Ok(path),
        pathwise_store::Location::Postgres(_) => anyhow::bail!(
            "pathwise {what} works on SQLite; this server uses PostgreSQL, whose own tools do it consistently \
             while it runs: pg_dump --format=custom --file=pathwise.dump \"$DATABASE_URL\" to back up, \
             pg_restore --clean --if-exists --dbname=\"$DATABASE_URL\" pathwise.dump to restore (see the README)"
        ),
    }
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("PATHWISE_LOG")
        .unwrap_or_else(|_| "pathwise=info,tower_http=warn,sqlx=warn,rmcp=warn,info".into());
    // The log format is a setting like any other (file, PATHWISE_LOG_FORMAT); settings that
    // do not load are reported by the command itself, in the default format.
    let format = config::load(cli.config.as_deref(), &StoreOverrides(&cli.store)).map(|s| s.log_format);
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format.unwrap_or_default() {
        // One JSON object per line, with the span (a request's id, a job's) on each event.
        config::LogFormat::Json => logs.json().with_current_span(true).with_span_list(false).init(),
        config::LogFormat::Text => logs.with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())).init(),
    }
    if let Err(error) = run(cli).await {
        // A reader that stopped reading (`| head`) took all it wanted: not a failure.
        if output::is_closed_output(&error) {
            return;
        }
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "error: {error:#}");
        std::process::exit(1);
    }
}

async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Serve(flags) => {
            let settings = config::load(cli.config.as_deref(), &serve::Overrides { store: &cli.store, serve: &flags })?;
            serve::run(settings).await
        }
        Command::Mcp { token } => mcp::run(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref()).await,
        Command::Backup { destination } => {
            let settings = config::load(cli.config.as_deref(), &StoreOverrides(&cli.store))?;
            let database = sqlite_database(&settings, "backup")?;
            let shown = destination.display().to_string();
            let copied =
                tokio::task::spawn_blocking(move || pathwise_store::sqlite_backup::backup(&database, &destination))
                    .await??;
            output::line(serde_json::json!({ "backup": shown, "pages": copied.pages, "bytes": copied.bytes }))
        }
        Command::Restore { backup } => {
            let settings = config::load(cli.config.as_deref(), &StoreOverrides(&cli.store))?;
            let database = sqlite_database(&settings, "restore")?;
            let shown = database.display().to_string();
            let copied =
                tokio::task::spawn_blocking(move || pathwise_store::sqlite_backup::restore(&backup, &database))
                    .await??;
            output::line(serde_json::json!({ "restored": shown, "pages": copied.pages, "bytes": copied.bytes }))
        }
        Command::Migrate => {
            let settings = config::load(cli.config.as_deref(), &StoreOverrides(&cli.store))?;
            let store = open_store(&settings).await?;
            output::line(format_args!("the {} database is up to date", pathwise_app::Store::engine(&store)))
        }
        Command::ImportMap(flags) => {
            import_map::run(&config::load(cli.config.as_deref(), &StoreOverrides(&cli.store))?, flags).await
        }
        Command::ImportCourse { file, check } => {
            let settings = config::load(cli.config.as_deref(), &StoreOverrides(&cli.store))?;
            let shown = file.display();
            let format = pathwise_course::PackFormat::from_path(&file.to_string_lossy())
                .with_context(|| format!("{shown}: a course pack's file name ends in .toml or .json"))?;
            let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {shown}"))?;
            let (library, _) = serve::item_library(&settings.item_packs)?;
            if check {
                let course = pathwise_course::Course::parse(&text, format, &library)
                    .map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
                return output::line(
                    serde_json::json!({ "id": course.id(), "title": course.title(), "units": course.units().len(),
                        "exam_questions": course.questions().len(), "content_chunks": course.chunks().len(), "stored": false }),
                );
            }
            let app = App::new(open_store(&settings).await?).with_library(library);
            let imported = app.import_course(&text, format).await.map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
            output::json(&imported)
        }
        Command::Course { command } => course::run(&settings_for(&cli.store, cli.config.as_deref())?, command).await,
        Command::CreateLearner { name } => {
            let settings = config::load(cli.config.as_deref(), &StoreOverrides(&cli.store))?;
            learners::run(&settings, learners::LearnersCommand::Create { name }).await
        }
        Command::Learners { command } => {
            learners::run(&settings_for(&cli.store, cli.config.as_deref())?, command).await
        }
        #[cfg(feature = "bench")]
        Command::Bench(flags) => bench::run(flags).await,
        #[cfg(not(feature = "bench"))]
        Command::Bench { .. } => anyhow::bail!(
            "this pathwise was built without its benchmarks; build them with \
             `cargo build --release -p pathwise --features bench` (BENCHMARKS.md says more)"
        ),
        Command::Flow { command, token } => {
            learn::flow(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref(), command).await
        }
        Command::Author { command, token } => {
            author::run(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref(), command).await
        }
        Command::Jobs { command, token } => {
            learn::jobs(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref(), command).await
        }
        Command::Analytics { command, token } => {
            learn::analytics(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref(), command).await
        }
        Command::Preferences { daily_review_cap, srs_scheduler, fit_fsrs, token } => {
            let settings = settings_for(&cli.store, cli.config.as_deref())?;
            learn::preferences(&settings, token.as_deref(), daily_review_cap, srs_scheduler, fit_fsrs).await
        }
        Command::ImportAnki { file, token } => {
            learn::import_anki(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref(), &file).await
        }
        Command::ExportReviews { token } => {
            learn::export_reviews(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref()).await
        }
        Command::Digest { send, token } => {
            learn::digest(&settings_for(&cli.store, cli.config.as_deref())?, token.as_deref(), send).await
        }
        Command::SrsEval(flags) => srs_eval::run(flags),
        Command::CatSim(flags) => cat_sim::run(flags),
        Command::Model { command: ModelCommand::Check(flags) } => {
            model_check::run(&settings_for(&cli.store, cli.config.as_deref())?, flags).await
        }
    }
}

fn settings_for(store: &StoreFlags, config_file: Option<&std::path::Path>) -> Result<Settings> {
    config::load(config_file, &StoreOverrides(store))
}

pub async fn open_store(settings: &Settings) -> Result<AnyStore> {
    AnyStore::open(settings.database_url.as_deref(), &settings.data_dir, settings.max_connections)
        .await
        .context("cannot open the database")
}
