//! The deterministic tutor goes the whole way without a model, on a shipped course and both
//! stores: a learner who answers everything right goes from the first turn to gold on a unit;
//! one who answers wrong until stuck gets help that climbs a rung each time (a passage, a
//! worked example, the slip to watch for), then comes back to the unit they asked for once
//! its prerequisite earns a tier. Free text is acknowledged and mapped (a
//! question about fractions reaches a fractions unit, "what is 7+8?" reaches addition);
//! ambiguous words become choices to click, and words about nothing in the course say so
//! with what the tutor can do; events the policy does not allow are
//! refused with nothing recorded.

mod support;

use pathwise_app::course_tutor::{
    CreateThread, DrillGradeRequest, DrillText, McqSubmitRequest, TurnReply, TurnRequest,
};
use pathwise_app::queries::PageQuery;
use pathwise_app::ErrorKind;
use pathwise_course::lite::SnapshotLite;
use pathwise_course::{ClientEvent, DrillResult, ExamResult, MasteryTier, Tier, TutorCard};
use pathwise_domain::{MasteryStatus, ThreadId};
use pathwise_store::TutorStore;
use support::TestApp;

const MATH: &str = "MATH-FOUNDATIONS";

async fn math_thread(t: &TestApp) -> ThreadId {
    t.app.install_builtin_courses().await.expect("install the shipped courses");
    let input = CreateThread { course_id: MATH.into(), title: None };
    t.app.create_thread(t.learner, input).await.expect("thread").id
}

async fn say(t: &TestApp, thread: ThreadId, text: &str) -> TurnReply {
    let request = TurnRequest { message_text: Some(text.into()), ..TurnRequest::default() };
    t.app.tutor_turn(t.learner, thread, request).await.expect("turn")
}

async fn press(t: &TestApp, thread: ThreadId, event: ClientEvent) -> TurnReply {
    t.app
        .tutor_turn(t.learner, thread, TurnRequest { client_event: event, ..TurnRequest::default() })
        .await
        .expect("turn")
}

fn card(reply: &TurnReply) -> &TutorCard {
    reply.messages.last().and_then(|m| m.card.as_ref()).unwrap_or_else(|| panic!("a card, got {reply:#?}"))
}

fn text(reply: &TurnReply) -> &str {
    &reply.messages.last().expect("the tutor's reply").text
}

fn drill_of(reply: &TurnReply) -> (String, DrillText) {
    match card(reply) {
        TutorCard::Drill { unit_id, prompt, question_latex, drill_id, options } => (
            unit_id.clone(),
            DrillText {
                prompt: prompt.clone(),
                question_latex: question_latex.clone(),
                drill_id: drill_id.clone(),
                options: options.clone(),
            },
        ),
        other => panic!("expected a drill, got {other:?}"),
    }
}

/// Answer the drill right (the key, from the item its offer recorded) or wrong.
async fn answer_drill(t: &TestApp, thread: ThreadId, unit: &str, drill: &DrillText, right: bool) -> SnapshotLite {
    let id = drill.drill_id.as_deref().expect("an offered drill");
    let offer = t.app.store().drill_offer(t.learner, thread, id).await.unwrap().expect("offered");
    let item = t.app.course(MATH).await.unwrap().course.library().regenerate(&offer.item_ref.unwrap()).unwrap();
    let answer = if right {
        item.key.answer.clone()
    } else if item.options.is_empty() {
        "not an answer".to_string()
    } else {
        item.options.iter().find(|o| **o != item.key.answer).unwrap().clone()
    };
    let request =
        DrillGradeRequest { course_id: None, unit_id: Some(unit.into()), drill: drill.clone(), student_answer: answer };
    let reply = t.app.grade_drill(t.learner, thread, request).await.expect("graded");
    assert_eq!(reply.is_correct, right, "{}", reply.feedback_text);
    reply.snapshot_lite
}

/// Answer the exam card of `reply` right, from the course's bank.
async fn pass_exam(t: &TestApp, thread: ThreadId, reply: &TurnReply, tier: Tier) -> (String, MasteryTier) {
    let TutorCard::Exam { unit_id, question_id, tier: shown, .. } = card(reply) else {
        panic!("expected an exam card, got {:?}", card(reply))
    };
    assert_eq!(*shown, tier);
    let loaded = t.app.course(MATH).await.unwrap();
    let question = loaded.course.question(question_id).expect("a question of the bank");
    let request = McqSubmitRequest {
        course_id: None,
        unit_id: unit_id.clone(),
        question_id: question_id.clone(),
        difficulty_tier: Some(tier),
        selected_index: question.correct,
    };
    let reply = t.app.exam_mcq_submit(t.learner, thread, request).await.expect("submitted");
    assert!(reply.is_correct);
    (question_id.clone(), reply.mastery_tier)
}

