//! Grading a drill (`POST /tutor/threads/{id}/drill/grade`, policy-tutor.md EPIC E). Drills
//! are generated live, never kept in a bank; but every drill a thread offers is recorded
//! with its opaque id (what its card carries), so that only a drill offered in that thread
//! to that learner is graded, and only once: a replay is answered with the first grading
//! and changes nothing. A blueprint drill is regenerated from its recorded item and graded
//! exactly, its mistake named by the distractor strategy the answer matches; a drill the
//! model wrote is graded by the model from its recorded text, its mistake tag from the
//! course's fixed list. Grading is the only thing that moves confusion tags.

use super::evidence::{Evidence, EvidenceWrite};
use super::messages::{new_message, with_outcome, with_sources, CardOutcome, TutorMessage};
use super::turn::check_course;
use crate::stores::MasteryStores;
use crate::{App, AppError, AppResult, ErrorCode};
use pathwise_course::answer::sentence_holding;
use pathwise_course::lite::SnapshotLite;
use pathwise_course::snapshot::DrillCounters;
use pathwise_course::{Course, TutorCard};
use pathwise_domain::choice::read_typed_choice;
use pathwise_domain::evidence::{Evidence as DomainEvidence, Form, Outcome};
use pathwise_domain::{LearnerId, ThreadId};
use pathwise_items::{Answer, ItemType};
use pathwise_llm::{prompts, schema, Message, Request};
use pathwise_store::{DrillOfferRecord, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::json;

const MAX_ANSWER_CHARS: usize = 2_000;

/// What a drill's id looks like: `drl_` and 32 hex digits, random.
const DRILL_ID_PREFIX: &str = "drl_";

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DrillGradeRequest {
    #[serde(default)]
    pub course_id: Option<String>,
    #[serde(default)]
    #[schema(min_length = 1)]
    pub unit_id: Option<String>,
    pub drill: DrillText,
    #[schema(min_length = 1, max_length = 2000)]
    pub student_answer: String,
}

/// The drill as it was shown: its card, sent back as it came (fields other than these, such
/// as the card's `type` and `unitId`, are ignored). Its `drillId` says which drill it is;
/// the drill is graded as it was offered, whatever text comes back.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct DrillText {
    #[serde(default)]
    pub prompt: String,
    #[serde(default, alias = "questionLatex")]
    pub question_latex: String,
    /// The drill's id, as its card carried it.
    #[serde(default, alias = "drillId")]
    pub drill_id: Option<String>,
    /// A multiple-choice drill's options, as its card carried them (not needed to grade).
    #[serde(default)]
    pub options: Vec<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DrillGradeReply {
    /// This drill was graded before: this is that first grading, and nothing changed.
    pub replayed: bool,
    pub is_correct: bool,
    pub feedback_text: String,
    /// From the course's fixed list; only for a wrong answer.
    pub common_mistake_tag: Option<String>,
    pub graded_by: DrillGrader,
    /// The right answer, for a blueprint drill (shown once graded).
    pub expected_answer: Option<String>,
    pub drill: DrillCounters,
    pub messages: Vec<TutorMessage>,
    pub snapshot_lite: SnapshotLite,
}

/// Who graded a drill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DrillGrader {
    /// Exactly, against the item a blueprint generated.
    Blueprint,
    /// Exactly, against the key of one of the course's own written drills.
    Written,
    /// By the model, against the unit's material.
    Model,
}

/// A drill's grading, as kept with its offer to answer replays.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Grade {
    correct: bool,
    feedback: String,
    tag: Option<String>,
    by: DrillGrader,
    expected: Option<String>,
    /// The answer picked one of the options shown rather than being recalled; a replay
    /// records nothing, so this is not kept.
    #[serde(skip)]
    recognised: bool,
}

impl Grade {
    /// What the answer shows: checked exactly against the item's key, or judged by the model
    /// against the unit's material.
    fn shows(&self) -> DomainEvidence {
        if self.by == DrillGrader::Model {
            return DomainEvidence::Judged { correct: self.correct };
        }
        let outcome = if self.correct { Outcome::Right } else { Outcome::Wrong };
        let form = if self.recognised { Form::Recognised } else { Form::Recalled };
        DomainEvidence::Checked { form, outcome }
    }
}

/// A drill graded by the model; its mistake tag is one of the course's (see `model_grade`).
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ModelGrade {
    is_correct: bool,
    feedback_text: String,
    #[serde(default)]
    common_mistake_tag: Option<String>,
}

