//! The deterministic policy (policy-tutor.md PF-3.2 to PF-3.4, PF-3.7) on a small course:
//! candidate and scoped units in their fixed order, the blocker, stuck evidence, exam
//! readiness and availability, the allowed actions, and the deterministic fallback.

use chrono::{DateTime, Duration, TimeZone, Utc};
use pathwise_course::fallback::{fallback_action, fallback_turn, FallbackInput};
use pathwise_course::intent::Reading;
use pathwise_course::lite::{revisit_summary, snapshot_lite};
use pathwise_course::policy::{
    calibrate_mapping, candidate_units, draft_policy, exam_availability, exam_candidates, scoped_unit_ids,
    Availability, EventRefusal, ExamStatus, QuestionStatus, EXAM_CANDIDATES_K,
};
use pathwise_course::shown::Shown;
use pathwise_course::{
    Action, ClientEvent, Course, CoursePack, DrillResult, ExamAvailability, MappedUnit, MasteryTier, PackFormat,
    StudentSnapshot, Tier, TutorCard,
};
use pathwise_items::Library;
use std::collections::HashMap;

/// ALG-00 -> ALG-01 -> ALG-02, ENTRY-00 before ALG-00 and GEO-01; ALG-02 also needs GEO-01.
fn course() -> Course {
    let text = r#"
course_id = "MATH-G10"
title = "Grade 10"
entry_unit = "ENTRY-00"
confusion_tags = ["sign_error", "forgot_divide", "negated", "off_by_1", "multiplied_instead", "reciprocal"]

[[units]]
id = "ENTRY-00"
title = "Start"
anchor = "Where everyone starts."

[[units]]
id = "ALG-00"
title = "Inverse operations"
prerequisites = ["ENTRY-00"]
anchor = "Undo an operation with its inverse."
blueprints = ["MATH.ALG.LINEAR.ONESTEP"]

[[units]]
id = "GEO-01"
title = "Angles"
prerequisites = ["ENTRY-00"]
anchor = "Angles on a line add to 180 degrees."

[[units]]
id = "ALG-01"
title = "Linear equations"
prerequisites = ["ALG-00"]
anchor = "Solve for x by isolating it."
blueprints = ["MATH.ALG.LINEAR.TWOSTEP"]
misconceptions = ["Dividing only one side."]

[[units]]
id = "ALG-02"
title = "Simultaneous equations"
prerequisites = ["ALG-01", "GEO-01"]
anchor = "Two equations, two unknowns."
"#;
    Course::parse(text, PackFormat::Toml, &Library::builtin()).expect("the test course")
}

fn at(hours: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::hours(hours)
}

fn mapped(unit: &str, confidence: f64) -> MappedUnit {
    MappedUnit { unit_id: unit.into(), confidence }
}

fn bronze(s: &mut StudentSnapshot, units: &[&str]) {
    for u in units {
        s.touch(u, at(0)).mastery_tier = MasteryTier::Bronze;
    }
}

#[test]
fn the_target_is_the_confident_mapping_else_the_focus() {
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ENTRY-00", at(0));
    bronze(&mut s, &["ENTRY-00", "ALG-00"]);
    let draft = draft_policy(&course, &s, &[mapped("ALG-01", 0.92)], true);
    assert_eq!((draft.primary_target_unit_id.as_str(), draft.focus_unit_id.as_str()), ("ALG-01", "ALG-01"));
    assert!(!draft.clarify);
    let draft = draft_policy(&course, &s, &[mapped("ALG-01", 0.54)], true);
    assert_eq!(draft.primary_target_unit_id, "ENTRY-00", "below 0.55 the focus stays");
    assert!(draft.clarify, "an unsure mapping of the learner's words is clarified");
    assert!(!draft_policy(&course, &s, &[mapped("ALG-01", 0.54)], false).clarify, "not for an answer to the tutor");
    let draft = draft_policy(&course, &s, &[mapped("NOPE", 0.99)], true);
    assert_eq!(draft.primary_target_unit_id, "ENTRY-00", "units outside the course are not mapped");
}