/// Two right drills on the focus, then the check the policy opens, passed.
async fn earn(t: &TestApp, thread: ThreadId, unit: &str, tier: Tier, first: TurnReply) -> TurnReply {
    let mut reply = first;
    let mut drills = 0;
    for _ in 0..2 {
        let (drill_unit, drill) = drill_of(&reply);
        assert_eq!(drill_unit, unit, "{}", text(&reply));
        let lite = answer_drill(t, thread, unit, &drill, true).await;
        drills += 1;
        if lite.exam_check.is_some() {
            break;
        }
        reply =
            press(t, thread, ClientEvent::DrillContinue { unit_id: unit.into(), last_result: DrillResult::Correct })
                .await;
    }
    assert_eq!(drills, 2, "every tier's check needs two new right drills since the last check ({tier:?})");
    let lite = t.app.tutor_snapshot(t.learner, MATH).await.unwrap().snapshot_lite;
    let check = lite.exam_check.expect("the check is open after two right in a row");
    assert_eq!((check.unit_id.as_str(), check.tier), (unit, tier));
    let exam = press(t, thread, ClientEvent::RequestExam { unit_id: unit.into() }).await;
    assert_eq!(
        t.app
            .thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() })
            .await
            .unwrap()
            .items
            .last()
            .unwrap()
            .action,
        "EXAM_BLOCK"
    );
    let (question, earned) = pass_exam(t, thread, &exam, tier).await;
    assert_eq!(earned, MasteryTier::from(tier));
    press(
        t,
        thread,
        ClientEvent::ExamContinue { unit_id: unit.into(), question_id: question, result: ExamResult::Passed },
    )
    .await
}

/// The mastery status of a unit's node on the learner's map of the course.
async fn unit_status(t: &TestApp, unit: &str) -> MasteryStatus {
    let map = t.app.tutor_snapshot(t.learner, MATH).await.unwrap().mind_map_id.expect("the course's map");
    let aggregate = t.app.get_map(t.learner, map).await.unwrap();
    let node = aggregate.nodes.iter().find(|n| n.metadata.get("unit_id").and_then(|v| v.as_str()) == Some(unit));
    node.expect("a node per unit").mastery_status
}

async fn a_learner_who_answers_right_goes_from_the_first_turn_to_gold(t: &TestApp) {
    let thread = math_thread(t).await;
    let first = say(t, thread, "I want to learn place value").await;
    assert!(text(&first).starts_with("The course says: \u{201c}Each digit in a whole number"), "{}", text(&first));
    assert!(text(&first).contains("You asked about Place value and whole numbers."), "{}", text(&first));
    let first = press(t, thread, ClientEvent::RequestDrill { unit_id: "MATH-PV".into() }).await;
    let after_bronze = earn(t, thread, "MATH-PV", Tier::Bronze, first).await;
    assert_eq!(unit_status(t, "MATH-PV").await, MasteryStatus::Reviewing, "bronze: learned, in review");
    let after_silver = earn(t, thread, "MATH-PV", Tier::Silver, after_bronze).await;
    earn(t, thread, "MATH-PV", Tier::Gold, after_silver).await;
    let snapshot = t.app.tutor_snapshot(t.learner, MATH).await.unwrap().snapshot;
    assert_eq!(snapshot.tier("MATH-PV"), MasteryTier::Gold);
    // One picture of progress: gold is a mastered concept on the course's map, and the
    // portfolio (what Progress shows) counts it.
    assert_eq!(unit_status(t, "MATH-PV").await, MasteryStatus::Mastered);
    let portfolio = t.app.portfolio(t.learner).await.unwrap();
    let map = t.app.tutor_snapshot(t.learner, MATH).await.unwrap().mind_map_id.expect("the course's map");
    let entry = portfolio.maps.iter().find(|m| m.map_id == map).expect("the course's map in the portfolio");
    assert_eq!((entry.mastered_nodes, portfolio.mastered_nodes), (1, 1), "{portfolio:?}");
    let lite = t.app.tutor_snapshot(t.learner, MATH).await.unwrap().snapshot_lite;
    assert_eq!((lite.progress.gold, lite.progress.total), (1, 18));
    assert_ne!(lite.focus.unit_id, "MATH-PV", "a unit at gold gives way to the next one: {lite:?}");
}

