//! Grading a drill (`POST /tutor/threads/{id}/drill/grade`, policy-tutor.md EPIC E). Drills
//! are never stored: the learner sends the drill back with the answer. A blueprint drill is
//! regenerated from its id and graded exactly, its mistake named by the distractor strategy
//! the answer matches; any other drill is graded by the model, whose mistake tag must come
//! from the course's fixed list. Grading is the only thing that moves confusion tags.

use super::evidence::Evidence;
use super::messages::{new_message, with_outcome, CardOutcome, TutorMessage};
use super::turn::check_course;
use crate::{App, AppError, AppResult};
use pathwise_course::lite::SnapshotLite;
use pathwise_course::snapshot::DrillCounters;
use pathwise_course::Course;
use pathwise_domain::{LearnerId, ThreadId};
use pathwise_items::{Answer, ItemType};
use pathwise_llm::{prompts, Message, OutputSchema, Request};
use pathwise_store::Store;
use serde::{Deserialize, Serialize};
use serde_json::json;

const MAX_ANSWER_CHARS: usize = 2_000;
const MAX_DRILL_CHARS: usize = 2_000;

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DrillGradeRequest {
    #[serde(default)]
    pub course_id: Option<String>,
    pub unit_id: String,
    pub drill: DrillText,
    pub student_answer: String,
}

/// The drill as it was shown: its card, sent back as it came (fields other than these, such
/// as the card's `type` and `unitId`, are ignored).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct DrillText {
    pub prompt: String,
    #[serde(default, alias = "questionLatex")]
    pub question_latex: String,
    /// A blueprint drill's id, as its card carried it.
    #[serde(default, alias = "drillId")]
    pub drill_id: Option<String>,
    /// A multiple-choice drill's options, as its card carried them (not needed to grade).
    #[serde(default)]
    pub options: Vec<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DrillGradeReply {
    pub is_correct: bool,
    pub feedback_text: String,
    /// From the course's fixed list; only for a wrong answer.
    pub common_mistake_tag: Option<String>,
    /// `blueprint` (exact) or `model`.
    pub graded_by: String,
    /// The right answer, for a blueprint drill (shown once graded).
    pub expected_answer: Option<String>,
    pub drill: DrillCounters,
    pub messages: Vec<TutorMessage>,
    pub snapshot_lite: SnapshotLite,
}

struct Grade {
    correct: bool,
    feedback: String,
    tag: Option<String>,
    by: &'static str,
    expected: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelGrade {
    is_correct: bool,
    feedback_text: String,
    #[serde(default)]
    common_mistake_tag: Option<String>,
}

impl<S: Store> App<S> {
    pub async fn grade_drill(
        &self,
        learner: LearnerId,
        thread_id: ThreadId,
        request: DrillGradeRequest,
    ) -> AppResult<DrillGradeReply> {
        let answer = request.student_answer.trim();
        if answer.is_empty() {
            return Err(AppError::invalid("studentAnswer", "is empty; give the answer to grade"));
        }
        if answer.chars().count() > MAX_ANSWER_CHARS {
            return Err(AppError::invalid("studentAnswer", format!("must be at most {MAX_ANSWER_CHARS} characters")));
        }
        let drill_size = request.drill.prompt.chars().count() + request.drill.question_latex.chars().count();
        if request.drill.prompt.trim().is_empty() && request.drill.question_latex.trim().is_empty() {
            return Err(AppError::invalid(
                "drill",
                "has neither a prompt nor a question; send the drill as it was shown",
            ));
        }
        if drill_size > MAX_DRILL_CHARS {
            return Err(AppError::invalid("drill", format!("is longer than {MAX_DRILL_CHARS} characters")));
        }
        let thread = self.thread_record(learner, thread_id).await?;
        check_course(&thread, request.course_id.as_deref())?;
        let loaded = self.course(&thread.course_id).await?;
        let course = &loaded.course;
        let unit = course.unit(&request.unit_id).ok_or_else(|| {
            AppError::invalid("unitId", format!("unit '{}' is not in course '{}'", request.unit_id, course.id()))
        })?;

        let grade = match &request.drill.drill_id {
            Some(id) => blueprint_grade(course, &unit.id, id, answer)?,
            None => self.model_grade(learner, course, &unit.id, &request.drill, answer).await?,
        };
        let question =
            format!("{} {}", request.drill.prompt.trim(), request.drill.question_latex.trim()).trim().to_string();
        let now = self.now();
        let outcome = CardOutcome::Drill {
            unit_id: unit.id.clone(),
            drill_id: request.drill.drill_id.clone(),
            prompt: request.drill.prompt.clone(),
            question_latex: request.drill.question_latex.clone(),
            answer: answer.to_string(),
            is_correct: grade.correct,
            expected_answer: grade.expected.clone(),
        };
        let records = vec![
            new_message("user", answer.to_string(), None, None, None, now),
            with_outcome(new_message("assistant", grade.feedback.clone(), None, None, None, now), &outcome),
        ];
        let unit_id = unit.id.clone();
        let tag = grade.tag.clone();
        let evidence =
            Evidence { unit: &unit_id, question: &question, answer, quality: if grade.correct { 4 } else { 1 } };
        let (snap, messages) = self
            .record_evidence(learner, thread_id, &loaded, &records, Some(evidence), |s| {
                s.record_drill(&unit_id, grade.correct, tag.as_deref(), now);
            })
            .await?;
        let counters = snap.snapshot.progress(&unit_id).map(|p| p.drill).unwrap_or_default();
        let snapshot_lite = self.current_lite(learner, &loaded, &snap).await?;
        Ok(DrillGradeReply {
            is_correct: grade.correct,
            feedback_text: grade.feedback,
            common_mistake_tag: grade.tag,
            graded_by: grade.by.to_string(),
            expected_answer: grade.expected,
            drill: counters,
            messages,
            snapshot_lite,
        })
    }

