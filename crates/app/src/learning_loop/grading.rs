//! Grading an answer, whoever grades it, and the checks a question the caller writes goes
//! through. A choice is graded exactly against its key, never by a model and never by the
//! caller; free text by the caller's quality when it gives one (an assistant driving the
//! flow is a model itself), by Pathwise's model otherwise. A caller's question is checked
//! like the model's before it is asked.

use crate::StoreHandle;
use crate::{learning_loop::model_tasks, App, AppError, AppResult};
use pathwise_domain::mastery::Quality;
use pathwise_domain::question::{self, ChoiceGrade, GradedBy, Question, QuestionKind};
use pathwise_domain::LearnerId;
use pathwise_store::{MapStore, UsageStore};

/// The operation a model's grade is recorded under.
pub const GRADING: &str = "grading";
const MAX_ANSWER_CHARS: usize = 4_000;
/// The feedback of a caller's grade given without any.
const CALLER_FEEDBACK: &str = "Graded by the caller.";

pub use pathwise_domain::question::AnswerGrade;

/// The caller's grade of a free-text answer.
#[derive(Debug, Clone)]
pub(crate) struct CallerGrade {
    quality: u8,
    feedback: Option<String>,
}

impl CallerGrade {
    /// The grade in a step's `quality` and `feedback` fields, if any.
    pub(crate) fn from_fields(quality: Option<u8>, feedback: Option<String>) -> AppResult<Option<Self>> {
        let Some(quality) = quality else {
            if feedback.is_some() {
                return Err(AppError::invalid(
                    "feedback",
                    "comes with quality (the caller's grade, 0-5); leave both out to have Pathwise grade the answer",
                ));
            }
            return Ok(None);
        };
        if quality > 5 {
            return Err(AppError::invalid(
                "quality",
                format!("{quality} is out of range; a quality is an SM-2 grade from 0 to 5 (3 or more is correct)"),
            ));
        }
        let feedback = feedback.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
        if feedback.as_ref().is_some_and(|f| f.chars().count() > MAX_ANSWER_CHARS) {
            return Err(AppError::invalid("feedback", format!("must be at most {MAX_ANSWER_CHARS} characters")));
        }
        Ok(Some(CallerGrade { quality, feedback }))
    }
}

pub(crate) fn clean_answer(answer: &str) -> AppResult<String> {
    let answer = answer.trim();
    if answer.is_empty() {
        return Err(AppError::invalid("answer", "is empty; answer the question (a choice's index or text)"));
    }
    if answer.chars().count() > MAX_ANSWER_CHARS {
        return Err(AppError::invalid("answer", format!("must be at most {MAX_ANSWER_CHARS} characters")));
    }
    Ok(answer.to_string())
}

/// Grade an answer: exactly against the key of a choice question; a free-text one by the
/// caller's grade, or by the model against its rubric.
pub(crate) async fn grade_answer<S: StoreHandle + MapStore + UsageStore>(
    app: &App<S>,
    learner: LearnerId,
    question: &Question,
    answer: &str,
    caller: Option<CallerGrade>,
) -> AppResult<AnswerGrade> {
    if let Some(graded) = question::grade_choice(question, answer) {
        if caller.is_some() {
            return Err(AppError::invalid(
                "quality",
                "is not taken for a choice question, which is graded exactly against its key; \
                 leave out quality and feedback",
            ));
        }
        return Ok(exact_grade(question, graded?));
    }
    match caller {
        Some(CallerGrade { quality, feedback }) => Ok(AnswerGrade {
            quality,
            correct: Quality::of(quality).passes(),
            feedback: feedback.unwrap_or_else(|| CALLER_FEEDBACK.into()),
            graded_by: GradedBy::Caller,
        }),
        None => grade_by_model(app, learner, question, answer).await,
    }
}

fn exact_grade(question: &Question, graded: ChoiceGrade) -> AnswerGrade {
    let feedback = match &question.kind {
        QuestionKind::Choice { choices, correct: Some(key) } if !graded.correct => {
            crate::learning_loop::feedback::choice_feedback(false, &choices[*key])
        }
        _ => crate::learning_loop::feedback::choice_feedback(true, ""),
    };
    AnswerGrade { quality: graded.quality, correct: graded.correct, feedback, graded_by: GradedBy::Exact }
}

async fn grade_by_model<S: StoreHandle + MapStore + UsageStore>(
    app: &App<S>,
    learner: LearnerId,
    question: &Question,
    answer: &str,
) -> AppResult<AnswerGrade> {
    let session = app.llm.session(GRADING).await?;
    let graded = model_tasks::grade(&session, question, answer).await;
    app.record_llm_session(learner, GRADING, &session).await?;
    let graded = graded?;
    let quality = graded.quality as u8;
    Ok(AnswerGrade {
        quality,
        correct: Quality::of(quality).passes(),
        feedback: graded.feedback,
        graded_by: GradedBy::Model,
    })
}

/// A question the caller wrote about `concept`, checked as the model's are. Its `concept`
/// must name the concept at hand (case aside), so that a question about something else is
/// not recorded against it; it is kept under the concept's own label.
pub(crate) fn caller_question(mut question: Question, concept: &str) -> AppResult<Question> {
    let named = question.concept.trim();
    if named.to_lowercase() != concept.to_lowercase() {
        return Err(AppError::invalid(
            "question.concept",
            format!("is '{named}', but this step asks about '{concept}'; write the question about '{concept}'"),
        ));
    }
    question.concept = concept.to_string();
    question.text = question.text.trim().to_string();
    if let QuestionKind::Choice { choices, .. } = &mut question.kind {
        choices.iter_mut().for_each(|c| *c = c.trim().to_string());
    }
    question.validate()?;
    Ok(question)
}