#[test]
fn retrieval_names_a_lone_match_or_the_base_of_several_and_leaves_the_rest_unsure() {
    let course = course();
    let confidences = |m: &[MappedUnit]| m.iter().map(|m| (m.unit_id.clone(), m.confidence)).collect::<Vec<_>>();
    // The only unit that matches at all, from 0.25.
    let lone = calibrate_mapping(&course, &[mapped("GEO-01", 0.3), mapped("ALG-00", 0.05)]);
    assert_eq!(confidences(&lone), [("GEO-01".into(), 0.55), ("ALG-00".into(), 0.05)]);
    assert_eq!(confidences(&calibrate_mapping(&course, &[mapped("GEO-01", 0.2)])), [("GEO-01".into(), 0.2)]);
    // Several matches, one of which all the others build on: that one, put first.
    let base = calibrate_mapping(&course, &[mapped("ALG-02", 0.4), mapped("ALG-01", 0.35), mapped("ALG-00", 0.3)]);
    assert_eq!(base[0].unit_id, "ALG-00");
    assert_eq!(base[0].confidence, 0.55);
    // Several with no common base stay unsure, and a confident mapping is kept as it is.
    let unsure = [mapped("ALG-01", 0.4), mapped("GEO-01", 0.35)];
    assert_eq!(calibrate_mapping(&course, &unsure), unsure);
    let sure = [mapped("ALG-02", 0.9), mapped("ALG-00", 0.3)];
    assert_eq!(calibrate_mapping(&course, &sure), sure);
}

#[test]
fn the_first_missing_prerequisite_blocks_and_becomes_the_focus() {
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ENTRY-00", at(0));
    bronze(&mut s, &["ENTRY-00", "ALG-00", "ALG-01"]);
    let draft = draft_policy(&course, &s, &[mapped("ALG-02", 0.9)], true);
    assert_eq!(draft.prereq_blocking_unit_id.as_deref(), Some("GEO-01"), "ALG-01 has a tier, GEO-01 has none");
    assert_eq!(draft.focus_unit_id, "GEO-01");
    assert!(!draft.exam_ready, "never exam ready while blocked");
}

#[test]
fn scoped_units_are_few_and_in_the_documents_order() {
    let course = course();
    let in_progress = vec!["GEO-01".to_string(), "ENTRY-00".to_string(), "ALG-00".to_string()];
    let scoped = scoped_unit_ids(
        &course,
        "ALG-00",
        "ALG-01",
        Some("ALG-00"),
        &[mapped("ALG-02", 0.4), mapped("ALG-01", 0.9), mapped("GEO-01", 0.1)],
        &in_progress,
    );
    // focus, blocker (= focus), target, top two mapped, target's prerequisites, two units in
    // progress, then the blocker's prerequisites.
    assert_eq!(scoped, ["ALG-00", "ALG-01", "ALG-02", "GEO-01", "ENTRY-00"]);
    let many: Vec<MappedUnit> = ["ALG-02", "GEO-01", "ENTRY-00"].iter().map(|u| mapped(u, 0.5)).collect();
    let scoped = scoped_unit_ids(&course, "ALG-01", "ALG-02", None, &many, &in_progress);
    assert!(scoped.len() <= 6);
    assert_eq!(scoped[..2], ["ALG-01".to_string(), "ALG-02".to_string()]);
    let candidates =
        candidate_units(&course, &StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0)), &[mapped("ALG-02", 0.9)]);
    assert_eq!(candidates, ["ALG-02", "ALG-01", "GEO-01", "ALG-00"], "mapped, focus, then one hop of prerequisites");
}