    async fn model_grade(
        &self,
        learner: LearnerId,
        course: &Course,
        unit: &str,
        drill: &DrillText,
        answer: &str,
    ) -> AppResult<Grade> {
        let spec = course.unit(unit).expect("checked by the caller");
        let prompt = prompts::render(
            "tutor_drill_grading",
            json!({
                "tags": course.confusion_tags().join(", "),
                "unit_title": spec.title,
                "unit_anchor": spec.anchor,
                "prompt": drill.prompt.trim(),
                "question": drill.question_latex.trim(),
                "answer": answer,
            }),
        );
        let schema = json!({ "type": "object", "properties": {
            "isCorrect": { "type": "boolean" },
            "feedbackText": { "type": "string" },
            "commonMistakeTag": { "anyOf": [{ "type": "string", "enum": course.confusion_tags() }, { "type": "null" }] },
        }, "required": ["isCorrect", "feedbackText", "commonMistakeTag"], "additionalProperties": false });
        let request = Request {
            output: Some(OutputSchema { name: "drill_grade".into(), schema }),
            temperature: Some(0.0),
            ..Request::new(vec![Message::system(prompt), Message::user("Grade the answer now.")])
        };
        let session = self.llm.session("tutor_drill_grade").await.map_err(|e| {
            AppError::from(e).with_details(json!({ "why": "a drill the model wrote is graded by the model; blueprint drills (with a drillId) are graded without one" }))
        })?;
        let graded = session.structured::<ModelGrade>(&request).await;
        self.record_llm_session(learner, "tutor_drill_grade", &session).await?;
        let (grade, _) = graded?;
        let feedback = grade.feedback_text.trim();
        if feedback.is_empty() || feedback.chars().count() > 1_000 {
            return Err(crate::tutor::invalid_reply("the model's drill feedback is empty or over 1,000 characters"));
        }
        // A tag outside the course's list, or on a right answer, is not kept.
        let tag =
            grade.common_mistake_tag.filter(|t| !grade.is_correct && course.confusion_tags().iter().any(|c| c == t));
        Ok(Grade { correct: grade.is_correct, feedback: feedback.to_string(), tag, by: "model", expected: None })
    }
}

/// Exact grading of a blueprint drill, which must be one of the unit's.
fn blueprint_grade(course: &Course, unit: &str, drill_id: &str, answer: &str) -> AppResult<Grade> {
    let library = course.library();
    let item = library
        .regenerate(drill_id)
        .map_err(|e| AppError::invalid("drill.drill_id", format!("'{drill_id}' is not a drill: {e}")))?;
    let blueprints = &course.unit(unit).expect("checked by the caller").blueprints;
    if !blueprints.contains(&item.blueprint_id) {
        return Err(AppError::invalid(
            "drill.drill_id",
            format!("'{drill_id}' is not a drill of unit '{unit}' (its blueprints: {})", blueprints.join(", ")),
        ));
    }
    let given = match (item.item_type, answer.parse::<usize>()) {
        // A choice may be answered by its text or, when no option reads as a number, its index.
        (ItemType::MultipleChoice, Ok(i))
            if !item.options.iter().any(|o| o.trim() == answer) && i < item.options.len() =>
        {
            Answer::Choice(i)
        }
        _ => Answer::Text(answer.to_string()),
    };
    let check = item.check(&given).map_err(|e| AppError::invalid("studentAnswer", e.to_string()))?;
    let tag = if check.correct {
        None
    } else {
        let typed = match given {
            Answer::Choice(i) => item.options[i].clone(),
            Answer::Text(t) => t,
        };
        library
            .diagnose(drill_id, &typed)
            .filter(|t| course.confusion_tags().iter().any(|c| c == t))
            .map(str::to_string)
    };
    let feedback = if check.correct {
        format!("Correct: {}.", check.expected)
    } else {
        match &tag {
            Some(t) => {
                format!("Not quite: the answer is {}. This looks like a {} slip.", check.expected, t.replace('_', " "))
            }
            None => format!("Not quite: the answer is {}.", check.expected),
        }
    };
    Ok(Grade { correct: check.correct, feedback, tag, by: "blueprint", expected: Some(check.expected) })
}
