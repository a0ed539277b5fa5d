//! The survey presenter: questions verbatim, in order, with skip logic; no model, so a
//! survey runs offline. Every answer is data; there is nothing to score.

use super::config::SessionConfig;
use super::turn::Turn;
use crate::{AppError, AppResult};
use pathwise_domain::SessionEndReason;
use serde_json::{json, Value};

/// Keep the answer respond recorded, if the agent has not acted on it yet.
pub(crate) fn consume(turn: &mut Turn) -> AppResult<()> {
    if let Some(id) = turn.state.unprocessed.take() {
        let answered =
            turn.state.answered(&id).cloned().ok_or_else(|| AppError::internal("unprocessed answer missing"))?;
        let question_id = answered.item_id.clone().unwrap_or_default();
        turn.state.survey.get_or_insert_default().answers.push((question_id.clone(), answered.response.clone()));
        turn.backend_call(
            "record_survey_answer",
            json!({ "question_id": question_id, "answer": answered.response.as_text() }),
            &json!({ "recorded": true }),
        );
    }
    Ok(())
}

pub(crate) fn step(turn: &mut Turn) -> AppResult<()> {
    let SessionConfig::Survey(config) = turn.config.clone() else {
        return Err(AppError::internal("survey step on a session of another type"));
    };
    let survey = config.survey;
    consume(turn)?;
    let answers = turn.state.survey.get_or_insert_default().answers.clone();
    let cursor = survey.cursor(&answers);
    let next = cursor.next.map(|i| &survey.questions[i]);
    let result = match next {
        Some(q) => json!({
            "question_index": cursor.next,
            "question": { "question_id": q.question_id, "text": q.text, "question_type": q.question_type,
                          "options": q.options, "required": q.required },
            "total_questions": cursor.total_questions,
            "skipped_questions": cursor.skipped_questions,
        }),
        None => Value::Null,
    };
    turn.backend_call("get_next_survey_question", json!({}), &result);
    match next {
        Some(question) => turn.ask(question.action(), Some(question.question_id.clone()), None),
        None => {
            turn.say(&format!("Thank you for completing \"{}\".", survey.title));
            let answers: serde_json::Map<String, Value> =
                answers.iter().map(|(q, a)| (q.clone(), serde_json::to_value(a).unwrap_or(Value::Null))).collect();
            turn.complete(
                SessionEndReason::Finished,
                json!({ "survey_id": survey.survey_id, "answers": answers, "skipped_questions": cursor.skipped_questions }),
            )
        }
    }
}
