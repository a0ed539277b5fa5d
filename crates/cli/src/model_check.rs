//! `pathwise model check`: a fixed set of calls against the configured model, on a scratch
//! SQLite database (the server's own data is not touched), and a table of how it went per
//! operation: replies that were valid, those that fell back or failed (with their reason
//! codes), and the median and longest wait.
//!
//! The calls are the ones learners cause: tutor turns on the shipped arithmetic course, and
//! teaching flows through the diagnostic (the model writes the inventory and the probes and
//! grades a free-text answer), the plan (curriculum generation), an explanation and a
//! question with its grading.

use crate::config::Settings;
use anyhow::{Context, Result};
use clap::Args;
use pathwise_app::course_tutor::{CreateThread, TurnRequest};
use pathwise_app::flows::StartFlow;
use pathwise_app::teaching::AnswerInput;
use pathwise_app::{AnyStore, App, AppError};
use pathwise_course::ClientEvent;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct CheckFlags {
    /// Tutor turns to take.
    #[arg(long, default_value_t = 20)]
    pub turns: usize,
    /// Teaching flows to take through diagnostic, plan, explanation and question.
    #[arg(long, default_value_t = 2)]
    pub flows: usize,
    /// One JSON object per operation instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// What the learner types in the tutor turns, in turn.
const WORDS: [&str; 5] = [
    "I want to learn place value",
    "what is 7+8?",
    "can you explain fractions to me please",
    "I'm stuck, I don't get it",
    "what's the difference between 3/4 and 4/3?",
];

/// Topics of the teaching flows, in turn: small enough for a 10-concept plan.
const TOPICS: [&str; 3] = ["Fractions", "Photosynthesis", "Binary numbers"];

/// How one operation went.
#[derive(Default)]
struct Tally {
    valid: usize,
    /// Fell back (tutor turns) or failed (the rest), by reason code.
    not_valid: BTreeMap<String, usize>,
    waits: Vec<Duration>,
}

impl Tally {
    fn record(&mut self, wait: Duration, outcome: Result<(), String>) {
        self.waits.push(wait);
        match outcome {
            Ok(()) => self.valid += 1,
            Err(reason) => *self.not_valid.entry(reason).or_default() += 1,
        }
    }

    fn calls(&self) -> usize {
        self.waits.len()
    }

    fn median_and_max(&self) -> (f64, f64) {
        let mut waits = self.waits.clone();
        waits.sort();
        let secs = |d: Option<&Duration>| d.map_or(0.0, |d| (d.as_secs_f64() * 10.0).round() / 10.0);
        (secs(waits.get(waits.len().saturating_sub(1) / 2)), secs(waits.last()))
    }
}

/// The reason code of a failed call: the model's (`timeout`, `invalid_reply`, ...) when the
/// error carries one, else the error's code.
fn reason(error: &AppError) -> String {
    error.details.get("reason").and_then(|r| r.as_str()).map_or_else(|| error.code.to_string(), str::to_string)
}

pub async fn run(settings: &Settings, flags: CheckFlags) -> Result<()> {
    let llm = crate::config::language_model(settings)?;
    anyhow::ensure!(
        llm.is_configured(),
        "no language model is configured: set PATHWISE_LLM_BASE_URL and PATHWISE_LLM_MODEL (llm_base_url and \
         llm_model in the config file) to the model to check"
    );
    let scratch = tempfile::tempdir().context("a scratch directory")?;
    let store =
        pathwise_store::SqliteStore::open(&scratch.path().join("check.db")).await.context("a scratch database")?;
    let app = crate::config::with_tutor(App::new(AnyStore::Sqlite(store)).with_llm(llm.clone()), settings)?;
    app.install_builtin_courses().await?;
    let learner = app.create_learner("model check").await?.learner.id;
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();

    // Tutor turns: the learner's words, so that every turn asks the model.
    let thread =
        app.create_thread(learner, CreateThread { course_id: "MATH-FOUNDATIONS".into(), title: None }).await?.id;
    for i in 0..flags.turns {
        let request = TurnRequest {
            message_text: Some(WORDS[i % WORDS.len()].to_string()),
            client_event: ClientEvent::None,
            ..TurnRequest::default()
        };
        let started = Instant::now();
        let reply = app.tutor_turn(learner, thread, request).await;
        let wait = started.elapsed();
        let outcome = match reply {
            Ok(reply) => {
                let turns = app.thread_turns(learner, thread, 0, 1_000).await?;
                match turns.items.iter().find(|t| t.turn_id == reply.turn_id) {
                    Some(turn) if turn.validated => Ok(()),
                    Some(turn) => Err(fallback_reason(&turn.log)),
                    None => Err("unlogged".to_string()),
                }
            }
            Err(error) => Err(reason(&error)),
        };
        tallies.entry("tutor_turn").or_default().record(wait, outcome);
    }

    // Teaching flows: each operation the model does, until one fails.
    for i in 0..flags.flows {
        let topic = TOPICS[i % TOPICS.len()];
        let flow =
            app.flow_start(learner, StartFlow { topic: topic.into(), goal: None, caller_writes_steps: None }).await?;
        let mut step = |name: &'static str, wait: Duration, outcome: Result<(), String>| {
            let ok = outcome.is_ok();
            tallies.entry(name).or_default().record(wait, outcome);
            ok
        };
        let started = Instant::now();
        let diagnostic = app.diagnostic_start(learner, flow.id).await;
        let ok = step("diagnostic_inventory", started.elapsed(), diagnostic.as_ref().map(|_| ()).map_err(reason));
        let Ok(diagnostic) = diagnostic else { continue };
        if !ok {
            continue;
        }
        if let Some(question_id) = diagnostic.question_id.clone() {
            let answer = AnswerInput {
                answer: "I am not sure; something about parts of a whole.".into(),
                question_id: Some(question_id),
            };
            let started = Instant::now();
            let graded = app.diagnostic_answer(learner, flow.id, answer).await;
            step("free_text_grading", started.elapsed(), graded.map(|_| ()).map_err(|e| reason(&e)));
        }
        app.diagnostic_complete(learner, flow.id).await?;
        let started = Instant::now();
        let planned = app.flow_plan(learner, flow.id).await;
        if !step("curriculum_generation", started.elapsed(), planned.map(|_| ()).map_err(|e| reason(&e))) {
            continue;
        }
        let started = Instant::now();
        let taught = app.flow_teach(learner, flow.id).await;
        if !step("teaching", started.elapsed(), taught.map(|_| ()).map_err(|e| reason(&e))) {
            continue;
        }
        let started = Instant::now();
        let asked = app.flow_quiz(learner, flow.id).await;
        let question_id = asked.as_ref().ok().and_then(|a| a.question_id.clone());
        if !step("question_writing", started.elapsed(), asked.map(|_| ()).map_err(|e| reason(&e))) {
            continue;
        }
        let answer = AnswerInput { answer: "It depends on the parts before it.".into(), question_id };
        let started = Instant::now();
        let graded = app.flow_answer(learner, flow.id, answer).await;
        step("answer_grading", started.elapsed(), graded.map(|_| ()).map_err(|e| reason(&e)));
    }

    print(&llm.describe(), &tallies, flags.json)
}

