//! Client tools: the widgets a session asks the learner to answer (session-flow.md 6, D1).
//! Whoever proposes one (the model or a deterministic presenter), its arguments are
//! checked here, and so is the learner's answer to it.

use crate::DomainError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 6;
/// A code submission larger than this is refused before anything runs.
pub const MAX_CODE_BYTES: usize = 64 * 1024;
pub const MAX_TEXT_BYTES: usize = 16 * 1024;
pub const MAX_PROMPT_CHARS: usize = 4_000;
pub const MAX_OPTION_CHARS: usize = 500;

/// The names of the client tools, as the model sees them.
pub const CLIENT_TOOLS: [&str; 3] = ["present_choices", "request_free_text", "present_code_editor"];

/// A widget for the learner. Serialized as `{"tool": name, "arguments": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(tag = "tool", content = "arguments", rename_all = "snake_case")]
pub enum ClientAction {
    /// One choice among 2-6 options; answered with `{"selected_index": i}` (from 0).
    PresentChoices {
        /// The question.
        prompt: String,
        #[schemars(length(min = MIN_OPTIONS, max = MAX_OPTIONS))]
        options: Vec<String>,
        /// The learner may skip it (`{"skipped": true}`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        optional: bool,
    },
    /// A free-text answer; answered with `{"text": "..."}`.
    RequestFreeText {
        /// The question.
        prompt: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        optional: bool,
    },
    /// A code editor; answered with `{"code": "..."}` (at most 64 KiB).
    PresentCodeEditor {
        prompt: String,
        language: String,
        #[serde(default)]
        starter_code: String,
    },
}

/// The learner's answer to a client action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClientResponse {
    Choice { selected_index: usize, option: String },
    Text { text: String },
    Code { code: String },
    Skipped,
}

