//! The tools a session's model may call: client tools (widgets, which suspend the run)
//! and backend tools (which Pathwise answers at once), and the stored conversation turned
//! back into the model's messages.

use pathwise_domain::session::widgets::{MAX_OPTIONS, MIN_OPTIONS};
use pathwise_llm::{Message, Role, Tool, ToolCall};
use pathwise_store::SessionMessage;
use serde_json::json;

pub(crate) fn present_choices() -> Tool {
    Tool {
        name: "present_choices".into(),
        description:
            "Show the learner a question with 2-6 options to choose one from; the session waits for the answer.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "prompt": { "type": "string", "description": "The question." },
                "options": { "type": "array", "items": { "type": "string" }, "minItems": MIN_OPTIONS, "maxItems": MAX_OPTIONS }
            },
            "required": ["prompt", "options"],
            "additionalProperties": false
        }),
    }
}

pub(crate) fn request_free_text() -> Tool {
    Tool {
        name: "request_free_text".into(),
        description: "Ask the learner for a free-text answer; the session waits for it.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "prompt": { "type": "string" },
                "placeholder": { "type": "string" }
            },
            "required": ["prompt"],
            "additionalProperties": false
        }),
    }
}

/// The stored conversation after `after` (a message seq) as the model's messages.
pub(crate) fn to_model_messages(messages: &[SessionMessage], after: i64) -> Vec<Message> {
    messages
        .iter()
        .filter(|m| m.seq > after)
        .filter_map(|m| {
            let role = match m.role.as_str() {
                "system" => Role::System,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                _ => return None,
            };
            let tool_calls = m
                .tool_calls
                .as_array()
                .map(|calls| {
                    calls
                        .iter()
                        .map(|c| ToolCall {
                            id: c["id"].as_str().unwrap_or_default().to_string(),
                            name: c["name"].as_str().unwrap_or_default().to_string(),
                            arguments: c["arguments"].as_str().unwrap_or("{}").to_string(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(Message { role, content: m.content.clone(), tool_calls, tool_call_id: m.tool_call_id.clone() })
        })
        .collect()
}

/// A tool message whose call is not in `messages` would be refused by the model's API: a
/// window that starts in the middle of a call drops the orphaned results.
pub(crate) fn drop_orphan_results(messages: Vec<Message>) -> Vec<Message> {
    let mut open: Vec<String> = Vec::new();
    let mut kept = Vec::with_capacity(messages.len());
    for m in messages {
        match m.role {
            Role::Assistant => {
                open.extend(m.tool_calls.iter().map(|c| c.id.clone()));
                kept.push(m);
            }
            Role::Tool => {
                if m.tool_call_id.as_ref().is_some_and(|id| open.contains(id)) {
                    kept.push(m);
                }
            }
            _ => kept.push(m),
        }
    }
    kept
}
