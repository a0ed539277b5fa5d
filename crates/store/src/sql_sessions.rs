//! The sessions' SQL, shared by both stores like [`crate::sql`]; expanded next to
//! `shared_store!`, whose row readers and imports it uses.

pub(crate) const SESSION_COLUMNS: &str = "s.id, s.learner_id, s.session_type, s.status, s.version, s.title, s.config, \
     s.state, s.lease_owner, s.lease_until, s.created_at, s.updated_at";

macro_rules! sessions_store {
    ($store:ty) => {
        use crate::sessions::{SessionEvent, SessionMessage, SessionRecord, SessionStore};
        use crate::sql_sessions::SESSION_COLUMNS;
        use pathwise_domain::session::SessionEventKind;
        use pathwise_domain::SessionId;

        fn session_from_row(row: &DbRow) -> StoreResult<SessionRecord> {
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

        fn session_event_from_row(row: &DbRow) -> StoreResult<SessionEvent> {
            Ok(SessionEvent {
                seq: row.try_get("seq")?,
                kind: SessionEventKind::parse(row.try_get::<&str, _>("kind")?).map_err(StoreError::corrupt)?,
                payload: row.try_get::<Json<serde_json::Value>, _>("payload")?.0,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        fn session_message_from_row(row: &DbRow) -> StoreResult<SessionMessage> {
            Ok(SessionMessage {
                seq: row.try_get("seq")?,
                role: row.try_get("role")?,
                content: row.try_get("content")?,
                tool_calls: row.try_get::<Json<serde_json::Value>, _>("tool_calls")?.0,
                tool_call_id: row.try_get("tool_call_id")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        async fn append_session_rows(
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

        impl SessionStore for $store {
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
                    let stored: Option<i64> = sqlx::query_scalar("SELECT version FROM sessions WHERE id = $1 AND learner_id = $2")
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
    };
}

pub(crate) use sessions_store;
