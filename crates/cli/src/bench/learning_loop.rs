//! Benchmarks of the learning loop: how fast the scheduler claims and runs due jobs, and
//! how large the prompts of a teaching flow's steps are. The prompts are measured as sent:
//! an in-process model records every request Pathwise builds and counts its tokens with
//! the cl100k_base tokenizer, answering with canned replies of realistic length.

use super::stats::Stats;
use anyhow::Result;
use chrono::{Duration, Utc};
use pathwise_app::curriculum::GenerateInput;
use pathwise_app::flows::StartFlow;
use pathwise_app::mastery::RecordResponse;
use pathwise_app::scheduler::WorkerOptions;
use pathwise_app::teaching::AnswerInput;
use pathwise_app::{AnyStore, App, ManualClock};
use pathwise_domain::{FlowStatus, JobKind, ResponseType};
use pathwise_llm::{LanguageModel, Llm, LlmError, Reply, Request, Usage};
use pathwise_store::{FlowStore, Job, JobStore};
use serde_json::json;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Claim and run `count` due no-op jobs, a batch at a time, as one worker.
pub async fn jobs(app: &App, store: &str, count: usize) -> Result<()> {
    let now = Utc::now();
    let jobs: Vec<Job> =
        (0..count).map(|i| Job::one_shot(JobKind::Noop, now - Duration::milliseconds(i as i64), now)).collect();
    for chunk in jobs.chunks(500) {
        app.store().insert_jobs(chunk).await?;
    }
    let options = WorkerOptions::new("bench");
    let mut batches = Vec::new();
    let mut done = 0;
    let started = Instant::now();
    loop {
        let at = Instant::now();
        let run = app.run_due_jobs(&options).await?;
        if run.claimed == 0 {
            break;
        }
        done += run.done;
        batches.push(at.elapsed());
    }
    anyhow::ensure!(done == count, "ran {done} of {count} jobs");
    Stats { ops: count, concurrency: 1, elapsed: started.elapsed(), latencies: batches }.print(
        "scheduler_noop_jobs",
        store,
        json!({ "batch": options.batch, "latency_is": "per batch" }),
    );
    Ok(())
}

/// A model that answers every request with a canned reply and keeps each request's size.
struct CannedModel {
    steps: Mutex<Vec<(String, u64, u64)>>,
}

fn tokens(text: &str) -> u64 {
    tiktoken_rs::cl100k_base_singleton().encode_with_special_tokens(text).len() as u64
}

const EXPLANATION: &str = "A node's prerequisites are the concepts it builds on. ";

impl LanguageModel for CannedModel {
    fn chat<'a>(&'a self, request: &'a Request) -> Pin<Box<dyn Future<Output = Result<Reply, LlmError>> + Send + 'a>> {
        Box::pin(async move {
            let kind = request.output.as_ref().map_or("text", |o| o.name.as_str()).to_string();
            let content = match kind.as_str() {
                "question" => json!({ "kind": "free_text", "question": "In your own words: why does this concept \
                    need its prerequisites, and what goes wrong without them?",
                    "rubric": "Names the prerequisite, explains the dependency, gives an example." })
                .to_string(),
                "grade" => json!({ "quality": 4, "feedback": "Right, with the dependency explained; the example \
                    could be more precise." })
                .to_string(),
                _ => EXPLANATION.repeat(30),
            };
            let mut sent = String::new();
            for message in &request.messages {
                sent.push_str(&message.content);
                sent.push('\n');
            }
            if let Some(output) = &request.output {
                sent.push_str(&output.schema.to_string());
            }
            let usage = Usage { prompt_tokens: tokens(&sent), completion_tokens: tokens(&content) };
            self.steps.lock().unwrap().push((kind, usage.prompt_tokens, usage.completion_tokens));
            Ok(Reply {
                content: Some(content),
                tool_calls: Vec::new(),
                usage,
                finish_reason: Some("stop".into()),
                timing: None,
            })
        })
    }

    fn describe(&self) -> String {
        "canned replies (benchmark)".into()
    }
}

/// The tokens of each step of a teaching flow on a 30-node map with 200 prior responses.
pub async fn teaching_step_tokens(store: AnyStore) -> Result<()> {
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let model = Arc::new(CannedModel { steps: Mutex::new(Vec::new()) });
    let app = App::with_clock(store, clock.clone()).with_llm(Llm::new(model.clone(), 4));
    let learner = app.create_learner("bench").await?.learner.id;
    // A binary tree of 30 concepts: depth 4, within the limits.
    let labels: Vec<String> = (0..30).map(|i| format!("Concept number {i} of the course")).collect();
    let nodes: Vec<_> = labels
        .iter()
        .map(
            |l| json!({ "label": l, "description": format!("{l}: one sentence on what it is."), "effort_minutes": 20 }),
        )
        .collect();
    let edges: Vec<_> = (1..30).map(|i| json!({ "parent": labels[(i - 1) / 2], "child": labels[i] })).collect();
    let input: GenerateInput = serde_json::from_value(json!({ "topic": "A thirty-concept course",
        "decomposition": { "root": labels[0], "nodes": nodes, "edges": edges } }))?;
    let map = app.curriculum_generate(learner, input).await?.mind_map_id;
    let ids: Vec<_> = app.get_map(learner, map).await?.nodes.iter().map(|n| n.id).collect();
    for i in 0..200 {
        let kind = if i % 3 == 0 { ResponseType::Review } else { ResponseType::Teach };
        let question = "Explain how this concept depends on the one before it, with an example.";
        let response = RecordResponse::new(ids[i % ids.len()], map, question, Some("An answer."), 3, Some(kind));
        app.record_response(learner, response).await?;
    }
    let flow = app
        .flow_start(
            learner,
            StartFlow { topic: "A thirty-concept course".into(), goal: None, caller_writes_steps: None },
        )
        .await?;
    let stored = app.store().get_flow(learner, flow.id).await?.expect("the flow");
    let mut planned = stored.step(FlowStatus::Diagnosing, clock.now())?.step(FlowStatus::Planning, clock.now())?;
    planned.version = stored.version + 1;
    planned.mind_map_id = Some(map);
    app.store().save_flow(&planned).await?;

    app.flow_teach(learner, flow.id).await?;
    let asked = app.flow_quiz(learner, flow.id).await?;
    let answer = AnswerInput { answer: "Because it builds on its parent.".into(), question_id: asked.question_id };
    app.flow_answer(learner, flow.id, answer).await?;
    // Far enough ahead that every concept is due for review.
    clock.advance(Duration::days(3650));
    let asked = app.flow_review(learner, flow.id).await?;
    let answer = AnswerInput { answer: "It needs its parent first.".into(), question_id: asked.question_id };
    app.flow_answer(learner, flow.id, answer).await?;

    let names = ["teach", "quiz", "quiz_grading", "review", "review_grading"];
    for (name, (_, prompt, completion)) in names.iter().zip(model.steps.lock().unwrap().iter()) {
        use std::io::Write;
        let line = json!({ "bench": "teaching_step_tokens", "step": name, "map_nodes": 30, "prior_responses": 200,
            "prompt_tokens": prompt, "completion_tokens": completion, "prompt_budget": 2500 });
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
    Ok(())
}

use pathwise_app::Clock;
