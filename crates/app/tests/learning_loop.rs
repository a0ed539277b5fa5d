//! The whole learning loop against a fake OpenAI-compatible server over real HTTP: start a
//! topic, diagnose, plan, teach, quiz, get a review scheduled, answer it, see it in the
//! nightly snapshot. And what a failing model must not do to a flow: change it, or leave
//! part of a map behind. Run on SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use chrono::Duration;
use pathwise_app::analytics::MapAnalytics;
use pathwise_app::diagnostics::DiagnosticStep;
use pathwise_app::flows::StartFlow;
use pathwise_app::scheduler::WorkerOptions;
use pathwise_app::teaching::AnswerInput;
use pathwise_app::{App, Clock, ErrorKind};
use pathwise_domain::diagnostic::{next_probe, Probe};
use pathwise_domain::{FlowId, FlowStatus, JobKind, JobOutcome, MasteryStatus, ResponseType};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use pathwise_store::{FlowStore, JobStore, Store};
use serde_json::{json, Value};
use std::sync::Arc;
use support::TestApp;

/// The inventory the model lists, easiest first.
const INVENTORY: [&str; 6] = ["Values", "Ownership", "Borrowing", "Lifetimes", "Traits", "Generics"];
/// The learner knows the first three.
const KNOWN: usize = 3;

async fn with_model(t: &TestApp) -> (FakeLlm, App) {
    let fake = FakeLlm::start().await;
    let config =
        OpenAiConfig { timeout: std::time::Duration::from_millis(500), ..OpenAiConfig::new(fake.base_url(), "tutor") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 2);
    (fake, t.app().clone().with_llm(llm))
}

fn inventory() -> Script {
    let concepts: Vec<Value> =
        INVENTORY.iter().map(|l| json!({ "label": l, "description": format!("What {l} are.") })).collect();
    Script::json(json!({ "concepts": concepts }))
}

/// A choice question whose first option is right.
fn choice_question(concept: &str) -> Script {
    Script::json(json!({ "kind": "choice", "question": format!("Which is true of {concept}?"),
        "choices": ["the right one", "a wrong one", "another wrong one"], "correct_index": 0 }))
}

/// The model's plan: the inventory's concepts, `Values` the root.
fn plan_script() -> Vec<Script> {
    let create = |label: &str| {
        ("mind_map_node_create".to_string(), json!({ "label": label, "description": "d", "effort_minutes": 15 }))
    };
    let edge =
        |p: &str, c: &str| ("mind_map_edge_create".to_string(), json!({ "parent_node_id": p, "child_node_id": c }));
    vec![
        Script::ToolCalls(INVENTORY.iter().map(|l| create(l)).collect()),
        Script::ToolCalls(vec![
            edge("Values", "Ownership"),
            edge("Ownership", "Borrowing"),
            edge("Borrowing", "Lifetimes"),
            edge("Values", "Traits"),
            edge("Traits", "Generics"),
        ]),
        Script::tool("finish", json!({})),
    ]
}

fn answer(text: &str) -> AnswerInput {
    AnswerInput { answer: text.into() }
}

async fn start(app: &App, t: &TestApp) -> FlowId {
    app.flow_start(t.learner, StartFlow { topic: "Rust ownership".into(), goal: None }).await.unwrap().id
}

/// Run the diagnostic to its end, answering right exactly the concepts the learner knows.
async fn diagnose(fake: &FakeLlm, app: &App, t: &TestApp, flow: FlowId) -> DiagnosticStep {
    fake.script([inventory(), choice_question(INVENTORY[2])]);
    let mut step = app.diagnostic_start(t.learner, flow).await.unwrap();
    let mut probes = Vec::new();
    while let Some(question) = step.question.clone() {
        let rank = INVENTORY.iter().position(|c| *c == question.concept).expect("an inventory concept");
        let knows = rank < KNOWN;
        probes.push(Probe { rank, quality: if knows { 4 } else { 1 } });
        if let Some(next) = next_probe(INVENTORY.len(), &probes) {
            fake.script([choice_question(INVENTORY[next])]);
        }
        step = app.diagnostic_answer(t.learner, flow, answer(if knows { "0" } else { "1" })).await.unwrap();
        assert_eq!(step.grade.as_ref().unwrap().correct, knows, "{question:?}");
    }
    assert!((3..=6).contains(&step.probes_answered), "{} probes", step.probes_answered);
    step
}