async fn a_struggling_learner_gets_a_concept_card_and_comes_back_to_the_unit_asked_for(t: &TestApp) {
    let thread = math_thread(t).await;
    let asked = say(t, thread, "how does addition with carrying work?").await;
    assert!(
        text(&asked).contains("You asked about Addition with carrying. It builds on Place value and whole numbers"),
        "{}",
        text(&asked)
    );
    let lite = &asked.snapshot_lite;
    assert_eq!(lite.focus.unit_id, "MATH-ADD");
    assert_eq!(lite.prereq_nudge.as_ref().map(|u| u.unit_id.as_str()), Some("MATH-PV"));
    // Wrong until stuck: each "Continue" stays on the prerequisite, never an earlier one.
    let mut reply = press(t, thread, ClientEvent::RequestDrill { unit_id: "MATH-PV".into() }).await;
    for _ in 0..2 {
        let (unit, drill) = drill_of(&reply);
        assert_eq!(unit, "MATH-PV");
        answer_drill(t, thread, &unit, &drill, false).await;
        reply =
            press(t, thread, ClientEvent::DrillContinue { unit_id: unit, last_result: DrillResult::Incorrect }).await;
    }
    let TutorCard::Concept { unit_id, key_ideas, worked_example, .. } = card(&reply) else {
        panic!("a stuck learner gets a concept card, got {:?}", card(&reply))
    };
    assert_eq!(unit_id, "MATH-PV");
    assert!(key_ideas[0].starts_with("Each digit in a whole number is worth"), "the course's anchor: {key_ideas:?}");
    assert!(worked_example.is_none(), "one rung at a time");
    // Still stuck: the next rungs, each new: a worked example from the unit's blueprints,
    // then the slip to watch for.
    let example = say(t, thread, "I'm stuck").await;
    let TutorCard::Concept { worked_example, key_ideas: with_example, .. } = card(&example) else {
        panic!("the next rung, got {:?}", card(&example))
    };
    assert!(worked_example.is_some(), "a worked example from the unit's blueprints: {}", text(&example));
    assert!(with_example.iter().all(|k| !key_ideas.contains(k)), "nothing shown again: {with_example:?}");
    let slip = say(t, thread, "I still don't get it").await;
    let TutorCard::Concept { key_ideas: slips, .. } = card(&slip) else { panic!("the slip, got {:?}", card(&slip)) };
    assert!(slips.iter().any(|k| k.starts_with("Watch out:")), "{slips:?}");
    // "Try a Drill" on the card; then right twice, the bronze check, and back to addition.
    let drill = press(t, thread, ClientEvent::RequestDrill { unit_id: "MATH-PV".into() }).await;
    let back = earn(t, thread, "MATH-PV", Tier::Bronze, drill).await;
    let (unit, _) = drill_of(&back);
    assert_eq!(unit, "MATH-ADD", "the route comes back to the unit asked for: {}", text(&back));
    assert_eq!(back.snapshot_lite.focus.unit_id, "MATH-ADD");
    assert!(back.snapshot_lite.prereq_nudge.is_none());
}

async fn free_text_is_acknowledged_and_mapped_to_the_unit_it_is_about(t: &TestApp) {
    let thread = math_thread(t).await;
    for (words, unit) in [
        ("explain fractions to me please", "MATH-FRAC"),
        ("what's the difference between 3/4 and 4/3?", "MATH-FRAC"),
        ("what is 7+8?", "MATH-ADD"),
        ("how do I solve 2x + 3 = 11?", "MATH-EQ"),
    ] {
        let reply = say(t, thread, words).await;
        assert!(reply.snapshot_lite.focus.unit_id.starts_with(unit), "{words}: {}", text(&reply));
        assert!(text(&reply).contains("You asked about"), "{words}: {}", text(&reply));
    }
    // "I'm ready for an exam" before the check opens: why not yet, and a drill.
    let reply = say(t, thread, "I'm ready for an exam").await;
    assert!(text(&reply).contains("opens after two right drills in a row"), "{}", text(&reply));
    assert!(matches!(card(&reply), TutorCard::Drill { .. }));
}