impl ClientAction {
    pub fn tool_name(&self) -> &'static str {
        match self {
            ClientAction::PresentChoices { .. } => "present_choices",
            ClientAction::RequestFreeText { .. } => "request_free_text",
            ClientAction::PresentCodeEditor { .. } => "present_code_editor",
        }
    }

    pub fn prompt(&self) -> &str {
        match self {
            ClientAction::PresentChoices { prompt, .. }
            | ClientAction::RequestFreeText { prompt, .. }
            | ClientAction::PresentCodeEditor { prompt, .. } => prompt,
        }
    }

    /// A client tool call as a model or presenter wrote it: `tool` one of [`CLIENT_TOOLS`],
    /// `arguments` a JSON object.
    pub fn parse(tool: &str, arguments: &Value) -> Result<ClientAction, DomainError> {
        if !CLIENT_TOOLS.contains(&tool) {
            return Err(DomainError::invalid(
                "tool",
                format!("'{tool}' is not a client tool; allowed: {}", CLIENT_TOOLS.join(", ")),
            ));
        }
        let tagged = serde_json::json!({ "tool": tool, "arguments": arguments });
        let action: ClientAction =
            serde_json::from_value(tagged).map_err(|e| DomainError::invalid("arguments", format!("{tool}: {e}")))?;
        action.validate()?;
        Ok(action)
    }

    pub fn validate(&self) -> Result<(), DomainError> {
        let prompt = self.prompt();
        if prompt.trim().is_empty() {
            return Err(DomainError::invalid("prompt", "must not be empty"));
        }
        if prompt.chars().count() > MAX_PROMPT_CHARS {
            return Err(DomainError::invalid("prompt", format!("is longer than {MAX_PROMPT_CHARS} characters")));
        }
        match self {
            ClientAction::PresentChoices { options, .. } => {
                if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&options.len()) {
                    return Err(DomainError::invalid(
                        "options",
                        format!("{} options given; allowed: {MIN_OPTIONS}-{MAX_OPTIONS}", options.len()),
                    ));
                }
                for (i, option) in options.iter().enumerate() {
                    if option.trim().is_empty() || option.chars().count() > MAX_OPTION_CHARS {
                        return Err(DomainError::invalid(
                            format!("options[{i}]"),
                            format!("must be 1-{MAX_OPTION_CHARS} characters"),
                        ));
                    }
                    if options[..i].iter().any(|o| o.trim() == option.trim()) {
                        return Err(DomainError::invalid(format!("options[{i}]"), format!("'{option}' is repeated")));
                    }
                }
                Ok(())
            }
            ClientAction::RequestFreeText { .. } => Ok(()),
            ClientAction::PresentCodeEditor { language, starter_code, .. } => {
                if language.trim().is_empty() {
                    return Err(DomainError::invalid("language", "must not be empty"));
                }
                if starter_code.len() > MAX_CODE_BYTES {
                    return Err(DomainError::invalid("starter_code", format!("is over {MAX_CODE_BYTES} bytes")));
                }
                Ok(())
            }
        }
    }

    /// Check the learner's answer against this widget. `response` is the `response` object
    /// of a respond request.
    pub fn parse_response(&self, response: &Value) -> Result<ClientResponse, DomainError> {
        let object = response.as_object().ok_or_else(|| {
            DomainError::invalid(
                "response",
                format!("must be an object; for {} send {}", self.tool_name(), self.shape()),
            )
        })?;
        if object.get("skipped").and_then(Value::as_bool) == Some(true) {
            let optional = match self {
                ClientAction::PresentChoices { optional, .. } | ClientAction::RequestFreeText { optional, .. } => {
                    *optional
                }
                ClientAction::PresentCodeEditor { .. } => false,
            };
            return if optional {
                Ok(ClientResponse::Skipped)
            } else {
                Err(DomainError::invalid("response.skipped", "this question is required and cannot be skipped"))
            };
        }
        let field = |name: &str| {
            object.get(name).ok_or_else(|| {
                DomainError::invalid(
                    format!("response.{name}"),
                    format!("is missing; for {} send {}", self.tool_name(), self.shape()),
                )
            })
        };
        match self {
            ClientAction::PresentChoices { options, .. } => {
                let raw = field("selected_index")?;
                let index = raw.as_u64().ok_or_else(|| {
                    DomainError::invalid(
                        "response.selected_index",
                        format!("{raw} is not an option index; allowed: 0-{}", options.len() - 1),
                    )
                })?;
                let option = usize::try_from(index).ok().and_then(|i| options.get(i)).ok_or_else(|| {
                    DomainError::invalid(
                        "response.selected_index",
                        format!(
                            "{index} is out of range; allowed: 0-{} ({} options)",
                            options.len() - 1,
                            options.len()
                        ),
                    )
                })?;
                Ok(ClientResponse::Choice { selected_index: index as usize, option: option.clone() })
            }
            ClientAction::RequestFreeText { .. } => {
                let text =
                    field("text")?.as_str().ok_or_else(|| DomainError::invalid("response.text", "must be a string"))?;
                if text.trim().is_empty() {
                    return Err(DomainError::invalid("response.text", "must not be empty"));
                }
                if text.len() > MAX_TEXT_BYTES {
                    return Err(DomainError::invalid(
                        "response.text",
                        format!("is {} bytes; at most {MAX_TEXT_BYTES} are allowed", text.len()),
                    ));
                }
                Ok(ClientResponse::Text { text: text.to_string() })
            }
            ClientAction::PresentCodeEditor { .. } => {
                let code =
                    field("code")?.as_str().ok_or_else(|| DomainError::invalid("response.code", "must be a string"))?;
                if code.len() > MAX_CODE_BYTES {
                    return Err(DomainError::invalid(
                        "response.code",
                        format!("is {} bytes; at most {MAX_CODE_BYTES} (64 KiB) are allowed", code.len()),
                    ));
                }
                Ok(ClientResponse::Code { code: code.to_string() })
            }
        }
    }

    fn shape(&self) -> &'static str {
        match self {
            ClientAction::PresentChoices { .. } => "{\"selected_index\": <option index from 0>}",
            ClientAction::RequestFreeText { .. } => "{\"text\": \"...\"}",
            ClientAction::PresentCodeEditor { .. } => "{\"code\": \"...\"}",
        }
    }
}