/// A turn's fallback reason as a code: `model failed: timeout` gives `timeout`, a policy
/// violation its code (`action_not_allowed`, ...).
fn fallback_reason(log: &serde_json::Value) -> String {
    if let Some(violation) = log["violation"].as_str().filter(|v| *v != "model_error") {
        return violation.to_string();
    }
    let reason = log["fallbackReason"].as_str().unwrap_or("unknown");
    reason.strip_prefix("model failed: ").unwrap_or(reason).to_string()
}

fn print(model: &str, tallies: &BTreeMap<&str, Tally>, as_json: bool) -> Result<()> {
    if as_json {
        for (operation, tally) in tallies {
            let (median, max) = tally.median_and_max();
            crate::output::line(json!({ "model": model, "operation": operation, "calls": tally.calls(),
                "valid": tally.valid, "not_valid": tally.not_valid, "median_s": median, "max_s": max }))?;
        }
        return Ok(());
    }
    crate::output::line(format_args!("model: {model}"))?;
    crate::output::line(format_args!(
        "{:<22} {:>5} {:>6} {:>10} {:>9} {:>7}  reasons",
        "operation", "calls", "valid", "fell back", "median s", "max s"
    ))?;
    for (operation, tally) in tallies {
        let (median, max) = tally.median_and_max();
        let not_valid: usize = tally.not_valid.values().sum();
        let reasons: Vec<String> = tally.not_valid.iter().map(|(r, n)| format!("{r} {n}")).collect();
        crate::output::line(format_args!(
            "{operation:<22} {:>5} {:>6} {not_valid:>10} {median:>9.1} {max:>7.1}  {}",
            tally.calls(),
            tally.valid,
            reasons.join(", ")
        ))?;
    }
    Ok(())
}
