//! Evaluation sessions (10.2 EVALUATION, 13.4): the backend selects every item, presents
//! it verbatim through a deterministic presenter (no model, so evaluations run offline and
//! nothing can leak an answer into a prompt), gives no feedback, enforces the time limit,
//! and scores each answer exactly against the computed key. Scores are revealed only in the
//! completion.

use super::adaptive;
use super::bank::{self, BankItem, Scored};
use super::code;
use super::config::{EvaluationConfig, SessionConfig};
use super::scoring::score;
use super::state::{EvaluationState, ItemResult, SessionState};
use super::turn::Turn;
use crate::stores::TeachingStores;
use crate::{App, AppError, AppResult};
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::SessionEndReason;
use pathwise_items::Library;
use serde_json::{json, Value};

/// Plan the form when the session is created, so that a bad blueprint is refused before
/// anything is stored and every server process presents the same items.
pub(crate) fn plan(lib: &Library, config: &EvaluationConfig, state: &mut SessionState) -> AppResult<()> {
    let plan = bank::plan_evaluation(lib, config, state.seed)?;
    state.max_items = Some(config.max_items.unwrap_or(plan.max_items).min(plan.max_items.max(1)));
    state.evaluation = Some(EvaluationState { form: plan.form, candidates: plan.candidates, results: Vec::new() });
    Ok(())
}

/// Plan a practice of missed items: the form is known already.
pub(crate) fn plan_form(form: Vec<String>, config: &EvaluationConfig, state: &mut SessionState) {
    let planned = form.len() as u32;
    state.max_items = Some(config.max_items.unwrap_or(planned).min(planned.max(1)));
    state.evaluation = Some(EvaluationState { form, candidates: Vec::new(), results: Vec::new() });
}

pub(crate) fn blueprint_time_limit(lib: &Library, config: &EvaluationConfig) -> Option<u32> {
    bank::blueprint_time_limit(lib, config)
}

pub(crate) async fn step<S: TeachingStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    let SessionConfig::Evaluation(config) = turn.config.clone() else {
        return Err(AppError::internal("evaluation step on a session of another type"));
    };
    consume(app, turn).await?;
    let evaluation = turn.state.evaluation.clone().unwrap_or_default();
    let done = evaluation.results.len() as u32;
    let next = next_item(app.library(), &config, &evaluation, turn.state.seed)?;
    let Some(item) = next else {
        turn.backend_call("get_next_evaluation_item", json!({}), &Value::Null);
        let report = report(app.library(), turn, Ended::FormDone)?;
        return turn.complete(SessionEndReason::Finished, report);
    };
    if turn.state.max_items.is_some_and(|max| done >= max) {
        let report = report(app.library(), turn, Ended::FormDone)?;
        return turn.complete(SessionEndReason::MaxItems, report);
    }
    present(turn, &item, done)
}

/// Score the answer respond recorded, if there is one the agent has not acted on yet.
pub(crate) async fn consume<S: TeachingStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    let SessionConfig::Evaluation(config) = turn.config.clone() else {
        return Err(AppError::internal("evaluation step on a session of another type"));
    };
    if let Some(id) = turn.state.unprocessed.take() {
        let answered =
            turn.state.answered(&id).cloned().ok_or_else(|| AppError::internal("unprocessed answer missing"))?;
        let shown_id =
            answered.item_id.clone().ok_or_else(|| AppError::internal("an evaluation answer without its item"))?;
        let item_id = turn.state.item_behind(&shown_id).to_string();
        let item = bank::resolve(app.library(), &config, &item_id)?;
        let Scored { correct, credit, expected, detail } = score(app, &item, &answered.response).await?;
        turn.state.evaluation.get_or_insert_default().results.push(ItemResult {
            item_id: item_id.clone(),
            answer: answered.response.as_text(),
            correct,
            credit,
            expected: expected.clone(),
            seconds: (answered.at - answered.asked_at).num_milliseconds() as f64 / 1000.0,
            tests: code::summary(&detail),
        });
        turn.backend_call(
            "record_evaluation_response",
            json!({ "item_id": shown_id, "response": answered.response }),
            &json!({ "recorded": true }),
        );
        turn.event(
            SessionEventKind::ItemEvaluated,
            json!({ "item_id": shown_id, "correct": correct, "credit": credit, "expected": expected, "detail": detail }),
        );
    }
    Ok(())
}

