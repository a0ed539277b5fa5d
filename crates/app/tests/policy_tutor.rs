//! The policy tutor (policy-tutor.md) on an authored course, on both stores: every trigger of
//! "Exhaustive Input -> Response Triggers" (A1-A5, B1-B2, C1-C2), the model's turns validated
//! against the policy with the deterministic fallback for every kind of violation (one model
//! call, never a retry), the prompt contract, offline turns, and the evidence every graded
//! drill and exam answer leaves on the learner's map.

mod support;

use chrono::Duration;
use pathwise_app::course_tutor::{
    CardOutcome, CreateThread, DrillGradeRequest, DrillGrader, DrillText, McqSubmitRequest, SupportType,
    SupportViewedRequest, TurnReply, TurnRequest,
};
use pathwise_app::queries::{ListThreadsQuery, PageQuery};
use pathwise_app::{App, Clock, ErrorCode, ErrorKind};
use pathwise_course::{Action, ClientEvent, DrillResult, MasteryTier, PackFormat, StudentSnapshot, TutorCard};
use pathwise_domain::evidence::Rating;
use pathwise_domain::{ResponseType, ThreadId};
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use pathwise_store::{MapStore, ResponseFilter, TutorStep, TutorStore};
use serde_json::{json, Value};
use std::sync::Arc;
use support::{with_model, TestApp};

const COURSE: &str = include_str!("fixtures/test-course.toml");
const COURSE_ID: &str = "TEST-ALG";

/// The test course imported and a thread on it.
async fn thread(app: &App, t: &TestApp) -> ThreadId {
    app.import_course(COURSE, PackFormat::Toml).await.expect("import the test course");
    let input = CreateThread { course_id: COURSE_ID.into(), title: None };
    app.create_thread(t.learner, input).await.expect("thread").id
}

async fn say(app: &App, t: &TestApp, thread: ThreadId, text: &str) -> TurnReply {
    let request = TurnRequest { message_text: Some(text.into()), ..TurnRequest::default() };
    app.tutor_turn(t.learner, thread, request).await.expect("turn")
}

async fn press(app: &App, t: &TestApp, thread: ThreadId, event: ClientEvent) -> TurnReply {
    app.tutor_turn(t.learner, thread, TurnRequest { client_event: event, ..TurnRequest::default() })
        .await
        .expect("turn")
}

fn card(reply: &TurnReply) -> Option<&TutorCard> {
    reply.messages.last().and_then(|m| m.card.as_ref())
}

/// The log of the thread's latest turn.
async fn last_log(app: &App, t: &TestApp, thread: ThreadId) -> Value {
    let turns =
        app.thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() }).await.unwrap();
    turns.items.last().expect("a logged turn").log.clone()
}

fn allowed(log: &Value) -> Vec<String> {
    serde_json::from_value(log["allowedActions"].clone()).unwrap()
}

/// A model turn: `action` on `target`, with whatever else `extra` sets.
fn model_turn(action: &str, target: &str, extra: Value) -> Script {
    let mut turn = json!({
        "mapped_units": [{ "unit_id": target, "confidence": 0.9 }],
        "action": action,
        "target_unit_id": target,
        "tutor_text": "Here is what we will do next.",
        "turn_analysis": { "student_intent": "solve", "understanding_signal": "uncertain", "suggested_prereq_units": [] },
        "concept_card": null, "drill_card": null, "exam_suggestion": null,
    });
    for (k, v) in extra.as_object().unwrap() {
        turn[k] = v.clone();
    }
    Script::json(turn)
}

fn drill_json() -> Value {
    json!({ "drill_card": { "prompt": "Solve for x", "question_latex": "x + 3 = 7" } })
}

/// Change the learner's snapshot directly (to set up evidence a test starts from).
async fn edit_snapshot(app: &App, t: &TestApp, change: impl FnOnce(&mut StudentSnapshot)) {
    let record = app.store().get_tutor_snapshot(t.learner, COURSE_ID).await.unwrap().expect("snapshot");
    let mut snapshot: StudentSnapshot = serde_json::from_value(record.snapshot.clone()).unwrap();
    change(&mut snapshot);
    let next = pathwise_store::SnapshotRecord {
        snapshot: serde_json::to_value(&snapshot).unwrap(),
        version: record.version + 1,
        ..record
    };
    app.store().commit_tutor_step(TutorStep { snapshot: Some(&next), ..TutorStep::default() }).await.unwrap();
}

/// Graded drills on `unit`, as evidence to start from.
async fn drills(app: &App, t: &TestApp, unit: &str, results: &[bool]) {
    let now = t.clock.now();
    edit_snapshot(app, t, |s| {
        for &correct in results {
            s.record_drill(unit, correct, None, now);
        }
    })
    .await;
}

async fn snapshot(app: &App, t: &TestApp) -> StudentSnapshot {
    app.tutor_snapshot(t.learner, COURSE_ID).await.unwrap().snapshot
}

/// Bronze on every prerequisite of linear equations, so that it is not blocked.
async fn prerequisites_met(app: &App, t: &TestApp) {
    let now = t.clock.now();
    edit_snapshot(app, t, |s| {
        for unit in ["ENTRY-00", "ALG-00"] {
            s.touch(unit, now).mastery_tier = MasteryTier::Bronze;
        }
    })
    .await;
}

// ---- Snapshot and map -----------------------------------------------------------------

async fn a_first_thread_makes_a_sparse_snapshot_and_the_courses_map(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    let view = app.tutor_snapshot(t.learner, COURSE_ID).await.unwrap();
    assert_eq!(view.snapshot.focus_unit_id, "ENTRY-00", "a new snapshot focuses on the entry unit");
    assert!(view.snapshot.unit_progress.is_empty() && view.snapshot.exam_touched.is_empty());
    let map = t.map(view.mind_map_id.expect("the course's map")).await;
    assert_eq!(map.nodes.len(), 6, "one node per unit, no more: the map's counts are the course's");
    let root = map.nodes.iter().find(|n| Some(n.id) == map.map.root_node_id).expect("a root");
    assert_eq!(
        root.metadata["unit_id"],
        json!("ENTRY-00"),
        "the entry unit, the only one without prerequisites, is the root"
    );
    assert_eq!(map.map.metadata["course_id"], json!(COURSE_ID));
    let linear = map.nodes.iter().find(|n| n.label == "Linear equations").unwrap();
    assert_eq!(linear.depth, 2, "warm-up -> inverse operations -> linear equations");
    let next = app.next_node(t.learner, map.map.id).await.unwrap().expect("a unit to learn first");
    assert_eq!(next.id, root.id, "the first concept to learn is the entry unit");
    // A second thread shares the snapshot and the map.
    let again = app
        .create_thread(t.learner, CreateThread { course_id: COURSE_ID.into(), title: Some("Again".into()) })
        .await
        .unwrap();
    assert_ne!(again.id, thread);
    assert_eq!(app.tutor_snapshot(t.learner, COURSE_ID).await.unwrap().mind_map_id, view.mind_map_id);
    assert_eq!(
        app.list_threads(t.learner, &ListThreadsQuery { course_id: Some(COURSE_ID.into()), ..Default::default() })
            .await
            .unwrap()
            .total,
        2
    );
}

// ---- Input A: /turn -------------------------------------------------------------------

async fn a1_mapped_unit_confidence_high_prereqs_satisfied(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    fake.script([model_turn("DRILL_CARD", "ALG-01", drill_json())]);
    let reply = say(&app, t, thread, "how do I solve linear equations for x").await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["focusUnitId"], "ALG-01");
    assert_eq!(log["prereqBlockingUnitId"], Value::Null);
    assert_eq!(allowed(&log), ["SOCRATIC_QUESTION", "DRILL_CARD"], "no exam before drill readiness");
    assert_eq!(log["validated"], true);
    match card(&reply) {
        Some(TutorCard::Drill { unit_id, question_latex, .. }) => {
            assert_eq!(unit_id, "ALG-01");
            assert_eq!(question_latex, "x + 3 = 7");
        }
        other => panic!("expected the model's drill, got {other:?}"),
    }
    assert_eq!(reply.snapshot_lite.focus.unit_id, "ALG-01");
    assert!(reply.snapshot_lite.prereq_nudge.is_none());
}

async fn a2_mapped_unit_high_prereqs_missing(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    // The warm-up is done, so inverse operations is where work on linear equations starts.
    let now = t.clock.now();
    edit_snapshot(&app, t, |s| s.touch("ENTRY-00", now).mastery_tier = MasteryTier::Bronze).await;
    fake.script([model_turn(
        "DRILL_CARD",
        "ALG-00",
        json!({ "drill_card": { "prompt": "Undo +5", "question_latex": "y + 5 = 9" } }),
    )]);
    let reply = say(&app, t, thread, "how do I solve linear equations for x").await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["primaryTargetUnitId"], "ALG-01");
    assert_eq!(log["prereqBlockingUnitId"], "ALG-00", "inverse operations has no tier yet");
    assert_eq!(log["focusUnitId"], "ALG-00", "the focus shifts to the prerequisite");
    assert!(matches!(card(&reply), Some(TutorCard::Drill { unit_id, .. }) if unit_id == "ALG-00"));
    assert_eq!(reply.snapshot_lite.prereq_nudge.as_ref().map(|n| n.unit_id.as_str()), Some("ALG-00"));
    assert_eq!(snapshot(&app, t).await.focus_unit_id, "ALG-00");
    // Offline, the same message gets the deterministic answer about the prerequisite.
    let offline = t.app().clone();
    let other = thread_for(&offline, t).await;
    let reply = say(&offline, t, other, "how do I solve linear equations for x").await;
    assert!(reply.messages.last().unwrap().text.contains("Inverse operations"), "{:?}", reply.messages);
}

