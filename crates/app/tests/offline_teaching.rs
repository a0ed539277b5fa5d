//! The tutor teaches without a model, on a course drafted from a learner's own notes and on a
//! shipped one, on both stores: a question in the learner's words is answered with the
//! material's sentences and cited, and one the material does not answer says so; requests
//! ("what next?", "I already know this", "an example", "something else", "help") are
//! understood in many phrasings and never met with "I couldn't match"; help when stuck is new
//! each time; the drill just missed does not come straight back.

mod support;

use pathwise_app::authoring::drafts::{DraftUnits, NewDraft};
use pathwise_app::course_tutor::{CreateThread, DrillGradeRequest, DrillText, TurnReply, TurnRequest};
use pathwise_course::{ClientEvent, TutorCard};
use pathwise_domain::ThreadId;
use support::TestApp;

conformance!(
    questions_in_the_learners_words_are_answered_from_their_notes_and_cited,
    a_question_the_notes_do_not_answer_is_told_so_with_the_nearest_they_come,
    a_shipped_course_answers_from_its_content_and_cites_it,
    requests_in_many_phrasings_get_what_they_ask_for_never_a_failure_to_match,
    a_wrong_drill_shows_where_the_notes_hold_the_answer_and_the_next_drill_is_another,
    help_when_stuck_says_something_new_each_time,
    a_unit_with_one_drill_says_so_when_it_comes_again,
);

const NOTES: &str = include_str!("fixtures/photosynthesis.md");

/// The learner's notes, drafted into a course without a model and published.
async fn notes_course(t: &TestApp) -> String {
    t.app.documents().ingest(t.learner, "photosynthesis.md", NOTES.as_bytes().to_vec()).await.expect("ingested");
    let new = NewDraft { title: "Photosynthesis".into(), documents: None, use_model: false };
    let draft = t.app.draft_course(t.learner, new).await.expect("outline");
    let units = DraftUnits { version: draft.version, units: Vec::new(), use_model: false };
    let drafted = t.app.draft_units(t.learner, draft.id, units).await.expect("units drafted");
    assert!(drafted.problems.is_empty(), "{:#?}", drafted.problems);
    t.app.publish_course_draft(t.learner, draft.id).await.expect("published").course.id
}

