//! Errors as front doors report them: a kind (which becomes the HTTP status or the MCP
//! error), a stable code, a message that says what was wrong and what is allowed, and
//! structured details.

use pathwise_domain::error::ErrorKind as DomainKind;
use pathwise_domain::{DomainError, ErrorCode};
use pathwise_llm::LlmError;
use pathwise_store::StoreError;
use serde_json::{json, Value};

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
    /// Over a limit on what one client may do at once (open streams): 429.
    TooManyRequests,
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
    pub code: ErrorCode,
    pub message: String,
    pub details: Value,
}

pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    /// An error with no structured facts: its details are an empty object, so that a
    /// client reading `details.field` never has to check for null first.
    pub fn new(kind: ErrorKind, code: ErrorCode, message: impl Into<String>) -> Self {
        AppError { kind, code, message: message.into(), details: Value::Object(Default::default()) }
    }

    /// A well-formed body with a field the operation does not take: a rule broken (422),
    /// not malformed input, and the message lists what is accepted so the caller can fix it.
    pub fn unknown_field(unknown: &UnknownField) -> Self {
        let allowed = if unknown.allowed.is_empty() { "none".to_string() } else { unknown.allowed.join(", ") };
        AppError::new(
            ErrorKind::Invalid,
            ErrorCode::UnknownField,
            format!("{}: unknown field; allowed: {allowed}", unknown.field),
        )
        .with_details(serde_json::json!({ "field": unknown.field, "allowed": unknown.allowed }))
    }

    pub fn not_found(what: &str, id: impl std::fmt::Display) -> Self {
        AppError {
            kind: ErrorKind::NotFound,
            code: ErrorCode::NotFound,
            message: format!("{what} {id} not found"),
            details: serde_json::json!({ "resource": what, "id": id.to_string() }),
        }
    }

    /// A fault of Pathwise's own; the message goes to the log, not to the client.
    pub fn internal(message: impl Into<String>) -> Self {
        let message = message.into();
        tracing::error!(%message, "internal error");
        AppError::new(ErrorKind::Internal, ErrorCode::Internal, message)
    }

    pub fn invalid(field: &str, message: impl std::fmt::Display) -> Self {
        DomainError::invalid(field, message.to_string()).into()
    }

    /// A reference in the body to something that is not there for this learner (a unit
    /// not in the course, a drill or question not offered in the thread): a 404 naming the
    /// field, as a missing path id is, since nothing the request could change makes it exist.
    pub fn absent(field: &str, message: impl std::fmt::Display) -> Self {
        AppError {
            kind: ErrorKind::NotFound,
            code: ErrorCode::NotFound,
            message: format!("{field}: {message}"),
            details: json!({ "field": field }),
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    /// Starting a topic (`operation`) when no language model is configured: refused before
    /// anything is stored, naming the settings and the ways of making a map without a model.
    /// `otherwise` is one more way that works for this operation.
    pub fn topic_needs_model(operation: &str, otherwise: Option<&str>) -> Self {
        let otherwise = otherwise.map(|way| format!("; or {way}")).unwrap_or_default();
        AppError::new(
            ErrorKind::Unavailable,
            ErrorCode::LlmNotConfigured,
            format!(
                "{operation} needs a language model, and none is configured: set PATHWISE_LLM_BASE_URL and \
                 PATHWISE_LLM_MODEL (llm_base_url and llm_model in the config file) and restart. Without a model, \
                 make the map yourself: import a map (`pathwise import-map FILE.json`, or POST \
                 /api/curriculum/generate with a `decomposition`), or paste an outline of Markdown headings or a \
                 nested list (`pathwise import-map FILE.md`, or POST /api/mind-maps/outline){otherwise}"
            ),
        )
        .with_details(not_configured_details())
    }
}

/// What a refusal for want of a model tells a client to configure, and what works without.
fn not_configured_details() -> Value {
    serde_json::json!({
        "settings": ["PATHWISE_LLM_BASE_URL", "PATHWISE_LLM_MODEL"],
        "config_keys": ["llm_base_url", "llm_model"],
        "without_a_model": ["POST /api/curriculum/generate with a decomposition", "POST /api/mind-maps/outline",
            "pathwise import-map FILE"],
    })
}

impl From<pathwise_domain::outline::OutlineError> for AppError {
    /// The rule's refusal, said of the outline: its line in the message and in `details.line`.
    fn from(refusal: pathwise_domain::outline::OutlineError) -> Self {
        let message = refusal.to_string();
        let mut error = AppError::from(refusal.error);
        error.message = message;
        if let Value::Object(details) = &mut error.details {
            details.insert("field".into(), "outline".into());
            if let Some(line) = refusal.line {
                details.insert("line".into(), line.into());
            }
        }
        error
    }
}

/// A field serde's `deny_unknown_fields` refused, read back from its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field's path (`isCorrect`, `exam.isCorrect`).
    pub field: String,
    /// The fields accepted where it was found, in declaration order.
    pub allowed: Vec<String>,
}

