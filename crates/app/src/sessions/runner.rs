//! Running a session's agent for a stream (D1): replay what the client missed, then run
//! steps until the session suspends on a client tool or ends. Any server process can run
//! any session: everything lives in the store, and a lease (taken by compare-and-set) lets
//! one stream at a time run the agent while others follow the log.

use super::turn::Turn;
use super::{evaluation, learning, survey, thought};
use crate::stores::SessionStores;
use crate::{App, AppError, AppResult};
use chrono::Duration;
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::{LearnerId, SessionEndReason, SessionId, SessionStatus, SessionType};
use pathwise_store::{SessionEvent, SessionRecord};
use serde_json::{json, Value};
use std::sync::OnceLock;
use tokio::sync::mpsc;

/// How long a stream holds a session's agent before another may take it over.
const LEASE_SECONDS: i64 = 60;
/// How often a following stream looks for new events.
const FOLLOW_POLL: std::time::Duration = std::time::Duration::from_millis(200);
const REPLAY_PAGE: i64 = 500;

/// What a session stream carries, before the door turns it into SSE.
#[derive(Debug, Clone)]
pub enum StreamItem {
    Connected(Value),
    Event(SessionEvent),
    Error(AppError),
}

fn process_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()))
}

pub(crate) struct Stream<S: SessionStores> {
    pub app: App<S>,
    pub learner: LearnerId,
    pub id: SessionId,
    pub session_type: SessionType,
    pub sent: i64,
    pub owner: String,
    pub out: mpsc::Sender<StreamItem>,
}

impl<S: SessionStores> Stream<S> {
    pub fn new(
        app: App<S>,
        learner: LearnerId,
        record: &SessionRecord,
        after: i64,
        out: mpsc::Sender<StreamItem>,
    ) -> Self {
        Stream {
            app,
            learner,
            id: record.id,
            session_type: record.session_type,
            sent: after,
            owner: format!("{}/{}", process_id(), uuid::Uuid::new_v4().simple()),
            out,
        }
    }

    /// Send every stored event after the last one sent; false once the client has gone.
    async fn forward(&mut self) -> AppResult<bool> {
        loop {
            let events = self.app.store().session_events(self.learner, self.id, self.sent, REPLAY_PAGE).await?;
            let done = (events.len() as i64) < REPLAY_PAGE;
            for event in events {
                self.sent = event.seq;
                if event.kind.is_streamed(self.session_type) && self.out.send(StreamItem::Event(event)).await.is_err() {
                    return Ok(false);
                }
            }
            if done {
                return Ok(true);
            }
        }
    }

    pub async fn run(mut self) {
        let Err(error) = self.drive().await else { return };
        // A session that was there when the stream opened and is gone now went with its
        // learner, whom the operator deleted (after ending it): the stream ends as it does
        // at a session's end.
        let gone = error.kind == crate::ErrorKind::NotFound
            && matches!(self.app.store().get_session(self.learner, self.id).await, Ok(None));
        if !gone {
            let _ = self.out.send(StreamItem::Error(error)).await;
        }
    }

