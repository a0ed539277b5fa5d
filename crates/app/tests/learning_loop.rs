//! The whole learning loop against a fake OpenAI-compatible server over real HTTP: start a
//! topic, diagnose, plan, teach, quiz, get a review scheduled, answer it, see it in the
//! nightly snapshot. And what a failing model must not do to a flow: change it, or leave
//! part of a map behind. The same loop with no model at all, the caller writing every
//! inventory, probe, plan, question and free-text grade, and its content held to the rules. Run on SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use chrono::Duration;
use pathwise_app::advance::{AdvanceFlow, FlowStep};
use pathwise_app::analytics::MapAnalytics;
use pathwise_app::diagnostics::{DiagnosticStep, RecordProbe, StartDiagnostic};
use pathwise_app::flows::StartFlow;
use pathwise_app::scheduler::WorkerOptions;
use pathwise_app::teaching::AnswerInput;
use pathwise_app::{App, AppError, Clock, ErrorCode, ErrorKind};
use pathwise_domain::curriculum::Decomposition;
use pathwise_domain::diagnostic::{next_probe, Probe};
use pathwise_domain::flow::{Flow, InventoryConcept};
use pathwise_domain::model::QuizResponse;
use pathwise_domain::question::{GradedBy, Question, QuestionKind};
use pathwise_domain::{FlowId, FlowStatus, JobKind, JobOutcome, MasteryStatus, MindMapId, NodeId, ResponseType};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_store::prelude::*;
use pathwise_store::ResponseFilter;
use serde_json::{json, Value};
use support::{with_model, TestApp};

/// The inventory the model lists, easiest first.
const INVENTORY: [&str; 6] = ["Values", "Ownership", "Borrowing", "Lifetimes", "Traits", "Generics"];
/// The learner knows the first three.
const KNOWN: usize = 3;

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

/// An answer to the question with this id (the step's `question_id`).
fn answer(text: &str, question: &Option<String>) -> AnswerInput {
    AnswerInput { answer: text.into(), question_id: question.clone() }
}

