//! The learning loop from the command line: teaching flows step by step, scheduled jobs,
//! analytics and the digest. Each command is one application operation for the local
//! learner (or the learner of `--token`), printed as JSON.

use crate::config::{self, Settings};
use anyhow::{Context, Result};
use clap::Subcommand;
use pathwise_app::flows::StartFlow;
use pathwise_app::scheduler::WorkerOptions;
use pathwise_app::teaching::AnswerInput;
use pathwise_app::{AnyStore, App};
use pathwise_domain::{FlowId, FlowStatus, LearnerId, MindMapId};
use serde::Serialize;

#[derive(Subcommand)]
pub enum FlowCommand {
    /// Start learning a topic: a pending flow.
    Start {
        topic: String,
        #[arg(long)]
        goal: Option<String>,
    },
    /// The learner's flows, newest first.
    List {
        #[arg(long)]
        status: Option<FlowStatus>,
    },
    /// One flow, with the question waiting for an answer.
    Show { id: FlowId },
    /// Start the diagnostic: the model lists the topic's concepts and asks the first probe.
    Diagnose { id: FlowId },
    /// Answer the waiting question (a diagnostic probe, a quiz or a review question); a
    /// choice by its index or its text. The answer is taken only for the question named,
    /// once: run again, it prints the first grade and records nothing.
    Answer {
        id: FlowId,
        answer: String,
        /// The question answered: the `question_id` the step that asked it printed.
        #[arg(long)]
        question: String,
    },
    /// End the diagnostic; its findings are kept for planning.
    CompleteDiagnostic { id: FlowId },
    /// Plan the flow's map with the model.
    Plan { id: FlowId },
    /// Explain the next concept.
    Teach { id: FlowId },
    /// Ask a question on the concept just taught.
    Quiz { id: FlowId },
    /// Ask the most overdue review.
    Review { id: FlowId },
    /// Abandon the flow, its map and its pending reviews.
    Abandon { id: FlowId },
}

#[derive(Subcommand)]
pub enum JobsCommand {
    /// The learner's pending jobs (reviews), soonest first.
    List {
        #[arg(long)]
        map: Option<MindMapId>,
    },
    /// Re-plan changed maps' reviews and run every due job once, as a server's scheduler
    /// would (for deployments that run jobs from cron instead of `serve`).
    Run,
}

#[derive(Subcommand)]
pub enum AnalyticsCommand {
    /// Store every active map's figures as today's snapshot, with the feedback re-plan
    /// (the nightly job, which keeps the history trends are drawn from).
    Nightly,
    /// A map's figures now, its snapshots of the last week, and the trend.
    Show { map: MindMapId },
    /// Every map of the learner with its figures now.
    Portfolio,
}

/// The application as `serve` builds it: store, model, notifiers.
pub async fn open_app(settings: &Settings) -> Result<App> {
    let llm = config::language_model(settings)?;
    let notifiers = pathwise_notify::build_all(&settings.notifiers).context("invalid notifiers")?;
    Ok(App::<AnyStore>::new(crate::open_store(settings).await?)
        .with_llm(llm)
        .with_notifiers(notifiers)
        .with_authoring_settings(settings.authoring()))
}

pub async fn learner(app: &App, settings: &Settings, token: Option<&str>) -> Result<LearnerId> {
    Ok(match token {
        Some(token) => app.authenticate(token).await?.id,
        None => crate::serve::local_learner(app, settings).await?.learner.id,
    })
}

fn print(value: &impl Serialize) -> Result<()> {
    crate::output::json(value)
}

pub async fn flow(settings: &Settings, token: Option<&str>, command: FlowCommand) -> Result<()> {
    let app = open_app(settings).await?;
    let me = learner(&app, settings, token).await?;
    match command {
        FlowCommand::Start { topic, goal } => {
            print(&app.flow_start(me, StartFlow { topic, goal, caller_writes_steps: None }).await?)
        }
        FlowCommand::List { status } => print(&app.flow_list(me, status, None, None).await?),
        FlowCommand::Show { id } => print(&app.flow_get(me, id).await?),
        FlowCommand::Diagnose { id } => print(&app.diagnostic_start(me, id).await?),
        FlowCommand::Answer { id, answer, question } => {
            let input = AnswerInput { answer, question_id: Some(question) };
            if app.flow_get(me, id).await?.status == FlowStatus::Diagnosing {
                print(&app.diagnostic_answer(me, id, input).await?)
            } else {
                print(&app.flow_answer(me, id, input).await?)
            }
        }
        FlowCommand::CompleteDiagnostic { id } => print(&app.diagnostic_complete(me, id).await?),
        FlowCommand::Plan { id } => print(&app.flow_plan(me, id).await?),
        FlowCommand::Teach { id } => print(&app.flow_teach(me, id).await?),
        FlowCommand::Quiz { id } => print(&app.flow_quiz(me, id).await?),
        FlowCommand::Review { id } => print(&app.flow_review(me, id).await?),
        FlowCommand::Abandon { id } => print(&app.flow_abandon(me, id).await?),
    }
}