    async fn drive(&mut self) -> AppResult<()> {
        if !self.forward().await? {
            return Ok(());
        }
        loop {
            let record = self.app.load_session(self.learner, self.id).await?;
            let now = self.app.now();
            let expired = record.status == SessionStatus::AwaitingResponse && {
                let turn = Turn::new(record.clone(), now)?;
                turn.state.deadline.is_some_and(|d| now >= d)
            };
            if record.status.is_final() || (record.status == SessionStatus::AwaitingResponse && !expired) {
                // D1: the stream closes once the session waits for the learner (or is over);
                // a session whose time ran out while it waited is ended first.
                self.forward().await?;
                return Ok(());
            }
            let held_by_other = record.lease_owner.as_deref().is_some_and(|o| o != self.owner)
                && record.lease_until.is_some_and(|until| until > now);
            if held_by_other {
                if !self.forward().await? {
                    return Ok(());
                }
                tokio::time::sleep(FOLLOW_POLL).await;
                continue;
            }
            let mut turn = Turn::new(record, now)?;
            turn.record.lease_owner = Some(self.owner.clone());
            turn.record.lease_until = Some(now + Duration::seconds(LEASE_SECONDS));
            let mut outcome = advance(&self.app, &mut turn).await;
            if outcome.is_ok() && turn.is_empty() {
                outcome = Err(AppError::internal(format!("session {} made no progress", self.id)));
            }
            let failed = outcome.as_ref().err().cloned();
            if failed.is_some() {
                // A failed step stores nothing of its own; the lease goes so that the next
                // stream can try again at once.
                let record = self.app.load_session(self.learner, self.id).await?;
                let mut release = Turn::new(record, now)?;
                if release.record.lease_owner.as_deref() == Some(self.owner.as_str()) {
                    release.release_lease();
                    let _ = release.commit(self.app.store()).await;
                }
            } else {
                match turn.commit(self.app.store()).await {
                    Ok(_) => {}
                    // Another stream or a termination moved the session on: read it again.
                    Err(e) if e.kind == crate::ErrorKind::Conflict => continue,
                    Err(e) => return Err(e),
                }
            }
            let connected = self.forward().await?;
            if let Some(error) = failed {
                return Err(error);
            }
            if !connected {
                return Ok(());
            }
        }
    }
}

/// One step of the session's agent: start it if new, end it on its time limit, otherwise
/// let its type decide what comes next (a backend tool, a widget, text, the end).
pub(crate) async fn advance<S: SessionStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    if turn.status() == SessionStatus::Created {
        turn.set_status(SessionStatus::Running)?;
        turn.state.started_at = Some(turn.now);
        if let Some(minutes) = time_limit_minutes(app.library(), turn) {
            turn.state.deadline = Some(turn.now + Duration::minutes(i64::from(minutes)));
        }
        let payload = json!({
            "started_at": turn.now,
            "deadline": turn.state.deadline,
            "max_items": turn.state.max_items,
        });
        turn.event(SessionEventKind::SessionStarted, payload);
    }
    if turn.state.deadline.is_some_and(|d| turn.now >= d) {
        settle(app, turn).await?;
        let results = results(app, turn).await?;
        return turn.complete(SessionEndReason::TimeLimit, results);
    }
    match turn.record.session_type {
        SessionType::Survey => survey::step(turn),
        SessionType::Evaluation => evaluation::step(app, turn).await,
        SessionType::Learning => learning::step(app, turn).await,
        SessionType::Thought => thought::step(app, turn).await,
    }
}

fn time_limit_minutes(lib: &pathwise_items::Library, turn: &Turn) -> Option<u32> {
    use super::config::SessionConfig::*;
    match &turn.config {
        Evaluation(c) => c.time_limit_minutes.or_else(|| evaluation::blueprint_time_limit(lib, c)),
        Survey(c) => c.time_limit_minutes,
        Learning(c) => c.time_limit_minutes,
        Thought(_) => None,
    }
}

/// Act on an answer respond recorded before the session ends, so that it counts.
pub(crate) async fn settle<S: SessionStores>(app: &App<S>, turn: &mut Turn) -> AppResult<()> {
    match turn.record.session_type {
        SessionType::Evaluation => evaluation::consume(app, turn).await,
        SessionType::Survey => survey::consume(turn),
        SessionType::Learning => learning::consume(app, turn).await,
        SessionType::Thought => Ok(()),
    }
}

/// What a session's completion reports, by type.
pub(crate) async fn results<S: SessionStores>(app: &App<S>, turn: &Turn) -> AppResult<Value> {
    match turn.record.session_type {
        SessionType::Evaluation => evaluation::report(app.library(), turn, evaluation::Ended::Early),
        SessionType::Learning => Ok(learning::report(turn)),
        SessionType::Survey => {
            Ok(json!({ "answers": turn.state.survey.as_ref().map(|s| s.answers.len()).unwrap_or(0) }))
        }
        SessionType::Thought => {
            let _ = app;
            Ok(json!({ "turns": turn.state.thought.as_ref().map(|t| t.turns).unwrap_or(0) }))
        }
    }
}