async fn thread_for(app: &App, t: &TestApp) -> ThreadId {
    app.create_thread(t.learner, CreateThread { course_id: COURSE_ID.into(), title: None }).await.unwrap().id
}

async fn a3_mapped_unit_ambiguous_low_confidence(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    // A model that answers an ambiguous message with a card breaks the policy: clarify first.
    fake.script([model_turn("DRILL_CARD", "ENTRY-00", drill_json())]);
    let reply = say(&app, t, thread, "graphs").await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(allowed(&log), ["SOCRATIC_QUESTION"], "an unsure mapping allows only a clarifier");
    assert_eq!(log["validated"], false);
    assert_eq!(log["violation"], "action_not_allowed");
    assert_eq!(log["action"], "SOCRATIC_QUESTION");
    match card(&reply) {
        Some(TutorCard::Choices { choices, .. }) => assert!(!choices.is_empty(), "the candidates, to click"),
        other => panic!("a clarifier offers its candidates as choices, got {other:?}"),
    }
    let text = &reply.messages.last().unwrap().text;
    assert!(text.contains("graphs"), "the clarifier names the candidates: {text}");
    // A model that clarifies is shown as it is.
    let other = thread_for(&app, t).await;
    fake.script([model_turn("SOCRATIC_QUESTION", "ENTRY-00", json!({ "tutor_text": "Which graphs do you mean?" }))]);
    let reply = say(&app, t, other, "graphs").await;
    assert_eq!(reply.messages.last().unwrap().text, "Which graphs do you mean?");
    assert_eq!(last_log(&app, t, other).await["validated"], true);
}

async fn a4_evidence_shows_stuck(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    drills(&app, t, "ALG-01", &[false, false]).await;
    let concept = json!({ "concept_card": { "key_ideas": ["Do the same to both sides.", "Undo + with -."],
        "worked_example": { "problem_latex": "x+3=7", "final_answer_latex": "x=4", "steps_latex": ["x=7-3"] } } });
    fake.script([model_turn("CONCEPT_CARD", "ALG-01", concept)]);
    let reply = press(
        &app,
        t,
        thread,
        ClientEvent::DrillContinue { unit_id: "ALG-01".into(), last_result: DrillResult::Incorrect },
    )
    .await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["stuck"], true);
    assert!(allowed(&log).contains(&"CONCEPT_CARD".to_string()));
    assert!(
        matches!(card(&reply), Some(TutorCard::Concept { key_ideas, worked_example: Some(_), .. }) if key_ideas.len() == 2)
    );
    // Concept card -> Try a Drill: a drill follows.
    fake.script([model_turn("DRILL_CARD", "ALG-01", drill_json())]);
    let reply = press(&app, t, thread, ClientEvent::RequestDrill { unit_id: "ALG-01".into() }).await;
    assert!(matches!(card(&reply), Some(TutorCard::Drill { .. })));
    // Without stuck evidence a concept card is refused.
    drills(&app, t, "ALG-01", &[true]).await;
    fake.script([model_turn(
        "CONCEPT_CARD",
        "ALG-01",
        json!({ "concept_card": { "key_ideas": ["x"], "worked_example": null } }),
    )]);
    press(&app, t, thread, ClientEvent::RequestDrill { unit_id: "ALG-01".into() }).await;
    assert_eq!(last_log(&app, t, thread).await["violation"], "action_not_allowed");
}

async fn a5_examready_true_and_examavailability_available_tier_aware(t: &TestApp) {
    let (fake, app, thread, reply) = offer_exam(t).await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["examReady"], true);
    assert_eq!(log["desiredExamTier"], "bronze");
    assert_eq!(log["examAvailability"], "available");
    assert!(allowed(&log).contains(&"EXAM_BLOCK".to_string()));
    let candidates: Vec<String> = serde_json::from_value(log["examCandidateIds"].clone()).unwrap();
    assert_eq!(candidates.len(), 2, "the unit's bronze questions only: {candidates:?}");
    match card(&reply) {
        Some(TutorCard::Exam { question_id, tier, options, .. }) => {
            assert_eq!(question_id, "EX-ALG-01-B1");
            assert_eq!(tier.name(), "bronze");
            assert_eq!(options.len(), 4);
        }
        other => panic!("expected an exam block, got {other:?}"),
    }
    let shown = serde_json::to_string(&reply).unwrap();
    assert!(!shown.contains("Subtract 4 from both sides"), "the memo is not shown with the question");
    assert!(!shown.contains("\"correct\""), "the key is not shown");
    // Tier-aware: once bronze is passed, the desired tier is silver, and a bronze question is refused.
    app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 0)).await.unwrap();
    assert_eq!(snapshot(&app, t).await.tier("ALG-01"), MasteryTier::Bronze);
    // Silver's check waits for two new right drills since the bronze one.
    assert!(!snapshot(&app, t).await.progress("ALG-01").unwrap().drill.ready_for_check());
    drills(&app, t, "ALG-01", &[true, true]).await;
    fake.script([model_turn(
        "EXAM_BLOCK",
        "ALG-01",
        json!({ "exam_suggestion": { "question_id": "EX-ALG-01-B2", "difficultyTier": "bronze" } }),
    )]);
    press(
        &app,
        t,
        thread,
        ClientEvent::ExamContinue {
            unit_id: "ALG-01".into(),
            question_id: "EX-ALG-01-B1".into(),
            result: pathwise_course::ExamResult::Passed,
        },
    )
    .await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["desiredExamTier"], "silver");
    assert_eq!(log["violation"], "exam_not_candidate", "bronze questions are not candidates any more");
    assert_eq!(log["action"], "DRILL_CARD", "Continue falls back to practice");
}

// ---- Input B: /drill/grade ------------------------------------------------------------

/// An offline turn asking for a drill on `unit`: a blueprint drill.
async fn blueprint_drill(app: &App, t: &TestApp, thread: ThreadId, unit: &str) -> DrillText {
    let reply = press(app, t, thread, ClientEvent::RequestDrill { unit_id: unit.into() }).await;
    match card(&reply) {
        Some(TutorCard::Drill { prompt, question_latex, drill_id: Some(id), options, .. }) => DrillText {
            prompt: prompt.clone(),
            question_latex: question_latex.clone(),
            drill_id: Some(id.clone()),
            options: options.clone(),
        },
        other => panic!("expected a blueprint drill, got {other:?}"),
    }
}

fn grade(unit: &str, drill: &DrillText, answer: &str) -> DrillGradeRequest {
    DrillGradeRequest {
        course_id: None,
        unit_id: Some(unit.into()),
        drill: drill.clone(),
        student_answer: answer.into(),
    }
}

/// The blueprint item behind an offered drill (its card carries only an opaque id), with the
/// item's own id.
async fn offered_item(app: &App, t: &TestApp, thread: ThreadId, drill: &DrillText) -> (pathwise_items::Item, String) {
    let id = drill.drill_id.as_deref().expect("a drill id");
    let offer = app.store().drill_offer(t.learner, thread, id).await.unwrap().expect("an offered drill");
    let item_ref = offer.item_ref.expect("a blueprint drill");
    let item = app.course(COURSE_ID).await.unwrap().course.library().regenerate(&item_ref).unwrap();
    (item, item_ref)
}

/// A drill the model writes (a DRILL_CARD turn on `unit`), as its card shows it.
async fn model_drill(fake: &FakeLlm, app: &App, t: &TestApp, thread: ThreadId, unit: &str) -> DrillText {
    fake.script([model_turn("DRILL_CARD", unit, drill_json())]);
    let reply = press(app, t, thread, ClientEvent::RequestDrill { unit_id: unit.into() }).await;
    match card(&reply) {
        Some(TutorCard::Drill { prompt, question_latex, drill_id, options, .. }) => DrillText {
            prompt: prompt.clone(),
            question_latex: question_latex.clone(),
            drill_id: drill_id.clone(),
            options: options.clone(),
        },
        other => panic!("expected the model's drill, got {other:?}"),
    }
}

async fn b1_correct(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    let drill = blueprint_drill(&app, t, thread, "ENTRY-00").await;
    let id = drill.drill_id.as_deref().unwrap();
    assert!(id.starts_with("drl_") && !id.contains("~s="), "the card's id says nothing of the item: {id}");
    let (item, _) = offered_item(&app, t, thread, &drill).await;
    let right = item.options[item.key.choice.unwrap()].clone();
    let reply = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, &right)).await.unwrap();
    assert!(reply.is_correct);
    assert_eq!(reply.graded_by, DrillGrader::Blueprint);
    assert_eq!(reply.common_mistake_tag, None);
    assert_eq!((reply.drill.attempts, reply.drill.correct, reply.drill.streak_correct), (1, 1, 1));
    let s = snapshot(&app, t).await;
    assert!(s.progress("ENTRY-00").unwrap().confusion_tags.is_empty(), "confusion tags unchanged");
    // Continue -> the next turn (offline: another drill).
    let next = press(
        &app,
        t,
        thread,
        ClientEvent::DrillContinue { unit_id: "ENTRY-00".into(), last_result: DrillResult::Correct },
    )
    .await;
    assert!(matches!(card(&next), Some(TutorCard::Drill { .. })));
    assert_eq!(last_log(&app, t, thread).await["validated"], false, "offline turns are the fallback");
}

