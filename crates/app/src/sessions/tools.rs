//! The tools a session's model may call: client tools (widgets, which suspend the run)
//! and backend tools (which Pathwise answers at once), and the stored conversation turned
//! back into the model's messages.

use pathwise_domain::session::widgets::{ClientAction, MAX_OPTIONS, MIN_OPTIONS};
use pathwise_llm::{schema, Message, Role, Tool, ToolCall};
use pathwise_store::SessionMessage;

/// Whether the learner may skip a widget is the session's to say, not the model's.
const NOT_THE_MODELS: [&str; 1] = ["optional"];

pub(crate) fn present_choices() -> Tool {
    schema::tagged_form_tool::<ClientAction>(
        WIDGET_TAG,
        "present_choices",
        &format!(
            "Show the learner a question with {MIN_OPTIONS}-{MAX_OPTIONS} options to choose one from; the session \
             waits for the answer."
        ),
        &NOT_THE_MODELS,
    )
}

pub(crate) fn request_free_text() -> Tool {
    schema::tagged_form_tool::<ClientAction>(
        WIDGET_TAG,
        "request_free_text",
        "Ask the learner for a free-text answer; the session waits for it.",
        &NOT_THE_MODELS,
    )
}

/// How a widget is tagged: `{"tool": name, "arguments": {...}}` (see [`ClientAction`]).
const WIDGET_TAG: (&str, &str) = ("tool", "arguments");

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The tools the model is offered are the widgets' own arguments, bounds included, less
    /// what only the session decides.
    #[test]
    fn the_widget_tools_are_derived_from_the_widgets() {
        let choices = present_choices();
        assert_eq!(choices.name, "present_choices");
        assert_eq!(
            choices.parameters,
            json!({
                "type": "object",
                "properties": {
                    "prompt": { "type": "string", "description": "The question." },
                    "options": { "type": "array", "items": { "type": "string" }, "minItems": MIN_OPTIONS, "maxItems": MAX_OPTIONS }
                },
                "required": ["prompt", "options"],
                "additionalProperties": false
            })
        );
        let free_text = request_free_text();
        assert_eq!(free_text.name, "request_free_text");
        assert_eq!(
            free_text.parameters,
            json!({
                "type": "object",
                "properties": {
                    "prompt": { "type": "string", "description": "The question." },
                    "placeholder": { "type": "string" }
                },
                "required": ["prompt"],
                "additionalProperties": false
            })
        );
        // What the schemas allow, the widgets take.
        let asked = ClientAction::parse("present_choices", &json!({ "prompt": "2+2?", "options": ["3", "4"] }));
        assert!(matches!(asked, Ok(ClientAction::PresentChoices { optional: false, .. })), "{asked:?}");
        let asked = ClientAction::parse("request_free_text", &json!({ "prompt": "Why?", "placeholder": "Because" }));
        assert!(matches!(asked, Ok(ClientAction::RequestFreeText { optional: false, .. })), "{asked:?}");
    }
}