async fn start(app: &App, t: &TestApp) -> FlowId {
    app.flow_start(
        t.learner,
        StartFlow { topic: "Rust ownership".into(), goal: None, caller_writes_steps: Some(!app.llm().is_configured()) },
    )
    .await
    .unwrap()
    .id
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
        step = app
            .diagnostic_answer(t.learner, flow, answer(if knows { "0" } else { "1" }, &step.question_id))
            .await
            .unwrap();
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
    let answered = app.flow_answer(t.learner, flow, answer("the right one", &quiz.question_id)).await.unwrap();
    assert_eq!(answered.flow.status, FlowStatus::Reviewing);
    assert_eq!(answered.grade.as_ref().unwrap().quality, 4);
    let next_review = answered.node.unwrap().next_review_at.expect("scheduled");

    // The review is scheduled as a one-shot job at next_review_at, expiring a day later.
    t.app().review_jobs().flush().await.unwrap();
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
    let reviewed = app
        .flow_answer(t.learner, flow, answer("It drops it at the end of its scope.", &asked.question_id))
        .await
        .unwrap();
    assert_eq!(reviewed.grade.as_ref().map(|g| (g.quality, g.graded_by)), Some((5, GradedBy::Model)));
    // The choice was recognised among its options (4), the model's grade is taken as given
    // (5); both are Good for FSRS, since no automatic grade says Easy.
    let filter = ResponseFilter { node_id: Some(node.id), ..Default::default() };
    let stored = t.app().store().list_responses(t.learner, &filter, 0, 10).await.unwrap().items;
    let earned: Vec<_> =
        stored.iter().filter(|r| r.response_type != ResponseType::Diagnostic).map(|r| (r.quality, r.rating)).collect();
    use pathwise_domain::evidence::Rating;
    assert_eq!(earned, [(5, Rating::Good), (4, Rating::Good)], "newest first");

    // The map's figures count the review at once; retention counts review responses only.
    let analytics: MapAnalytics = t.app().analytics().map_analytics(t.learner, map).await.unwrap();
    let metrics = &analytics.latest.metrics;
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
        app.flow_answer(t.learner, flow, answer("0", &None)).await.unwrap_err(),
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
    let started = app.diagnostic_start(t.learner, flow).await.unwrap();
    let before = (t.counts().await, t.app().store().get_flow(t.learner, flow).await.unwrap());
    for bad in ["7", "maybe", "   "] {
        let error = app.diagnostic_answer(t.learner, flow, answer(bad, &started.question_id)).await.unwrap_err();
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
    assert_eq!((error.kind, error.code), (ErrorKind::Upstream, ErrorCode::LlmMalformed), "{error}");
    assert_eq!(t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap(), before);
}

/// The inventory as a caller writes it, easiest first.
fn caller_inventory() -> Vec<InventoryConcept> {
    INVENTORY
        .iter()
        .map(|l| InventoryConcept { label: l.to_string(), description: Some(format!("What {l} are.")) })
        .collect()
}

fn a_choice(concept: &str, choices: &[&str]) -> Question {
    Question {
        concept: concept.into(),
        text: format!("Which is true of {concept}?"),
        kind: QuestionKind::Choice { choices: choices.iter().map(|c| c.to_string()).collect(), correct: Some(0) },
    }
}

fn a_free_text(concept: &str) -> Question {
    Question {
        concept: concept.into(),
        text: format!("Explain {concept} in a sentence."),
        kind: QuestionKind::FreeText { rubric: Some(format!("Says what {concept} are for.")) },
    }
}

fn probe(answer: &str, question: Option<Question>, quality: Option<u8>) -> RecordProbe {
    RecordProbe {
        answer: answer.into(),
        question_id: None,
        question,
        quality,
        feedback: quality.map(|_| "Checked.".into()),
    }
}

/// The decomposition a caller plans with: the inventory's concepts, `Values` the root.
fn caller_decomposition() -> Decomposition {
    let nodes: Vec<Value> = INVENTORY.iter().map(|l| json!({ "label": l, "effort_minutes": 15 })).collect();
    let edges = [
        ("Values", "Ownership"),
        ("Ownership", "Borrowing"),
        ("Borrowing", "Lifetimes"),
        ("Values", "Traits"),
        ("Traits", "Generics"),
    ]
    .map(|(parent, child)| json!({ "parent": parent, "child": child }));
    serde_json::from_value(json!({ "root": "Values", "nodes": nodes, "edges": edges })).unwrap()
}

fn advance(step: FlowStep) -> AdvanceFlow {
    AdvanceFlow::new(step)
}

/// The caller writes every probe, the choice ones graded by their key and the free-text ones
/// by the caller's quality; the learner knows the `KNOWN` easiest concepts.
async fn diagnose_as_caller(t: &TestApp, flow: FlowId) -> DiagnosticStep {
    let input = StartDiagnostic { inventory: Some(caller_inventory()) };
    let mut step = t.app().diagnostic_begin(t.learner, flow, input).await.unwrap();
    assert!(step.question.is_none(), "the caller writes the probes");
    assert!(step.flow.state.diagnostic.as_ref().unwrap().caller_writes);
    assert_eq!(step.next_concept.as_ref().map(|c| c.rank), next_probe(INVENTORY.len(), &[]));
    let mut kinds = Vec::new();
    while let Some(concept) = step.next_concept.clone() {
        assert_eq!(concept.label, INVENTORY[concept.rank]);
        assert_eq!(concept.description.as_deref(), Some(format!("What {} are.", concept.label).as_str()));
        let knows = concept.rank < KNOWN;
        let input = if step.probes_answered % 2 == 0 {
            let choice = a_choice(&concept.label, &["the right one", "a wrong one"]);
            probe(if knows { "0" } else { "a wrong one" }, Some(choice), None)
        } else {
            probe("In my own words...", Some(a_free_text(&concept.label)), Some(if knows { 4 } else { 1 }))
        };
        step = t.app().diagnostic_record_probe(t.learner, flow, input).await.unwrap();
        let grade = step.grade.clone().unwrap();
        assert_eq!(grade.correct, knows, "{concept:?}");
        kinds.push(grade.graded_by);
        assert!(step.question.is_none());
    }
    assert!(kinds.contains(&GradedBy::Exact) && kinds.contains(&GradedBy::Caller), "{kinds:?}");
    assert!((3..=6).contains(&step.probes_answered), "{} probes", step.probes_answered);
    step
}

async fn responses_of(t: &TestApp, map: MindMapId, kind: ResponseType) -> Vec<QuizResponse> {
    let filter = ResponseFilter { mind_map_id: Some(map), response_type: Some(kind), ..Default::default() };
    t.app().store().list_responses(t.learner, &filter, 0, 50).await.unwrap().items
}

async fn a_caller_runs_the_whole_flow_without_a_model(t: &TestApp) {
    assert!(!t.app().llm().is_configured());
    let flow = start(t.app(), t).await;

    // Diagnose with the caller's inventory and probes.
    let diagnosed = diagnose_as_caller(t, flow).await;
    let done = t.app().diagnostic_complete(t.learner, flow).await.unwrap();
    assert_eq!((done.flow.status, done.next_concept.as_ref()), (FlowStatus::Planning, None));
    let found = &done.flow.state.diagnostic_results;
    assert!(found.iter().any(|r| r.node_label == "Values" && r.quality >= 3), "{found:?}");

    // Plan from the caller's decomposition; the probes become diagnostic responses.
    let plan = AdvanceFlow { decomposition: Some(caller_decomposition()), ..advance(FlowStep::Plan) };
    let planned = t.app().flow_advance(t.learner, flow, plan).await.unwrap();
    let map = planned.plan.expect("a plan").mind_map_id;
    assert_eq!((planned.flow.status, planned.flow.mind_map_id), (FlowStatus::Planning, Some(map)));
    assert_eq!(responses_of(t, map, ResponseType::Diagnostic).await.len(), diagnosed.probes_answered);
    let ids = t.ids(map).await;
    assert_eq!(t.node(ids["Ownership"]).await.mastery_status, MasteryStatus::Diagnosed);

    // Teach: Pathwise picks the concept and hands its context to the caller to explain.
    let teach = AdvanceFlow { caller_explains: true, ..advance(FlowStep::Teach) };
    let taught = t.app().flow_advance(t.learner, flow, teach).await.unwrap();
    let node = taught.node.clone().unwrap();
    assert_eq!((taught.flow.status, node.label.as_str()), (FlowStatus::Teaching, "Values"));
    assert!(taught.explanation.is_none());
    let context = taught.context.expect("the context block");
    assert!(context.contains("Concept at hand") && context.contains("Values") && context.contains("Rust ownership"));

    // Quiz with the caller's choice question (its concept named without case); graded exactly.
    let quiz = AdvanceFlow {
        question: Some(a_choice("values", &["the right one", "a wrong one"])),
        ..advance(FlowStep::Quiz)
    };
    let asked = t.app().flow_advance(t.learner, flow, quiz).await.unwrap();
    assert_eq!(asked.flow.status, FlowStatus::Quizzing);
    let question_id = asked.question_id.clone();
    let shown = asked.question.unwrap();
    assert_eq!(shown.concept, "Values", "kept under the node's label");
    assert_eq!(
        shown.kind,
        QuestionKind::Choice { choices: vec!["the right one".into(), "a wrong one".into()], correct: None }
    );
    let before = t.node(node.id).await;
    let answer = AdvanceFlow { answer: Some("The right one".into()), question_id, ..advance(FlowStep::Answer) };
    let answered = t.app().flow_advance(t.learner, flow, answer).await.unwrap();
    let grade = answered.grade.unwrap();
    assert_eq!((grade.quality, grade.correct, grade.graded_by), (4, true, GradedBy::Exact));
    assert_eq!(answered.flow.status, FlowStatus::Reviewing);
    let quizzed = answered.node.unwrap();
    assert!(quizzed.mastery_score > before.mastery_score, "{} -> {}", before.mastery_score, quizzed.mastery_score);
    let first_review = quizzed.next_review_at.expect("SM-2 scheduled a review");

    // A day later the concept is due: the caller asks the review and grades the answer.
    t.clock.advance(Duration::days(1) + Duration::minutes(1));
    let review =
        AdvanceFlow { node_id: Some(node.id), question: Some(a_free_text("Values")), ..advance(FlowStep::Review) };
    let asked = t.app().flow_advance(t.learner, flow, review).await.unwrap();
    assert_eq!((asked.flow.status, asked.node.as_ref().map(|n| n.id)), (FlowStatus::Reviewing, Some(node.id)));
    assert!(
        matches!(asked.question.as_ref().unwrap().kind, QuestionKind::FreeText { rubric: None }),
        "the rubric stays put"
    );
    let answer = AdvanceFlow {
        answer: Some("Data a program works with, each with one owner.".into()),
        question_id: asked.question_id.clone(),
        quality: Some(5),
        feedback: Some("Exactly.".into()),
        ..advance(FlowStep::Answer)
    };
    let reviewed = t.app().flow_advance(t.learner, flow, answer).await.unwrap();
    let grade = reviewed.grade.unwrap();
    assert_eq!((grade.quality, grade.feedback.as_str(), grade.graded_by), (5, "Exactly.", GradedBy::Caller));
    let node_now = reviewed.node.unwrap();
    assert_eq!(node_now.repetitions, quizzed.repetitions + 1);
    assert!(node_now.next_review_at.unwrap() > first_review + Duration::days(1), "SM-2 spaced the next review out");
    assert_eq!(responses_of(t, map, ResponseType::Teach).await.len(), 1);
    let reviews = responses_of(t, map, ResponseType::Review).await;
    assert_eq!((reviews.len(), reviews[0].quality), (1, 5));

    assert_eq!(reviewed.flow.status, FlowStatus::Reviewing);
    assert!(t.app().llm_usage(t.learner, None).await.unwrap().by_operation.is_empty(), "no model was asked");
}

/// The flow and every table's row count, to show a refused step changed nothing.
async fn snapshot(t: &TestApp, flow: FlowId) -> (Vec<(String, i64)>, Flow) {
    (t.counts().await, t.app().store().get_flow(t.learner, flow).await.unwrap().unwrap())
}

async fn refused<T: std::fmt::Debug>(
    t: &TestApp,
    flow: FlowId,
    case: &str,
    expected: (ErrorKind, &str),
    step: impl std::future::Future<Output = Result<T, AppError>>,
) {
    let before = snapshot(t, flow).await;
    let error = step.await.unwrap_err();
    assert_eq!(error.kind, expected.0, "{case}: {error}");
    assert!(error.message.contains(expected.1), "{case}: '{}' not in '{error}'", expected.1);
    assert_eq!(snapshot(t, flow).await, before, "{case}: nothing changed");
}

async fn caller_content_that_breaks_a_rule_is_refused_and_changes_nothing(t: &TestApp) {
    use ErrorKind::{Conflict, Invalid};
    let app = t.app();
    let (me, flow) = (t.learner, start(app, t).await);
    let few = StartDiagnostic { inventory: Some(caller_inventory()[..2].to_vec()) };
    refused(
        t,
        flow,
        "2 concepts",
        (Invalid, "inventory: has 2 concepts; a diagnostic needs 5 to 15"),
        app.diagnostic_begin(me, flow, few),
    )
    .await;
    let mut twice = caller_inventory();
    twice[1].label = " values ".into();
    let twice = StartDiagnostic { inventory: Some(twice) };
    refused(t, flow, "a label twice", (Invalid, "twice"), app.diagnostic_begin(me, flow, twice)).await;
    let step = app.diagnostic_begin(me, flow, StartDiagnostic { inventory: Some(caller_inventory()) }).await.unwrap();
    let next = step.next_concept.unwrap().label;

    // Probes: each rule a caller's probe must keep.
    let one_choice = Some(a_choice(&next, &["the only one"]));
    refused(
        t,
        flow,
        "1 choice",
        (Invalid, "question.choices: has 1 choices; a choice question has 2 to 6"),
        app.diagnostic_record_probe(me, flow, probe("0", one_choice, None)),
    )
    .await;
    refused(
        t,
        flow,
        "another concept",
        (Invalid, &format!("this step asks about '{next}'")),
        app.diagnostic_record_probe(me, flow, probe("0", Some(a_free_text("Generics")), Some(4))),
    )
    .await;
    refused(t, flow, "no question", (Invalid, &format!("question: is missing: no probe is waiting, and the caller writes this diagnostic's probes; send the probe you asked, about '{next}'")), app.diagnostic_record_probe(me, flow, probe("0", None, None))).await;
    refused(
        t,
        flow,
        "quality 6",
        (Invalid, "quality: 6 is out of range; a quality is an SM-2 grade from 0 to 5"),
        app.diagnostic_record_probe(me, flow, probe("yes", Some(a_free_text(&next)), Some(6))),
    )
    .await;
    refused(
        t,
        flow,
        "free text ungraded",
        (Invalid, "quality: is missing"),
        app.diagnostic_record_probe(me, flow, probe("yes", Some(a_free_text(&next)), None)),
    )
    .await;
    let choice = || Some(a_choice(&next, &["right", "wrong"]));
    refused(
        t,
        flow,
        "quality on a choice",
        (Invalid, "graded exactly against its key"),
        app.diagnostic_record_probe(me, flow, probe("0", choice(), Some(5))),
    )
    .await;
    app.diagnostic_record_probe(me, flow, probe("right", choice(), None)).await.unwrap();
    app.diagnostic_complete(me, flow).await.unwrap();

    // Plan: a decomposition that breaks a planning rule leaves no map.
    let mut cyclic = caller_decomposition();
    cyclic.edges.push(serde_json::from_value(json!({ "parent": "Borrowing", "child": "Ownership" })).unwrap());
    let plan = AdvanceFlow { decomposition: Some(cyclic), ..advance(FlowStep::Plan) };
    refused(t, flow, "a cycle", (Invalid, "cycle"), app.flow_advance(me, flow, plan)).await;
    let teach_with_graph = AdvanceFlow { decomposition: Some(caller_decomposition()), ..advance(FlowStep::Teach) };
    refused(
        t,
        flow,
        "a field of another step",
        (Invalid, "decomposition: does not belong to the teach step, which takes only: node_id, caller_explains"),
        app.flow_advance(me, flow, teach_with_graph),
    )
    .await;
    let plan = AdvanceFlow { decomposition: Some(caller_decomposition()), ..advance(FlowStep::Plan) };
    let map = app.flow_advance(me, flow, plan).await.unwrap().plan.unwrap().mind_map_id;
    let teach = AdvanceFlow { caller_explains: true, ..advance(FlowStep::Teach) };
    let taught = app.flow_advance(me, flow, teach).await.unwrap().node.unwrap();

    // Quiz and answer.
    let quiz = |question: Question| AdvanceFlow { question: Some(question), ..advance(FlowStep::Quiz) };
    refused(
        t,
        flow,
        "quiz: 1 choice",
        (Invalid, "question.choices"),
        app.flow_advance(me, flow, quiz(a_choice(&taught.label, &["only"]))),
    )
    .await;
    refused(
        t,
        flow,
        "quiz: another concept",
        (Invalid, "question.concept"),
        app.flow_advance(me, flow, quiz(a_choice("Generics", &["a", "b"]))),
    )
    .await;
    let quiz_at = AdvanceFlow { node_id: Some(taught.id), ..quiz(a_choice(&taught.label, &["a", "b"])) };
    refused(
        t,
        flow,
        "quiz: node_id",
        (Invalid, "node_id: does not belong to the quiz step, which takes only: question"),
        app.flow_advance(me, flow, quiz_at),
    )
    .await;
    let asked = app.flow_advance(me, flow, quiz(a_choice(&taught.label, &["a", "b"]))).await.unwrap();
    let answer = |quality: Option<u8>| AdvanceFlow {
        answer: Some("a".into()),
        question_id: asked.question_id.clone(),
        quality,
        ..advance(FlowStep::Answer)
    };
    refused(
        t,
        flow,
        "answer: quality on a choice",
        (Invalid, "quality: is not taken for a choice question"),
        app.flow_advance(me, flow, answer(Some(4))),
    )
    .await;
    refused(t, flow, "answer: quality 6", (Invalid, "from 0 to 5"), app.flow_advance(me, flow, answer(Some(6)))).await;
    refused(
        t,
        flow,
        "answer: missing",
        (Invalid, "answer: is missing"),
        app.flow_advance(me, flow, AdvanceFlow { answer: None, ..answer(None) }),
    )
    .await;
    app.flow_advance(me, flow, answer(None)).await.unwrap();

    // Review: only a concept that is due, in this flow's map.
    t.clock.advance(Duration::days(1) + Duration::minutes(1));
    let now = t.clock.now();
    let nodes = t.map(map).await.nodes;
    let not_due = nodes.iter().find(|n| n.next_review_at.is_none_or(|at| at > now)).expect("a concept not due");
    let review = |node_id: NodeId| AdvanceFlow { node_id: Some(node_id), ..advance(FlowStep::Review) };
    let due = format!(
        "due now, most overdue first: '{}'",
        t.app().pending_reviews(me, Some(map), None).await.unwrap()[0].label
    );
    refused(t, flow, "review: not due", (Conflict, &due), app.flow_advance(me, flow, review(not_due.id))).await;
    refused(
        t,
        flow,
        "review: not in the map",
        (Conflict, "is not due for review in this flow's map"),
        app.flow_advance(me, flow, review(NodeId(uuid::Uuid::now_v7()))),
    )
    .await;
    let off_topic = AdvanceFlow { question: Some(a_free_text("Generics")), ..review(taught.id) };
    refused(t, flow, "review: another concept", (Invalid, "question.concept"), app.flow_advance(me, flow, off_topic))
        .await;
}

/// "Study this next": the learner picks the concept to teach among those ready to learn
/// (not learned yet, every prerequisite mastered); one that is not ready, learned already
/// or on another map is refused, naming why and what is ready, and nothing changes.
async fn a_learner_chooses_the_concept_to_study_among_those_ready(t: &TestApp) {
    use ErrorKind::{Conflict, Invalid};
    let app = t.app();
    let (me, flow) = (t.learner, start(app, t).await);
    let plan = AdvanceFlow { decomposition: Some(caller_decomposition()), ..advance(FlowStep::Plan) };
    let map = app.flow_advance(me, flow, plan).await.unwrap().plan.unwrap().mind_map_id;
    let ids = t.ids(map).await;
    let teach =
        |label: &str| AdvanceFlow { node_id: Some(ids[label]), caller_explains: true, ..advance(FlowStep::Teach) };
    refused(
        t,
        flow,
        "a prerequisite not mastered",
        (Conflict, "teach: 'Traits' needs 'Values' mastered first; ready to learn now: 'Values'"),
        app.flow_advance(me, flow, teach("Traits")),
    )
    .await;
    let elsewhere = AdvanceFlow { node_id: Some(NodeId(uuid::Uuid::now_v7())), ..teach("Values") };
    refused(
        t,
        flow,
        "not on the map",
        (Invalid, "is not a concept of this flow's map"),
        app.flow_advance(me, flow, elsewhere),
    )
    .await;

    // Values mastered: Ownership and Traits are ready; the learning order would teach
    // Ownership, the learner chooses Traits.
    for kind in [ResponseType::Teach, ResponseType::Review, ResponseType::Review, ResponseType::Review] {
        t.clock.advance(Duration::minutes(2));
        let input = pathwise_app::mastery::RecordResponse::new(
            ids["Values"],
            map,
            "Explain values.",
            Some("An answer"),
            5,
            Some(kind),
        );
        app.record_response(me, input).await.unwrap();
    }
    assert_eq!(t.node(ids["Values"]).await.mastery_status, MasteryStatus::Mastered);
    assert_eq!(app.next_node(me, map).await.unwrap().map(|n| n.label), Some("Ownership".to_string()));
    let taught = app.flow_advance(me, flow, teach("Traits")).await.unwrap();
    assert_eq!(
        (taught.flow.status, taught.node.as_ref().map(|n| n.label.as_str())),
        (FlowStatus::Teaching, Some("Traits"))
    );
    assert_eq!(taught.flow.state.current_node_id, Some(ids["Traits"]));
    assert!(taught.context.unwrap().contains("Traits"), "the context is the chosen concept's");
    refused(
        t,
        flow,
        "learned already",
        (Conflict, "teach: 'Values' is learned already (mastered); reviews bring it back; ready to learn now: 'Ownership' and 'Traits'"),
        app.flow_advance(me, flow, teach("Values")),
    )
    .await;
    // While teaching, the learner may switch to another concept that is ready.
    let switched = app.flow_advance(me, flow, teach("Ownership")).await.unwrap();
    assert_eq!(switched.flow.state.current_node_id, Some(ids["Ownership"]));
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

/// A quiz question is answered only by its id, once: a replay gets the first grade and
/// records nothing; another id, or none, is refused and changes nothing.
async fn a_quiz_answer_is_taken_for_its_question_once(t: &TestApp) {
    let app = t.app();
    let flow = start(app, t).await;
    diagnose_as_caller(t, flow).await;
    app.diagnostic_complete(t.learner, flow).await.unwrap();
    let plan = AdvanceFlow { decomposition: Some(caller_decomposition()), ..advance(FlowStep::Plan) };
    let map = app.flow_advance(t.learner, flow, plan).await.unwrap().plan.unwrap().mind_map_id;
    let teach = AdvanceFlow { caller_explains: true, ..advance(FlowStep::Teach) };
    let taught = app.flow_advance(t.learner, flow, teach).await.unwrap().node.unwrap();
    let quiz = AdvanceFlow { question: Some(a_choice(&taught.label, &["right", "wrong"])), ..advance(FlowStep::Quiz) };
    let asked = app.flow_advance(t.learner, flow, quiz).await.unwrap();
    let question = asked.question_id.clone().expect("the question has an id");
    assert!(question.starts_with("q_"), "{question}");
    assert_eq!(asked.flow.state.question.as_ref().and_then(|q| q.id.clone()), Some(question.clone()));

    for (id, why) in [(None, "question_id: is missing"), (Some("q_other".to_string()), "is not the question waiting")] {
        let before = snapshot(t, flow).await;
        let error = app.flow_answer(t.learner, flow, answer("right", &id)).await.unwrap_err();
        assert_eq!(
            (error.kind, error.details["field"].as_str()),
            (ErrorKind::Conflict, Some("question_id")),
            "{error}"
        );
        assert!(error.message.contains(why), "{error}");
        assert_eq!(snapshot(t, flow).await, before, "a refused answer changes nothing");
    }

    let first = app.flow_answer(t.learner, flow, answer("right", &Some(question.clone()))).await.unwrap();
    assert_eq!((first.grade.as_ref().unwrap().quality, first.replayed), (4, false));
    let stored = (t.counts().await, responses_of(t, map, ResponseType::Teach).await);
    assert_eq!(stored.1.len(), 1);
    // The same answer again (a retry), or a different one to the same question: the first grade.
    for text in ["right", "wrong"] {
        let again = app.flow_answer(t.learner, flow, answer(text, &Some(question.clone()))).await.unwrap();
        assert!(again.replayed);
        assert_eq!(again.grade, first.grade);
    }
    assert_eq!((t.counts().await, responses_of(t, map, ResponseType::Teach).await), stored, "counted once");
}

/// A diagnostic probe's answer replayed after the next probe is asked is the first answer's
/// replay, never an answer to the new probe.
async fn a_probe_answer_replayed_never_answers_the_next_probe(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let flow = start(&app, t).await;
    fake.script([inventory(), choice_question(INVENTORY[2])]);
    let started = app.diagnostic_start(t.learner, flow).await.unwrap();
    let first_probe = started.question_id.clone().expect("a probe id");
    let next = next_probe(INVENTORY.len(), &[Probe { rank: 2, quality: 4 }]).expect("a second probe");
    fake.script([choice_question(INVENTORY[next])]);
    let answered = app.diagnostic_answer(t.learner, flow, answer("0", &Some(first_probe.clone()))).await.unwrap();
    let second_probe = answered.question_id.clone().expect("the next probe");
    assert_ne!(second_probe, first_probe);
    let before = snapshot(t, flow).await;
    let replay = app.diagnostic_answer(t.learner, flow, answer("0", &Some(first_probe))).await.unwrap();
    assert!(replay.replayed);
    assert_eq!(replay.grade, answered.grade);
    assert_eq!((replay.probes_answered, replay.question_id), (1, Some(second_probe.clone())));
    assert_eq!(snapshot(t, flow).await, before, "the waiting probe is still unanswered");
    let error = app.diagnostic_answer(t.learner, flow, answer("0", &None)).await.unwrap_err();
    assert!(error.message.contains(&second_probe), "{error}");
    drain(&fake).await;
}

conformance!(
    a_quiz_answer_is_taken_for_its_question_once,
    a_probe_answer_replayed_never_answers_the_next_probe,
    the_whole_loop_runs_from_a_topic_to_a_reviewed_concept_in_the_nightly_snapshot,
    a_flow_moves_only_along_its_state_machine,
    two_sessions_taking_the_same_step_cannot_both_succeed,
    a_choice_answer_that_is_no_choice_is_refused_and_changes_nothing,
    a_failing_model_leaves_no_partial_graph_and_the_flow_unchanged,
    a_caller_runs_the_whole_flow_without_a_model,
    caller_content_that_breaks_a_rule_is_refused_and_changes_nothing,
    a_learner_chooses_the_concept_to_study_among_those_ready,
);