/// The index of the right option typed as text is the number it reads as, not that option:
/// a drill whose options are sums is answered by sums (the one rule for choices).
async fn a_typed_number_under_a_drills_numeric_options_is_its_value_never_an_index(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    for _ in 0..4 {
        let drill = blueprint_drill(&app, t, thread, "ENTRY-00").await;
        let (item, _) = offered_item(&app, t, thread, &drill).await;
        assert!(pathwise_domain::choice::options_read_as_numbers(&item.options), "sums: {:?}", item.options);
        let key = item.key.choice.unwrap();
        let typed_index = key.to_string();
        let index_is_the_value = item.options[key].trim() == typed_index;
        let reply = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, &typed_index)).await.unwrap();
        assert_eq!(reply.is_correct, index_is_the_value, "'{typed_index}' under {:?} (key {key})", item.options);
    }
}

async fn b2_incorrect(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    let offline = t.app().clone();
    let now = t.clock.now();
    edit_snapshot(&app, t, |s| s.touch("ENTRY-00", now).mastery_tier = MasteryTier::Bronze).await;
    let drill = blueprint_drill(&offline, t, thread, "ALG-00").await;
    let course = app.course(COURSE_ID).await.unwrap();
    let (item, item_id) = offered_item(&app, t, thread, &drill).await;
    let id = item_id.as_str();
    // A wrong option some distractor strategy made: its strategy is the mistake's tag.
    let (wrong, tag) = item
        .options
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != item.key.choice)
        .find_map(|(_, o)| course.course.library().diagnose(id, o).map(|tag| (o.clone(), tag)))
        .expect("a wrong option that a strategy explains");
    let reply = app.grade_drill(t.learner, thread, grade("ALG-00", &drill, &wrong)).await.unwrap();
    assert!(!reply.is_correct);
    assert_eq!(reply.common_mistake_tag.as_deref(), Some(tag));
    assert_eq!(snapshot(&app, t).await.progress("ALG-00").unwrap().confusion_tags.get(tag), Some(&1));
    // A drill the model wrote is graded by the model; its tag must be on the course's list.
    let first = model_drill(&fake, &app, t, thread, "ALG-00").await;
    let second = model_drill(&fake, &app, t, thread, "ALG-00").await;
    let unanswered = model_drill(&fake, &app, t, thread, "ALG-00").await;
    fake.script([Script::json(
        json!({ "isCorrect": false, "feedbackText": "Subtract 3 from both sides.", "commonMistakeTag": "sign_error" }),
    )]);
    // The text sent back is not what is graded: the drill as it was offered is.
    let tampered = DrillText { question_latex: "1 + 1 = x".into(), ..first.clone() };
    let reply = app.grade_drill(t.learner, thread, grade("ALG-00", &tampered, "10")).await.unwrap();
    assert_eq!((reply.graded_by, reply.common_mistake_tag.as_deref()), (DrillGrader::Model, Some("sign_error")));
    let asked = fake.requests().last().unwrap()["messages"].to_string();
    assert!(asked.contains("x + 3 = 7") && !asked.contains("1 + 1 = x"), "{asked}");
    fake.script([Script::json(
        json!({ "isCorrect": false, "feedbackText": "No.", "commonMistakeTag": "made_up_tag" }),
    )]);
    let reply = app.grade_drill(t.learner, thread, grade("ALG-00", &second, "11")).await.unwrap();
    assert_eq!(reply.common_mistake_tag, None, "a tag outside the course's list is not kept");
    let progress = snapshot(&app, t).await.progress("ALG-00").unwrap().clone();
    assert_eq!((progress.drill.attempts, progress.drill.streak_correct), (3, 0));
    assert_eq!(progress.confusion_tags.values().sum::<u32>(), 2, "only grading moved the tags");
    // Repeated wrong answers make the learner stuck: the next policy allows a concept card.
    fake.script([model_turn("SOCRATIC_QUESTION", "ALG-00", json!({}))]);
    press(
        &app,
        t,
        thread,
        ClientEvent::DrillContinue { unit_id: "ALG-00".into(), last_result: DrillResult::Incorrect },
    )
    .await;
    assert!(allowed(&last_log(&app, t, thread).await).contains(&"CONCEPT_CARD".to_string()));
    // Offline, a model's drill cannot be graded.
    let error = offline.grade_drill(t.learner, thread, grade("ALG-00", &unanswered, "4")).await.unwrap_err();
    assert_eq!((error.kind, error.code), (ErrorKind::Unavailable, ErrorCode::LlmNotConfigured));
}

// ---- Input C: exam events -------------------------------------------------------------

/// An exam block for ALG-01's bronze questions, offered by the model in the thread.
/// A thread where the model offers ALG-01's first bronze question (prerequisites met, two
/// drills right), with the turn that offered it.
async fn offer_exam(t: &TestApp) -> (FakeLlm, App, ThreadId, TurnReply) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    drills(&app, t, "ALG-01", &[true, true]).await;
    fake.script([model_turn(
        "EXAM_BLOCK",
        "ALG-01",
        json!({ "exam_suggestion": { "question_id": "EX-ALG-01-B1", "difficultyTier": "bronze" } }),
    )]);
    let reply = press(
        &app,
        t,
        thread,
        ClientEvent::DrillContinue { unit_id: "ALG-01".into(), last_result: DrillResult::Correct },
    )
    .await;
    (fake, app, thread, reply)
}

async fn offered_exam(t: &TestApp) -> (FakeLlm, App, ThreadId) {
    let (fake, app, thread, reply) = offer_exam(t).await;
    assert!(matches!(card(&reply), Some(TutorCard::Exam { .. })));
    (fake, app, thread)
}

fn submit(question: &str, index: usize) -> McqSubmitRequest {
    McqSubmitRequest {
        course_id: None,
        unit_id: "ALG-01".into(),
        question_id: question.into(),
        difficulty_tier: None,
        selected_index: index,
    }
}

async fn c1_mcq_submit_correct(t: &TestApp) {
    let (fake, app, thread) = offered_exam(t).await;
    let reply = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 0)).await.unwrap();
    assert!(reply.is_correct && reply.tier_changed);
    assert_eq!(reply.mastery_tier, MasteryTier::Bronze);
    let s = snapshot(&app, t).await;
    assert_eq!(s.progress("ALG-01").unwrap().exam.passed_by_tier.bronze, 1);
    assert_eq!(s.exam_touched.get("EX-ALG-01-B1"), Some(&true));
    assert_eq!(reply.snapshot_lite.progress.bronze, 3, "warm-up, inverse operations and linear equations");
    // Maps and Progress count the course's tiers as the tutor does, beside the mastery.
    let portfolio = app.portfolio(t.learner).await.unwrap();
    let course_map = portfolio.maps.iter().find(|m| m.tiers.is_some()).expect("the course's map has tiers");
    let tiers = course_map.tiers.unwrap();
    assert_eq!((tiers.bronze, tiers.silver, tiers.gold), (3, 0, 0), "{tiers:?}");
    assert_eq!(tiers.total, reply.snapshot_lite.progress.total);
    let summary = app.map_summary(t.learner, course_map.map_id).await.unwrap();
    assert_eq!(summary.tiers, Some(tiers));
    // The reply kept on the timeline says so too, for a reload.
    let messages = app.thread_messages(t.learner, thread, &Default::default()).await.unwrap();
    let outcome = messages.iter().rev().find_map(|m| m.outcome.clone()).expect("the answer's outcome");
    assert!(
        matches!(outcome, CardOutcome::Exam { is_correct: true, tier_earned: Some(MasteryTier::Bronze), .. }),
        "{outcome:?}"
    );
    // A passed question counts once.
    let again = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 0)).await.unwrap_err();
    assert_eq!((again.kind, again.code), (ErrorKind::Conflict, ErrorCode::ExamAlreadyPassed));
    // Continue -> /turn (EXAM_CONTINUE passed).
    fake.script([model_turn("DRILL_CARD", "ALG-01", drill_json())]);
    let next = press(
        &app,
        t,
        thread,
        ClientEvent::ExamContinue {
            unit_id: "ALG-01".into(),
            question_id: "EX-ALG-01-B1".into(),
            result: pathwise_course::ExamResult::Passed,
        },
    )
    .await;
    assert!(matches!(card(&next), Some(TutorCard::Drill { .. })));
}

