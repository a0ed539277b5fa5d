//! Proactive sessions over SSE (session-flow.md 10-11, 13): create, stream, respond,
//! terminate. A stream runs the session's agent until it suspends on a client tool (D1);
//! respond records the learner's answer as that call's result; the next stream, on any
//! server process, resumes from the stored state.

mod adaptive;
mod bank;
mod code;
pub mod config;
mod evaluation;
mod learning;
pub mod library;
mod practice;
mod projection;
mod runner;
mod scoring;
mod state;
mod survey;
mod thought;
mod tools;
mod turn;

pub(crate) use bank::builtin_library;
pub use runner::StreamItem;

use crate::paging::{window, Paged};
use crate::stores::SessionStores;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Utc};
use config::{CreateSession, SessionConfig};
use pathwise_domain::session::widgets::ClientResponse;
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::{LearnerId, SessionEndReason, SessionId, SessionStatus, SessionType};
use pathwise_store::{SessionMessage, SessionRecord};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use state::{AnsweredCall, SessionState};
use turn::Turn;

/// A session as its learner sees it: never an answer key, never a score before the end.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SessionView {
    pub id: SessionId,
    pub session_type: SessionType,
    pub status: SessionStatus,
    pub title: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub deadline: Option<DateTime<Utc>>,
    pub time_remaining_seconds: Option<i64>,
    pub end_reason: Option<SessionEndReason>,
    /// The widget waiting for an answer, if any.
    #[schema(value_type = Option<Object>)]
    pub pending: Option<Value>,
    /// The session's context projection for its type (10.4).
    #[schema(value_type = Object)]
    pub context: Value,
    /// The configuration, without answer keys.
    #[schema(value_type = Object)]
    pub config: Value,
    /// What the session ended with (scores, answers), once completed.
    #[schema(value_type = Option<Object>)]
    pub results: Option<Value>,
    /// The seq of the newest event, for `Last-Event-ID`.
    pub last_event_id: i64,
    pub stream_url: String,
}

/// One event of a session's log as the stream sends it: its SSE id, name and data.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SessionEventView {
    /// The event's place in the log (its SSE id): what `after` takes to continue from it.
    pub seq: i64,
    /// `session_started`, `text_delta`, `item_presented`, `client_action`, `item_evaluated`,
    /// `run_suspended`, `session_completed`, `session_terminated`, ...
    pub event: String,
    pub at: DateTime<Utc>,
    /// What the event carries; for `client_action`, the widget (`tool_call_id`, `tool`,
    /// `arguments`) to answer with a respond.
    #[schema(value_type = Object)]
    pub data: Value,
}

impl From<pathwise_store::SessionEvent> for SessionEventView {
    fn from(event: pathwise_store::SessionEvent) -> Self {
        SessionEventView {
            seq: event.seq,
            event: event.kind.as_str().to_string(),
            at: event.created_at,
            data: event.payload,
        }
    }
}

