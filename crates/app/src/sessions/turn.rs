//! One step of a session in the making: the session as read, the state it moves to, and
//! the events and messages it appends, all committed together by compare-and-set.

use super::config::SessionConfig;
use super::state::{PendingCall, SessionState};
use crate::StoreHandle;
use crate::{AppError, AppResult};
use chrono::{DateTime, Utc};
use pathwise_domain::session::widgets::ClientAction;
use pathwise_domain::session::{check_move, SessionEventKind};
use pathwise_domain::{SessionEndReason, SessionStatus};
use pathwise_store::SessionStore;
use pathwise_store::{SessionEvent, SessionMessage, SessionRecord};
use serde_json::{json, Value};

pub(crate) struct Turn {
    pub record: SessionRecord,
    pub state: SessionState,
    pub config: SessionConfig,
    pub now: DateTime<Utc>,
    events: Vec<SessionEvent>,
    messages: Vec<SessionMessage>,
}

impl Turn {
    pub fn new(record: SessionRecord, now: DateTime<Utc>) -> AppResult<Turn> {
        let state: SessionState = serde_json::from_value(record.state.clone())
            .map_err(|e| AppError::internal(format!("session {} has unreadable state: {e}", record.id)))?;
        let config = SessionConfig::parse(record.session_type, &record.config)?;
        Ok(Turn::assemble(record, state, config, now))
    }

    pub fn assemble(record: SessionRecord, state: SessionState, config: SessionConfig, now: DateTime<Utc>) -> Turn {
        Turn { record, state, config, now, events: Vec::new(), messages: Vec::new() }
    }

    /// A new session's record with its state, and its first events.
    pub fn into_new(mut self) -> AppResult<(SessionRecord, Vec<SessionEvent>)> {
        self.record.state = serde_json::to_value(&self.state).map_err(|e| AppError::internal(e.to_string()))?;
        Ok((self.record, self.events))
    }

    pub fn status(&self) -> SessionStatus {
        self.record.status
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.messages.is_empty()
    }

    pub fn set_status(&mut self, to: SessionStatus) -> AppResult<()> {
        if self.record.status != to {
            check_move(self.record.status, to)?;
            self.record.status = to;
        }
        Ok(())
    }

    pub fn event(&mut self, kind: SessionEventKind, payload: Value) {
        let seq = self.state.next_event;
        self.state.next_event += 1;
        self.events.push(SessionEvent { seq, kind, payload, created_at: self.now });
    }

    pub fn message(&mut self, role: &str, content: String, tool_calls: Value, tool_call_id: Option<String>) -> i64 {
        let seq = self.state.next_message;
        self.state.next_message += 1;
        self.messages.push(SessionMessage {
            seq,
            role: role.to_string(),
            content,
            tool_calls,
            tool_call_id,
            created_at: self.now,
        });
        seq
    }

    /// A new tool call id, unique within the session.
    pub fn call_id(&self) -> String {
        format!("call_{}", self.state.next_message)
    }

    /// An opaque id for showing `item` to the learner, recorded in the session's state so
    /// that an answer to it finds the item again.
    pub fn show_item(&mut self, item: &str) -> String {
        let shown = format!("itm_{}", uuid::Uuid::new_v4().simple());
        self.state.shown.push((shown.clone(), item.to_string()));
        shown
    }

    /// The assistant's text to the learner.
    pub fn say(&mut self, text: &str) {
        let seq = self.message("assistant", text.to_string(), json!([]), None);
        self.event(SessionEventKind::TextDelta, json!({ "message_seq": seq, "text": text }));
    }

    /// A backend tool the agent called and what it returned: in the conversation as an
    /// assistant tool call and its tool result, and in the log.
    pub fn backend_call(&mut self, name: &str, arguments: Value, result: &Value) {
        let id = self.call_id();
        self.message(
            "assistant",
            String::new(),
            json!([{ "id": id, "name": name, "arguments": arguments.to_string() }]),
            None,
        );
        self.message("tool", result.to_string(), json!([]), Some(id.clone()));
        self.event(
            SessionEventKind::ToolCalled,
            json!({ "tool_call_id": id, "tool": name, "arguments": arguments, "result": result }),
        );
    }

    /// Ask the learner: the widget goes out as a client action and the run suspends until
    /// respond records the answer as this call's result.
    pub fn ask(
        &mut self,
        action: ClientAction,
        item_id: Option<String>,
        tool_call_id: Option<String>,
    ) -> AppResult<()> {
        action.validate()?;
        let id = tool_call_id.unwrap_or_else(|| self.call_id());
        let arguments =
            serde_json::to_value(&action).map_err(|e| AppError::internal(e.to_string()))?["arguments"].clone();
        self.message(
            "assistant",
            String::new(),
            json!([{ "id": id, "name": action.tool_name(), "arguments": arguments.to_string() }]),
            None,
        );
        self.event(
            SessionEventKind::ClientAction,
            json!({ "tool_call_id": id, "tool": action.tool_name(), "arguments": arguments, "item_id": item_id }),
        );
        self.event(SessionEventKind::RunSuspended, json!({ "tool_call_id": id, "awaiting": action.tool_name() }));
        self.state.pending = Some(PendingCall { tool_call_id: id, action, item_id, asked_at: self.now });
        self.set_status(SessionStatus::AwaitingResponse)?;
        self.release_lease();
        Ok(())
    }

    pub fn complete(&mut self, reason: SessionEndReason, results: Value) -> AppResult<()> {
        self.set_status(SessionStatus::Completed)?;
        self.state.end_reason = Some(reason);
        self.state.pending = None;
        self.event(SessionEventKind::SessionCompleted, json!({ "reason": reason, "results": results }));
        self.state.results = Some(results);
        self.release_lease();
        Ok(())
    }

    pub fn release_lease(&mut self) {
        self.record.lease_owner = None;
        self.record.lease_until = None;
    }

    /// Store the step: the state at the next version, the events and messages appended,
    /// or nothing if the session moved on since it was read.
    pub async fn commit<S: StoreHandle + SessionStore>(mut self, store: &S) -> AppResult<SessionRecord> {
        self.record.version += 1;
        self.record.updated_at = self.now;
        self.record.state = serde_json::to_value(&self.state).map_err(|e| AppError::internal(e.to_string()))?;
        store.save_session(&self.record, &self.events, &self.messages).await?;
        Ok(self.record)
    }
}
