//! Learning sessions (10.2 LEARNING, D3): the backend picks the concept from mastery and an
//! item template (a skill blueprint) for it, generates the item with a computed answer,
//! scores the learner's answer itself and records it through `mastery_record_response`.
//! The model, when one is configured, only words things: the explanation of a new concept
//! and the feedback on an answer. Without one, a deterministic presenter does both.

use super::bank;
use super::config::{LearningConfig, SessionConfig};
use super::state::{LearningResult, SessionState};
use super::turn::Turn;
use crate::mastery::RecordResponse;
use crate::stores::TeachingStores;
use crate::{App, AppError, AppResult};
use pathwise_domain::evidence::{Evidence, Form, Outcome};
use pathwise_domain::model::Node;
use pathwise_domain::session::widgets::ClientResponse;
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::{LearnerId, MasteryStatus, ResponseType, SessionEndReason};
use pathwise_llm::{prompts, Message, Request};
use serde_json::{json, Value};

const DEFAULT_MAX_ITEMS: u32 = 10;
const OPERATION: &str = "session_learning";

/// Resolve the concepts and skill blueprints a learning session practises before it is
/// created: every concept must be a node of the map, every blueprint one of the library.
pub(crate) async fn check_config<S: TeachingStores>(
    app: &App<S>,
    learner: LearnerId,
    config: &LearningConfig,
    state: &mut SessionState,
) -> AppResult<()> {
    let map = app.get_map(learner, config.map_id).await?;
    let mut templates = Vec::new();
    for (concept, skills) in &config.item_templates {
        let field = format!("config.item_templates.{concept}");
        let wanted = concept.trim();
        let node = map
            .nodes
            .iter()
            .find(|n| n.label.trim().eq_ignore_ascii_case(wanted) || n.id.to_string() == wanted)
            .ok_or_else(|| {
                let labels: Vec<&str> = map.nodes.iter().map(|n| n.label.as_str()).collect();
                AppError::invalid(
                    &field,
                    format!("'{concept}' is not a concept of this map; its concepts: {}", labels.join(", ")),
                )
            })?;
        if skills.is_empty() {
            return Err(AppError::invalid(&field, "name at least one skill blueprint"));
        }
        for skill in skills {
            bank::check_skill(app.library(), skill).map_err(|e| AppError::invalid(&field, e.message))?;
        }
        templates.push((node.id, skills.clone()));
    }
    state.max_items = Some(config.max_items.unwrap_or(DEFAULT_MAX_ITEMS));
    state.learning.get_or_insert_default().templates = templates;
    Ok(())
}

pub(crate) async fn step<S: TeachingStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    let SessionConfig::Learning(config) = turn.config.clone() else {
        return Err(AppError::internal("learning step on a session of another type"));
    };
    let learner = turn.record.learner_id;
    consume(app, turn).await?;
    let learning = turn.state.learning.clone().unwrap_or_default();
    if turn.state.max_items.is_some_and(|max| learning.results.len() as u32 >= max) {
        return turn.complete(SessionEndReason::MaxItems, report(turn));
    }
    let map = app.get_map(learner, config.map_id).await?;
    let next = learning
        .templates
        .iter()
        .filter_map(|(node_id, skills)| map.nodes.iter().find(|n| n.id == *node_id).map(|n| (n, skills)))
        .filter(|(node, _)| node.mastery_status != MasteryStatus::Mastered)
        .min_by_key(|(node, _)| (node.sequence.unwrap_or(i32::MAX), node.label.clone()));
    let Some((node, skills)) = next else {
        turn.backend_call("get_learning_context", json!({}), &json!({ "action": "complete" }));
        turn.say("You have practised every concept of this session to mastery. Well done!");
        return turn.complete(SessionEndReason::Finished, report(turn));
    };
    // Harder blueprints and harder items as the concept's mastery grows.
    let score = node.mastery_score.clamp(0.0, 1.0);
    let skill = &skills[((score * skills.len() as f64) as usize).min(skills.len() - 1)];
    let difficulty = 0.2 + 0.6 * score;
    let first_time = !learning.introduced.contains(&node.id);
    turn.backend_call(
        "get_learning_context",
        json!({}),
        &json!({
            "action": if first_time { "explain_then_present_item" } else { "present_item" },
            "concept": node.label, "template": skill, "difficulty": difficulty, "student_mastery": score,
        }),
    );
    if first_time {
        let explanation = explain(app, learner, turn, node).await?;
        turn.say(&explanation);
        turn.state.learning.get_or_insert_default().introduced.push(node.id);
    }
    let seen = learning.presented_keys.clone();
    let salt = turn.state.items_presented as u64;
    let item = bank::generate_unique(app.library(), skill, turn.state.seed, salt, difficulty, &seen)?;
    let shown_id = turn.show_item(&item.id);
    let presented = bank::presented(&item, &shown_id);
    turn.backend_call("get_next_item", json!({ "concept": node.label }), &json!({ "item": presented }));
    turn.event(
        SessionEventKind::ItemPresented,
        json!({ "item": presented, "concept": node.label, "node_id": node.id,
                "item_number": learning.results.len() + 1, "total_items": turn.state.max_items }),
    );
    turn.state.items_presented += 1;
    let state = turn.state.learning.get_or_insert_default();
    state.presented_keys.push(bank::content_key(&item));
    state.current = Some((node.id, item.id.clone()));
    turn.ask(bank::action(&item)?, Some(shown_id), None)
}