/// What a session did in one run: the events it sent, until it waited for the learner or
/// ended, and the session as it stands then.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SessionRun {
    pub events: Vec<SessionEventView>,
    pub session: SessionView,
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Respond {
    /// The client action being answered (from its `client_action` event).
    pub tool_call_id: String,
    /// `{"selected_index": i}`, `{"text": "..."}`, `{"code": "..."}` or `{"skipped": true}`.
    #[schema(value_type = Object)]
    pub response: Value,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct RespondOutcome {
    pub session_id: SessionId,
    pub tool_call_id: String,
    pub status: SessionStatus,
    /// True when this tool call had already been answered: the first answer stands.
    pub duplicate: bool,
    pub response: ClientResponse,
    /// Open the stream again to continue.
    pub stream_url: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct MessageView {
    pub seq: i64,
    pub role: String,
    pub content: String,
    #[schema(value_type = Vec<Object>)]
    pub tool_calls: Value,
    pub tool_call_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl<S: SessionStores> App<S> {
    /// `POST /session/`: check the configuration, plan what can be planned, store the session.
    pub async fn create_session(&self, learner: LearnerId, input: CreateSession) -> AppResult<SessionView> {
        let mut config = SessionConfig::parse(input.session_type, &input.config)?;
        let title = config::title(input.title.as_deref(), input.session_type)?;
        let now = self.now();
        let seed = match &config {
            SessionConfig::Evaluation(c) => c.seed.unwrap_or_else(rand::random),
            _ => rand::random(),
        };
        let mut state = SessionState::new(seed);
        match &config {
            SessionConfig::Evaluation(c) => match c.missed_in {
                Some(source) => {
                    let practice = practice::missed(self, learner, c, source, seed).await?;
                    evaluation::plan_form(practice.form, &practice.config, &mut state);
                    config = SessionConfig::Evaluation(practice.config);
                }
                None => evaluation::plan(self.library(), c, &mut state)?,
            },
            SessionConfig::Learning(c) => learning::check_config(self, learner, c, &mut state).await?,
            SessionConfig::Thought(_) => thought::check_model(self)?,
            SessionConfig::Survey(_) => {}
        }
        let record = SessionRecord {
            id: SessionId(Self::new_id()),
            learner_id: learner,
            session_type: input.session_type,
            status: SessionStatus::Created,
            version: 1,
            title,
            config: config.to_stored()?,
            state: Value::Null,
            lease_owner: None,
            lease_until: None,
            created_at: now,
            updated_at: now,
        };
        let mut turn = Turn::assemble(record, state, config, now);
        let payload = json!({ "session_type": input.session_type, "title": turn.record.title });
        turn.event(SessionEventKind::SessionCreated, payload);
        let (record, events) = turn.into_new()?;
        self.store.insert_session(&record, &events).await?;
        self.session_view(&record)
    }

    pub async fn get_session(&self, learner: LearnerId, id: SessionId) -> AppResult<SessionView> {
        let record = self.load_session(learner, id).await?;
        self.session_view(&record)
    }

    pub async fn list_sessions(
        &self,
        learner: LearnerId,
        offset: Option<i64>,
        limit: Option<i64>,
    ) -> AppResult<Paged<SessionView>> {
        let (offset, limit) = window(offset, limit)?;
        let page = self.store.list_sessions(learner, offset, limit).await?;
        let items = page.items.iter().map(|r| self.session_view(r)).collect::<AppResult<_>>()?;
        Ok(Paged { items, total: page.total, offset, limit })
    }

    /// The conversation as stored: system, user, assistant and tool messages.
    pub async fn session_messages(&self, learner: LearnerId, id: SessionId) -> AppResult<Vec<MessageView>> {
        let record = self.load_session(learner, id).await?;
        let messages = self.store.session_messages(learner, id).await?;
        Ok(messages.into_iter().map(|m| message_view(m, record.session_type, record.status)).collect())
    }

    /// `POST /session/{id}/respond`: the learner's answer becomes the waiting tool call's
    /// result. Answering the same call again returns the first answer and changes nothing.
    pub async fn respond_session(
        &self,
        learner: LearnerId,
        id: SessionId,
        input: Respond,
    ) -> AppResult<RespondOutcome> {
        let record = self.load_session(learner, id).await?;
        let now = self.now();
        let mut turn = Turn::new(record, now)?;
        let stream_url = stream_url(id);
        if let Some(first) = turn.state.answered(&input.tool_call_id) {
            return Ok(RespondOutcome {
                session_id: id,
                tool_call_id: input.tool_call_id,
                status: turn.status(),
                duplicate: true,
                response: first.response.clone(),
                stream_url,
            });
        }
        let Some(pending) = turn.state.pending.clone().filter(|_| turn.status() == SessionStatus::AwaitingResponse)
        else {
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::NotAwaitingResponse,
                format!(
                    "session {id} is {} and is not awaiting a response; respond only after a client_action event, \
                     to its tool_call_id",
                    turn.status()
                ),
            ));
        };
        if pending.tool_call_id != input.tool_call_id {
            // The session has moved on (or not reached) this call: its state, not the
            // request's form, is at odds.
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::NotAwaitingCall,
                format!(
                    "tool_call_id: '{}' is not the call awaiting a response; the session awaits '{}'",
                    input.tool_call_id, pending.tool_call_id
                ),
            )
            .with_details(json!({ "field": "tool_call_id", "awaiting": pending.tool_call_id })));
        }
        if let Some(deadline) = turn.state.deadline.filter(|d| now >= *d) {
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::TimeLimitPassed,
                format!(
                    "the session's time limit passed at {}; answers after it are not accepted (open the stream to \
                     see the session end)",
                    deadline.to_rfc3339()
                ),
            ));
        }
        let response = pending.action.parse_response(&input.response).map_err(|e| {
            let mut error = AppError::from(e);
            error.message = format!("{} (for {})", error.message, pending.action.tool_name());
            error
        })?;
        turn.message("tool", tool_result(&response), json!([]), Some(pending.tool_call_id.clone()));
        turn.event(
            SessionEventKind::ResponseReceived,
            json!({ "tool_call_id": pending.tool_call_id, "item_id": pending.item_id, "response": response }),
        );
        turn.state.answered.push(AnsweredCall {
            tool_call_id: pending.tool_call_id.clone(),
            item_id: pending.item_id.clone(),
            response: response.clone(),
            asked_at: pending.asked_at,
            at: now,
        });
        turn.state.unprocessed = Some(pending.tool_call_id.clone());
        turn.state.pending = None;
        turn.set_status(SessionStatus::Running)?;
        let record = turn.commit(&self.store).await?;
        Ok(RespondOutcome {
            session_id: id,
            tool_call_id: input.tool_call_id,
            status: record.status,
            duplicate: false,
            response,
            stream_url,
        })
    }

    /// `DELETE /session/{id}`: the learner ends the session. Ending an ended session
    /// changes nothing.
    pub async fn terminate_session(&self, learner: LearnerId, id: SessionId) -> AppResult<SessionView> {
        self.end_session(learner, id, SessionEndReason::Learner).await
    }

    /// End a session for `reason` (the learner's choice, or the operator's deleting the
    /// learner): what it scored so far is its result, and a stream on it sees it end.
    pub(crate) async fn end_session(
        &self,
        learner: LearnerId,
        id: SessionId,
        reason: SessionEndReason,
    ) -> AppResult<SessionView> {
        for _ in 0..10 {
            let record = self.load_session(learner, id).await?;
            if record.status.is_final() {
                return self.session_view(&record);
            }
            let mut turn = Turn::new(record, self.now())?;
            // A learner being deleted keeps no result: an answer still to be scored is not
            // scored (which could wait on the model) for a row about to be erased.
            if reason != SessionEndReason::Operator {
                runner::settle(self, &mut turn).await?;
            }
            turn.set_status(SessionStatus::Terminated)?;
            turn.state.end_reason = Some(reason);
            turn.state.pending = None;
            let results = runner::results(self, &turn).await?;
            turn.state.results = Some(results.clone());
            turn.event(SessionEventKind::SessionTerminated, json!({ "reason": reason, "results": results }));
            turn.release_lease();
            match turn.commit(&self.store).await {
                Ok(record) => return self.session_view(&record),
                Err(e) if e.kind == ErrorKind::Conflict => continue,
                Err(e) => return Err(e),
            }
        }
        Err(AppError::new(ErrorKind::Conflict, ErrorCode::Busy, format!("session {id} kept changing; try again")))
    }

    /// `GET /session/{id}/stream`: replay the events after `after` (by default those since
    /// the learner's last answer), then run the agent until it suspends or the session
    /// ends. The receiver ends when the stream is done.
    pub async fn session_stream(
        &self,
        learner: LearnerId,
        id: SessionId,
        after: Option<i64>,
    ) -> AppResult<tokio::sync::mpsc::Receiver<StreamItem>> {
        let record = self.load_session(learner, id).await?;
        let after = match after {
            Some(seq) if seq < 0 => {
                return Err(AppError::invalid("Last-Event-ID", format!("{seq} is not an event id; ids count from 1")))
            }
            Some(seq) => seq,
            None => self.replay_start(learner, id).await?,
        };
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let connected = json!({ "session_id": id, "status": record.status, "replay_after": after });
        let _ = tx.send(StreamItem::Connected(connected)).await;
        let stream = runner::Stream::new(self.clone(), learner, &record, after, tx);
        tokio::spawn(stream.run());
        Ok(rx)
    }

    /// Run a session as a stream would, without one: replay the events after `after` (by
    /// default, those after the learner's latest answer), run the session until it waits for
    /// the learner or ends, and answer with the events and the session. The same run and the
    /// same events as the SSE stream's, so the session goes on over either.
    pub async fn run_session(&self, learner: LearnerId, id: SessionId, after: Option<i64>) -> AppResult<SessionRun> {
        if let Some(seq) = after.filter(|seq| *seq < 0) {
            return Err(AppError::invalid(
                "after",
                format!("{seq} is not an event's seq; seqs count from 1 (0 for all)"),
            ));
        }
        let mut stream = self.session_stream(learner, id, after).await?;
        let mut events = Vec::new();
        while let Some(item) = stream.recv().await {
            match item {
                StreamItem::Connected(_) => {}
                StreamItem::Event(event) => events.push(SessionEventView::from(event)),
                // What the run did is in the log: a later run replays it.
                StreamItem::Error(error) => return Err(error),
            }
        }
        Ok(SessionRun { events, session: self.get_session(learner, id).await? })
    }

    /// Without a `Last-Event-ID`, a stream starts after the learner's latest answer, so a
    /// reload while a widget waits shows that widget again and the stream after a respond
    /// shows what follows it.
    async fn replay_start(&self, learner: LearnerId, id: SessionId) -> AppResult<i64> {
        let mut after = 0;
        let mut start = 0;
        loop {
            let events = self.store.session_events(learner, id, after, 1000).await?;
            let Some(last) = events.last() else { return Ok(start) };
            after = last.seq;
            if let Some(answer) = events.iter().rev().find(|e| e.kind == SessionEventKind::ResponseReceived) {
                start = answer.seq;
            }
        }
    }

    pub(crate) async fn load_session(&self, learner: LearnerId, id: SessionId) -> AppResult<SessionRecord> {
        self.store.get_session(learner, id).await?.ok_or_else(|| AppError::not_found("session", id))
    }

    fn session_view(&self, record: &SessionRecord) -> AppResult<SessionView> {
        let state: SessionState = serde_json::from_value(record.state.clone())
            .map_err(|e| AppError::internal(format!("session {} has unreadable state: {e}", record.id)))?;
        let config = SessionConfig::parse(record.session_type, &record.config)?;
        let now = self.now();
        Ok(SessionView {
            id: record.id,
            session_type: record.session_type,
            status: record.status,
            title: record.title.clone(),
            created_at: record.created_at,
            updated_at: record.updated_at,
            started_at: state.started_at,
            deadline: state.deadline,
            time_remaining_seconds: state.seconds_left(now).filter(|_| !record.status.is_final()),
            end_reason: state.end_reason,
            pending: state.pending.as_ref().map(|p| {
                json!({ "tool_call_id": p.tool_call_id, "tool": p.action.tool_name(),
                        "arguments": serde_json::to_value(&p.action).map(|a| a["arguments"].clone()).unwrap_or(Value::Null),
                        "item_id": p.item_id, "asked_at": p.asked_at })
            }),
            context: projection::context(record, &state, &config, now),
            config: projection::public_config(&config),
            results: state.results.clone().filter(|_| record.status.is_final()),
            last_event_id: state.next_event - 1,
            stream_url: stream_url(record.id),
        })
    }
}