#[test]
fn stuck_readiness_and_availability_decide_the_allowed_actions() {
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0));
    bronze(&mut s, &["ENTRY-00", "ALG-00"]);
    let none = ExamAvailability::none();
    let allowed = |s: &StudentSnapshot, exam: &ExamAvailability| {
        draft_policy(&course, s, &[mapped("ALG-01", 1.0)], false).finish("t", exam).allowed_actions
    };
    assert_eq!(allowed(&s, &none), [Action::SocraticQuestion, Action::DrillCard]);
    s.record_drill("ALG-01", false, None, at(1));
    s.record_drill("ALG-01", false, None, at(1));
    assert_eq!(allowed(&s, &none), [Action::SocraticQuestion, Action::DrillCard, Action::ConceptCard], "stuck");
    s.record_drill("ALG-01", true, None, at(2));
    s.record_drill("ALG-01", true, None, at(2));
    let draft = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false);
    assert!(draft.exam_ready && !draft.stuck);
    assert_eq!(draft.desired_exam_tier, Tier::Bronze);
    let ids = vec!["Q1".to_string(), "Q2".to_string()];
    let mut statuses = HashMap::new();
    statuses.insert("Q1".to_string(), ExamStatus { status: QuestionStatus::Locked, locked_until: Some(at(30)) });
    let exam = exam_availability(&ids, &statuses);
    assert_eq!((exam.availability, exam.candidate_ids.clone()), (Availability::Available, vec!["Q2".to_string()]));
    assert_eq!(allowed(&s, &exam), [Action::SocraticQuestion, Action::DrillCard, Action::ExamBlock]);
    statuses.insert("Q2".to_string(), ExamStatus { status: QuestionStatus::Locked, locked_until: Some(at(20)) });
    let exam = exam_availability(&ids, &statuses);
    assert_eq!((exam.availability, exam.next_eligible_at), (Availability::Locked, Some(at(20))), "the earliest unlock");
    assert!(!allowed(&s, &exam).contains(&Action::ExamBlock));
    statuses.insert("Q2".to_string(), ExamStatus { status: QuestionStatus::Passed, locked_until: None });
    statuses.remove("Q1");
    statuses.insert("Q1".to_string(), ExamStatus { status: QuestionStatus::Passed, locked_until: None });
    assert_eq!(exam_availability(&ids, &statuses).availability, Availability::None, "all passed");
    assert_eq!(exam_availability(&[], &statuses).availability, Availability::None, "no candidates");
    // An unsure message allows only a clarifier, whatever else holds.
    let clarify = draft_policy(&course, &s, &[mapped("ALG-01", 0.2)], true)
        .finish("t", &exam_availability(&ids, &HashMap::new()));
    assert_eq!(clarify.allowed_actions, [Action::SocraticQuestion]);
}

#[test]
fn exam_candidates_are_the_revisit_queue_first_then_the_banks_best_fits_once_each() {
    use pathwise_course::snapshot::RevisitEntry;
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0));
    bronze(&mut s, &["ENTRY-00", "ALG-00"]);
    let not_ready = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false);
    let mut searched = false;
    assert!(exam_candidates(&s, &not_ready, |_, _, _| {
        searched = true;
        vec!["Q1".into()]
    })
    .is_empty());
    assert!(!searched, "no search for a learner who is not exam ready");
    for correct in [true, true] {
        s.record_drill("ALG-01", correct, None, at(1));
    }
    let entry = |unit: &str, tier| RevisitEntry { unit_id: unit.into(), tier };
    s.revisit_queue.insert("Q-BACK".into(), entry("ALG-01", Tier::Bronze));
    s.revisit_queue.insert("Q-OTHER-UNIT".into(), entry("ALG-00", Tier::Bronze));
    s.revisit_queue.insert("Q-OTHER-TIER".into(), entry("ALG-01", Tier::Silver));
    let ready = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false);
    let ids = exam_candidates(&s, &ready, |unit, tier, k| {
        assert_eq!((unit, tier, k), ("ALG-01", Tier::Bronze, EXAM_CANDIDATES_K));
        (0..12).map(|i| format!("Q{i}")).chain(["Q-BACK".to_string()]).collect()
    });
    assert_eq!(ids.len(), EXAM_CANDIDATES_K);
    assert_eq!(ids[..3], ["Q-BACK".to_string(), "Q0".into(), "Q1".into()], "the revisit queue first, each once");
}

#[test]
fn an_exam_request_is_for_the_focus_unit_once_its_exam_is_open() {
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0));
    bronze(&mut s, &["ENTRY-00", "ALG-00"]);
    let closed = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false).finish("t", &ExamAvailability::none());
    let refused = closed.check_exam_request(&course, "ALG-00").unwrap_err();
    assert_eq!(refused.field, "clientEvent.unitId");
    assert!(refused.message.contains("'ALG-01' (Linear equations)"), "{}", refused.message);
    assert!(refused.learner_message.starts_with("That check was for "), "{}", refused.learner_message);
    let EventRefusal { field, message, learner_message } = closed.check_exam_request(&course, "ALG-01").unwrap_err();
    assert_eq!(field, "clientEvent");
    assert!(message.contains("two right drills in a row"), "{message}");
    assert!(
        learner_message.contains("opens after two right drills in a row since your last check")
            && !learner_message.contains("snapshotLite"),
        "in the learner's words: {learner_message}"
    );
    s.record_drill("ALG-01", true, None, at(1));
    s.record_drill("ALG-01", true, None, at(1));
    let open = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false)
        .finish("t", &exam_availability(&["Q1".to_string()], &HashMap::new()));
    assert_eq!(open.check_exam_request(&course, "ALG-01"), Ok(()));
}