impl<S: MasteryStores> App<S> {
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
        // Someone else's thread is simply not found, whatever the body says.
        let thread = self.thread_record(learner, thread_id).await?;
        let drill_id =
            request.drill.drill_id.as_deref().map(str::trim).filter(|id| !id.is_empty()).ok_or_else(|| {
                AppError::invalid(
                "drill.drillId",
                "is missing: send the drill's card back as it came, with its drillId; only drills the tutor offered \
                 in this thread are graded",
            )
            })?;
        check_course(&thread, request.course_id.as_deref())?;
        let loaded = self.course(&thread.course_id).await?;
        let course = &loaded.course;
        if let Some(unit) = request.unit_id.as_deref() {
            super::turn::require_unit(&loaded, "unitId", unit)?;
        }
        let offer = self.store.drill_offer(learner, thread_id, drill_id).await?.ok_or_else(|| {
            AppError::absent(
                "drill.drillId",
                format!("'{drill_id}' is not a drill offered in this thread; answer the drills the tutor offers here"),
            )
        })?;
        // The unit is the drill's own; one given must agree with it (a stale card's).
        if let Some(unit) = request.unit_id.as_deref().filter(|unit| *unit != offer.unit_id) {
            return Err(AppError::invalid(
                "unitId",
                format!("drill '{drill_id}' practises unit '{}', not '{unit}'", offer.unit_id),
            ));
        }
        if let Some(first) = offer.grade.as_ref() {
            return self.replayed_grade(learner, &loaded, &offer, first).await;
        }
        let mut grade = match &offer.item_ref {
            Some(item) => blueprint_grade(course, item, answer)?,
            None => self.model_grade(learner, course, &offer, answer).await?,
        };
        // A wrong answer is shown where the material says the right one, cited.
        let holding = (!grade.correct)
            .then(|| grade.expected.as_deref().and_then(|key| sentence_holding(course, &offer.unit_id, key)))
            .flatten();
        let sources: Vec<pathwise_course::Source> =
            holding.as_ref().and_then(|(_, chunk)| course.source_at(*chunk)).into_iter().collect();
        if let Some((sentence, _)) = &holding {
            let says = if course.grounded() { "Your material says" } else { "The course says" };
            grade.feedback = format!("{} {says}: \u{201c}{sentence}\u{201d}", grade.feedback.trim_end());
        }
        let question = format!("{} {}", offer.prompt.trim(), offer.question_latex.trim()).trim().to_string();
        let now = self.now();
        let outcome = CardOutcome::Drill {
            unit_id: offer.unit_id.clone(),
            drill_id: Some(offer.id.clone()),
            prompt: offer.prompt.clone(),
            question_latex: offer.question_latex.clone(),
            answer: answer.to_string(),
            is_correct: grade.correct,
            expected_answer: grade.expected.clone(),
        };
        let records = vec![
            new_message("user", answer.to_string(), None, None, None, now),
            with_sources(
                with_outcome(new_message("assistant", grade.feedback.clone(), None, None, None, now), &outcome),
                &sources,
            ),
        ];
        let unit_id = offer.unit_id.clone();
        let tag = grade.tag.clone();
        let kept = serde_json::to_value(&grade).map_err(|e| AppError::internal(format!("drill grade to JSON: {e}")))?;
        let write = EvidenceWrite {
            evidence: Some(Evidence { unit: &unit_id, question: &question, answer, shows: grade.shows() }),
            graded: Some((&offer.id, &kept)),
        };
        let recorded = self
            .record_evidence(learner, thread_id, &loaded, &records, write, |s| {
                s.record_drill(&unit_id, grade.correct, tag.as_deref(), now);
            })
            .await;
        let (snap, messages) = match recorded {
            Ok(done) => done,
            // Graded meanwhile by another request for the same drill: that grading stands.
            Err(e) if e.code == ErrorCode::AlreadyRecorded => {
                let offer = self.store.drill_offer(learner, thread_id, &offer.id).await?;
                let first = offer
                    .as_ref()
                    .and_then(|o| o.grade.as_ref())
                    .ok_or_else(|| AppError::from(StoreError::NotFound("drill grading")))?;
                return self.replayed_grade(learner, &loaded, offer.as_ref().expect("found above"), first).await;
            }
            Err(e) => return Err(e),
        };
        self.grade_reply(learner, &loaded, &snap, &unit_id, grade, messages, false).await
    }

    /// A grading as the learner gets it, with the unit's counters and the snapshot as they
    /// stand.
    #[allow(clippy::too_many_arguments)]
    async fn grade_reply(
        &self,
        learner: LearnerId,
        loaded: &super::catalog::LoadedCourse,
        snap: &super::snapshots::VersionedSnapshot,
        unit: &str,
        grade: Grade,
        messages: Vec<TutorMessage>,
        replayed: bool,
    ) -> AppResult<DrillGradeReply> {
        Ok(DrillGradeReply {
            replayed,
            is_correct: grade.correct,
            feedback_text: grade.feedback,
            common_mistake_tag: grade.tag,
            graded_by: grade.by,
            expected_answer: grade.expected,
            drill: snap.snapshot.progress(unit).map(|p| p.drill).unwrap_or_default(),
            messages,
            snapshot_lite: self.current_lite(learner, loaded, snap).await?,
        })
    }

    /// The first grading of a drill answered again: nothing is stored or counted.
    async fn replayed_grade(
        &self,
        learner: LearnerId,
        loaded: &super::catalog::LoadedCourse,
        offer: &DrillOfferRecord,
        first: &serde_json::Value,
    ) -> AppResult<DrillGradeReply> {
        let grade: Grade = serde_json::from_value(first.clone())
            .map_err(|e| AppError::internal(format!("drill {}'s kept grading is unreadable: {e}", offer.id)))?;
        let snap = self.course_snapshot(learner, loaded).await?;
        self.grade_reply(learner, loaded, &snap, &offer.unit_id, grade, Vec::new(), true).await
    }

    /// Record the drill a card offers under a new opaque id, which the card then carries
    /// instead of anything that would tell the answer (a blueprint item's id holds its seed).
    pub(crate) fn offer_drill(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        card: &mut TutorCard,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<DrillOfferRecord> {
        let TutorCard::Drill { unit_id, prompt, question_latex, drill_id, options } = card else { return None };
        let id = format!("{DRILL_ID_PREFIX}{}", uuid::Uuid::new_v4().simple());
        let item_ref = drill_id.replace(id.clone());
        Some(DrillOfferRecord {
            id,
            learner_id: learner,
            thread_id: thread,
            unit_id: unit_id.clone(),
            item_ref,
            prompt: prompt.clone(),
            question_latex: question_latex.clone(),
            options: options.clone(),
            offered_at: now,
            graded_at: None,
            grade: None,
        })
    }

    async fn model_grade(
        &self,
        learner: LearnerId,
        course: &Course,
        drill: &DrillOfferRecord,
        answer: &str,
    ) -> AppResult<Grade> {
        let spec = course.unit(&drill.unit_id).ok_or_else(|| {
            AppError::invalid("unitId", format!("unit '{}' is no longer in course '{}'", drill.unit_id, course.id()))
        })?;
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
        let mut output = schema::output_schema::<ModelGrade>("drill_grade");
        // The tag names one of the course's confusions, or none.
        output.schema["properties"]["commonMistakeTag"]["anyOf"][0]["enum"] = json!(course.confusion_tags());
        let request = Request {
            output: Some(output),
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
            return Err(crate::learning_loop::model_tasks::invalid_reply(
                "the model's drill feedback is empty or over 1,000 characters",
            ));
        }
        // A tag outside the course's list, or on a right answer, is not kept.
        let tag =
            grade.common_mistake_tag.filter(|t| !grade.is_correct && course.confusion_tags().iter().any(|c| c == t));
        Ok(Grade {
            correct: grade.is_correct,
            feedback: feedback.to_string(),
            tag,
            by: DrillGrader::Model,
            expected: None,
            recognised: false,
        })
    }
}

/// Exact grading of a blueprint drill, regenerated from the item its offer recorded, or of
/// a written drill, found in the course's library by its id.
fn blueprint_grade(course: &Course, item_ref: &str, answer: &str) -> AppResult<Grade> {
    let library = course.library();
    let item = library
        .regenerate(item_ref)
        .map_err(|e| AppError::internal(format!("offered drill item {item_ref} cannot be regenerated: {e}")))?;
    let drill_id = item_ref;
    // A typed answer picks an option by the one rule for choices (by value, or by index
    // only when no option reads as a number).
    let given = match item.item_type {
        ItemType::MultipleChoice => read_typed_choice(&item.options, answer).map(Answer::Choice),
        _ => None,
    }
    .unwrap_or_else(|| Answer::Text(answer.to_string()));
    let recognised = matches!(given, Answer::Choice(_));
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
    let feedback = crate::learning_loop::feedback::drill_feedback(check.correct, &check.expected, tag.as_deref());
    let by = if item.blueprint_id == pathwise_items::INLINE_BLUEPRINT_ID {
        DrillGrader::Written
    } else {
        DrillGrader::Blueprint
    };
    Ok(Grade { correct: check.correct, feedback, tag, by, expected: Some(check.expected), recognised })
}
