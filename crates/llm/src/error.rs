use std::time::Duration;

/// Why a model call failed. `Display` is for the operator's log (it may quote what the model
/// server said, paths and all); [`LlmError::reason`] and [`LlmError::learner_message`] are
/// what may be stored or shown.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum LlmError {
    /// No model is configured: Pathwise runs offline and this operation needs one.
    #[error("{operation} needs a language model, and none is configured: set {setting} and llm_model in the config file (or PATHWISE_LLM_BASE_URL and PATHWISE_LLM_MODEL)")]
    NotConfigured { operation: String, setting: &'static str },
    #[error("the language model did not answer within {0:?}")]
    Timeout(Duration),
    #[error("could not reach the language model at {url}: {message}")]
    Transport { url: String, message: String },
    #[error("the language model answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    /// The server refused every way of asking for structured output.
    #[error("the language model server refused the response format (HTTP {status}): {body}")]
    FormatRefused { status: u16, body: String },
    /// The server answered, but not with what was asked for (not JSON, wrong shape).
    #[error("the language model's reply was unusable: {0}")]
    Malformed(String),
    /// The reply went past what the call allows (a model that does not stop).
    #[error("the language model's reply passed {limit}")]
    TooLarge { limit: String },
}

impl LlmError {
    /// Worth trying again: the request may never have reached the model.
    pub(crate) fn is_transport(&self) -> bool {
        matches!(self, LlmError::Transport { .. })
    }

    /// A short code for logs, turn records and counters: `not_configured`, `timeout`,
    /// `unreachable`, `server_error`, `format_refused`, `invalid_reply` or `too_large`.
    pub fn reason(&self) -> &'static str {
        match self {
            LlmError::NotConfigured { .. } => "not_configured",
            LlmError::Timeout(_) => "timeout",
            LlmError::Transport { .. } => "unreachable",
            LlmError::Status { .. } => "server_error",
            LlmError::FormatRefused { .. } => "format_refused",
            LlmError::Malformed(_) => "invalid_reply",
            LlmError::TooLarge { .. } => "too_large",
        }
    }

    /// What a learner or a client may be told: what happened, in words, without anything
    /// the model server said (which can hold its file paths and internals).
    pub fn learner_message(&self) -> String {
        match self {
            LlmError::NotConfigured { .. } => self.to_string(),
            LlmError::Timeout(limit) => {
                format!(
                    "the language model did not answer within {} s; try again, or ask for something shorter",
                    limit.as_secs().max(1)
                )
            }
            LlmError::Transport { .. } => "the language model cannot be reached right now; try again shortly".into(),
            LlmError::Status { status, .. } => {
                format!("the language model failed (HTTP {status}); try again shortly")
            }
            LlmError::FormatRefused { .. } => {
                "the language model server does not accept the structured output Pathwise asks for; \
                 the operator can set llm_structured_output"
                    .into()
            }
            LlmError::Malformed(_) => "the language model's answer was not usable; try again".into(),
            LlmError::TooLarge { .. } => "the language model's answer was far too long and was cut off".into(),
        }
    }
}