impl ClientResponse {
    /// The answer as text, for transcripts and for the model.
    pub fn as_text(&self) -> String {
        match self {
            ClientResponse::Choice { option, .. } => option.clone(),
            ClientResponse::Text { text } => text.clone(),
            ClientResponse::Code { code } => code.clone(),
            ClientResponse::Skipped => "(skipped)".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn choices(n: usize) -> Value {
        json!({ "prompt": "Pick one", "options": (0..n).map(|i| format!("option {i}")).collect::<Vec<_>>() })
    }

    #[test]
    fn present_choices_takes_two_to_six_options() {
        assert!(ClientAction::parse("present_choices", &choices(1)).is_err());
        assert!(ClientAction::parse("present_choices", &choices(2)).is_ok());
        assert!(ClientAction::parse("present_choices", &choices(6)).is_ok());
        let err = ClientAction::parse("present_choices", &choices(7)).unwrap_err().to_string();
        assert_eq!(err, "options: 7 options given; allowed: 2-6");
    }

    #[test]
    fn repeated_options_and_unknown_tools_are_refused() {
        let err = ClientAction::parse("present_choices", &json!({"prompt": "p", "options": ["a", "a"]})).unwrap_err();
        assert_eq!(err.to_string(), "options[1]: 'a' is repeated");
        let err = ClientAction::parse("show_video", &json!({})).unwrap_err().to_string();
        assert!(err.contains("present_choices, request_free_text, present_code_editor"), "{err}");
        let err = ClientAction::parse("request_free_text", &json!({})).unwrap_err().to_string();
        assert!(err.contains("prompt"), "{err}");
    }

    #[test]
    fn an_option_index_out_of_range_names_the_allowed_range() {
        let action = ClientAction::parse("present_choices", &choices(4)).unwrap();
        let err = action.parse_response(&json!({"selected_index": 4})).unwrap_err().to_string();
        assert_eq!(err, "response.selected_index: 4 is out of range; allowed: 0-3 (4 options)");
        let ok = action.parse_response(&json!({"selected_index": 2})).unwrap();
        assert_eq!(ok, ClientResponse::Choice { selected_index: 2, option: "option 2".into() });
        assert!(action.parse_response(&json!({"text": "x"})).unwrap_err().to_string().contains("selected_index"));
    }

    #[test]
    fn code_over_64_kib_is_refused() {
        let action =
            ClientAction::PresentCodeEditor { prompt: "p".into(), language: "python".into(), starter_code: "".into() };
        let big = "x".repeat(MAX_CODE_BYTES + 1);
        let err = action.parse_response(&json!({ "code": big })).unwrap_err().to_string();
        assert!(err.contains("at most 65536 (64 KiB)"), "{err}");
        assert!(action.parse_response(&json!({ "code": "def f(): pass" })).is_ok());
    }

    #[test]
    fn only_optional_widgets_can_be_skipped() {
        let required = ClientAction::RequestFreeText { prompt: "p".into(), placeholder: None, optional: false };
        assert!(required.parse_response(&json!({"skipped": true})).is_err());
        let optional = ClientAction::RequestFreeText { prompt: "p".into(), placeholder: None, optional: true };
        assert_eq!(optional.parse_response(&json!({"skipped": true})).unwrap(), ClientResponse::Skipped);
    }

    #[test]
    fn actions_serialize_as_tool_and_arguments() {
        let action = ClientAction::parse("present_choices", &choices(2)).unwrap();
        let value = serde_json::to_value(&action).unwrap();
        assert_eq!(value["tool"], "present_choices");
        assert_eq!(value["arguments"]["options"][1], "option 1");
    }
}
