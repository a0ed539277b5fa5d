//! What a proactive session keeps: the session with its state (compare-and-set on
//! `version`), its event log and its conversation. A step of a session writes all three in
//! one transaction, so the log, the conversation and the state never disagree.

use crate::{Page, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::{LearnerId, SessionId, SessionStatus, SessionType};
use serde_json::Value;
use std::future::Future;

#[derive(Debug, Clone, PartialEq)]
pub struct SessionRecord {
    pub id: SessionId,
    pub learner_id: LearnerId,
    pub session_type: SessionType,
    pub status: SessionStatus,
    pub version: i64,
    pub title: String,
    /// As the learner created it (answers of inline items included: never shown as is).
    pub config: Value,
    /// The session's own state, as the application shapes it.
    pub state: Value,
    /// The server process running the session's agent, and until when it holds it.
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// One entry of a session's event log; `seq` counts from 1 and is the SSE event id.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEvent {
    pub seq: i64,
    pub kind: SessionEventKind,
    pub payload: Value,
    pub created_at: DateTime<Utc>,
}

/// One message of a session's conversation; `role` is system, user, assistant or tool.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionMessage {
    pub seq: i64,
    pub role: String,
    pub content: String,
    /// An assistant message's tool calls: `[{"id", "name", "arguments"}]`.
    pub tool_calls: Value,
    /// A tool message's call.
    pub tool_call_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub trait SessionStore {
    /// Create a session with its first events.
    fn insert_session(
        &self,
        session: &SessionRecord,
        events: &[SessionEvent],
    ) -> impl Future<Output = StoreResult<()>> + Send;
    fn get_session(
        &self,
        learner: LearnerId,
        id: SessionId,
    ) -> impl Future<Output = StoreResult<Option<SessionRecord>>> + Send;
    /// A learner's sessions, newest first.
    fn list_sessions(
        &self,
        learner: LearnerId,
        offset: i64,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Page<SessionRecord>>> + Send;
    /// Store `session` if the stored one is still at `session.version - 1`, and append its
    /// new events and messages, in one transaction; otherwise refuse with a conflict and
    /// write nothing.
    fn save_session(
        &self,
        session: &SessionRecord,
        events: &[SessionEvent],
        messages: &[SessionMessage],
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// A session's events after `after` (a seq), oldest first, at most `limit`.
    fn session_events(
        &self,
        learner: LearnerId,
        id: SessionId,
        after: i64,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<SessionEvent>>> + Send;
    /// A session's whole conversation, oldest first.
    fn session_messages(
        &self,
        learner: LearnerId,
        id: SessionId,
    ) -> impl Future<Output = StoreResult<Vec<SessionMessage>>> + Send;
}