/// A reloaded timeline shows answered cards as answered: the tutor's reply to a graded
/// drill and to an exam answer carries what it came to, stored with the message.
async fn a_reloaded_timeline_carries_each_answers_outcome(t: &TestApp) {
    let (_fake, app, thread) = offered_exam(t).await;
    app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 1)).await.unwrap();
    let drill = blueprint_drill(&app, t, thread, "ENTRY-00").await;
    let graded = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, "not a number")).await.unwrap();
    let replies: Vec<_> = app
        .thread_messages(t.learner, thread, &Default::default())
        .await
        .unwrap()
        .into_iter()
        .filter_map(|m| m.outcome.map(|o| (m.text, o)))
        .collect();
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert_eq!(
        replies[0].1,
        CardOutcome::Exam {
            unit_id: "ALG-01".into(),
            question_id: "EX-ALG-01-B1".into(),
            selected_index: 1,
            is_correct: false,
            tier_earned: None
        }
    );
    assert_eq!(
        replies[1],
        (
            graded.feedback_text.clone(),
            CardOutcome::Drill {
                unit_id: "ENTRY-00".into(),
                drill_id: drill.drill_id.clone(),
                prompt: drill.prompt.clone(),
                question_latex: drill.question_latex.clone(),
                answer: "not a number".into(),
                is_correct: false,
                expected_answer: graded.expected_answer.clone(),
            }
        )
    );
    let json =
        serde_json::to_value(app.thread_messages(t.learner, thread, &Default::default()).await.unwrap()).unwrap();
    let kinds: Vec<&Value> =
        json.as_array().unwrap().iter().filter_map(|m| m.get("outcome")).map(|o| &o["kind"]).collect();
    assert_eq!(kinds, [&json!("exam"), &json!("drill")], "messages without an outcome leave the field out");
}

async fn c2_mcq_submit_incorrect_or_support_viewed(t: &TestApp) {
    let (fake, app, thread) = offered_exam(t).await;
    let reply = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 2)).await.unwrap();
    assert!(!reply.is_correct);
    let until = reply.locked_until.expect("locked");
    assert_eq!(until, t.clock.now() + Duration::hours(24), "locked for 24 hours");
    let s = snapshot(&app, t).await;
    assert!(s.revisit_queue.contains_key("EX-ALG-01-B1"));
    assert_eq!(reply.snapshot_lite.revisit.locked_count, 1);
    assert_eq!(reply.snapshot_lite.revisit.next_eligible_at, Some(until));
    // A locked question is refused with its next eligible time, and nothing changes.
    let counts = t.counts().await;
    let refused = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 0)).await.unwrap_err();
    assert_eq!((refused.kind, refused.code), (ErrorKind::Conflict, ErrorCode::ExamLocked));
    assert_eq!(refused.details["next_eligible_at"], json!(until));
    assert_eq!(t.counts().await, counts);
    // A wrong answer holds the unit's bronze checks until two new right drills, on top of
    // the question's own lockout: another bronze question is not offered at once.
    assert!(reply.snapshot_lite.exam_check.is_none(), "no check straight after a wrong answer");
    assert!(!snapshot(&app, t).await.progress("ALG-01").unwrap().drill.ready_for_check());
    drills(&app, t, "ALG-01", &[true, true]).await;
    // The policy now offers no locked question; the other bronze question is still available.
    fake.script([model_turn(
        "EXAM_BLOCK",
        "ALG-01",
        json!({ "exam_suggestion": { "question_id": "EX-ALG-01-B1", "difficultyTier": "bronze" } }),
    )]);
    press(
        &app,
        t,
        thread,
        ClientEvent::ExamContinue {
            unit_id: "ALG-01".into(),
            question_id: "EX-ALG-01-B1".into(),
            result: pathwise_course::ExamResult::Locked,
        },
    )
    .await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["violation"], "exam_not_candidate", "a locked question is not a candidate");
    // Viewing the other question's memo locks it as well: now none is available.
    fake.script([model_turn(
        "EXAM_BLOCK",
        "ALG-01",
        json!({ "exam_suggestion": { "question_id": "EX-ALG-01-B2", "difficultyTier": "bronze" } }),
    )]);
    press(&app, t, thread, ClientEvent::RequestDrill { unit_id: "ALG-01".into() }).await;
    let support = app
        .exam_support_viewed(
            t.learner,
            thread,
            SupportViewedRequest {
                course_id: None,
                unit_id: "ALG-01".into(),
                question_id: "EX-ALG-01-B2".into(),
                support_type: SupportType::Memo,
            },
        )
        .await
        .unwrap();
    assert!(support.memo.unwrap().contains("Add 2 to both sides"));
    assert!(support.locked_until.is_some());
    assert!(snapshot(&app, t).await.revisit_queue.contains_key("EX-ALG-01-B2"));
    fake.script([model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))]);
    press(
        &app,
        t,
        thread,
        ClientEvent::ExamContinue {
            unit_id: "ALG-01".into(),
            question_id: "EX-ALG-01-B2".into(),
            result: pathwise_course::ExamResult::Locked,
        },
    )
    .await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["examAvailability"], "locked");
    assert_eq!(log["nextEligibleAt"], json!(until));
    assert!(!allowed(&log).contains(&"EXAM_BLOCK".to_string()));
    // A day later the lockout is over and the question is a candidate again, first in line.
    t.clock.advance(Duration::hours(25));
    fake.script([model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))]);
    press(&app, t, thread, ClientEvent::RequestDrill { unit_id: "ALG-01".into() }).await;
    let log = last_log(&app, t, thread).await;
    assert_eq!(log["examAvailability"], "available");
    assert_eq!(log["examCandidateIds"][0], "EX-ALG-01-B1", "revisit questions come first");
}

// ---- Validation and fallback ------------------------------------------------------------

async fn every_violation_falls_back_deterministically_without_a_retry(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    let exam = |q: &str, tier: &str| json!({ "exam_suggestion": { "question_id": q, "difficultyTier": tier } });
    let cases: Vec<(&str, Script, &str)> = vec![
        ("malformed JSON", Script::Text("{ not json".into()), "malformed"),
        ("prose", Script::Text("Let us begin with fractions.".into()), "malformed"),
        ("missing fields", Script::json(json!({ "action": "DRILL_CARD" })), "malformed"),
        (
            "confusion tags",
            model_turn("SOCRATIC_QUESTION", "ALG-01", json!({ "confusion_tags": { "sign_error": 1 } })),
            "confusion_tags",
        ),
        ("unknown action", model_turn("LECTURE", "ALG-01", json!({})), "unknown_action"),
        ("exam not allowed", model_turn("EXAM_BLOCK", "ALG-01", exam("EX-ALG-01-B1", "bronze")), "action_not_allowed"),
        (
            "concept when not stuck",
            model_turn("CONCEPT_CARD", "ALG-01", json!({ "concept_card": { "key_ideas": ["a"] } })),
            "action_not_allowed",
        ),
        ("target out of scope", model_turn("SOCRATIC_QUESTION", "GRAPH-02", json!({})), "target_not_in_scope"),
        ("unknown target", model_turn("SOCRATIC_QUESTION", "NOPE-99", json!({})), "target_not_in_scope"),
        ("socratic with a card", model_turn("SOCRATIC_QUESTION", "ALG-01", drill_json()), "unexpected_card"),
        ("drill without its card", model_turn("DRILL_CARD", "ALG-01", json!({})), "missing_card"),
        (
            "drill too long",
            model_turn(
                "DRILL_CARD",
                "ALG-01",
                json!({ "drill_card": { "prompt": "x".repeat(500), "question_latex": "x=1" } }),
            ),
            "drill_size",
        ),
        ("empty text", model_turn("SOCRATIC_QUESTION", "ALG-01", json!({ "tutor_text": "  " })), "empty_text"),
        ("model 500", Script::Status(500, "overloaded".into()), "model_error"),
        (
            "model timeout",
            Script::Slow(
                std::time::Duration::from_secs(2),
                Box::new(model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))),
            ),
            "model_error",
        ),
    ];
    for (name, script, code) in cases {
        let before = fake.requests().len();
        fake.script([script]);
        let reply = say(&app, t, thread, "linear equations please").await;
        let log = last_log(&app, t, thread).await;
        assert_eq!(log["validated"], false, "{name}");
        assert_eq!(log["violation"], code, "{name}: {log}");
        assert_eq!(fake.requests().len(), before + 1, "{name}: one model call, never a retry");
        let action = Action::parse(log["action"].as_str().unwrap()).unwrap();
        assert!(
            matches!(action, Action::SocraticQuestion | Action::DrillCard),
            "{name}: the fallback is Socratic or a drill"
        );
        assert!(!reply.messages.last().unwrap().text.is_empty(), "{name}");
        assert!(log["fallbackReason"].as_str().is_some_and(|r| !r.is_empty()), "{name}");
    }
    // Stuck and exam-ready violations: a concept card with too many ideas, an exam question
    // that is not a candidate or of the wrong tier.
    drills(&app, t, "ALG-01", &[false, false]).await;
    let ideas = json!({ "concept_card": { "key_ideas": ["a", "b", "c", "d"] } });
    for (script, code) in [
        (model_turn("CONCEPT_CARD", "ALG-01", ideas), "key_ideas"),
        (
            model_turn("CONCEPT_CARD", "ALG-01", json!({ "concept_card": { "key_ideas": ["word ".repeat(200)] } })),
            "concept_too_long",
        ),
    ] {
        fake.script([script]);
        say(&app, t, thread, "linear equations please").await;
        assert_eq!(last_log(&app, t, thread).await["violation"], code);
    }
    drills(&app, t, "ALG-01", &[true, true]).await;
    for (script, code) in [
        (model_turn("EXAM_BLOCK", "ALG-01", exam("EX-ALG-00-B1", "bronze")), "exam_not_candidate"),
        (model_turn("EXAM_BLOCK", "ALG-01", exam("EX-ALG-01-B1", "silver")), "exam_wrong_tier"),
        (model_turn("EXAM_BLOCK", "ALG-01", json!({})), "missing_card"),
    ] {
        fake.script([script]);
        say(&app, t, thread, "linear equations please").await;
        assert_eq!(last_log(&app, t, thread).await["violation"], code);
    }
    assert_eq!(fake.unused(), 0);
}

