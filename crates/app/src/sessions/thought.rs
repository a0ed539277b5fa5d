//! Thought sessions: an open conversation the learner drives, with the model as a partner.
//! The model sees the latest turns word for word and a summary of the older ones (10.4),
//! which the model itself writes when the window overflows.

use super::config::SessionConfig;
use super::tools::{drop_orphan_results, present_choices, request_free_text, to_model_messages};
use super::turn::Turn;
use crate::stores::SessionStores;
use crate::{App, AppError, AppResult};
use pathwise_domain::session::widgets::ClientAction;
use pathwise_domain::SessionEndReason;
use pathwise_llm::{prompts, LlmError, Message, Request, MODEL_SETTING};
use serde_json::json;

pub const DEFAULT_WINDOW_TURNS: u32 = 10;
const SUMMARY_WORDS: u32 = 200;
const OPERATION: &str = "session_thought";

pub(crate) fn check_model<S: SessionStores>(app: &App<S>) -> AppResult<()> {
    if app.llm().is_configured() {
        Ok(())
    } else {
        Err(LlmError::NotConfigured { operation: "a thought session".into(), setting: MODEL_SETTING }.into())
    }
}

pub(crate) async fn step<S: SessionStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    let SessionConfig::Thought(config) = turn.config.clone() else {
        return Err(AppError::internal("thought step on a session of another type"));
    };
    let window = config.window_turns.unwrap_or(DEFAULT_WINDOW_TURNS) as usize;
    if turn.state.unprocessed.take().is_some() {
        turn.state.thought.get_or_insert_default().turns += 1;
    }
    let thought = turn.state.thought.clone().unwrap_or_default();
    if config.max_turns.is_some_and(|max| thought.turns >= max) {
        turn.say("We have reached the end of this session. Thank you for thinking this through with me.");
        return turn.complete(SessionEndReason::MaxItems, json!({ "turns": thought.turns }));
    }
    let learner = turn.record.learner_id;
    let stored = app.store().session_messages(learner, turn.record.id).await?;
    // A learner turn is one answered widget: its tool result. Older turns than the window
    // are folded into the summary first, by the model, in a step of their own.
    let answers: Vec<i64> =
        stored.iter().filter(|m| m.role == "tool" && m.seq > thought.summarized_through).map(|m| m.seq).collect();
    if answers.len() > window {
        // Everything up to the answer before the window's first turn.
        let through = answers[answers.len() - window - 1];
        let transcript: String = stored
            .iter()
            .filter(|m| m.seq > thought.summarized_through && m.seq <= through && !m.content.is_empty())
            .map(|m| format!("{}: {}\n", if m.role == "assistant" { "partner" } else { "learner" }, m.content))
            .collect();
        let prompt = prompts::render(
            "session_summary",
            json!({ "max_words": SUMMARY_WORDS, "previous": thought.summary, "transcript": transcript }),
        );
        let session = app.llm().session(OPERATION).await?;
        let reply = session.chat(&Request::new(vec![Message::user(prompt)])).await;
        app.record_llm_session(learner, "session_summary", &session).await?;
        let summary = reply?.content.unwrap_or_default();
        let summary = summary.trim().to_string();
        turn.event(
            pathwise_domain::session::SessionEventKind::ToolCalled,
            json!({ "tool": "summarize_conversation", "through_message": through, "result": summary }),
        );
        let state = turn.state.thought.get_or_insert_default();
        state.summary = Some(summary);
        state.summarized_through = through;
        return Ok(());
    }
    let system = prompts::render("session_thought", json!({ "topic": config.topic, "summary": thought.summary }));
    let mut messages = vec![Message::system(system)];
    messages.extend(drop_orphan_results(to_model_messages(&stored, thought.summarized_through)));
    if messages.len() == 1 {
        messages.push(Message::user(match &config.topic {
            Some(topic) => format!("I'd like to think about: {topic}"),
            None => "I'd like to think something through.".to_string(),
        }));
    }
    let request = Request { messages, tools: vec![present_choices(), request_free_text()], ..Request::default() };
    let session = app.llm().session(OPERATION).await?;
    let reply = session.chat(&request).await;
    app.record_llm_session(learner, OPERATION, &session).await?;
    let reply = reply?;
    let text = reply.content.as_deref().map(str::trim).unwrap_or_default();
    if !text.is_empty() {
        turn.say(text);
    }
    // The model's widget if it asked for one and it is valid; otherwise the learner answers
    // in free text. A malformed widget is not worth a second call in a conversation.
    let proposed = reply.tool_calls.iter().find_map(|call| {
        let arguments = serde_json::from_str(&call.arguments).ok()?;
        ClientAction::parse(&call.name, &arguments).ok().map(|action| (action, call.id.clone()))
    });
    match proposed {
        Some((action, id)) if !turn.state.answered.iter().any(|a| a.tool_call_id == id) => {
            turn.ask(action, None, Some(id))
        }
        _ => {
            let prompt = if text.is_empty() { "What are you thinking?" } else { "Your reply" };
            turn.ask(
                ClientAction::RequestFreeText { prompt: prompt.into(), placeholder: None, optional: false },
                None,
                None,
            )
        }
    }
}
