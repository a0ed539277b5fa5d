//! Errors as front doors report them: a kind (which becomes the HTTP status or the MCP
//! error), a stable code, a message that says what was wrong and what is allowed, and
//! structured details.

use pathwise_domain::error::ErrorKind as DomainKind;
use pathwise_domain::DomainError;
use pathwise_llm::LlmError;
use pathwise_store::StoreError;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Malformed request (bad JSON, wrong type): 400.
    BadRequest,
    /// Missing or unknown credentials: 401.
    Unauthorized,
    /// Not the caller's to do: 403.
    Forbidden,
    NotFound,
    Conflict,
    /// Well-formed, but breaks a rule: 422.
    Invalid,
    /// The request body is over the size limit: 413.
    TooLarge,
    /// A dependency (the database) failed, or a needed one (a language model) is not
    /// configured: 503.
    Unavailable,
    /// The language model failed or answered unusably: 502.
    Upstream,
    Internal,
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub kind: ErrorKind,
    pub code: &'static str,
    pub message: String,
    pub details: Value,
}

pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    pub fn new(kind: ErrorKind, code: &'static str, message: impl Into<String>) -> Self {
        AppError { kind, code, message: message.into(), details: Value::Null }
    }

    pub fn not_found(what: &str, id: impl std::fmt::Display) -> Self {
        AppError {
            kind: ErrorKind::NotFound,
            code: "not_found",
            message: format!("{what} {id} not found"),
            details: serde_json::json!({ "resource": what, "id": id.to_string() }),
        }
    }

    /// A fault of Pathwise's own; the message goes to the log, not to the client.
    pub fn internal(message: impl Into<String>) -> Self {
        let message = message.into();
        tracing::error!(%message, "internal error");
        AppError::new(ErrorKind::Internal, "internal", message)
    }

    pub fn invalid(field: &str, message: impl std::fmt::Display) -> Self {
        DomainError::invalid(field, message.to_string()).into()
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }
}

impl From<DomainError> for AppError {
    fn from(error: DomainError) -> Self {
        let kind = match error.kind() {
            DomainKind::Invalid => ErrorKind::Invalid,
            DomainKind::Conflict => ErrorKind::Conflict,
            DomainKind::NotFound => ErrorKind::NotFound,
        };
        AppError { kind, code: error.code(), message: error.to_string(), details: error.details() }
    }
}

impl From<StoreError> for AppError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Rejected(rule) => rule.into(),
            StoreError::NotFound(what) => AppError::new(ErrorKind::NotFound, "not_found", format!("{what} not found")),
            StoreError::Duplicate(what) => AppError::new(
                ErrorKind::Conflict,
                "already_recorded",
                format!("{what} was recorded already; it counts once"),
            ),
            StoreError::Database(sqlx::Error::PoolTimedOut) => {
                AppError::new(ErrorKind::Unavailable, "unavailable", "the database is busy; try again shortly")
            }
            other => {
                tracing::error!(error = %other, "store failure");
                AppError::new(ErrorKind::Internal, "internal", "internal error; the server log has the details")
            }
        }
    }
}

impl From<LlmError> for AppError {
    fn from(error: LlmError) -> Self {
        let (kind, code) = match &error {
            LlmError::NotConfigured { .. } => (ErrorKind::Unavailable, "llm_not_configured"),
            LlmError::Timeout(_) => (ErrorKind::Upstream, "llm_timeout"),
            LlmError::Transport { .. } => (ErrorKind::Upstream, "llm_unreachable"),
            LlmError::Status { .. } => (ErrorKind::Upstream, "llm_error"),
            LlmError::Malformed(_) => (ErrorKind::Upstream, "llm_malformed"),
        };
        AppError::new(kind, code, error.to_string())
    }
}