/// A turn waits for the model no longer than its deadline, a free slot included: past it the
/// deterministic tutor answers, the turn logged with the reason code.
async fn a_turn_waits_no_longer_than_its_deadline_for_the_model(t: &TestApp) {
    let fake = FakeLlm::start().await;
    let config =
        OpenAiConfig { timeout: std::time::Duration::from_secs(30), ..OpenAiConfig::new(fake.base_url(), "tutor") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 1);
    let deadline = std::time::Duration::from_millis(400);
    let settings = pathwise_app::course_tutor::TutorSettings { model_deadline: deadline, ..Default::default() };
    let app = t.app().clone().with_llm(llm.clone()).with_tutor_settings(settings);
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;

    let slow = model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}));
    fake.script([Script::Slow(std::time::Duration::from_secs(5), Box::new(slow))]);
    let asked = std::time::Instant::now();
    let reply = say(&app, t, thread, "linear equations please").await;
    assert!(asked.elapsed() < std::time::Duration::from_secs(3), "waited {:?}", asked.elapsed());
    assert!(!reply.messages.last().unwrap().text.is_empty());
    assert_eq!(last_log(&app, t, thread).await["fallbackReason"], "model failed: timeout");

    // Every slot taken (another conversation holds the only one): no model call at all.
    let held = llm.session("another").await.unwrap();
    let before = fake.requests().len();
    say(&app, t, thread, "linear equations please").await;
    assert_eq!(last_log(&app, t, thread).await["fallbackReason"], "model failed: busy");
    assert_eq!(fake.requests().len(), before, "the model was not asked");
    drop(held);
}

async fn the_fallback_is_socratic_unless_practice_was_asked_for(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    let first = say(&app, t, thread, "linear equations").await;
    assert!(card(&first).is_none(), "a message gets a Socratic question first");
    assert_eq!(last_log(&app, t, thread).await["fallbackReason"], "offline: no language model is configured");
    let second = say(&app, t, thread, "you take three away").await;
    assert!(
        matches!(card(&second), Some(TutorCard::Drill { unit_id, drill_id: Some(_), .. }) if unit_id == "ALG-01"),
        "an answer to the tutor's question gets practice: {:?}",
        second.messages
    );
    let stuck = press(&app, t, thread, ClientEvent::DrillStuck { unit_id: "ALG-01".into() }).await;
    assert!(card(&stuck).is_none(), "I'm stuck gets a hint, not another drill");
    assert!(stuck.messages.last().unwrap().text.contains("step"));
    // A unit without blueprints has no offline drill: a Socratic question instead.
    let graph = press(&app, t, thread, ClientEvent::RequestDrill { unit_id: "GRAPH-01".into() }).await;
    assert!(card(&graph).is_none());
}

async fn the_prompt_bundle_follows_the_contract(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    drills(&app, t, "ALG-01", &[true, true]).await;
    fake.script([model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))]);
    app.tutor_turn(t.learner, thread, TurnRequest { message_latex: Some("2x+3=11".into()), ..TurnRequest::default() })
        .await
        .unwrap();
    let request = fake.requests().pop().unwrap();
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "system rules, POLICY, CONTEXT, student input");
    let text = |i: usize| messages[i]["content"].as_str().unwrap().to_string();
    assert!(text(0).contains("Obey the POLICY object") && text(0).contains("You MUST output JSON only."));
    let policy: Value = serde_json::from_str(text(1).strip_prefix("POLICY: ").unwrap()).unwrap();
    for key in [
        "turnId",
        "focusUnitId",
        "primaryTargetUnitId",
        "prereqBlockingUnitId",
        "scopedUnitIds",
        "allowedActions",
        "stuck",
        "examReady",
        "desiredExamTier",
        "examAvailability",
        "constraints",
    ] {
        assert!(policy.get(key).is_some(), "POLICY.{key}");
    }
    assert_eq!(policy["constraints"], json!({ "maxConceptWords": 170, "maxWorkedExamples": 1, "drillMaxSteps": 2 }));
    let context: Value = serde_json::from_str(text(2).strip_prefix("CONTEXT: ").unwrap()).unwrap();
    for key in ["unitAnchors", "unitContentChunks", "examCandidates", "snapshotLiteForLLM", "clientEvent"] {
        assert!(context.get(key).is_some(), "CONTEXT.{key}");
    }
    assert!(context["unitAnchors"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| policy["scopedUnitIds"].as_array().unwrap().contains(&a["unitId"])));
    assert_eq!(context["examCandidates"].as_array().unwrap().len(), 2);
    let candidates = context["examCandidates"].to_string();
    assert!(
        !candidates.contains("Subtract 4") && !candidates.contains("options") && !candidates.contains("correct"),
        "candidates are metadata: {candidates}"
    );
    assert!(
        text(3).contains("messageLatex: 2x+3=11")
            && text(3).contains("Required JSON shape")
            && text(3).contains("Hard constraints")
    );
    assert_eq!(request["response_format"]["json_schema"]["name"], "tutor_turn");
}

// ---- Evidence -------------------------------------------------------------------------

async fn every_graded_drill_and_exam_answer_is_a_response_on_the_units_node(t: &TestApp) {
    let (_fake, app, thread) = offered_exam(t).await;
    let offline = t.app().clone();
    let drill = blueprint_drill(&offline, t, thread, "ALG-01").await;
    let (item, _) = offered_item(&app, t, thread, &drill).await;
    app.grade_drill(t.learner, thread, grade("ALG-01", &drill, &item.key.answer)).await.unwrap();
    app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B1", 3)).await.unwrap();
    let map = app.tutor_snapshot(t.learner, COURSE_ID).await.unwrap().mind_map_id.unwrap();
    let node = t.map(map).await.nodes.into_iter().find(|n| n.label == "Linear equations").unwrap();
    let filter = ResponseFilter { node_id: Some(node.id), ..ResponseFilter::default() };
    let responses = app.store().list_responses(t.learner, &filter, 0, 50).await.unwrap();
    let mut earned: Vec<(u8, Rating)> = responses.items.iter().map(|r| (r.quality, r.rating)).collect();
    earned.sort();
    assert_eq!(responses.total, 2);
    // The drill's answer was typed and checked exactly: the best a check gives, yet Good,
    // never Easy (domain::evidence); the exam's options were shown, and it was missed.
    assert_eq!(earned, [(1, Rating::Again), (5, Rating::Good)], "a right typed drill and a wrong exam answer");
    assert!(responses.items.iter().all(|r| r.response_type == ResponseType::Teach && r.session_id == Some(thread.0)));
    assert!(t.node(node.id).await.mastery_score > 0.0, "mastery moved");
}

// ---- Evidence is accepted only where it was offered, once ----------------------------------

async fn a_drill_is_graded_only_in_its_thread_for_its_learner_and_once(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    let drill = blueprint_drill(&app, t, thread, "ENTRY-00").await;
    let (item, item_id) = offered_item(&app, t, thread, &drill).await;
    let right = item.options[item.key.choice.unwrap()].clone();
    let other_thread = app.create_thread(t.learner, CreateThread { course_id: COURSE_ID.into(), title: None }).await;
    let other_thread = other_thread.unwrap().id;
    let someone = t.other_learner().await;
    let before = t.counts().await;
    let refused = |request: DrillGradeRequest, thread: ThreadId, learner| {
        let app = app.clone();
        async move { app.grade_drill(learner, thread, request).await.unwrap_err() }
    };
    // Not offered: the item's own id (its seed tells the answer), an id never given out, no id.
    for (id, why) in [
        (Some(item_id.clone()), "not a drill offered in this thread"),
        (Some("drl_00000000000000000000000000000000".to_string()), "not a drill offered in this thread"),
        (None, "drill.drillId: is missing"),
    ] {
        // An id that names no drill here is not found; a drill with no id is malformed.
        let kind = if id.is_some() { ErrorKind::NotFound } else { ErrorKind::Invalid };
        let forged = DrillText { drill_id: id, ..drill.clone() };
        let error = refused(grade("ENTRY-00", &forged, &right), thread, t.learner).await;
        assert_eq!(error.kind, kind, "{error}");
        assert!(error.message.contains(why), "{error}");
        assert_eq!(error.details["field"], "drill.drillId", "{error}");
    }
    // Another thread of the same learner, another unit, another learner.
    let error = refused(grade("ENTRY-00", &drill, &right), other_thread, t.learner).await;
    assert!(error.message.contains("not a drill offered in this thread"), "{error}");
    let error = refused(grade("ALG-00", &drill, &right), thread, t.learner).await;
    assert_eq!(error.details["field"], "unitId", "{error}");
    let error = refused(grade("ENTRY-00", &drill, &right), thread, someone).await;
    assert_eq!(error.kind, ErrorKind::NotFound, "another learner's thread does not exist for them: {error}");
    assert_eq!(t.counts().await, before, "no refusal stored anything");

    // Graded once; the same answer again is the first grading, and changes nothing.
    let first = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, &right)).await.unwrap();
    assert!(first.is_correct && !first.replayed);
    assert_eq!((first.drill.attempts, first.drill.streak_correct), (1, 1));
    let after_first = t.counts().await;
    for answer in [right.as_str(), "a different answer"] {
        let again = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, answer)).await.unwrap();
        assert!(again.replayed && again.is_correct, "the first grading stands");
        assert_eq!((again.drill.attempts, again.drill.streak_correct), (1, 1), "no counter moved");
        assert!(again.messages.is_empty());
        assert_eq!(again.feedback_text, first.feedback_text);
    }
    assert_eq!(t.counts().await, after_first, "a replay stores nothing");
    assert_eq!(snapshot(&app, t).await.progress("ENTRY-00").unwrap().drill.streak_correct, 1);
}

