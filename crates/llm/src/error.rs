use std::time::Duration;

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
    /// The server answered, but not with what was asked for (not JSON, wrong shape).
    #[error("the language model's reply was unusable: {0}")]
    Malformed(String),
}

impl LlmError {
    /// Worth trying again: the request may never have reached the model.
    pub(crate) fn is_transport(&self) -> bool {
        matches!(self, LlmError::Transport { .. })
    }
}