#[test]
fn the_fallback_is_socratic_else_a_blueprint_drill() {
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0));
    bronze(&mut s, &["ENTRY-00", "ALG-00"]);
    let policy = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false).finish("t", &ExamAvailability::none());
    static SHOWN: std::sync::LazyLock<Shown> = std::sync::LazyLock::new(Shown::default);
    let input = |event: &'static ClientEvent, previous: Option<Action>| FallbackInput {
        policy: &policy,
        course: &course,
        event,
        words: None,
        mapped: &[],
        named: false,
        previous_action: previous,
        focus_tier: MasteryTier::None,
        focus_streak: 0,
        exam_candidates: &[],
        seed: 42,
        reading: Reading::Talk,
        answer: None,
        shown: &SHOWN,
        open_units: &[],
    };
    static NONE: ClientEvent = ClientEvent::None;
    assert_eq!(fallback_action(&input(&NONE, None)), Action::SocraticQuestion);
    assert_eq!(
        fallback_action(&FallbackInput { words: Some("x is 4"), ..input(&NONE, Some(Action::SocraticQuestion)) }),
        Action::DrillCard,
        "the learner answered"
    );
    static CONTINUE: std::sync::LazyLock<ClientEvent> = std::sync::LazyLock::new(|| ClientEvent::DrillContinue {
        unit_id: "ALG-01".into(),
        last_result: DrillResult::Correct,
    });
    let turn = fallback_turn(&input(&CONTINUE, None));
    assert_eq!(turn.action, Action::DrillCard);
    match &turn.card {
        Some(TutorCard::Drill { unit_id, drill_id: Some(id), .. }) => {
            assert_eq!(unit_id, "ALG-01");
            assert!(id.starts_with("MATH.ALG.LINEAR.TWOSTEP~s=42"), "{id}");
        }
        other => panic!("a blueprint drill, got {other:?}"),
    }
    assert_eq!(fallback_turn(&input(&CONTINUE, None)), turn, "the same turn gives the same drill");
    static STUCK: std::sync::LazyLock<ClientEvent> =
        std::sync::LazyLock::new(|| ClientEvent::DrillStuck { unit_id: "ALG-01".into() });
    let hint = fallback_turn(&input(&STUCK, None));
    assert_eq!(hint.action, Action::SocraticQuestion);
    assert!(hint.tutor_text.contains("Dividing only one side."), "{}", hint.tutor_text);
    // A unit without blueprints cannot have a deterministic drill.
    let angles = draft_policy(&course, &s, &[mapped("GEO-01", 1.0)], false).finish("t", &ExamAvailability::none());
    let input = FallbackInput { policy: &angles, ..input(&CONTINUE, None) };
    assert_eq!(fallback_turn(&input).action, Action::SocraticQuestion);
}

#[test]
fn practice_asked_for_on_a_blocked_unit_says_why_a_prerequisite_comes_first() {
    let course = course();
    // "Practise Linear equations" before Inverse operations has a tier.
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0));
    bronze(&mut s, &["ENTRY-00"]);
    let policy = draft_policy(&course, &s, &[mapped("ALG-01", 1.0)], false).finish("t", &ExamAvailability::none());
    assert_eq!(policy.focus_unit_id, "ALG-00");
    let shown = Shown::default();
    let event = ClientEvent::RequestDrill { unit_id: "ALG-01".into() };
    let turn = fallback_turn(&FallbackInput {
        policy: &policy,
        course: &course,
        event: &event,
        words: None,
        mapped: &[],
        named: false,
        previous_action: None,
        focus_tier: MasteryTier::None,
        focus_streak: 0,
        exam_candidates: &[],
        seed: 7,
        reading: Reading::Talk,
        answer: None,
        shown: &shown,
        open_units: &[],
    });
    assert_eq!(turn.action, Action::DrillCard);
    assert!(matches!(&turn.card, Some(TutorCard::Drill { unit_id, .. }) if unit_id == "ALG-00"), "{:?}", turn.card);
    assert_eq!(
        turn.tutor_text,
        "Linear equations builds on Inverse operations, which has no tier yet, so Inverse operations comes first. \
         Try this one, on Inverse operations."
    );
}