/// The learner's answer as the result of the widget's tool call, as a model reads it.
fn tool_result(response: &ClientResponse) -> String {
    match response {
        ClientResponse::Choice { selected_index, option } => {
            json!({ "selected_index": selected_index, "option": option }).to_string()
        }
        ClientResponse::Text { text } => text.clone(),
        ClientResponse::Code { code } => code.clone(),
        ClientResponse::Skipped => "(skipped)".to_string(),
    }
}

fn stream_url(id: SessionId) -> String {
    format!("/api/session/{id}/stream")
}

/// An evaluation's conversation holds what the learner answered but, like its stream,
/// nothing of how an answer scored until the evaluation is over.
fn message_view(m: SessionMessage, session_type: SessionType, status: SessionStatus) -> MessageView {
    let hidden = session_type == SessionType::Evaluation && !status.is_final() && m.role == "tool" && {
        let content: Value = serde_json::from_str(&m.content).unwrap_or(Value::Null);
        content.get("correct").is_some() || content.get("expected").is_some()
    };
    MessageView {
        seq: m.seq,
        role: m.role,
        content: if hidden { "{\"recorded\":true}".to_string() } else { m.content },
        tool_calls: m.tool_calls,
        tool_call_id: m.tool_call_id,
        created_at: m.created_at,
    }
}