pub async fn jobs(settings: &Settings, token: Option<&str>, command: JobsCommand) -> Result<()> {
    let app = open_app(settings).await?;
    match command {
        JobsCommand::List { map } => {
            let me = learner(&app, settings, token).await?;
            print(&app.jobs(me, map).await?)
        }
        JobsCommand::Run => {
            app.install_schedules(&settings.schedules).await.context("invalid schedules")?;
            app.review_jobs().flush().await?;
            app.review_jobs().sync_all().await?;
            let worker = settings.worker_name.clone().unwrap_or_else(|| format!("cli-{}", std::process::id()));
            let options = WorkerOptions::new(worker);
            let mut total = pathwise_app::scheduler::JobsRun::default();
            loop {
                let run = app.run_due_jobs(&options).await?;
                total.claimed += run.claimed;
                total.done += run.done;
                total.failed += run.failed;
                total.expired += run.expired;
                if (run.claimed as i64) < options.batch {
                    break;
                }
            }
            print(&total)
        }
    }
}

pub async fn analytics(settings: &Settings, token: Option<&str>, command: AnalyticsCommand) -> Result<()> {
    let app = open_app(settings).await?;
    match command {
        AnalyticsCommand::Nightly => print(&serde_json::json!({ "summary": app.nightly_analytics().await? })),
        AnalyticsCommand::Show { map } => {
            print(&app.analytics().map_analytics(learner(&app, settings, token).await?, map).await?)
        }
        AnalyticsCommand::Portfolio => print(&app.portfolio(learner(&app, settings, token).await?).await?),
    }
}

/// This week's digest; with `send`, delivered through the configured notifiers.
pub async fn digest(settings: &Settings, token: Option<&str>, send: bool) -> Result<()> {
    let app = open_app(settings).await?;
    let me = learner(&app, settings, token).await?;
    if send {
        print(&serde_json::json!({ "delivery": app.analytics().send_digest(me).await? }))
    } else {
        print(&app.analytics().digest(me).await?)
    }
}

/// The learner's history as a review log (CSV), for `pathwise srs-eval`.
pub async fn export_reviews(settings: &Settings, token: Option<&str>) -> Result<()> {
    let app = open_app(settings).await?;
    let me = learner(&app, settings, token).await?;
    crate::output::text(app.review_log(me).await?)
}

/// Bring in an Anki package (`.apkg` or `.colpkg`) with its review history, with a progress
/// bar over the answers written; prints what was brought in, left out and why.
pub async fn import_anki(settings: &Settings, token: Option<&str>, file: &std::path::Path) -> Result<()> {
    use indicatif::{ProgressBar, ProgressStyle};
    let package = std::fs::File::open(file).with_context(|| format!("opening {}", file.display()))?;
    let app = open_app(settings).await?;
    let me = learner(&app, settings, token).await?;
    let bar = ProgressBar::new_spinner().with_message(format!("reading {}", file.display()));
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    let progress = {
        let bar = bar.clone();
        move |done: pathwise_app::anki_import::ImportProgress| {
            if bar.length().is_none() {
                bar.set_style(
                    ProgressStyle::with_template("{bar:30} {pos}/{len} answers, {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.set_length(done.answers as u64);
            }
            bar.set_position(done.answers_done as u64);
            bar.set_message(format!("{}/{} decks, {}", done.decks_done, done.decks, done.doing));
        }
    };
    let imported = app.anki().import(me, std::io::BufReader::new(package), progress).await;
    bar.finish_and_clear();
    print(&imported?)
}

/// Show the learner's preferences, changing them (or fitting their FSRS parameters) first
/// when asked.
pub async fn preferences(
    settings: &Settings,
    token: Option<&str>,
    daily_review_cap: Option<String>,
    srs_scheduler: Option<pathwise_domain::SrsScheduler>,
    fit_fsrs: bool,
) -> Result<()> {
    let app = open_app(settings).await?;
    let me = learner(&app, settings, token).await?;
    if fit_fsrs {
        app.fsrs().fit(me).await?;
    }
    if daily_review_cap.is_none() && srs_scheduler.is_none() {
        return print(&app.preferences(me).await?);
    }
    let cap = match daily_review_cap.as_deref().map(str::trim) {
        None => None,
        Some("none") => Some(None),
        Some(text) => Some(Some(text.parse::<i64>().map_err(|_| {
            anyhow::anyhow!("--daily-review-cap: '{text}' is not a number; give 1-1000, or none for no limit")
        })?)),
    };
    let update = pathwise_app::preferences::UpdatePreferences { daily_review_cap: cap, srs_scheduler };
    print(&app.update_preferences(me, update).await?)
}
