#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotifyError {
    /// A setting is missing, malformed or not allowed. `field` is the setting's name as
    /// written in the config file (prefixed with `notifiers[i].` by [`crate::build_all`]).
    #[error("notifier setting `{field}`: {problem}")]
    Config { field: String, problem: String },

    /// The message cannot be turned into what the notifier sends.
    #[error("{notifier}: cannot send this message: {problem}")]
    InvalidMessage { notifier: String, problem: String },

    /// Nothing usable came back: the receiver could not be reached, the connection broke, or
    /// it did not answer in time.
    #[error("{notifier}: could not deliver after {attempts} attempt(s): {problem}")]
    Transport { notifier: String, attempts: u32, problem: String },

    /// The webhook's receiver answered with a status other than 2xx.
    #[error("{notifier}: the receiver answered HTTP {status} after {attempts} attempt(s): {body}")]
    Status { notifier: String, status: u16, attempts: u32, body: String },

    /// The SMTP server refused (`code` is its reply code, 4xx if the refusal may pass, 5xx if
    /// not) or the conversation with it went wrong (no code: no STARTTLS offered, a TLS
    /// failure, an answer that is not SMTP).
    #[error("{notifier}: {problem}")]
    Smtp { notifier: String, code: Option<u16>, problem: String },
}

impl NotifyError {
    pub(crate) fn config(field: impl Into<String>, problem: impl Into<String>) -> Self {
        NotifyError::Config { field: field.into(), problem: problem.into() }
    }

    /// The same error with its setting's name placed inside the list it came from.
    pub(crate) fn within(self, prefix: &str) -> Self {
        match self {
            NotifyError::Config { field, problem } => {
                NotifyError::Config { field: format!("{prefix}.{field}"), problem }
            }
            other => other,
        }
    }
}