async fn the_whole_loop_runs_from_a_topic_to_a_reviewed_concept_in_the_nightly_snapshot(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let flow = start(&app, t).await;

    // Diagnose: the search starts at the median concept and settles on the boundary.
    let first = fake.clone();
    let step = diagnose(&first, &app, t, flow).await;
    assert_eq!(fake.requests().len(), 1 + step.probes_answered);
    let done = app.diagnostic_complete(t.learner, flow).await.unwrap();
    assert_eq!(done.flow.status, FlowStatus::Planning);
    let found = &done.flow.state.diagnostic_results;
    assert!(found.iter().any(|r| r.node_label == "Values" && r.quality >= 3), "{found:?}");
    assert!(found.iter().any(|r| r.node_label == "Lifetimes" && r.quality < 3), "{found:?}");

    // Plan: the model's graph, seeded by what the diagnostic found.
    fake.script(plan_script());
    let planned = app.flow_plan(t.learner, flow).await.unwrap();
    let map = planned.plan.unwrap().mind_map_id;
    assert_eq!(planned.flow.mind_map_id, Some(map));
    let ids = t.ids(map).await;
    assert_eq!(t.node(ids["Ownership"]).await.mastery_status, MasteryStatus::Diagnosed);
    let diagnostic = t
        .app()
        .store()
        .list_responses(
            t.learner,
            &pathwise_store::ResponseFilter {
                mind_map_id: Some(map),
                response_type: Some(ResponseType::Diagnostic),
                ..Default::default()
            },
            0,
            50,
        )
        .await
        .unwrap();
    assert_eq!(diagnostic.total as usize, step.probes_answered, "every probe is a diagnostic response");

    // Teach the first concept of the learning order, then quiz it.
    fake.script([Script::Text("Values are data a program works with; each has one owner.".into())]);
    let taught = app.flow_teach(t.learner, flow).await.unwrap();
    assert_eq!(taught.flow.status, FlowStatus::Teaching);
    let node = taught.node.unwrap();
    assert_eq!(node.label, "Values");
    assert!(taught.explanation.unwrap().contains("owner"));
    let teaching_prompt = fake.requests().last().unwrap()["messages"].to_string();
    assert!(teaching_prompt.contains("Frontier") && teaching_prompt.contains("Rust ownership"), "{teaching_prompt}");

    fake.script([choice_question("Values")]);
    let quiz = app.flow_quiz(t.learner, flow).await.unwrap();
    let shown = serde_json::to_value(&quiz.flow).unwrap();
    assert!(shown.pointer("/state/question/correct").is_none(), "the key is never shown: {shown}");
    let answered = app.flow_answer(t.learner, flow, answer("the right one")).await.unwrap();
    assert_eq!(answered.flow.status, FlowStatus::Reviewing);
    assert_eq!(answered.grade.as_ref().unwrap().quality, 4);
    let next_review = answered.node.unwrap().next_review_at.expect("scheduled");

    // The review is scheduled as a one-shot job at next_review_at, expiring a day later.
    t.app().flush_review_jobs().await.unwrap();
    let jobs = t.app().store().list_jobs(t.learner, Some(map)).await.unwrap();
    let review = jobs.iter().find(|j| j.node_id == Some(node.id)).expect("a review job");
    assert_eq!((review.kind, review.run_at), (JobKind::Review, next_review));
    assert_eq!(review.expires_at, Some(next_review + Duration::hours(24)));

    // A day later the job fires once; the review is asked and graded by the model.
    t.clock.advance(Duration::days(1) + Duration::minutes(1));
    let run = t.app().run_due_jobs(&WorkerOptions::new("worker-1")).await.unwrap();
    assert!(run.done >= 1, "{run:?}");
    let runs = t.app().store().job_runs(Some(t.learner), 10).await.unwrap();
    assert!(runs.iter().any(|r| r.job_id == review.id && r.outcome == JobOutcome::Done), "{runs:?}");

    fake.script([Script::json(json!({ "kind": "free_text", "question": "What does a value's owner do?",
        "rubric": "It frees the value when it goes out of scope." }))]);
    let asked = app.flow_review(t.learner, flow).await.unwrap();
    assert_eq!(asked.node.unwrap().id, node.id);
    fake.script([Script::json(json!({ "quality": 5, "feedback": "Exactly." }))]);
    let reviewed = app.flow_answer(t.learner, flow, answer("It drops it at the end of its scope.")).await.unwrap();
    assert_eq!(reviewed.grade.as_ref().map(|g| (g.quality, g.graded_by.as_str())), Some((5, "model")));

    // The nightly snapshot sees the review; retention counts review responses only.
    t.app().nightly_analytics().await.unwrap();
    let analytics: MapAnalytics = t.app().map_analytics(t.learner, map).await.unwrap();
    let metrics = &analytics.latest.expect("a snapshot").metrics;
    assert_eq!(metrics["retention_rate_7d"], json!(1.0));
    assert_eq!(metrics["total_quiz_responses"], json!(step.probes_answered + 2));
    assert_eq!(metrics["total_nodes"], json!(INVENTORY.len()));

    let usage = t.app().llm_usage(t.learner, None).await.unwrap();
    let operations: Vec<&str> = usage.by_operation.iter().map(|o| o.operation.as_str()).collect();
    for expected in ["curriculum_generate", "diagnostic", "grading", "review", "teaching"] {
        assert!(operations.contains(&expected), "{expected} missing from {operations:?}");
    }
    assert_eq!(fake.unused(), 0);
}