fn present(turn: &mut Turn, item: &bank::BankItem, done: u32) -> AppResult<()> {
    let shown_id = turn.show_item(&item.id);
    let presented = bank::presented(item, &shown_id);
    let number = done + 1;
    let total = turn.state.max_items;
    let remaining = turn.state.seconds_left(turn.now);
    turn.backend_call(
        "get_next_evaluation_item",
        json!({}),
        &json!({ "item": presented, "item_number": number, "total_items": total, "time_remaining_seconds": remaining }),
    );
    turn.event(
        SessionEventKind::ItemPresented,
        json!({ "item": presented, "item_number": number, "total_items": total, "time_remaining_seconds": remaining }),
    );
    turn.state.items_presented += 1;
    let action = bank::action(item)?;
    turn.ask(action, Some(shown_id), None)
}

/// Whether an evaluation ended because its form (or an adaptive test's stop rule) was done,
/// or before that: by the learner, the time limit or an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    FormDone,
    Early,
}

/// The scored evaluation: every item with the learner's answer, the key and the credit,
/// scored over every item the evaluation planned. An evaluation ended early counts the
/// items it did not get to as unanswered (no credit) and lists them, so that one right
/// answer out of ten planned is 10%, never 100%.
pub(crate) fn report(lib: &Library, turn: &Turn, ended: Ended) -> AppResult<Value> {
    let SessionConfig::Evaluation(config) = &turn.config else {
        return Err(AppError::internal("evaluation report on a session of another type"));
    };
    let evaluation = turn.state.evaluation.clone().unwrap_or_default();
    let mut items = Vec::new();
    for result in &evaluation.results {
        let item = bank::resolve(lib, config, &result.item_id)?;
        items.push(json!({
            "item_id": turn.state.shown_id(&result.item_id),
            "stem": bank::stem(&item),
            "answer": result.answer,
            "expected": result.expected,
            "correct": result.correct,
            "credit": result.credit,
            "seconds": result.seconds,
            "tests": result.tests,
        }));
    }
    let answered = evaluation.results.len();
    let planned = match ended {
        Ended::FormDone => answered,
        Ended::Early => turn.state.max_items.map_or(answered, |max| (max as usize).max(answered)),
    };
    let unanswered = unanswered_items(lib, config, turn, &evaluation, planned)?;
    let score: f64 = evaluation.results.iter().map(|r| r.credit).sum();
    let mut report = json!({
        "items_total": planned,
        "items_answered": answered,
        "items_unanswered": planned - answered,
        "items_correct": evaluation.results.iter().filter(|r| r.correct).count(),
        "score": score,
        "max_score": planned,
        "percent": if planned == 0 { 0.0 } else { (score / planned as f64 * 1000.0).round() / 10.0 },
        "items": items,
        "unanswered": unanswered,
    });
    if let Some(ability) = ability(lib, config, &evaluation)? {
        report["ability"] = ability;
    }
    Ok(report)
}

/// The items an evaluation ended before answering: the one on screen (by the id the learner
/// saw) and, for a fixed form, those not reached (by their number, with no id: an item's own
/// id tells its answer). An adaptive test's unreached items were never chosen, so they are
/// only counted.
fn unanswered_items(
    lib: &Library,
    config: &EvaluationConfig,
    turn: &Turn,
    evaluation: &EvaluationState,
    planned: usize,
) -> AppResult<Vec<Value>> {
    let answered = evaluation.results.len();
    let mut listed = Vec::new();
    let on_screen = turn.state.shown.iter().filter(|(_, own)| !evaluation.results.iter().any(|r| &r.item_id == own));
    for (shown, own) in on_screen {
        let item = bank::resolve(lib, config, own)?;
        listed.push(json!({
            "item_id": shown,
            "item_number": answered + listed.len() + 1,
            "stem": bank::stem(&item),
            "expected": item.key.answer,
            "reached": true,
        }));
    }
    if evaluation.candidates.is_empty() {
        let reached = answered + listed.len();
        for own in evaluation.form.iter().take(planned).skip(reached) {
            let item = bank::resolve(lib, config, own)?;
            listed.push(json!({
                "item_id": Value::Null,
                "item_number": answered + listed.len() + 1,
                "stem": bank::stem(&item),
                "expected": item.key.answer,
                "reached": false,
            }));
        }
    }
    Ok(listed)
}

/// The next item of an evaluation: the planned form in order, or for an adaptive one the
/// most informative unused candidate at the current ability estimate.
fn next_item(
    lib: &Library,
    config: &EvaluationConfig,
    state: &EvaluationState,
    seed: u64,
) -> AppResult<Option<BankItem>> {
    if state.candidates.is_empty() {
        return state.form.get(state.results.len()).map(|id| bank::resolve(lib, config, id)).transpose();
    }
    adaptive::next(lib, config, state, seed)
}

/// The ability estimate of an adaptive evaluation, for its report.
fn ability(lib: &Library, config: &EvaluationConfig, state: &EvaluationState) -> AppResult<Option<Value>> {
    if state.candidates.is_empty() {
        return Ok(None);
    }
    adaptive::ability(lib, config, state).map(Some)
}
