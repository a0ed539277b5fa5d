//! Why a rule refused an operation, in words a caller can fix their request from, and the
//! codes every door reports refusals with.

use crate::status::MapStatus;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

/// Declares [`ErrorCode`] with its wire names written out, so that `as_str` needs no
/// serializer and a test can hold serde's names to the same strings.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])+ $variant:ident = $wire:literal,)+) => {
        /// A stable machine-readable code for why a request was refused: the `code` of every
        /// error a door sends: `{"error": {"code", ...}}` over HTTP; over MCP, a tool error's
        /// `_meta["pathwise/code"]` and a protocol error's `data.code`. Clients branch on it, so
        /// a code's name never changes; the message beside it is for people.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code as it is sent.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $wire,)+
                }
            }
        }
    };
}

error_codes! {
    // The rules of maps and flows (`DomainError`).
    /// A field's value breaks a rule about its content.
    Invalid = "invalid",
    /// A node would be its own prerequisite.
    SelfLoop = "self_loop",
    /// A prerequisite edge would close a cycle.
    Cycle = "cycle",
    /// A node would be deeper than a map allows.
    MaxDepth = "max_depth",
    /// A map would hold more nodes than allowed.
    MaxNodes = "max_nodes",
    /// An edge or prerequisite names a node of another map.
    CrossMapEdge = "cross_map_edge",
    /// The map already has a node with that label.
    DuplicateLabel = "duplicate_label",
    /// The edge already exists.
    DuplicateEdge = "duplicate_edge",
    /// A node would no longer be reachable from the root.
    Unreachable = "unreachable",
    /// A state machine does not allow that move from where it is.
    InvalidTransition = "invalid_transition",
    /// The map's status does not allow the operation (it is archived or still generating).
    MapNotOpen = "map_not_open",
    /// The request is at odds with the current state of what it names.
    Conflict = "conflict",
    /// The learner already has a map for the topic, and the request did not say to replace it or keep both.
    MapExists = "map_exists",
    /// Something the request names does not exist, or is not the caller's.
    NotFound = "not_found",

    // The request as it arrived.
    /// The credentials are missing or not valid.
    Unauthorized = "unauthorized",
    /// The API token was revoked.
    TokenRevoked = "token_revoked",
    /// A sign-in link was used already or is not this server's.
    SigninLinkUsed = "signin_link_used",
    /// The loopback workspace's sign-in is not offered here.
    NoLocalSession = "no_local_session",
    /// The operation needs an operator token and none is configured.
    NoOperatorToken = "no_operator_token",
    /// Only the operator token may do this.
    Forbidden = "forbidden",
    /// The body could not be read as the operation's input.
    BadBody = "bad_body",
    /// The body is not valid JSON or UTF-8, or not the JSON the operation takes.
    MalformedJson = "malformed_json",
    /// The body holds a field the operation does not take.
    UnknownField = "unknown_field",
    /// A path id is not well-formed.
    BadPath = "bad_path",
    /// The query string could not be read.
    BadQuery = "bad_query",
    /// A header's value could not be read (`Last-Event-ID`).
    BadHeader = "bad_header",
    /// The `Idempotency-Key` header is not a valid key.
    BadIdempotencyKey = "bad_idempotency_key",
    /// The `Idempotency-Key` was used for another request.
    IdempotencyKeyReused = "idempotency_key_reused",
    /// The body is over the server's size limit.
    BodyTooLarge = "body_too_large",
    /// No route has this method.
    MethodNotAllowed = "method_not_allowed",
    /// The token sent more requests than the rate limit allows.
    RateLimited = "rate_limited",
    /// The learner has as many session streams open as allowed.
    TooManyStreams = "too_many_streams",
    /// The server stopped working on the request past its time limit.
    RequestTimeout = "request_timeout",
    /// The MCP resource asked for does not exist.
    UnknownResource = "unknown_resource",
    /// The MCP tool called does not exist.
    UnknownTool = "unknown_tool",

    // The server and what it depends on.
    /// A fault of the server's own; the details are in its log.
    Internal = "internal",
    /// The database is busy; trying again shortly may succeed.
    Unavailable = "unavailable",
    /// The database cannot be written until the server is restarted.
    DatabaseReadOnly = "database_read_only",
    /// The database file was replaced while the server ran; it must be restarted.
    DatabaseReplaced = "database_replaced",
    /// A text holds a character the database cannot store (NUL).
    UnstorableText = "unstorable_text",
    /// The same thing was recorded already; it counts once.
    AlreadyRecorded = "already_recorded",
    /// What the request would create exists already.
    AlreadyExists = "already_exists",
    /// A scheduled job's schedule cannot be read.
    BadSchedule = "bad_schedule",
    /// No notifier delivered the report.
    DeliveryFailed = "delivery_failed",

    // Language and other models.
    /// The operation needs a language model and none is configured.
    LlmNotConfigured = "llm_not_configured",
    /// The language model did not answer in time.
    LlmTimeout = "llm_timeout",
    /// The language model's server could not be reached.
    LlmUnreachable = "llm_unreachable",
    /// The language model's server refused the request or failed.
    LlmError = "llm_error",
    /// The language model's reply could not be read.
    LlmMalformed = "llm_malformed",
    /// The language model's concept graph broke the map's rules even after its correction.
    LlmInvalidGraph = "llm_invalid_graph",
    /// The language model's reply broke the rules of what was asked.
    LlmInvalidReply = "llm_invalid_reply",
    /// Voice input needs a transcription model and none is configured.
    VoiceNotConfigured = "voice_not_configured",

    // Teaching flows.
    /// The flow has its map already.
    AlreadyPlanned = "already_planned",
    /// The flow has no map yet.
    NotPlanned = "not_planned",
    /// The concept is learned already.
    AlreadyLearned = "already_learned",
    /// The concept's prerequisites are not mastered yet.
    NotReady = "not_ready",
    /// The map has no concept left to learn.
    NothingToTeach = "nothing_to_teach",
    /// No concept is being taught, so there is nothing to quiz on.
    NoConcept = "no_concept",
    /// No question is waiting for an answer.
    NoQuestion = "no_question",
    /// The question was answered meanwhile.
    AlreadyAnswered = "already_answered",
    /// The node named is not due for review.
    NotDue = "not_due",

    // Sessions.
    /// The session is not awaiting a response.
    NotAwaitingResponse = "not_awaiting_response",
    /// The response answers a call other than the one awaited.
    NotAwaitingCall = "not_awaiting_call",
    /// The session's time limit has passed.
    TimeLimitPassed = "time_limit_passed",
    /// The session kept changing under the request; try again.
    Busy = "busy",
    /// The blueprint cannot make another item the learner has not seen.
    ItemsExhausted = "items_exhausted",
    /// Code items need the sandbox, which this server does not have.
    SandboxUnavailable = "sandbox_unavailable",

    // Courses and the tutor.
    /// A course file could not be read or breaks a rule.
    InvalidCourse = "invalid_course",
    /// The thread is about another course.
    OtherCourse = "other_course",
    /// The exam question is passed already.
    ExamAlreadyPassed = "exam_already_passed",
    /// The exam question is locked until a later time.
    ExamLocked = "exam_locked",
    /// The external exam service is not configured or did not answer.
    ExamServiceUnavailable = "exam_service_unavailable",

    // Authoring: documents and drafts.
    /// A document is empty or holds no readable text.
    Empty = "empty",
    /// A document is over the size limit.
    TooLarge = "too_large",
    /// A document is not of a supported format.
    UnsupportedFormat = "unsupported_format",
    /// A text document holds binary data or is not UTF-8.
    Binary = "binary",
    /// A PDF is encrypted.
    EncryptedPdf = "encrypted_pdf",
    /// A PDF has no text layer (a scan).
    NoTextLayer = "no_text_layer",
    /// A PDF cannot be read.
    MalformedPdf = "malformed_pdf",
    /// A PDF has more pages than allowed.
    TooManyPages = "too_many_pages",
    /// This server ingests no files by path.
    IngestPathDisabled = "ingest_path_disabled",
    /// The path is outside the folder the server ingests from.
    OutsideIngestDir = "outside_ingest_dir",
    /// The path cannot be read.
    UnreadablePath = "unreadable_path",
    /// The folder holds no file of a supported format.
    NoDocuments = "no_documents",
    /// The folder holds more files than one ingest takes.
    TooManyFiles = "too_many_files",
    /// The draft has problems to fix before it is a course.
    DraftHasProblems = "draft_has_problems",
    /// Another course has the draft's course id.
    CourseIdTaken = "course_id_taken",
    /// The draft changed since the version the change was made from.
    VersionConflict = "version_conflict",

    // Learners and imports.
    /// The learner is on this server already.
    LearnerExists = "learner_exists",
    /// The learner studied courses this server does not have.
    CourseMissing = "course_missing",
    /// The local learner of the loopback workspace is not deleted.
    LocalLearner = "local_learner",
    /// The file is not an Anki package.
    NotAnAnkiPackage = "not_an_anki_package",
    /// The Anki package is encrypted.
    AnkiPackageEncrypted = "anki_package_encrypted",
    /// The Anki package is damaged.
    AnkiPackageDamaged = "anki_package_damaged",
    /// The Anki package is from a newer Anki than this server reads.
    AnkiPackageTooNew = "anki_package_too_new",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a refusal should be classified by a front door.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is well-formed but breaks a rule about its content (HTTP 422).
    Invalid,
    /// The request conflicts with the current state of the data (HTTP 409).
    Conflict,
    /// Something the request names does not exist (HTTP 404).
    NotFound,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DomainError {
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },

    #[error("self-loop: '{label}' cannot be its own prerequisite")]
    SelfLoop { label: String },

    #[error("cycle: {}", path.join(" -> "))]
    Cycle { path: Vec<String> },

    #[error("depth: '{label}' would be at depth {depth}, and the deepest allowed is {max} (the root is depth 0)")]
    DepthExceeded { label: String, depth: u32, max: u32 },

    #[error("node_count: a single-topic map holds at most {max} nodes; this would make {count}")]
    TooManyNodes { count: usize, max: usize },

    #[error("{field}: node {node} is not in mind map {map}; edges and prerequisites connect nodes of one map")]
    CrossMap { field: &'static str, map: String, node: String },

    #[error("label: the map already has a node labelled '{label}'")]
    DuplicateLabel { label: String },

    #[error("edge: '{parent}' -> '{child}' already exists")]
    DuplicateEdge { parent: String, child: String },

    #[error("reachability: '{label}' would no longer be reachable from the root through prerequisite edges")]
    Unreachable { label: String },

    #[error("{field}: cannot go from '{from}' to '{to}'; from '{from}' the allowed values are: {allowed}")]
    InvalidTransition { field: &'static str, from: String, to: String, allowed: String },

    #[error("status: mind map is {status}; {operation} needs a map that is {needs}")]
    MapNotOpen { status: MapStatus, operation: &'static str, needs: &'static str },

    #[error("{message}")]
    Conflict { message: String },

    /// A request at odds with the state of what it names, about one of its fields (an
    /// answer naming a question that is not the one waiting).
    #[error("{field}: {message}")]
    ConflictAt { field: String, message: String },

    #[error("you already have a map for '{title}' ({id}, {status}), so nothing was made; open that one, or ask again with on_existing = replace (it is deleted with its progress, and this one takes its place) or on_existing = new (keep both)")]
    MapExists { id: String, title: String, status: MapStatus },

    #[error("{what} not found")]
    NotFound { what: String },
}

impl DomainError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        DomainError::Invalid { field: field.into(), message: message.into() }
    }

    pub fn conflict_at(field: impl Into<String>, message: impl Into<String>) -> Self {
        DomainError::ConflictAt { field: field.into(), message: message.into() }
    }

    /// A refused move of a state machine, naming the moves that `from` allows.
    pub fn invalid_transition(
        field: &'static str,
        from: impl std::fmt::Display,
        to: impl std::fmt::Display,
        allowed: &[impl std::fmt::Display],
    ) -> Self {
        DomainError::InvalidTransition {
            field,
            from: from.to_string(),
            to: to.to_string(),
            allowed: if allowed.is_empty() {
                format!("none ({from} is final)")
            } else {
                allowed.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            },
        }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            DomainError::Invalid { .. }
            | DomainError::SelfLoop { .. }
            | DomainError::Cycle { .. }
            | DomainError::DepthExceeded { .. }
            | DomainError::TooManyNodes { .. } => ErrorKind::Invalid,
            // A node the request names is not in this map: not found here, as another
            // learner's ids are not.
            DomainError::CrossMap { .. } => ErrorKind::NotFound,
            DomainError::DuplicateLabel { .. }
            | DomainError::DuplicateEdge { .. }
            | DomainError::Unreachable { .. }
            | DomainError::InvalidTransition { .. }
            | DomainError::MapNotOpen { .. }
            | DomainError::Conflict { .. }
            | DomainError::ConflictAt { .. }
            | DomainError::MapExists { .. } => ErrorKind::Conflict,
            DomainError::NotFound { .. } => ErrorKind::NotFound,
        }
    }

    /// The code of the rule that refused.
    pub fn code(&self) -> ErrorCode {
        match self {
            DomainError::Invalid { .. } => ErrorCode::Invalid,
            DomainError::SelfLoop { .. } => ErrorCode::SelfLoop,
            DomainError::Cycle { .. } => ErrorCode::Cycle,
            DomainError::DepthExceeded { .. } => ErrorCode::MaxDepth,
            DomainError::TooManyNodes { .. } => ErrorCode::MaxNodes,
            DomainError::CrossMap { .. } => ErrorCode::CrossMapEdge,
            DomainError::DuplicateLabel { .. } => ErrorCode::DuplicateLabel,
            DomainError::DuplicateEdge { .. } => ErrorCode::DuplicateEdge,
            DomainError::Unreachable { .. } => ErrorCode::Unreachable,
            DomainError::InvalidTransition { .. } => ErrorCode::InvalidTransition,
            DomainError::MapNotOpen { .. } => ErrorCode::MapNotOpen,
            DomainError::Conflict { .. } | DomainError::ConflictAt { .. } => ErrorCode::Conflict,
            DomainError::MapExists { .. } => ErrorCode::MapExists,
            DomainError::NotFound { .. } => ErrorCode::NotFound,
        }
    }

    /// Structured facts about the refusal, for clients that act on them.
    pub fn details(&self) -> Value {
        match self {
            DomainError::Invalid { field, .. } | DomainError::ConflictAt { field, .. } => json!({ "field": field }),
            DomainError::SelfLoop { label } => json!({ "field": "child_node_id", "label": label }),
            DomainError::Cycle { path } => json!({ "field": "child_node_id", "cycle": path }),
            DomainError::DepthExceeded { label, depth, max } => {
                json!({ "field": "depth", "label": label, "depth": depth, "max_depth": max })
            }
            DomainError::TooManyNodes { count, max } => {
                json!({ "field": "nodes", "count": count, "max_nodes": max })
            }
            DomainError::CrossMap { field, map, node } => {
                json!({ "field": field, "mind_map_id": map, "node_id": node })
            }
            DomainError::DuplicateLabel { label } => json!({ "field": "label", "label": label }),
            DomainError::DuplicateEdge { parent, child } => {
                json!({ "field": "edge", "parent": parent, "child": child })
            }
            DomainError::Unreachable { label } => json!({ "label": label }),
            DomainError::InvalidTransition { field, from, to, allowed } => {
                json!({ "field": field, "from": from, "to": to, "allowed": allowed })
            }
            DomainError::MapNotOpen { status, .. } => {
                json!({ "field": "status", "status": status.as_str() })
            }
            DomainError::MapExists { id, title, status } => json!({
                "field": "on_existing", "mind_map_id": id, "title": title, "status": status.as_str(),
                "allowed": ["new", "replace"],
            }),
            // An empty object rather than null: clients read `details.field` without a check.
            DomainError::Conflict { .. } | DomainError::NotFound { .. } => json!({}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_sent_as_its_serde_name() {
        for code in ErrorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()), "{code:?}");
            assert_eq!(serde_json::from_value::<ErrorCode>(json!(code.as_str())).unwrap(), *code);
            assert_eq!(code.to_string(), code.as_str());
        }
        let distinct: std::collections::HashSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(distinct.len(), ErrorCode::ALL.len(), "two codes share a name");
    }
}