async fn a_flow_moves_only_along_its_state_machine(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let flow = start(&app, t).await;
    for refused in [
        app.flow_teach(t.learner, flow).await.unwrap_err(),
        app.flow_quiz(t.learner, flow).await.unwrap_err(),
        app.diagnostic_complete(t.learner, flow).await.unwrap_err(),
        app.flow_answer(t.learner, flow, answer("0")).await.unwrap_err(),
    ] {
        assert_eq!(refused.kind, ErrorKind::Conflict, "{refused}");
        assert!(refused.message.contains("pending"), "{refused}");
    }
    let abandoned = app.flow_abandon(t.learner, flow).await.unwrap();
    assert_eq!(abandoned.status, FlowStatus::Abandoned);
    let again = app.flow_abandon(t.learner, flow).await.unwrap_err();
    assert_eq!(again.kind, ErrorKind::Conflict);
    assert!(again.message.contains("abandoned"), "{again}");
    assert_eq!(fake.requests().len(), 0, "no step the flow refused asked the model anything");
}

async fn two_sessions_taking_the_same_step_cannot_both_succeed(t: &TestApp) {
    let flow = start(t.app(), t).await;
    let read = t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap();
    let now = t.clock.now();
    let first = read.step(FlowStatus::Diagnosing, now).unwrap();
    let second = read.step(FlowStatus::Abandoned, now).unwrap();
    t.app().store().save_flow(&first).await.unwrap();
    let lost = t.app().store().save_flow(&second).await.unwrap_err().to_string();
    assert!(lost.contains("version 1") && lost.contains("version 0"), "{lost}");
    let stored = t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap();
    assert_eq!((stored.status, stored.version), (FlowStatus::Diagnosing, 1));
}

async fn a_choice_answer_that_is_no_choice_is_refused_and_changes_nothing(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let flow = start(&app, t).await;
    fake.script([inventory(), choice_question(INVENTORY[2])]);
    app.diagnostic_start(t.learner, flow).await.unwrap();
    let before = (t.counts().await, t.app().store().get_flow(t.learner, flow).await.unwrap());
    for bad in ["7", "maybe", "   "] {
        let error = app.diagnostic_answer(t.learner, flow, answer(bad)).await.unwrap_err();
        assert_eq!(error.kind, ErrorKind::Invalid, "{bad}: {error}");
        assert!(error.message.contains("answer"), "{error}");
    }
    let after = (t.counts().await, t.app().store().get_flow(t.learner, flow).await.unwrap());
    assert_eq!(before, after);
}