impl UnknownField {
    /// Recognize serde's "unknown field `x`, expected one of `a`, `b`" (or "expected `a`",
    /// "expected `a` or `b`", "there are no fields"), with `parent` the path of the object
    /// it was found in ("." at the top). serde gives no structured form of this error, so
    /// its message, stable since serde 1.0, is parsed.
    pub fn from_serde(parent: &str, message: &str) -> Option<UnknownField> {
        let rest = &message[message.find("unknown field `")? + "unknown field `".len()..];
        let (name, rest) = rest.split_once('`')?;
        // serde_json appends " at line L column C", which holds no backticks.
        let allowed = rest.split('`').skip(1).step_by(2).map(str::to_string).collect();
        let field = match parent {
            "." | "" => name.to_string(),
            parent if parent.ends_with(&format!(".{name}")) || parent == name => parent.to_string(),
            parent => format!("{parent}.{name}"),
        };
        Some(UnknownField { field, allowed })
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
            StoreError::NotFound(what) => {
                AppError::new(ErrorKind::NotFound, ErrorCode::NotFound, format!("{what} not found"))
            }
            StoreError::Duplicate(what) => AppError::new(
                ErrorKind::Conflict,
                ErrorCode::AlreadyRecorded,
                format!("{what} was recorded already; it counts once"),
            ),
            StoreError::Exists(what) => {
                AppError::new(ErrorKind::Conflict, ErrorCode::AlreadyExists, format!("{what} exists already"))
            }
            text if text.is_unstorable_text() => AppError::new(
                ErrorKind::Invalid,
                ErrorCode::UnstorableText,
                "the text holds a NUL character (U+0000), which this server's database cannot store; remove it",
            ),
            read_only if read_only.is_read_only() => {
                tracing::error!(error = %read_only, "the database cannot be written; restart the server");
                AppError::new(
                    ErrorKind::Unavailable,
                    ErrorCode::DatabaseReadOnly,
                    "the database cannot be written: its file was replaced or made read-only while the server \
                     ran; nothing was saved. The operator must restart the server",
                )
            }
            busy if busy.is_busy() => {
                // Answered 503, which the HTTP layer does not log: the operator hears of it here.
                tracing::warn!(error = %busy, "the database is busy");
                AppError::new(ErrorKind::Unavailable, ErrorCode::Unavailable, "the database is busy; try again shortly")
            }
            other => {
                tracing::error!(error = %other, "store failure");
                AppError::new(
                    ErrorKind::Internal,
                    ErrorCode::Internal,
                    "internal error; the server log has the details",
                )
            }
        }
    }
}

impl From<LlmError> for AppError {
    fn from(error: LlmError) -> Self {
        let (kind, code) = match &error {
            LlmError::NotConfigured { .. } => (ErrorKind::Unavailable, ErrorCode::LlmNotConfigured),
            LlmError::Timeout(_) => (ErrorKind::Upstream, ErrorCode::LlmTimeout),
            LlmError::Transport { .. } => (ErrorKind::Upstream, ErrorCode::LlmUnreachable),
            LlmError::Status { .. } | LlmError::FormatRefused { .. } => (ErrorKind::Upstream, ErrorCode::LlmError),
            LlmError::Malformed(_) | LlmError::TooLarge { .. } => (ErrorKind::Upstream, ErrorCode::LlmMalformed),
        };
        if matches!(error, LlmError::NotConfigured { .. }) {
            return AppError::new(kind, code, error.to_string()).with_details(not_configured_details());
        }
        // What the model server said stays in the operator's log (the model session logs it
        // with its operation): it can hold the server's paths and internals, and tells a
        // learner nothing they can act on.
        AppError::new(kind, code, error.learner_message()).with_details(json!({ "reason": error.reason() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_unknown_field_messages_are_read_with_what_is_allowed() {
        let many = "unknown field `isCorrect`, expected one of `courseId`, `unitId`, `questionId` at line 1 column 12";
        assert_eq!(
            UnknownField::from_serde(".", many),
            Some(UnknownField {
                field: "isCorrect".into(),
                allowed: vec!["courseId".into(), "unitId".into(), "questionId".into()]
            })
        );
        let two = UnknownField::from_serde("exam", "unknown field `x`, expected `a` or `b`").unwrap();
        assert_eq!((two.field.as_str(), two.allowed), ("exam.x", vec!["a".to_string(), "b".to_string()]));
        let one = UnknownField::from_serde(".", "unknown field `x`, expected `a`").unwrap();
        assert_eq!(one.allowed, vec!["a".to_string()]);
        let none = UnknownField::from_serde(".", "unknown field `x`, there are no fields").unwrap();
        assert!(none.allowed.is_empty());
        assert_eq!(UnknownField::from_serde(".", "missing field `label`"), None);
    }

    #[test]
    fn an_unknown_field_is_a_422_naming_it_and_what_is_allowed() {
        let error = AppError::unknown_field(&UnknownField {
            field: "isCorrect".into(),
            allowed: vec!["courseId".into(), "unitId".into()],
        });
        assert_eq!((error.kind, error.code), (ErrorKind::Invalid, ErrorCode::UnknownField));
        assert_eq!(error.message, "isCorrect: unknown field; allowed: courseId, unitId");
        assert_eq!(error.details, serde_json::json!({ "field": "isCorrect", "allowed": ["courseId", "unitId"] }));
    }

    #[test]
    fn a_busy_database_is_a_503_and_a_broken_one_a_500() {
        let busy = AppError::from(StoreError::Busy("SQLite: database is locked".into()));
        assert_eq!((busy.kind, busy.code), (ErrorKind::Unavailable, ErrorCode::Unavailable));
        let waited = AppError::from(StoreError::Database(sqlx::Error::PoolTimedOut));
        assert_eq!((waited.kind, waited.code), (ErrorKind::Unavailable, ErrorCode::Unavailable));
        let broken = AppError::from(StoreError::Backend("SQLite: disk I/O error".into()));
        assert_eq!((broken.kind, broken.code), (ErrorKind::Internal, ErrorCode::Internal));
        assert!(!broken.message.contains("disk"), "the details stay in the log: {}", broken.message);
    }

    #[test]
    fn an_error_without_facts_has_empty_details_not_null() {
        assert_eq!(AppError::new(ErrorKind::BadRequest, ErrorCode::BadBody, "y").details, serde_json::json!({}));
    }
}