/// Run `sql` on the test's database (for a fault injected by a trigger).
async fn execute(t: &TestApp, sqlite: &str, postgres: &str) {
    use pathwise_store::AnyStore;
    match t.app().store() {
        AnyStore::Postgres(store) => {
            sqlx::raw_sql(postgres).execute(store.pool()).await.expect("run the SQL");
        }
        AnyStore::Sqlite(store) => {
            use sqlx::sqlite::SqliteConnectOptions;
            use sqlx::{ConnectOptions, Connection};
            let mut conn = SqliteConnectOptions::new().filename(store.path()).connect().await.expect("open");
            sqlx::raw_sql(sqlite).execute(&mut conn).await.expect("run the SQL");
            conn.close().await.ok();
        }
    }
}

async fn a_graded_drill_moves_the_snapshot_and_the_map_together_or_not_at_all(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    let drill = blueprint_drill(&app, t, thread, "ENTRY-00").await;
    let (item, _) = offered_item(&app, t, thread, &drill).await;
    let right = item.options[item.key.choice.unwrap()].clone();
    // The second write of the evidence, its response on the map, fails.
    execute(
        t,
        "CREATE TRIGGER fail_responses BEFORE INSERT ON quiz_responses BEGIN SELECT RAISE(ABORT, 'injected'); END;",
        "CREATE FUNCTION fail_responses() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$; \
         CREATE TRIGGER fail_responses BEFORE INSERT ON quiz_responses FOR EACH ROW EXECUTE FUNCTION fail_responses();",
    )
    .await;
    let before = (t.counts().await, app.store().get_tutor_snapshot(t.learner, COURSE_ID).await.unwrap());
    let error = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, &right)).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Internal, "{error}");
    let after = (t.counts().await, app.store().get_tutor_snapshot(t.learner, COURSE_ID).await.unwrap());
    assert_eq!(before, after, "neither the snapshot, the thread, the drill's grading nor the response was written");
    let offer = app.store().drill_offer(t.learner, thread, drill.drill_id.as_deref().unwrap()).await.unwrap();
    assert_eq!(offer.unwrap().graded_at, None);

    // With the fault gone the same answer is graded, and every part of it is stored.
    execute(t, "DROP TRIGGER fail_responses;", "DROP TRIGGER fail_responses ON quiz_responses;").await;
    let graded = app.grade_drill(t.learner, thread, grade("ENTRY-00", &drill, &right)).await.unwrap();
    assert!(graded.is_correct && !graded.replayed);
    let map = app.tutor_snapshot(t.learner, COURSE_ID).await.unwrap().mind_map_id.unwrap();
    let responses = app
        .store()
        .list_responses(t.learner, &ResponseFilter { mind_map_id: Some(map), ..ResponseFilter::default() }, 0, 10)
        .await
        .unwrap();
    assert_eq!(responses.total, 1);
    assert_eq!(snapshot(&app, t).await.progress("ENTRY-00").unwrap().drill.attempts, 1);
}

// ---- An external exam service ------------------------------------------------------------

/// A school's exam system: knows the keys, locks wrong answers for an hour, checks the token,
/// and records which questions it was asked about.
#[derive(Default)]
struct ExamSystem {
    locked: std::sync::Mutex<std::collections::HashMap<String, String>>,
    asked: std::sync::Mutex<Vec<Vec<String>>>,
}

async fn exam_system() -> (Arc<ExamSystem>, String) {
    use axum::routing::post;
    use axum::{extract::State, http::HeaderMap, http::StatusCode, Json};
    let system = Arc::new(ExamSystem::default());
    fn authorized(headers: &HeaderMap) -> bool {
        headers.get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer exam-secret")
    }
    let app = axum::Router::new()
        .route(
            "/exams/statuses",
            post(|State(s): State<Arc<ExamSystem>>, headers: HeaderMap, Json(body): Json<Value>| async move {
                if !authorized(&headers) {
                    return (StatusCode::UNAUTHORIZED, Json(json!({}))).into_response();
                }
                let ids: Vec<String> = serde_json::from_value(body["questionIds"].clone()).unwrap();
                s.asked.lock().unwrap().push(ids.clone());
                let locked = s.locked.lock().unwrap();
                let statuses: serde_json::Map<String, Value> = ids
                    .iter()
                    .filter_map(|q| {
                        locked.get(q).map(|until| (q.clone(), json!({ "status": "locked", "lockedUntil": until })))
                    })
                    .collect();
                Json(json!({ "statuses": statuses })).into_response()
            }),
        )
        .route(
            "/exams/submit",
            post(|State(s): State<Arc<ExamSystem>>, Json(body): Json<Value>| async move {
                let q = body["questionId"].as_str().unwrap().to_string();
                if let Some(until) = s.locked.lock().unwrap().get(&q) {
                    return (StatusCode::CONFLICT, Json(json!({ "status": "locked", "lockedUntil": until })))
                        .into_response();
                }
                let correct = q == "EX-ALG-01-B1" && body["selectedIndex"] == 0;
                if correct {
                    return Json(json!({ "isCorrect": true, "status": "passed" })).into_response();
                }
                let until = "2026-03-02T10:00:00Z".to_string();
                s.locked.lock().unwrap().insert(q, until.clone());
                Json(json!({ "isCorrect": false, "status": "locked", "lockedUntil": until })).into_response()
            }),
        )
        .with_state(system.clone());
    use axum::response::IntoResponse;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/exams", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (system, url)
}

async fn an_external_exam_service_decides_passes_and_lockouts(t: &TestApp) {
    use pathwise_app::course_tutor::ExternalExamService;
    let (system, url) = exam_system().await;
    let external =
        ExternalExamService::new(&url, Some("exam-secret".into()), std::time::Duration::from_secs(5)).unwrap();
    let (fake, app) = with_model(t).await;
    let app = app.with_exam_service(Arc::new(external));
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    drills(&app, t, "ALG-01", &[true, true]).await;
    fake.script([model_turn(
        "EXAM_BLOCK",
        "ALG-01",
        json!({ "exam_suggestion": { "question_id": "EX-ALG-01-B2", "difficultyTier": "bronze" } }),
    )]);
    press(&app, t, thread, ClientEvent::DrillContinue { unit_id: "ALG-01".into(), last_result: DrillResult::Correct })
        .await;
    let asked = system.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "one status lookup for the turn");
    let mut asked_ids = asked[0].clone();
    asked_ids.sort();
    assert_eq!(asked_ids, ["EX-ALG-01-B1", "EX-ALG-01-B2"], "only the candidates, never the bank");
    let wrong = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B2", 0)).await.unwrap();
    assert!(!wrong.is_correct);
    assert_eq!(
        wrong.locked_until.unwrap().to_rfc3339(),
        "2026-03-02T10:00:00+00:00",
        "the service's lockout, not Pathwise's"
    );
    let refused = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B2", 1)).await.unwrap_err();
    assert_eq!((refused.kind, refused.code), (ErrorKind::Conflict, ErrorCode::ExamLocked));
    assert!(snapshot(&app, t).await.revisit_queue.contains_key("EX-ALG-01-B2"));
    // The service down: a clear 503, nothing recorded.
    let down = ExternalExamService::new("http://127.0.0.1:9/exams", None, std::time::Duration::from_secs(2)).unwrap();
    let app = app.with_exam_service(Arc::new(down));
    let before = t.counts().await;
    let error = app.exam_mcq_submit(t.learner, thread, submit("EX-ALG-01-B2", 1)).await.unwrap_err();
    assert_eq!((error.kind, error.code), (ErrorKind::Unavailable, ErrorCode::ExamServiceUnavailable));
    assert_eq!(t.counts().await, before);
}

async fn a_stale_snapshot_write_changes_nothing(t: &TestApp) {
    let app = t.app().clone();
    let thread = thread(&app, t).await;
    let record = app.store().get_tutor_snapshot(t.learner, COURSE_ID).await.unwrap().unwrap();
    let stale = pathwise_store::SnapshotRecord { version: record.version, ..record.clone() };
    let message = pathwise_store::TutorMessageRecord {
        seq: 0,
        id: uuid::Uuid::now_v7(),
        role: "assistant".into(),
        text: "x".into(),
        latex: None,
        card: None,
        exam_question_id: None,
        turn_id: None,
        created_at: t.clock.now(),
        outcome: None,
        sources: None,
    };
    let before = t.counts().await;
    let step = TutorStep {
        snapshot: Some(&stale),
        thread: Some(thread),
        messages: std::slice::from_ref(&message),
        ..TutorStep::default()
    };
    let error = app.store().commit_tutor_step(step).await.unwrap_err();
    assert!(error.to_string().contains("changed since it was read"), "{error}");
    assert_eq!(t.counts().await, before, "neither the snapshot nor the message was written");
}