async fn thread(t: &TestApp, course: &str) -> ThreadId {
    let input = CreateThread { course_id: course.into(), title: None };
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

fn text(reply: &TurnReply) -> &str {
    &reply.messages.last().expect("the tutor's reply").text
}

async fn questions_in_the_learners_words_are_answered_from_their_notes_and_cited(t: &TestApp) {
    let course = notes_course(t).await;
    let thread = thread(t, &course).await;
    let cases = [
        ("why do leaves look green?", "chlorophyll absorbs red and blue light and reflects green light"),
        ("where does the oxygen come from?", "comes from the water that is split"),
        ("what does RuBisCO do", "RuBisCO fixes carbon dioxide"),
        ("explain the Calvin cycle", "The Calvin cycle takes place in the stroma"),
    ];
    for (question, says) in cases {
        let reply = say(t, thread, question).await;
        let answer = reply.messages.last().unwrap();
        assert!(answer.text.contains(says), "{question}: {}", answer.text);
        assert!(answer.text.starts_with("Your material says"), "{question}: {}", answer.text);
        assert!(!answer.sources.is_empty(), "{question}: an answer quoting the notes cites them");
        assert!(answer.sources.iter().all(|s| s.citation.starts_with("photosynthesis.md")), "{:?}", answer.sources);
    }
}

async fn a_question_the_notes_do_not_answer_is_told_so_with_the_nearest_they_come(t: &TestApp) {
    let course = notes_course(t).await;
    let thread = thread(t, &course).await;
    let reply = say(t, thread, "how do plants make proteins?").await;
    let nearest = reply.messages.last().unwrap();
    assert!(
        nearest
            .text
            .starts_with("Your material does not say anything about \u{201c}proteins\u{201d}. The nearest it comes"),
        "{}",
        nearest.text
    );
    assert!(!nearest.sources.is_empty(), "the nearest passage is cited");
    let reply = say(t, thread, "what is the capital of France?").await;
    assert!(
        text(&reply).starts_with("Your material does not mention \u{201c}capital\u{201d} and \u{201c}France\u{201d}."),
        "{}",
        text(&reply)
    );
    assert!(text(&reply).contains("Here is what I can do"), "{}", text(&reply));
    assert!(matches!(card(&reply), Some(TutorCard::Choices { .. })));
}

async fn a_shipped_course_answers_from_its_content_and_cites_it(t: &TestApp) {
    t.app.install_builtin_courses().await.expect("the shipped courses");
    let thread = thread(t, "MATH-FOUNDATIONS").await;
    let reply = say(t, thread, "what is a denominator?").await;
    let answer = reply.messages.last().unwrap();
    assert!(answer.text.starts_with("The course says: \u{201c}"), "{}", answer.text);
    assert!(answer.text.to_lowercase().contains("denominator"), "{}", answer.text);
    let source = answer.sources.first().expect("cited");
    let passage = t.app.course_passage(t.learner, "MATH-FOUNDATIONS", &source.passage_id).await.expect("it opens");
    let quoted = answer.text.split('\u{201c}').nth(1).and_then(|q| q.split('\u{201d}').next()).unwrap();
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(squeeze(&passage.text).contains(&squeeze(quoted)), "{quoted:?} is the cited passage's");
}

async fn requests_in_many_phrasings_get_what_they_ask_for_never_a_failure_to_match(t: &TestApp) {
    let course = notes_course(t).await;
    type Check = fn(&TurnReply) -> bool;
    let cases: &[(&[&str], &str, Check)] = &[
        (
            &["what should I learn next?", "What's next", "what now?", "where do I go from here?"],
            "Next is Photosynthesis: it needs nothing before it",
            |r| matches!(card(r), Some(TutorCard::Choices { .. })),
        ),
        (
            &["I already know this", "this is too easy", "I've learned this before"],
            "Then let's prove it: two right drills in a row on Photosynthesis open its bronze check",
            |r| matches!(card(r), Some(TutorCard::Drill { .. })),
        ),
        (
            &["can you give me an example?", "example please", "for instance?"],
            "Your material gives no example of Photosynthesis.",
            |r| matches!(card(r), Some(TutorCard::Concept { sources, .. }) if !sources.is_empty()),
        ),
        (
            &["I'm stuck, I don't get it", "this is confusing", "I'm lost", "that makes no sense"],
            "Let's look at Photosynthesis from another side.",
            |r| matches!(card(r), Some(TutorCard::Concept { sources, .. }) if !sources.is_empty()),
        ),
        (
            &["something else", "can we do something different?", "let's move on"],
            "Everything else in the course builds on Photosynthesis, so it stays next.",
            |r| matches!(card(r), Some(TutorCard::Choices { .. })),
        ),
        (&["help", "what can you do?"], "Here is what I can do", |r| {
            matches!(card(r), Some(TutorCard::Choices { .. }))
        }),
        (&["blorp fizz", "asdf qwerty"], "I am not sure what you mean by", |r| {
            matches!(card(r), Some(TutorCard::Choices { .. }))
        }),
    ];
    for (phrasings, starts, check) in cases {
        for words in *phrasings {
            let thread = thread(t, &course).await;
            let reply = say(t, thread, words).await;
            assert!(text(&reply).starts_with(starts), "{words}: {}", text(&reply));
            assert!(check(&reply), "{words}: {:?}", card(&reply));
            assert!(!text(&reply).contains("couldn't match"), "{words}");
        }
    }
}

fn drill(reply: &TurnReply) -> (String, DrillText) {
    match card(reply) {
        Some(TutorCard::Drill { unit_id, prompt, question_latex, drill_id, options }) => (
            unit_id.clone(),
            DrillText {
                prompt: prompt.clone(),
                question_latex: question_latex.clone(),
                drill_id: drill_id.clone(),
                options: options.clone(),
            },
        ),
        other => panic!("a drill, got {other:?}: {}", text(reply)),
    }
}

async fn a_wrong_drill_shows_where_the_notes_hold_the_answer_and_the_next_drill_is_another(t: &TestApp) {
    let course = notes_course(t).await;
    let thread = thread(t, &course).await;
    let mut reply = say(t, thread, "give me a drill").await;
    for _ in 0..3 {
        let (unit, asked) = drill(&reply);
        let request = DrillGradeRequest {
            course_id: None,
            unit_id: Some(unit.clone()),
            drill: asked.clone(),
            student_answer: "not the answer".into(),
        };
        let graded = t.app.grade_drill(t.learner, thread, request).await.expect("graded");
        assert!(!graded.is_correct);
        let feedback = graded.messages.last().expect("the tutor's feedback");
        assert!(feedback.text.contains("Your material says: \u{201c}"), "{}", feedback.text);
        let expected = graded.expected_answer.clone().expect("the key");
        let quoted = feedback.text.split('\u{201c}').nth(1).unwrap_or_default();
        assert!(quoted.contains(&expected), "the quoted sentence holds {expected:?}: {}", feedback.text);
        assert!(
            feedback.sources.iter().all(|s| s.citation.starts_with("photosynthesis.md"))
                && !feedback.sources.is_empty()
        );
        reply = press(t, thread, ClientEvent::RequestDrill { unit_id: unit }).await;
        if let Some(TutorCard::Drill { prompt, .. }) = card(&reply) {
            assert_ne!(*prompt, asked.prompt, "the drill just missed does not come straight back");
        } else {
            // Stuck after two wrong drills: the help card comes first, then the drill.
            assert!(matches!(card(&reply), Some(TutorCard::Concept { .. })), "{}", text(&reply));
            reply = press(t, thread, ClientEvent::RequestDrill { unit_id: drill(&reply).0 }).await;
        }
    }
}

async fn help_when_stuck_says_something_new_each_time(t: &TestApp) {
    let course = notes_course(t).await;
    let thread = thread(t, &course).await;
    let opening = say(t, thread, "let's start").await;
    let mut said: Vec<String> = vec![text(&opening).to_string()];
    // New passages while the unit has sentences not shown; then, all shown, them summed up
    // once (saying so); then a drill to try, since nothing new is left to show.
    let mut summaries = 0;
    for turn in 0.. {
        assert!(turn < 6, "the ladder ends in a drill");
        let reply = say(t, thread, "I'm stuck, I don't get it").await;
        let summed_up = text(&reply).starts_with("That is everything your material says about Photosynthesis");
        summaries += usize::from(summed_up);
        match card(&reply) {
            Some(TutorCard::Concept { key_ideas, sources, .. }) => {
                assert!(!sources.is_empty(), "help quoting the notes cites them");
                for idea in key_ideas {
                    let again = said.iter().any(|s| s.contains(idea.trim_end_matches('.')));
                    assert!(!again || summed_up, "{idea:?} was shown already");
                }
                said.extend(key_ideas.iter().cloned());
            }
            Some(TutorCard::Drill { .. }) => {
                assert!(text(&reply).starts_with("You have seen everything your material says"), "{}", text(&reply));
                break;
            }
            other => panic!("help, got {other:?}: {}", text(&reply)),
        }
        said.push(text(&reply).to_string());
    }
    assert_eq!(summaries, 1);
}

fn card(reply: &TurnReply) -> Option<&TutorCard> {
    reply.messages.last().and_then(|m| m.card.as_ref())
}

/// A unit whose material makes a single drill: asked again straight after, it comes back
/// saying so, never passed off as a new one.
async fn a_unit_with_one_drill_says_so_when_it_comes_again(t: &TestApp) {
    let notes = "# Routing\n\nA router forwards packets between networks using its routing table.\n\n\
                 # Switching\n\nA switch forwards frames between the devices of one network by their addresses.\n";
    t.app.documents().ingest(t.learner, "routing.md", notes.as_bytes().to_vec()).await.expect("ingested");
    let new = NewDraft { title: "Network notes".into(), documents: None, use_model: false };
    let draft = t.app.draft_course(t.learner, new).await.expect("outline");
    let units = DraftUnits { version: draft.version, units: Vec::new(), use_model: false };
    t.app.draft_units(t.learner, draft.id, units).await.expect("units drafted");
    let course = t.app.publish_course_draft(t.learner, draft.id).await.expect("published").course.id;
    let thread = thread(t, &course).await;
    let first = say(t, thread, "give me a drill").await;
    let (unit, asked) = drill(&first);
    let again = press(t, thread, ClientEvent::RequestDrill { unit_id: unit }).await;
    let (_, repeated) = drill(&again);
    assert_eq!(repeated.prompt, asked.prompt, "the only drill there is");
    assert_eq!(text(&again), "Your material gives only this drill on Routing, so here it is again.");
}