#[test]
fn snapshot_lite_summarizes_focus_nudge_revisits_and_progress() {
    let course = course();
    let mut s = StudentSnapshot::new("S1", "MATH-G10", "ALG-01", at(0));
    bronze(&mut s, &["ENTRY-00"]);
    s.touch("GEO-01", at(0)).mastery_tier = MasteryTier::Gold;
    s.revisit_queue
        .insert("Q1".into(), pathwise_course::snapshot::RevisitEntry { unit_id: "ALG-01".into(), tier: Tier::Bronze });
    s.revisit_queue
        .insert("Q2".into(), pathwise_course::snapshot::RevisitEntry { unit_id: "ALG-01".into(), tier: Tier::Bronze });
    let mut statuses = HashMap::new();
    statuses.insert("Q1".to_string(), ExamStatus { status: QuestionStatus::Locked, locked_until: Some(at(24)) });
    statuses.insert("Q2".to_string(), ExamStatus { status: QuestionStatus::Locked, locked_until: Some(at(10)) });
    let revisit = revisit_summary(&s, &statuses, at(1));
    assert_eq!(
        (revisit.locked_count, revisit.next_eligible_at, revisit.next_question_id.as_deref()),
        (2, Some(at(10)), Some("Q2"))
    );
    let revisit_later = revisit_summary(&s, &statuses, at(12));
    assert_eq!(
        (revisit_later.locked_count, revisit_later.next_question_id.as_deref()),
        (1, Some("Q2")),
        "Q2 is open again"
    );
    let lite = snapshot_lite(&course, &s, "ALG-01", Some("ALG-00"), revisit, None);
    assert_eq!(lite.focus.title, "Linear equations");
    assert_eq!(lite.prereq_nudge.unwrap().title, "Inverse operations");
    assert_eq!((lite.progress.bronze, lite.progress.silver, lite.progress.gold, lite.progress.total), (1, 0, 1, 5));
}

#[test]
fn packs_report_every_problem_with_its_field_and_line() {
    let text = r#"course_id = "bad id!"
title = "T"
entry_unit = "B"
confusion_tags = ["Sign Error"]

[[units]]
id = "A"
title = "Alpha"
anchor = "a"
prerequisites = ["B", "Z"]
blueprints = ["PROG.PYTHON.LIST.SUM", "NOPE.SKILL"]

[[units]]
id = "B"
title = "alpha"
anchor = "b"
prerequisites = ["A"]

[[exam_questions]]
id = "Q1"
units = ["C"]
tier = "gold"
stem = "?"
options = ["x", "x"]
correct = 2
memo = "m"
video = "not a link"
"#;
    let error = Course::parse(text, PackFormat::Toml, &Library::builtin()).unwrap_err();
    let found: Vec<String> = error.problems().iter().map(|p| format!("{}@{}", p.field, p.line.unwrap_or(0))).collect();
    for expected in [
        "course_id@1",
        "confusion_tags[0]@4",
        "units[0].prerequisites[1]@10",
        "units[0].blueprints[0]@11",
        "units[0].blueprints[1]@11",
        "units[1].title@15",
        "entry_unit@3",
        "exam_questions[0].units[0]@21",
        "exam_questions[0].options[1]@24",
        "exam_questions[0].correct@25",
        "exam_questions[0].video@27",
    ] {
        assert!(found.contains(&expected.to_string()), "{expected} missing from {found:?}\n{error}");
    }
    let message = error.to_string();
    assert!(
        message.contains("unknown unit 'Z'") && message.contains("code tasks") && message.contains("0-1"),
        "{message}"
    );
    let cycle = text
        .replace("prerequisites = [\"B\", \"Z\"]", "prerequisites = [\"B\"]")
        .replace("course_id = \"bad id!\"", "course_id = \"OK\"");
    let error = Course::parse(&cycle, PackFormat::Toml, &Library::builtin()).unwrap_err().to_string();
    assert!(error.contains("cycle: A -> B -> A") || error.contains("cycle: B -> A -> B"), "{error}");
    let json = r#"{"course_id": "C", "title": "T", "entry_unit": "A", "confusion_tags": ["t"],
  "units": [{"id": "A", "title": "A", "anchor": "a", "prerequisites": ["Q"]}]}"#;
    let error = Course::parse(json, PackFormat::Json, &Library::builtin()).unwrap_err();
    assert_eq!(
        error.problems().iter().map(|p| (p.field.to_string(), p.line)).collect::<Vec<_>>(),
        [("units[0].prerequisites[0]".to_string(), Some(2)), ("entry_unit".to_string(), Some(1))]
    );
    let error = Course::parse("course_id = 3", PackFormat::Toml, &Library::builtin()).unwrap_err().to_string();
    assert!(error.contains("line 1"), "{error}");
    let _: CoursePack = serde_json::from_str(&serde_json::to_string(course().pack()).unwrap()).unwrap();
}
