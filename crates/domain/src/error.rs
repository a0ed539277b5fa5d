//! Why a rule refused an operation, in words a caller can fix their request from.

use crate::status::MapStatus;
use serde_json::{json, Value};

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

    /// A stable machine-readable code for the rule that refused.
    pub fn code(&self) -> &'static str {
        match self {
            DomainError::Invalid { .. } => "invalid",
            DomainError::SelfLoop { .. } => "self_loop",
            DomainError::Cycle { .. } => "cycle",
            DomainError::DepthExceeded { .. } => "max_depth",
            DomainError::TooManyNodes { .. } => "max_nodes",
            DomainError::CrossMap { .. } => "cross_map_edge",
            DomainError::DuplicateLabel { .. } => "duplicate_label",
            DomainError::DuplicateEdge { .. } => "duplicate_edge",
            DomainError::Unreachable { .. } => "unreachable",
            DomainError::InvalidTransition { .. } => "invalid_transition",
            DomainError::MapNotOpen { .. } => "map_not_open",
            DomainError::Conflict { .. } | DomainError::ConflictAt { .. } => "conflict",
            DomainError::MapExists { .. } => "map_exists",
            DomainError::NotFound { .. } => "not_found",
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
