//! Proactive sessions (session-flow.md 10-11): the widgets a session may ask the learner
//! to answer, surveys with skip logic, the events a session's log holds and which of them a
//! learner may see, and the moves of a session's state machine.

pub mod survey;
pub mod widgets;

use crate::{DomainError, SessionStatus, SessionType};
use serde::{Deserialize, Serialize};

/// What a session's event log records, in order; the stream shows them as SSE events of
/// the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionEventKind {
    SessionCreated,
    SessionStarted,
    /// Text the assistant wrote for the learner.
    TextDelta,
    /// A backend tool the agent called, and what it returned (for the audit trail).
    ToolCalled,
    ItemPresented,
    /// A widget for the learner; the run suspends after it.
    ClientAction,
    RunSuspended,
    ResponseReceived,
    ItemEvaluated,
    SessionCompleted,
    SessionTerminated,
}

impl SessionEventKind {
    pub const ALL: [SessionEventKind; 11] = [
        SessionEventKind::SessionCreated,
        SessionEventKind::SessionStarted,
        SessionEventKind::TextDelta,
        SessionEventKind::ToolCalled,
        SessionEventKind::ItemPresented,
        SessionEventKind::ClientAction,
        SessionEventKind::RunSuspended,
        SessionEventKind::ResponseReceived,
        SessionEventKind::ItemEvaluated,
        SessionEventKind::SessionCompleted,
        SessionEventKind::SessionTerminated,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            SessionEventKind::SessionCreated => "session_created",
            SessionEventKind::SessionStarted => "session_started",
            SessionEventKind::TextDelta => "text_delta",
            SessionEventKind::ToolCalled => "tool_called",
            SessionEventKind::ItemPresented => "item_presented",
            SessionEventKind::ClientAction => "client_action",
            SessionEventKind::RunSuspended => "run_suspended",
            SessionEventKind::ResponseReceived => "response_received",
            SessionEventKind::ItemEvaluated => "item_evaluated",
            SessionEventKind::SessionCompleted => "session_completed",
            SessionEventKind::SessionTerminated => "session_terminated",
        }
    }

    pub fn parse(text: &str) -> Result<Self, DomainError> {
        Self::ALL.into_iter().find(|k| k.as_str() == text).ok_or_else(|| {
            DomainError::invalid(
                "kind",
                format!("'{text}' is not a session event; allowed: {}", Self::ALL.map(|k| k.as_str()).join(", ")),
            )
        })
    }

    /// Whether the learner's stream shows this event. An evaluation gives no feedback until
    /// it is scored (10.2: "NO immediate feedback"), so its per-item evaluations stay in
    /// the log; the completion event carries the scored results. Backend tool calls are an
    /// audit trail, not part of the conversation a learner sees.
    pub fn is_streamed(&self, session_type: SessionType) -> bool {
        match self {
            SessionEventKind::ToolCalled => false,
            SessionEventKind::ItemEvaluated => session_type != SessionType::Evaluation,
            _ => true,
        }
    }
}

impl std::fmt::Display for SessionEventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The moves a session's state machine allows.
pub fn allowed_moves(from: SessionStatus) -> &'static [SessionStatus] {
    use SessionStatus::*;
    match from {
        Created => &[Running, Completed, Terminated],
        Running => &[Running, AwaitingResponse, Completed, Terminated],
        AwaitingResponse => &[Running, Completed, Terminated],
        Completed | Terminated => &[],
    }
}

/// Refuse a move the state machine does not allow, naming the ones it does.
pub fn check_move(from: SessionStatus, to: SessionStatus) -> Result<(), DomainError> {
    if allowed_moves(from).contains(&to) {
        Ok(())
    } else {
        Err(DomainError::invalid_transition("status", from, to, allowed_moves(from)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_sessions_cannot_move() {
        assert!(check_move(SessionStatus::AwaitingResponse, SessionStatus::Running).is_ok());
        let err = check_move(SessionStatus::Completed, SessionStatus::Running).unwrap_err().to_string();
        assert_eq!(err, "status: cannot go from 'completed' to 'running'; from 'completed' the allowed values are: none (completed is final)");
    }

    #[test]
    fn evaluations_keep_their_item_evaluations_off_the_stream() {
        assert!(!SessionEventKind::ItemEvaluated.is_streamed(SessionType::Evaluation));
        assert!(SessionEventKind::ItemEvaluated.is_streamed(SessionType::Learning));
        for kind in SessionEventKind::ALL {
            assert_eq!(SessionEventKind::parse(kind.as_str()).unwrap(), kind);
        }
    }
}