async fn words_that_map_to_nothing_or_to_several_units_become_choices(t: &TestApp) {
    let thread = math_thread(t).await;
    let reply = say(t, thread, "tell me about quantum chromodynamics").await;
    assert!(
        text(&reply)
            .starts_with("The course does not mention \u{201c}quantum\u{201d} and \u{201c}chromodynamics\u{201d}."),
        "{}",
        text(&reply)
    );
    assert!(!text(&reply).contains("couldn't match"));
    let TutorCard::Choices { choices, .. } = card(&reply) else { panic!("choices, got {:?}", card(&reply)) };
    assert_eq!(choices[0].unit_id, "MATH-PV", "the unit the tutor is on");
    // A choice never offered is refused, and nothing is recorded.
    let before = t
        .app
        .thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() })
        .await
        .unwrap()
        .items
        .len();
    let refused = t
        .app
        .tutor_turn(
            t.learner,
            thread,
            TurnRequest {
                client_event: ClientEvent::ChooseUnit { unit_id: "MATH-EQB".into() },
                ..TurnRequest::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Invalid);
    assert_eq!(refused.details["field"], "clientEvent.unitId", "{refused:?}");
    assert_eq!(
        t.app
            .thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() })
            .await
            .unwrap()
            .items
            .len(),
        before
    );
    // The offered one is taken: a clickable choice makes the unit the target.
    let chosen = press(t, thread, ClientEvent::ChooseUnit { unit_id: "MATH-PV".into() }).await;
    assert_eq!(chosen.snapshot_lite.focus.unit_id, "MATH-PV");
    let log = t
        .app
        .thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() })
        .await
        .unwrap()
        .items
        .last()
        .unwrap()
        .log
        .clone();
    assert_eq!(log["clientEvent"], "CHOOSE_UNIT");
}

/// A check asked for before it opens, or for another unit than the one being learned (a
/// button left on an earlier card), is answered in words the learner can act on, with the
/// next step: a drill on the unit being learned. No exam is offered and no field names
/// reach the learner. A unit the course does not have is the client's mistake: refused.
async fn an_exam_asked_for_before_the_policy_allows_one_is_answered_with_the_next_step(t: &TestApp) {
    let thread = math_thread(t).await;
    let first = press(t, thread, ClientEvent::RequestDrill { unit_id: "MATH-PV".into() }).await;
    assert_eq!(first.snapshot_lite.exam_check, None);
    for (event, said) in [
        (ClientEvent::RequestExam { unit_id: "MATH-PV".into() }, "That check is not open: the bronze check on "),
        (ClientEvent::RequestExam { unit_id: "MATH-ADD".into() }, "That check was for "),
    ] {
        let reply = press(t, thread, event.clone()).await;
        let words = text(&reply);
        assert!(words.starts_with(said), "{event:?}: {words}");
        for leak in ["clientEvent", "snapshotLite", "unitId", "REQUEST_EXAM"] {
            assert!(!words.contains(leak), "{event:?}: {words}");
        }
        let (unit, _) = drill_of(&reply);
        assert_eq!(unit, "MATH-PV", "the next step is a drill on the unit being learned");
    }
    let before = t
        .app
        .thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() })
        .await
        .unwrap()
        .items
        .len();
    let error = t
        .app
        .tutor_turn(
            t.learner,
            thread,
            TurnRequest {
                client_event: ClientEvent::RequestExam { unit_id: "NOT-A-UNIT".into() },
                ..TurnRequest::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!((error.kind, error.details["field"].as_str()), (ErrorKind::NotFound, Some("clientEvent.unitId")));
    assert_eq!(
        t.app
            .thread_turns(t.learner, thread, &PageQuery { limit: Some(500), ..Default::default() })
            .await
            .unwrap()
            .items
            .len(),
        before,
        "nothing recorded"
    );
    let snapshot = t.app.tutor_snapshot(t.learner, MATH).await.unwrap().snapshot;
    assert!(snapshot.exam_touched.is_empty());
}

/// "Give me a drill" (and the like) is practice on the unit being learned, never a
/// question about which of three unrelated units was meant.
async fn asking_for_a_drill_in_words_gives_a_drill_on_the_unit_being_learned(t: &TestApp) {
    let thread = math_thread(t).await;
    let first = say(t, thread, "I want to learn place value").await;
    assert_eq!(first.snapshot_lite.focus.unit_id, "MATH-PV");
    for words in ["give me a drill", "another one please", "can I practise?"] {
        let reply = say(t, thread, words).await;
        let (unit, _) = drill_of(&reply);
        assert_eq!(unit, "MATH-PV", "{words}: {}", text(&reply));
    }
}

conformance!(
    a_learner_who_answers_right_goes_from_the_first_turn_to_gold,
    a_struggling_learner_gets_a_concept_card_and_comes_back_to_the_unit_asked_for,
    free_text_is_acknowledged_and_mapped_to_the_unit_it_is_about,
    words_that_map_to_nothing_or_to_several_units_become_choices,
    an_exam_asked_for_before_the_policy_allows_one_is_answered_with_the_next_step,
    asking_for_a_drill_in_words_gives_a_drill_on_the_unit_being_learned,
);