/// Act on the answer respond recorded, if the agent has not yet.
pub(crate) async fn consume<S: TeachingStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    let SessionConfig::Learning(config) = turn.config.clone() else {
        return Err(AppError::internal("learning step on a session of another type"));
    };
    match turn.state.unprocessed.take() {
        Some(id) => evaluate(app, turn, &config, &id).await,
        None => Ok(()),
    }
}

/// Score the answer, record it as a response to the concept, and give feedback.
async fn evaluate<S: TeachingStores>(
    app: &App<S>,
    turn: &mut Turn,
    config: &LearningConfig,
    call: &str,
) -> AppResult<()> {
    let learner = turn.record.learner_id;
    let answered =
        turn.state.answered(call).cloned().ok_or_else(|| AppError::internal("unprocessed answer missing"))?;
    let (node_id, item_id) = turn
        .state
        .learning
        .get_or_insert_default()
        .current
        .take()
        .ok_or_else(|| AppError::internal("a learning answer without its item"))?;
    let item = bank::regenerate(app.library(), &item_id)?;
    let scored = super::scoring::score(app, &item, &answered.response).await?;
    let node = app.store().get_node(learner, node_id).await?.ok_or_else(|| AppError::not_found("node", node_id))?;
    let shows = evidence_of(scored.correct, scored.credit, &answered.response);
    let quality = i64::from(shows.earned().quality.value());
    let response_type = if matches!(node.mastery_status, MasteryStatus::Reviewing | MasteryStatus::Mastered) {
        ResponseType::Review
    } else {
        ResponseType::Teach
    };
    let mut input = RecordResponse::new(
        node_id,
        config.map_id,
        bank::stem(&item),
        Some(&answered.response.as_text()),
        quality,
        Some(response_type),
    );
    input.session_id = Some(turn.record.id.0);
    // A step that fails after the response is recorded (the model's feedback, a crash)
    // stores nothing and runs again: the key finds the response it recorded then.
    let key = format!("session:{}:{call}", turn.record.id.0);
    let node = match app.store().response_by_key(learner, &key).await? {
        Some(_) => node,
        None => {
            input.idempotency_key = Some(key);
            app.record_answer(learner, input, shows).await?.node
        }
    };
    let shown_id = turn.state.shown_id(&item_id).to_string();
    let outcome = json!({
        "correct": scored.correct, "credit": scored.credit, "expected": scored.expected, "quality": quality,
        "mastery_score": node.mastery_score, "mastery_status": node.mastery_status,
    });
    turn.backend_call("evaluate_response", json!({ "item_id": shown_id, "response": answered.response }), &outcome);
    let feedback = feedback(app, learner, turn, &node, &item, &answered.response, &scored).await?;
    turn.event(
        SessionEventKind::ItemEvaluated,
        json!({ "item_id": shown_id, "node_id": node_id, "correct": scored.correct, "credit": scored.credit,
                "expected": scored.expected, "feedback": feedback, "detail": scored.detail,
                "mastery_score": node.mastery_score, "mastery_status": node.mastery_status }),
    );
    turn.say(&feedback);
    turn.state.learning.get_or_insert_default().results.push(LearningResult {
        node_id,
        item_id: shown_id,
        correct: scored.correct,
        quality,
    });
    Ok(())
}

