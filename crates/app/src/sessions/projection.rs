//! Context projections (10.4, D2): what each type of session needs to know about itself,
//! built from its stored state. An evaluation's is minimal on purpose: no performance and
//! no answers, so nothing that reads it (a client, a model) can learn how an answer scored.

use super::config::SessionConfig;
use super::state::SessionState;
use chrono::{DateTime, Utc};
use pathwise_store::SessionRecord;
use serde_json::{json, Value};

/// How many recent answers a learning session's projection shows.
const RECENT_PERFORMANCE: usize = 5;

pub(crate) fn context(
    record: &SessionRecord,
    state: &SessionState,
    config: &SessionConfig,
    now: DateTime<Utc>,
) -> Value {
    let time_remaining = state.seconds_left(now).filter(|_| !record.status.is_final());
    match config {
        SessionConfig::Evaluation(_) => {
            let evaluation = state.evaluation.clone().unwrap_or_default();
            let planned = if evaluation.form.is_empty() { None } else { Some(evaluation.form.len() as u32) };
            json!({
                "items_completed": evaluation.results.len(),
                "total_items": state.max_items.or(planned),
                "time_remaining_seconds": time_remaining,
            })
        }
        SessionConfig::Survey(c) => {
            let answers = state.survey.as_ref().map(|s| s.answers.clone()).unwrap_or_default();
            let cursor = c.survey.cursor(&answers);
            json!({
                "current_question_index": cursor.next,
                "total_questions": cursor.total_questions,
                "answered": cursor.answered,
                "skipped_questions": cursor.skipped_questions,
                "time_remaining_seconds": time_remaining,
            })
        }
        SessionConfig::Learning(c) => {
            let learning = state.learning.clone().unwrap_or_default();
            let recent: Vec<bool> =
                learning.results.iter().rev().take(RECENT_PERFORMANCE).rev().map(|r| r.correct).collect();
            json!({
                "map_id": c.map_id,
                "current_concept": learning.current.as_ref().map(|(node, _)| node),
                "items_completed": learning.results.len(),
                "max_items": state.max_items,
                "recent_performance": recent,
                "last_response": learning.results.last().map(|r| json!({ "item_id": r.item_id, "correct": r.correct })),
                "time_remaining_seconds": time_remaining,
            })
        }
        SessionConfig::Thought(c) => {
            let thought = state.thought.clone().unwrap_or_default();
            json!({
                "topic": c.topic,
                "turns": thought.turns,
                "window_turns": c.window_turns.unwrap_or(super::thought::DEFAULT_WINDOW_TURNS),
                "summary": thought.summary,
            })
        }
    }
}

/// The configuration as a learner may read it back: inline items without their answers.
pub(crate) fn public_config(config: &SessionConfig) -> Value {
    match config {
        SessionConfig::Evaluation(c) => json!({
            "blueprint_id": c.blueprint_id,
            "item_bank_id": c.item_bank_id,
            "items": c.items.as_ref().map(Vec::len),
            "missed_in": c.missed_in,
            "max_items": c.max_items,
            "time_limit_minutes": c.time_limit_minutes,
        }),
        other => other.to_stored().unwrap_or(Value::Null),
    }
}
