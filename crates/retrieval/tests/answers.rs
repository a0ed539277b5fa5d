//! Questions in a learner's own words answered from the course's material, without a model:
//! the sentence that answers is found whatever the kind of question, cited by its passage, and
//! a question the material does not answer says so and names what it lacks.

use pathwise_course::answer::MaterialAnswer;
use pathwise_course::intent::{self, QuestionKind, Reading, Request};
use pathwise_course::synthetic::notes_course;
use pathwise_course::Course;
use pathwise_items::Library;
use pathwise_retrieval::CourseIndex;

fn photosynthesis() -> (Course, CourseIndex) {
    let course = notes_course("notes.md", "Photosynthesis", include_str!("../../app/tests/fixtures/photosynthesis.md"));
    let index = CourseIndex::build(&course).unwrap();
    (course, index)
}

/// The question asked as a learner would, read for its kind as the tutor reads it.
fn ask(index: &CourseIndex, question: &str) -> MaterialAnswer {
    let kind = match intent::read(question) {
        Reading::Question(kind) => kind,
        Reading::Request(Request::Explain) => intent::explained_kind(&intent::explained_topic(question).unwrap()),
        other => panic!("{question:?} read as {other:?}"),
    };
    let asked = intent::explained_topic(question).unwrap_or_else(|| question.to_string());
    index.answer(&asked, kind, None).unwrap_or_else(|| panic!("no answer to {question:?}"))
}

#[test]
fn questions_of_every_kind_are_answered_by_the_sentence_that_says_it() {
    let (course, index) = photosynthesis();
    let cases: &[(&str, &str)] = &[
        ("why do leaves look green?", "Leaves look green because chlorophyll absorbs red and blue light"),
        ("Why are leaves green", "Leaves look green because"),
        ("where does the oxygen come from?", "The oxygen that plants release comes from the water"),
        ("what does RuBisCO do", "The enzyme RuBisCO fixes carbon dioxide"),
        ("what is the stroma?", "The fluid around the thylakoids is called the stroma."),
        ("where does the Calvin cycle take place?", "The Calvin cycle takes place in the stroma"),
        ("explain the Calvin cycle", "The Calvin cycle takes place in the stroma"),
        ("what is photolysis?", "This splitting of water is called photolysis."),
        ("what makes ATP?", "ATP synthase makes ATP"),
        ("how does light split water?", "the energy splits water molecules"),
        ("what limits the rate of photosynthesis?", "The rate of photosynthesis is limited by light intensity"),
        ("why does the rate fall above 40 degrees?", "begin to denature and the rate falls"),
    ];
    for (question, says) in cases {
        let answer = ask(&index, question);
        let text = answer.sentences.join(" ");
        assert!(answer.answers, "{question}: {text}");
        assert!(text.contains(says), "{question}: expected {says:?}, got {text:?}");
        let chunk = &course.chunks()[answer.chunk.unwrap()];
        assert!(answer.sentences.iter().all(|s| chunk.text.contains(s.as_str())), "quoted from its passage");
        assert_eq!(chunk.unit, answer.unit_id);
        let source = course.source_at(answer.chunk.unwrap()).expect("cited");
        assert!(source.citation.starts_with("notes.md, Photosynthesis"), "{}", source.citation);
    }
}

#[test]
fn a_question_the_material_does_not_answer_says_what_it_lacks() {
    let (_, index) = photosynthesis();
    let answer = ask(&index, "how do plants make proteins?");
    assert!(!answer.answers, "{:?}", answer.sentences);
    assert_eq!(answer.missing, ["proteins"]);
    let nearest = answer.sentences.join(" ").to_lowercase();
    assert!(nearest.contains("plants") || nearest.contains("make"), "the nearest the material comes: {nearest}");
    let nothing = index.answer("what is the capital of France?", QuestionKind::Definition, None).unwrap();
    assert!(nothing.sentences.is_empty() && !nothing.answers);
    assert_eq!(nothing.missing, ["capital", "France"]);
    assert!(index.answer("what is it?", QuestionKind::Definition, None).is_none(), "no words to search with");
}

#[test]
fn shipped_courses_answer_from_their_content_and_cite_it() {
    let library = Library::builtin();
    for course in pathwise_course::builtin_courses(&library) {
        let index = CourseIndex::build(&course).unwrap();
        let (question, says) = match course.id() {
            "MATH-FOUNDATIONS" => ("what is a denominator?", "denominator"),
            _ => ("what is a subnet mask?", "mask"),
        };
        let answer = ask(&index, question);
        assert!(answer.answers, "{}: {:?}", course.id(), answer.sentences);
        assert!(answer.sentences.join(" ").to_lowercase().contains(says), "{:?}", answer.sentences);
        let source = course.source_at(answer.chunk.unwrap()).expect("a shipped passage is cited too");
        assert_eq!(
            course.passage(&source.passage_id).map(|c| &c.text),
            Some(&course.chunks()[answer.chunk.unwrap()].text)
        );
    }
}
