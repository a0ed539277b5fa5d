//! The sessions' row readers and writers, which `SessionStore`'s bodies (`sessions.rs`)
//! share; stamped into each backend's module next to `shared_store!`, whose imports they use.

pub(crate) const SESSION_COLUMNS: &str = "s.id, s.learner_id, s.session_type, s.status, s.version, s.title, s.config, \
     s.state, s.lease_owner, s.lease_until, s.created_at, s.updated_at";

macro_rules! sessions_store {
    ($store:ty) => {
        pub(crate) use crate::sessions::{SessionEvent, SessionMessage, SessionRecord};
        pub(crate) use crate::sql_sessions::SESSION_COLUMNS;
        pub(crate) use pathwise_domain::session::SessionEventKind;
        pub(crate) use pathwise_domain::SessionId;

        pub(crate) fn session_from_row(row: &DbRow) -> StoreResult<SessionRecord> {
            Ok(SessionRecord {
                id: SessionId(row.try_get("id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                session_type: parse(row.try_get::<&str, _>("session_type")?)?,
                status: parse(row.try_get::<&str, _>("status")?)?,
                version: row.try_get("version")?,
                title: row.try_get("title")?,
                config: row.try_get::<Json<serde_json::Value>, _>("config")?.0,
                state: row.try_get::<Json<serde_json::Value>, _>("state")?.0,
                lease_owner: row.try_get("lease_owner")?,
                lease_until: row.try_get::<Option<Ts>, _>("lease_until")?.map(|t| t.0),
                created_at: row.try_get::<Ts, _>("created_at")?.0,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        pub(crate) fn session_event_from_row(row: &DbRow) -> StoreResult<SessionEvent> {
            Ok(SessionEvent {
                seq: row.try_get("seq")?,
                kind: SessionEventKind::parse(row.try_get::<&str, _>("kind")?).map_err(StoreError::corrupt)?,
                payload: row.try_get::<Json<serde_json::Value>, _>("payload")?.0,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        pub(crate) fn session_message_from_row(row: &DbRow) -> StoreResult<SessionMessage> {
            Ok(SessionMessage {
                seq: row.try_get("seq")?,
                role: row.try_get("role")?,
                content: row.try_get("content")?,
                tool_calls: row.try_get::<Json<serde_json::Value>, _>("tool_calls")?.0,
                tool_call_id: row.try_get("tool_call_id")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        pub(crate) async fn append_session_rows(
            conn: &mut Conn,
            id: SessionId,
            events: &[SessionEvent],
            messages: &[SessionMessage],
        ) -> StoreResult<()> {
            for event in events {
                sqlx::query("INSERT INTO session_events (session_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)")
                    .bind(id.0)
                    .bind(event.seq)
                    .bind(event.kind.as_str())
                    .bind(Json(&event.payload))
                    .bind(Ts(event.created_at))
                    .execute(&mut *conn)
                    .await?;
            }
            for message in messages {
                sqlx::query(
                    "INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(id.0)
                .bind(message.seq)
                .bind(&message.role)
                .bind(&message.content)
                .bind(Json(&message.tool_calls))
                .bind(&message.tool_call_id)
                .bind(Ts(message.created_at))
                .execute(&mut *conn)
                .await?;
            }
            Ok(())
        }

    };
}

pub(crate) use sessions_store;