// ---- Embeddings and the debug payload -----------------------------------------------------

async fn embeddings_join_bm25_when_an_embedding_model_is_configured(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let mut config = OpenAiConfig::new(fake.base_url(), "embedder");
    config.timeout = std::time::Duration::from_secs(5);
    let app = app.with_embedder(Arc::new(pathwise_llm::Embedder::new(config).unwrap()));
    let thread = thread(&app, t).await;
    let loaded = app.course(COURSE_ID).await.unwrap();
    assert_eq!(loaded.index.embedding_dimension(), Some(pathwise_fake_llm::EMBEDDING_DIMENSIONS));
    let documents = fake.embedded().len();
    assert_eq!(documents, loaded.index.len(), "every document of the course embedded once");
    fake.script([model_turn("SOCRATIC_QUESTION", "ENTRY-00", json!({}))]);
    say(&app, t, thread, "warm-up arithmetic").await;
    assert_eq!(fake.embedded().last().map(String::as_str), Some("warm-up arithmetic"), "the words are embedded");
    assert_eq!(last_log(&app, t, thread).await["retrieval"], "bm25+embeddings");
    // A failing embedding model leaves the turn to BM25.
    fake.embeddings_down(true);
    fake.script([model_turn("SOCRATIC_QUESTION", "ENTRY-00", json!({}))]);
    let reply = say(&app, t, thread, "warm-up arithmetic").await;
    assert_eq!(reply.messages.len(), 2);
    assert_eq!(last_log(&app, t, thread).await["retrieval"], "bm25");
}

async fn a_prompt_budget_cuts_retrieved_context_and_never_the_policy(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let settings = pathwise_app::course_tutor::TutorSettings { prompt_tokens: Some(900), ..Default::default() };
    let small = app.clone().with_tutor_settings(settings);
    // Uncut: more room than the whole context takes (an unmeasured model's default would cut it).
    let roomy = pathwise_app::course_tutor::TutorSettings { prompt_tokens: Some(8_000), ..Default::default() };
    let large = app.clone().with_tutor_settings(roomy);
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    drills(&app, t, "ALG-01", &[true, true]).await;
    let sent = |app: &App, words: &'static str| {
        let app = app.clone();
        let fake = fake.clone();
        async move {
            fake.script([model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))]);
            let request = TurnRequest { message_text: Some(words.into()), ..TurnRequest::default() };
            app.tutor_turn(t.learner, thread, request).await.unwrap();
            fake.requests().pop().unwrap()
        }
    };
    let whole = sent(&large, "how do I solve linear equations").await;
    let cut = sent(&small, "how do I solve linear equations").await;
    let context = |r: &Value| -> Value {
        let text = r["messages"][2]["content"].as_str().unwrap();
        serde_json::from_str(text.strip_prefix("CONTEXT: ").unwrap()).unwrap()
    };
    let size = |r: &Value| {
        r["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().len()).sum::<usize>()
    };
    assert!(size(&cut) < size(&whole), "{} < {}", size(&cut), size(&whole));
    let (whole_context, cut_context) = (context(&whole), context(&cut));
    let count = |c: &Value, key: &str| c[key].as_array().unwrap().len();
    assert!(count(&cut_context, "unitContentChunks") < count(&whole_context, "unitContentChunks").max(1));
    assert!(count(&cut_context, "unitAnchors") >= 1, "the best anchor stays");
    assert_eq!(cut_context["examCandidates"], whole_context["examCandidates"], "what the policy offers is never cut");
    let policy = |r: &Value| -> Value {
        let text = r["messages"][1]["content"].as_str().unwrap();
        let mut policy: Value = serde_json::from_str(text.strip_prefix("POLICY: ").unwrap()).unwrap();
        policy.as_object_mut().unwrap().remove("turnId");
        policy
    };
    assert_eq!(policy(&cut), policy(&whole), "the policy is never cut");
}

/// With no `llm_prompt_tokens`, a turn's prompt is sized from the model's measured speed so
/// that the model reads it in time: the first turn is sent what a slow model reads in time
/// and is timed; a model that took most of the deadline to read it gets less context on the
/// next turn, never less policy. An explicit setting still wins.
async fn the_prompt_is_sized_to_what_the_model_reads_before_the_deadline(t: &TestApp) {
    let fake = FakeLlm::start().await;
    let llm = Llm::new(Arc::new(OpenAiClient::new(OpenAiConfig::new(fake.base_url(), "tutor")).unwrap()), 1);
    let deadline = std::time::Duration::from_secs(3);
    let settings = pathwise_app::course_tutor::TutorSettings { model_deadline: deadline, ..Default::default() };
    let app = t.app().clone().with_llm(llm).with_tutor_settings(settings.clone());
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    let before = app.tutor_prompt_budget();
    assert_eq!(
        before.tokens,
        Some(pathwise_app::course_tutor::UNMEASURED_PROMPT_TOKENS),
        "nothing measured yet: the first turn is sent what a slow model reads in time: {}",
        before.why
    );

    // A slow reader: the whole prompt took 2.5 of the turn's 3 seconds before the first
    // token, more than the share of a turn a model may spend reading.
    let reading = std::time::Duration::from_millis(2_500);
    fake.script([Script::Slow(reading, Box::new(model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))))]);
    say(&app, t, thread, "how do I solve linear equations").await;
    let first = fake.requests().pop().unwrap();
    let size = |r: &Value| r["messages"].to_string().len() / 4;
    let budget = app.tutor_prompt_budget();
    let tokens = budget.tokens.expect("measured after one timed turn");
    assert!(tokens < size(&first), "{tokens} tokens fit, the whole prompt had {}: {}", size(&first), budget.why);
    assert!(budget.why.contains("measured over 1 call"), "{}", budget.why);

    fake.script([model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))]);
    say(&app, t, thread, "how do I solve linear equations").await;
    let second = fake.requests().pop().unwrap();
    assert!(size(&second) < size(&first), "cut to fit: {} < {}", size(&second), size(&first));
    let policy = |r: &Value| -> Value {
        let text = r["messages"][1]["content"].as_str().unwrap();
        let mut policy: Value = serde_json::from_str(text.strip_prefix("POLICY: ").unwrap()).unwrap();
        policy.as_object_mut().unwrap().remove("turnId");
        policy
    };
    // The learner's place moved between the turns (scoped units); what the policy allows
    // did not, and the cut prompt carries all of it.
    for key in ["allowedActions", "focusUnitId", "examAvailability", "constraints"] {
        assert_eq!(policy(&second)[key], policy(&first)[key], "the policy is never cut: {key}");
    }

    let explicit = app
        .clone()
        .with_tutor_settings(pathwise_app::course_tutor::TutorSettings { prompt_tokens: Some(900), ..settings });
    assert_eq!(explicit.tutor_prompt_budget().tokens, Some(900), "llm_prompt_tokens wins");
}

async fn a_grammar_decoding_server_gets_one_alternative_per_allowed_action(t: &TestApp) {
    let fake = FakeLlm::start().await;
    fake.supports(pathwise_fake_llm::Supports::JsonObjectOnly);
    let config = OpenAiConfig {
        structured_output: pathwise_llm::StructuredOutput::JsonObject,
        ..OpenAiConfig::new(fake.base_url(), "tutor")
    };
    let app = t.app().clone().with_llm(Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 2));
    let thread = thread(&app, t).await;
    prerequisites_met(&app, t).await;
    drills(&app, t, "ALG-01", &[true, true]).await;
    fake.script([model_turn("SOCRATIC_QUESTION", "ALG-01", json!({}))]);
    let reply = say(&app, t, thread, "how do I solve linear equations").await;
    assert_eq!(reply.messages.len(), 2);
    let request = fake.requests().pop().unwrap();
    let schema = &request["response_format"]["schema"];
    let alternatives = schema["anyOf"].as_array().expect("one alternative per action");
    let log = last_log(&app, t, thread).await;
    let allowed: Vec<Value> = log["allowedActions"].as_array().unwrap().clone();
    let actions: Vec<Value> = alternatives.iter().map(|a| a["properties"]["action"]["const"].clone()).collect();
    assert_eq!(actions, allowed, "{schema}");
    for alternative in alternatives {
        let p = &alternative["properties"];
        let own = match p["action"]["const"].as_str().unwrap() {
            "DRILL_CARD" => Some("drill_card"),
            "CONCEPT_CARD" => Some("concept_card"),
            "EXAM_BLOCK" => Some("exam_suggestion"),
            _ => None,
        };
        for card in ["concept_card", "drill_card", "exam_suggestion"] {
            assert_eq!(p[card]["type"] == "null", Some(card) != own, "{card} in {alternative}");
        }
        assert_eq!(p["tutor_text"]["minLength"], 1);
    }
}