/// Each way a model can fail a plan: a clear error, no map, the flow as it was.
async fn a_failing_model_leaves_no_partial_graph_and_the_flow_unchanged(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let create = |label: &str| {
        ("mind_map_node_create".to_string(), json!({ "label": label, "description": "d", "effort_minutes": 10 }))
    };
    let edge =
        |p: &str, c: &str| ("mind_map_edge_create".to_string(), json!({ "parent_node_id": p, "child_node_id": c }));
    let cycle = || {
        vec![
            Script::ToolCalls(vec![create("A"), create("B"), create("C")]),
            Script::ToolCalls(vec![edge("A", "B"), edge("B", "C"), edge("C", "B")]),
            Script::tool("finish", json!({})),
        ]
    };
    let too_many = || {
        let labels: Vec<String> = (0..31).map(|i| format!("Concept {i}")).collect();
        vec![
            Script::ToolCalls(labels.iter().map(|l| create(l)).collect()),
            Script::ToolCalls(labels.windows(2).map(|w| edge("Concept 0", &w[1])).collect()),
            Script::tool("finish", json!({})),
        ]
    };
    let too_deep = || {
        let labels = ["L0", "L1", "L2", "L3", "L4", "L5", "L6"];
        vec![
            Script::ToolCalls(labels.iter().map(|l| create(l)).collect()),
            Script::ToolCalls(labels.windows(2).map(|w| edge(w[0], w[1])).collect()),
            Script::tool("finish", json!({})),
        ]
    };
    let unknown_labels = || {
        vec![
            Script::ToolCalls(vec![create("A"), create("B")]),
            Script::ToolCalls(vec![edge("A", "Nowhere")]),
            Script::tool("finish", json!({})),
        ]
    };
    let cases: Vec<(&str, Vec<Script>, &str)> = vec![
        ("a cycle", [cycle(), cycle()].concat(), "cycle"),
        ("31 nodes", [too_many(), too_many()].concat(), "30"),
        ("depth 6", [too_deep(), too_deep()].concat(), "depth"),
        ("unknown labels", [unknown_labels(), unknown_labels()].concat(), "B"),
        ("a 5xx", vec![Script::Status(503, "overloaded".into())], "503"),
        (
            "a timeout",
            vec![Script::Slow(std::time::Duration::from_secs(2), Box::new(Script::Text("late".into())))],
            "within",
        ),
    ];
    for (case, script, expected) in cases {
        let flow = start(&app, t).await;
        let before = t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap();
        let counts = without_llm_calls(t.counts().await);
        fake.script(script);
        let error = app.flow_plan(t.learner, flow).await.unwrap_err();
        assert_eq!(error.kind, ErrorKind::Upstream, "{case}: {error}");
        assert!(error.message.to_lowercase().contains(&expected.to_lowercase()), "{case}: {error}");
        assert_eq!(without_llm_calls(t.counts().await), counts, "{case}: nothing stored");
        assert_eq!(t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap(), before, "{case}");
        drain(&fake).await;
        app.flow_abandon(t.learner, flow).await.unwrap();
    }

    // A reply that is not JSON at all, where JSON was asked for: the diagnostic does not start.
    let flow = start(&app, t).await;
    let before = t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap();
    fake.script([Script::Text("{\"concepts\": [{\"label\": ".into())]);
    let error = app.diagnostic_start(t.learner, flow).await.unwrap_err();
    assert_eq!((error.kind, error.code), (ErrorKind::Upstream, "llm_malformed"), "{error}");
    assert_eq!(t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap(), before);
}

/// Scripts a failed case left unused would answer the next case: use them up.
async fn drain(fake: &FakeLlm) {
    let url = format!("{}/chat/completions", fake.base_url());
    let client = reqwest::Client::new();
    for _ in 0..fake.unused() {
        let _ = client.post(&url).json(&json!({ "messages": [] })).send().await;
    }
}

fn without_llm_calls(counts: Vec<(String, i64)>) -> Vec<(String, i64)> {
    // The teaching flow's own row count stays; tokens a failed call spent are kept.
    counts.into_iter().filter(|(table, _)| table != "llm_calls" && table != "teaching_flows").collect()
}

conformance!(
    the_whole_loop_runs_from_a_topic_to_a_reviewed_concept_in_the_nightly_snapshot,
    a_flow_moves_only_along_its_state_machine,
    two_sessions_taking_the_same_step_cannot_both_succeed,
    a_choice_answer_that_is_no_choice_is_refused_and_changes_nothing,
    a_failing_model_leaves_no_partial_graph_and_the_flow_unchanged,
);
