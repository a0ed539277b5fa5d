//! What a proactive session keeps: the session with its state (compare-and-set on
//! `version`), its event log and its conversation. A step of a session writes all three in
//! one transaction, so the log, the conversation and the state never disagree.

use crate::{Page, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::session::SessionEventKind;
use pathwise_domain::{LearnerId, SessionId, SessionStatus, SessionType};
use serde_json::Value;

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

#[pathwise_store_macros::capability]
pub trait SessionStore {
    /// Create a session with its first events.
    async fn insert_session(&self, session: &SessionRecord, events: &[SessionEvent]) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO sessions (id, learner_id, session_type, status, version, title, config, state, \
             lease_owner, lease_until, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        )
        .bind(session.id.0)
        .bind(session.learner_id.0)
        .bind(session.session_type.as_str())
        .bind(session.status.as_str())
        .bind(session.version)
        .bind(&session.title)
        .bind(Json(&session.config))
        .bind(Json(&session.state))
        .bind(&session.lease_owner)
        .bind(session.lease_until.map(Ts))
        .bind(Ts(session.created_at))
        .bind(Ts(session.updated_at))
        .execute(&mut *tx)
        .await?;
        append_session_rows(&mut tx, session.id, events, &[]).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn get_session(&self, learner: LearnerId, id: SessionId) -> StoreResult<Option<SessionRecord>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = $1 AND s.learner_id = $2");
        sqlx::query(&sql)
            .bind(id.0)
            .bind(learner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(session_from_row)
            .transpose()
    }

    /// A learner's sessions, newest first.
    async fn list_sessions(&self, learner: LearnerId, offset: i64, limit: i64) -> StoreResult<Page<SessionRecord>> {
        let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sessions WHERE learner_id = $1")
            .bind(learner.0)
            .fetch_one(self.reader())
            .await?;
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.learner_id = $1 \
             ORDER BY s.created_at DESC, s.id LIMIT {limit} OFFSET {offset}"
        );
        let items = sqlx::query(&sql)
            .bind(learner.0)
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(session_from_row)
            .collect::<StoreResult<_>>()?;
        Ok(Page { items, total: total as u64 })
    }

    /// Store `session` if the stored one is still at `session.version - 1`, and append its
    /// new events and messages, in one transaction; otherwise refuse with a conflict and
    /// write nothing.
    async fn save_session(
        &self,
        session: &SessionRecord,
        events: &[SessionEvent],
        messages: &[SessionMessage],
    ) -> StoreResult<()> {
        let read = session.version - 1;
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "UPDATE sessions SET status = $3, version = $4, title = $5, state = $6, lease_owner = $7, \
             lease_until = $8, updated_at = $9 WHERE id = $1 AND learner_id = $2 AND version = $10",
        )
        .bind(session.id.0)
        .bind(session.learner_id.0)
        .bind(session.status.as_str())
        .bind(session.version)
        .bind(&session.title)
        .bind(Json(&session.state))
        .bind(&session.lease_owner)
        .bind(session.lease_until.map(Ts))
        .bind(Ts(session.updated_at))
        .bind(read)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            let stored: Option<i64> =
                sqlx::query_scalar("SELECT version FROM sessions WHERE id = $1 AND learner_id = $2")
                    .bind(session.id.0)
                    .bind(session.learner_id.0)
                    .fetch_optional(&mut *tx)
                    .await?;
            return match stored {
                None => Err(StoreError::NotFound("session")),
                Some(stored) => Err(StoreError::Rejected(DomainError::Conflict {
                    message: format!(
                        "the session changed since it was read (it is at version {stored}, this step read \
                         version {read}); read it again and retry"
                    ),
                })),
            };
        }
        append_session_rows(&mut tx, session.id, events, messages).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A session's events after `after` (a seq), oldest first, at most `limit`.
    async fn session_events(
        &self,
        learner: LearnerId,
        id: SessionId,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<SessionEvent>> {
        sqlx::query(
            "SELECT e.seq, e.kind, e.payload, e.created_at FROM session_events e \
             JOIN sessions s ON s.id = e.session_id \
             WHERE e.session_id = $1 AND s.learner_id = $2 AND e.seq > $3 ORDER BY e.seq LIMIT $4",
        )
        .bind(id.0)
        .bind(learner.0)
        .bind(after)
        .bind(limit)
        .fetch_all(self.reader())
        .await?
        .iter()
        .map(session_event_from_row)
        .collect()
    }

    /// A session's whole conversation, oldest first.
    async fn session_messages(&self, learner: LearnerId, id: SessionId) -> StoreResult<Vec<SessionMessage>> {
        sqlx::query(
            "SELECT m.seq, m.role, m.content, m.tool_calls, m.tool_call_id, m.created_at FROM session_messages m \
             JOIN sessions s ON s.id = m.session_id WHERE m.session_id = $1 AND s.learner_id = $2 ORDER BY m.seq",
        )
        .bind(id.0)
        .bind(learner.0)
        .fetch_all(self.reader())
        .await?
        .iter()
        .map(session_message_from_row)
        .collect()
    }
}