async fn the_debug_setting_adds_the_policy_and_candidate_scores(t: &TestApp) {
    let settings = pathwise_app::course_tutor::TutorSettings { debug: true, ..Default::default() };
    let app = t.app().clone().with_tutor_settings(settings);
    let thread = thread(&app, t).await;
    let reply = say(&app, t, thread, "linear equations").await;
    let debug = reply.debug.expect("a debug payload");
    assert_eq!(debug.policy.prereq_blocking_unit_id.as_deref(), Some("ALG-00"));
    assert_eq!(debug.policy.focus_unit_id, "ENTRY-00", "where the route to linear equations starts");
    assert!(!debug.candidate_scores.is_empty());
    assert!(debug.candidate_scores.windows(2).all(|w| w[0].score >= w[1].score), "ranked by score");
    assert!(!debug.validated, "offline turns are the fallback");
    let plain = say(&t.app().clone(), t, thread, "linear equations").await;
    assert!(plain.debug.is_none(), "off by default");
}

conformance!(
    a_first_thread_makes_a_sparse_snapshot_and_the_courses_map,
    a1_mapped_unit_confidence_high_prereqs_satisfied,
    a2_mapped_unit_high_prereqs_missing,
    a3_mapped_unit_ambiguous_low_confidence,
    a4_evidence_shows_stuck,
    a5_examready_true_and_examavailability_available_tier_aware,
    b1_correct,
    b2_incorrect,
    a_typed_number_under_a_drills_numeric_options_is_its_value_never_an_index,
    c1_mcq_submit_correct,
    c2_mcq_submit_incorrect_or_support_viewed,
    a_reloaded_timeline_carries_each_answers_outcome,
    every_violation_falls_back_deterministically_without_a_retry,
    a_turn_waits_no_longer_than_its_deadline_for_the_model,
    the_fallback_is_socratic_unless_practice_was_asked_for,
    the_prompt_bundle_follows_the_contract,
    every_graded_drill_and_exam_answer_is_a_response_on_the_units_node,
    an_external_exam_service_decides_passes_and_lockouts,
    a_stale_snapshot_write_changes_nothing,
    embeddings_join_bm25_when_an_embedding_model_is_configured,
    the_debug_setting_adds_the_policy_and_candidate_scores,
    a_prompt_budget_cuts_retrieved_context_and_never_the_policy,
    a_cut_prompt_offers_only_the_passages_it_kept_to_cite,
    a_models_reply_to_a_question_the_notes_answer_leads_with_their_answer,
    the_prompt_is_sized_to_what_the_model_reads_before_the_deadline,
    a_grammar_decoding_server_gets_one_alternative_per_allowed_action,
    a_drill_is_graded_only_in_its_thread_for_its_learner_and_once,
    a_graded_drill_moves_the_snapshot_and_the_map_together_or_not_at_all,
);

/// A course from someone's notes: every passage has an id, and a reply must cite one it was
/// given. When the prompt budget cuts passages, the reply's schema offers only those kept
/// (it once offered them all, and SmolLM2, decoding by it, cited passages it never saw).
const GROUNDED_COURSE: &str = r#"
course_id = "NOTES-LEAVES"
title = "Leaves"
entry_unit = "leaves"
confusion_tags = ["misread_the_material"]

[[units]]
id = "leaves"
title = "Leaves"
anchor = "Leaves make food by photosynthesis."

[[units.drills]]
stem = "Fill in the blank: chlorophyll absorbs red and blue _____."
answer = "light"
passage = "p1"

[[content]]
id = "p1"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 1"
text = "Leaves make food by photosynthesis, passage 1: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p2"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 2"
text = "Leaves make food by photosynthesis, passage 2: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p3"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 3"
text = "Leaves make food by photosynthesis, passage 3: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p4"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 4"
text = "Leaves make food by photosynthesis, passage 4: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p5"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 5"
text = "Leaves make food by photosynthesis, passage 5: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p6"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 6"
text = "Leaves make food by photosynthesis, passage 6: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p7"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 7"
text = "Leaves make food by photosynthesis, passage 7: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."

[[content]]
id = "p8"
unit = "leaves"
chunk_type = "document"
source_id = "plants.md"
section = "Leaves 8"
text = "Leaves make food by photosynthesis, passage 8: chlorophyll in the chloroplasts absorbs red and blue light, reflects green light, and the energy splits water to release oxygen while the stroma builds sugar from carbon dioxide."
"#;

async fn a_cut_prompt_offers_only_the_passages_it_kept_to_cite(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    app.import_course(GROUNDED_COURSE, PackFormat::Toml).await.expect("import the notes course");
    let sent = |tokens: usize| {
        let app = app.clone().with_tutor_settings(pathwise_app::course_tutor::TutorSettings {
            prompt_tokens: Some(tokens),
            ..Default::default()
        });
        let fake = fake.clone();
        async move {
            let input = CreateThread { course_id: "NOTES-LEAVES".into(), title: None };
            let thread = app.create_thread(t.learner, input).await.unwrap().id;
            fake.script([model_turn("SOCRATIC_QUESTION", "leaves", json!({ "sources": ["p1"] }))]);
            say(&app, t, thread, "why do leaves look green and where does the oxygen come from").await;
            fake.requests().pop().unwrap()
        }
    };
    let citable = |r: &Value| -> Vec<String> {
        let sources = &r["response_format"]["json_schema"]["schema"]["properties"]["sources"];
        serde_json::from_value(sources["items"]["enum"].clone()).unwrap_or_default()
    };
    let kept = |r: &Value| -> Vec<String> {
        let text = r["messages"][2]["content"].as_str().unwrap();
        let context: Value = serde_json::from_str(text.strip_prefix("CONTEXT: ").unwrap()).unwrap();
        let chunks = context["unitContentChunks"].as_array().unwrap();
        chunks.iter().filter_map(|c| c["passageId"].as_str().map(String::from)).collect()
    };
    let whole = sent(20_000).await;
    // Room for all but about three passages (four characters a token, as the budget counts).
    let tokens = |r: &Value| {
        r["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().chars().count()).sum::<usize>()
            / 4
    };
    let cut = sent(tokens(&whole) - 150).await;
    assert!(kept(&whole).len() > 1, "{}", whole["messages"][2]["content"]);
    assert_eq!(citable(&whole), kept(&whole), "{}", whole["response_format"]);
    assert!(
        !kept(&cut).is_empty() && kept(&cut).len() < kept(&whole).len(),
        "cut, the best passage kept: {:?}",
        kept(&cut)
    );
    assert_eq!(citable(&cut), kept(&cut), "only what the cut context still has: {}", cut["response_format"]);
    // However small the budget, a reply here is given a passage to cite.
    let tiny = sent(300).await;
    assert_eq!(kept(&tiny).len(), 1, "{}", tiny["messages"][2]["content"]);
    assert_eq!(citable(&tiny), kept(&tiny));

    // A reply that cites a passage but says something else is refused, and the course's own
    // tutor answers from the material.
    let input = CreateThread { course_id: "NOTES-LEAVES".into(), title: None };
    let thread = app.create_thread(t.learner, input).await.unwrap().id;
    let off_the_material = "This is a test of your ability to solve logical puzzles and make sound decisions.";
    fake.script([model_turn(
        "SOCRATIC_QUESTION",
        "leaves",
        json!({ "sources": ["p1"], "tutor_text": off_the_material }),
    )]);
    let reply = say(&app, t, thread, "why do leaves look green").await;
    let log = last_log(&app, t, thread).await;
    assert_eq!((log["validated"].as_bool(), log["violation"].as_str()), (Some(false), Some("ungrounded")), "{log}");
    assert!(!reply.messages.last().unwrap().text.contains("logical puzzles"), "{:?}", reply.messages);
}

/// Asked a question its notes answer, the model's reply (kept to the material) comes after
/// the notes' own answer, quoted and cited: what the learner asked is never left to a small
/// model's paraphrase.
async fn a_models_reply_to_a_question_the_notes_answer_leads_with_their_answer(t: &TestApp) {
    let (fake, app) = with_model(t).await;
    let pack = GROUNDED_COURSE.replace(
        "[[content]]\nid = \"p1\"",
        "[[content]]\nid = \"p0\"\nunit = \"leaves\"\nchunk_type = \"document\"\nsource_id = \"plants.md\"\n\
         section = \"Colour\"\ntext = \"Leaves look green because chlorophyll reflects green light.\"\n\n\
         [[content]]\nid = \"p1\"",
    );
    app.import_course(&pack, PackFormat::Toml).await.expect("import the notes course");
    let input = CreateThread { course_id: "NOTES-LEAVES".into(), title: None };
    let thread = app.create_thread(t.learner, input).await.unwrap().id;
    let words = "Chlorophyll absorbs red and blue light. What colour does it reflect, do you think?";
    fake.script([model_turn("SOCRATIC_QUESTION", "leaves", json!({ "sources": ["p1"], "tutor_text": words }))]);
    let reply = say(&app, t, thread, "why do leaves look green?").await;
    let said = reply.messages.last().unwrap();
    assert_eq!(
        said.text,
        format!(
            "Your material says: \u{201c}Leaves look green because chlorophyll reflects green light.\u{201d} {words}"
        )
    );
    let cited: Vec<&str> = said.sources.iter().map(|s| s.passage_id.as_str()).collect();
    assert_eq!(cited, ["p0", "p1"], "the answer's passage first, then the model's");
    assert_eq!(last_log(&app, t, thread).await["validated"], true);
}