/// What a scored answer shows: a choice is recognised among the options shown, a typed
/// answer or code recalled; a skip is a blackout.
fn evidence_of(correct: bool, credit: f64, response: &ClientResponse) -> Evidence {
    let (form, outcome) = match response {
        ClientResponse::Skipped => (Form::Recalled, Outcome::Skipped),
        ClientResponse::Choice { .. } => (Form::Recognised, Outcome::of(correct, credit)),
        ClientResponse::Text { .. } | ClientResponse::Code { .. } => (Form::Recalled, Outcome::of(correct, credit)),
    };
    Evidence::Checked { form, outcome }
}

async fn explain<S: TeachingStores>(app: &App<S>, learner: LearnerId, turn: &Turn, node: &Node) -> AppResult<String> {
    let plain = crate::learning_loop::feedback::practise_intro(&node.label, node.description.as_deref());
    if !app.llm().is_configured() {
        return Ok(plain);
    }
    let task = format!(
        "The learner meets \"{}\" for the first time in this session. Explain it in at most 80 words with one \
         short example. Do not ask a question.",
        node.label
    );
    worded(app, learner, turn, &task).await.map(|text| if text.is_empty() { plain } else { text })
}

async fn feedback<S: TeachingStores>(
    app: &App<S>,
    learner: LearnerId,
    turn: &Turn,
    node: &Node,
    item: &bank::BankItem,
    response: &ClientResponse,
    scored: &bank::Scored,
) -> AppResult<String> {
    let plain = crate::learning_loop::feedback::item_feedback(scored.correct, &scored.expected);
    if !app.llm().is_configured() {
        return Ok(plain);
    }
    let task = format!(
        "Question on \"{}\": {}\nThe learner answered: {}\nThe correct answer is: {} (the answer was {}).\nGive feedback in \
         at most 60 words: say whether it was right; for a wrong answer, name the likely mistake and the step that fixes it.",
        node.label,
        bank::stem(item),
        response.as_text(),
        scored.expected,
        if scored.correct { "right" } else { "wrong" }
    );
    // The verdict is Pathwise's: the model's wording must not contradict it.
    let text = worded(app, learner, turn, &task).await?;
    Ok(if text.is_empty() { plain } else { text })
}

/// One short piece of wording from the model, given the session's context; the model sees
/// no answer key except the one of an item already scored.
async fn worded<S: TeachingStores>(app: &App<S>, learner: LearnerId, turn: &Turn, task: &str) -> AppResult<String> {
    let context = super::projection::context(&turn.record, &turn.state, &turn.config, turn.now);
    let system = prompts::render("session_learning", json!({ "context": context.to_string() }));
    let session = app.llm().session(OPERATION).await?;
    let reply = session.chat(&Request::new(vec![Message::system(system), Message::user(task)])).await;
    app.record_llm_session(learner, OPERATION, &session).await?;
    Ok(reply?.content.unwrap_or_default().trim().to_string())
}

pub(crate) fn report(turn: &Turn) -> Value {
    let learning = turn.state.learning.clone().unwrap_or_default();
    let correct = learning.results.iter().filter(|r| r.correct).count();
    json!({
        "items_answered": learning.results.len(),
        "items_correct": correct,
        "concepts": learning.introduced,
        "results": learning.results.iter().map(|r| json!({
            "item_id": r.item_id, "node_id": r.node_id, "correct": r.correct, "quality": r.quality,
        })).collect::<Vec<_>>(),
    })
}
