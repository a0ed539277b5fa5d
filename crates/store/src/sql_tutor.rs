//! The policy tutor's SQL, shared by both stores like [`crate::sql`]; expanded next to
//! `shared_store!`, whose row readers, imports and map writers it uses. `$lock` is the
//! backend's row-lock clause for the thread a step appends to.

/// A course without its pack, which listings leave out.
pub(crate) const COURSE_LISTING_COLUMNS: &str =
    "c.id, c.title, c.content_hash, c.builtin, c.unit_count, c.question_count, c.imported_at, c.owner_id";
pub(crate) const THREAD_COLUMNS: &str =
    "t.id, t.learner_id, t.course_id, t.title, t.last_action, t.message_count, t.created_at, t.updated_at";
pub(crate) const TUTOR_MESSAGE_COLUMNS: &str =
    "m.seq, m.id, m.role, m.text, m.latex, m.card, m.exam_question_id, m.turn_id, m.created_at, m.outcome, m.sources";
pub(crate) const TURN_COLUMNS: &str =
    "u.id, u.thread_id, u.learner_id, u.course_id, u.action, u.validated, u.fallback_reason, u.log, u.created_at";

macro_rules! tutor_store {
    ($store:ty, $lock:literal) => {
        use crate::sql_tutor::{COURSE_LISTING_COLUMNS, THREAD_COLUMNS, TURN_COLUMNS, TUTOR_MESSAGE_COLUMNS};
        use crate::tutor::{
            CourseMap, CourseRecord, DrillOfferRecord, ExamEventRecord, ExamStatusRecord, SnapshotRecord, ThreadRecord,
            TurnRecord, TutorCommit, TutorMessageRecord, TutorStep, TutorStore,
        };
        use pathwise_domain::{ThreadId, TurnId};

        fn conflict(message: String) -> StoreError {
            StoreError::Rejected(DomainError::Conflict { message })
        }

        fn course_from_row(row: &DbRow, with_pack: bool) -> StoreResult<CourseRecord> {
            Ok(CourseRecord {
                id: row.try_get("id")?,
                title: row.try_get("title")?,
                pack: if with_pack {
                    row.try_get::<Json<serde_json::Value>, _>("pack")?.0
                } else {
                    serde_json::Value::Null
                },
                content_hash: row.try_get("content_hash")?,
                builtin: row.try_get("builtin")?,
                unit_count: row.try_get("unit_count")?,
                question_count: row.try_get("question_count")?,
                imported_at: row.try_get::<Ts, _>("imported_at")?.0,
                owner_id: row.try_get::<Option<uuid::Uuid>, _>("owner_id")?.map(LearnerId),
            })
        }

        fn tutor_snapshot_from_row(row: &DbRow) -> StoreResult<SnapshotRecord> {
            Ok(SnapshotRecord {
                learner_id: LearnerId(row.try_get("learner_id")?),
                course_id: row.try_get("course_id")?,
                snapshot: row.try_get::<Json<serde_json::Value>, _>("snapshot")?.0,
                version: row.try_get("version")?,
                mind_map_id: row.try_get::<Option<uuid::Uuid>, _>("mind_map_id")?.map(MindMapId),
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        fn thread_from_row(row: &DbRow) -> StoreResult<ThreadRecord> {
            Ok(ThreadRecord {
                id: ThreadId(row.try_get("id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                course_id: row.try_get("course_id")?,
                title: row.try_get("title")?,
                last_action: row.try_get("last_action")?,
                message_count: row.try_get("message_count")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        fn tutor_message_from_row(row: &DbRow) -> StoreResult<TutorMessageRecord> {
            Ok(TutorMessageRecord {
                seq: row.try_get("seq")?,
                id: row.try_get("id")?,
                role: row.try_get("role")?,
                text: row.try_get("text")?,
                latex: row.try_get("latex")?,
                card: row.try_get::<Option<Json<serde_json::Value>>, _>("card")?.map(|j| j.0),
                exam_question_id: row.try_get("exam_question_id")?,
                turn_id: row.try_get::<Option<uuid::Uuid>, _>("turn_id")?.map(TurnId),
                created_at: row.try_get::<Ts, _>("created_at")?.0,
                outcome: row.try_get::<Option<Json<serde_json::Value>>, _>("outcome")?.map(|j| j.0),
                sources: row.try_get::<Option<Json<serde_json::Value>>, _>("sources")?.map(|j| j.0),
            })
        }

        fn turn_from_row(row: &DbRow) -> StoreResult<TurnRecord> {
            Ok(TurnRecord {
                id: TurnId(row.try_get("id")?),
                thread_id: ThreadId(row.try_get("thread_id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                course_id: row.try_get("course_id")?,
                action: row.try_get("action")?,
                validated: row.try_get("validated")?,
                fallback_reason: row.try_get("fallback_reason")?,
                log: row.try_get::<Json<serde_json::Value>, _>("log")?.0,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        fn drill_offer_from_row(row: &DbRow) -> StoreResult<DrillOfferRecord> {
            Ok(DrillOfferRecord {
                id: row.try_get("id")?,
                learner_id: LearnerId(row.try_get("learner_id")?),
                thread_id: ThreadId(row.try_get("thread_id")?),
                unit_id: row.try_get("unit_id")?,
                item_ref: row.try_get("item_ref")?,
                prompt: row.try_get("prompt")?,
                question_latex: row.try_get("question_latex")?,
                options: row.try_get::<Json<Vec<String>>, _>("options")?.0,
                offered_at: row.try_get::<Ts, _>("offered_at")?.0,
                graded_at: row.try_get::<Option<Ts>, _>("graded_at")?.map(|t| t.0),
                grade: row.try_get::<Option<Json<serde_json::Value>>, _>("grade")?.map(|j| j.0),
            })
        }

        fn exam_status_from_row(row: &DbRow) -> StoreResult<ExamStatusRecord> {
            Ok(ExamStatusRecord {
                question_id: row.try_get("question_id")?,
                status: row.try_get("status")?,
                locked_until: row.try_get::<Option<Ts>, _>("locked_until")?.map(|t| t.0),
                attempts: row.try_get("attempts")?,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        impl TutorStore for $store {
            async fn put_course(&self, course: &CourseRecord) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                sqlx::query(
                    "INSERT INTO courses (id, title, pack, content_hash, builtin, unit_count, question_count, imported_at, \
                     owner_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                     ON CONFLICT (id) DO UPDATE SET title = $2, pack = $3, content_hash = $4, builtin = $5, \
                     unit_count = $6, question_count = $7, imported_at = $8, owner_id = $9",
                )
                .bind(&course.id)
                .bind(&course.title)
                .bind(Json(&course.pack))
                .bind(&course.content_hash)
                .bind(course.builtin)
                .bind(course.unit_count)
                .bind(course.question_count)
                .bind(Ts(course.imported_at))
                .bind(course.owner_id.map(|o| o.0))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn get_course(&self, id: &str) -> StoreResult<Option<CourseRecord>> {
                sqlx::query(
                    "SELECT id, title, content_hash, builtin, unit_count, question_count, imported_at, owner_id, pack \
                     FROM courses WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(self.reader())
                .await?
                .as_ref()
                .map(|row| course_from_row(row, true))
                .transpose()
            }

            async fn course_hash(&self, id: &str) -> StoreResult<Option<String>> {
                Ok(sqlx::query_scalar("SELECT content_hash FROM courses WHERE id = $1")
                    .bind(id)
                    .fetch_optional(self.reader())
                    .await?)
            }

            async fn list_courses(&self) -> StoreResult<Vec<CourseRecord>> {
                sqlx::query(
                    &format!("SELECT {COURSE_LISTING_COLUMNS} FROM courses c ORDER BY c.id"),
                )
                .fetch_all(self.reader())
                .await?
                .iter()
                .map(|row| course_from_row(row, false))
                .collect()
            }

            async fn get_tutor_snapshot(&self, learner: LearnerId, course: &str) -> StoreResult<Option<SnapshotRecord>> {
                sqlx::query(
                    "SELECT learner_id, course_id, snapshot, version, mind_map_id, updated_at FROM tutor_snapshots \
                     WHERE learner_id = $1 AND course_id = $2",
                )
                .bind(learner.0)
                .bind(course)
                .fetch_optional(self.reader())
                .await?
                .as_ref()
                .map(tutor_snapshot_from_row)
                .transpose()
            }

            async fn insert_tutor_snapshot(&self, snapshot: &SnapshotRecord, map: Option<&CourseMap>) -> StoreResult<bool> {
                let mut tx = self.begin_write().await?;
                if let Some(course_map) = map {
                    insert_map_row(&mut tx, &course_map.map).await?;
                    apply_changes(&mut tx, &course_map.changes).await?;
                    for (unit, node) in &course_map.unit_nodes {
                        sqlx::query("INSERT INTO course_unit_nodes (mind_map_id, unit_id, node_id) VALUES ($1, $2, $3)")
                            .bind(course_map.map.id.0)
                            .bind(unit)
                            .bind(node.0)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                let inserted = sqlx::query(
                    "INSERT INTO tutor_snapshots (learner_id, course_id, snapshot, version, mind_map_id, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (learner_id, course_id) DO NOTHING",
                )
                .bind(snapshot.learner_id.0)
                .bind(&snapshot.course_id)
                .bind(Json(&snapshot.snapshot))
                .bind(snapshot.version)
                .bind(snapshot.mind_map_id.map(|m| m.0))
                .bind(Ts(snapshot.updated_at))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if inserted == 0 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn course_unit_node(&self, learner: LearnerId, map: MindMapId, unit: &str) -> StoreResult<Option<NodeId>> {
                let node: Option<uuid::Uuid> = sqlx::query_scalar(
                    "SELECT c.node_id FROM course_unit_nodes c JOIN mind_maps m ON m.id = c.mind_map_id \
                     WHERE c.mind_map_id = $1 AND c.unit_id = $2 AND m.learner_id = $3",
                )
                .bind(map.0)
                .bind(unit)
                .bind(learner.0)
                .fetch_optional(self.reader())
                .await?;
                Ok(node.map(NodeId))
            }

            async fn insert_thread(&self, thread: &ThreadRecord) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                sqlx::query(
                    "INSERT INTO tutor_threads (id, learner_id, course_id, title, last_action, message_count, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(thread.id.0)
                .bind(thread.learner_id.0)
                .bind(&thread.course_id)
                .bind(&thread.title)
                .bind(&thread.last_action)
                .bind(thread.message_count)
                .bind(Ts(thread.created_at))
                .bind(Ts(thread.updated_at))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn get_thread(&self, learner: LearnerId, id: ThreadId) -> StoreResult<Option<ThreadRecord>> {
                let sql = format!("SELECT {THREAD_COLUMNS} FROM tutor_threads t WHERE t.id = $1 AND t.learner_id = $2");
                sqlx::query(&sql)
                    .bind(id.0)
                    .bind(learner.0)
                    .fetch_optional(self.reader())
                    .await?
                    .as_ref()
                    .map(thread_from_row)
                    .transpose()
            }

            async fn list_threads(
                &self,
                learner: LearnerId,
                course: Option<&str>,
                offset: i64,
                limit: i64,
            ) -> StoreResult<Page<ThreadRecord>> {
                let total: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM tutor_threads WHERE learner_id = $1 AND ($2 IS NULL OR course_id = $2)",
                )
                .bind(learner.0)
                .bind(course)
                .fetch_one(self.reader())
                .await?;
                let sql = format!(
                    "SELECT {THREAD_COLUMNS} FROM tutor_threads t WHERE t.learner_id = $1 AND ($2 IS NULL OR t.course_id = $2) \
                     ORDER BY t.updated_at DESC, t.id LIMIT {limit} OFFSET {offset}"
                );
                let items = sqlx::query(&sql)
                    .bind(learner.0)
                    .bind(course)
                    .fetch_all(self.reader())
                    .await?
                    .iter()
                    .map(thread_from_row)
                    .collect::<StoreResult<_>>()?;
                Ok(Page { items, total: total as u64 })
            }

            async fn thread_messages(
                &self,
                learner: LearnerId,
                thread: ThreadId,
                after: i64,
                limit: i64,
            ) -> StoreResult<Vec<TutorMessageRecord>> {
                let sql = format!(
                    "SELECT {TUTOR_MESSAGE_COLUMNS} FROM tutor_messages m JOIN tutor_threads t ON t.id = m.thread_id \
                     WHERE m.thread_id = $1 AND t.learner_id = $2 AND m.seq > $3 ORDER BY m.seq LIMIT $4"
                );
                sqlx::query(&sql)
                    .bind(thread.0)
                    .bind(learner.0)
                    .bind(after)
                    .bind(limit)
                    .fetch_all(self.reader())
                    .await?
                    .iter()
                    .map(tutor_message_from_row)
                    .collect()
            }

            async fn thread_offered_question(&self, learner: LearnerId, thread: ThreadId, question: &str) -> StoreResult<bool> {
                let found: Option<i64> = sqlx::query_scalar(
                    "SELECT m.seq FROM tutor_messages m JOIN tutor_threads t ON t.id = m.thread_id \
                     WHERE m.thread_id = $1 AND t.learner_id = $2 AND m.exam_question_id = $3 LIMIT 1",
                )
                .bind(thread.0)
                .bind(learner.0)
                .bind(question)
                .fetch_optional(self.reader())
                .await?;
                Ok(found.is_some())
            }

            async fn commit_tutor_step(&self, step: TutorStep<'_>) -> StoreResult<TutorCommit> {
                let mut tx = self.begin_write().await?;
                let mut first_seq = 0;
                if let Some((drill, grade)) = step.graded {
                    let done = sqlx::query(
                        "UPDATE drill_offers SET graded_at = $2, grade = $3 WHERE id = $1 AND graded_at IS NULL",
                    )
                    .bind(drill)
                    .bind(Ts(step.at.unwrap_or_else(Utc::now)))
                    .bind(Json(grade))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if done != 1 {
                        return Err(StoreError::Duplicate("this drill's answer"));
                    }
                }
                if let Some(s) = step.snapshot {
                    let read = s.version - 1;
                    let done = sqlx::query(
                        "UPDATE tutor_snapshots SET snapshot = $3, version = $4, updated_at = $5 \
                         WHERE learner_id = $1 AND course_id = $2 AND version = $6",
                    )
                    .bind(s.learner_id.0)
                    .bind(&s.course_id)
                    .bind(Json(&s.snapshot))
                    .bind(s.version)
                    .bind(Ts(s.updated_at))
                    .bind(read)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if done != 1 {
                        return Err(conflict(format!(
                            "the learner's snapshot of course '{}' changed since it was read (version {read}); \
                             read it again and retry",
                            s.course_id
                        )));
                    }
                }
                if let Some(thread) = step.thread {
                    let sql = format!("SELECT message_count FROM tutor_threads WHERE id = $1 {}", $lock);
                    let count: Option<i32> =
                        sqlx::query_scalar(&sql).bind(thread.0).fetch_optional(&mut *tx).await?;
                    let count = count.ok_or(StoreError::NotFound("thread"))?;
                    first_seq = i64::from(count) + 1;
                    for (i, m) in step.messages.iter().enumerate() {
                        sqlx::query(
                            "INSERT INTO tutor_messages (thread_id, seq, id, role, text, latex, card, exam_question_id, \
                             turn_id, created_at, outcome, sources) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                        )
                        .bind(thread.0)
                        .bind(i64::from(count) + 1 + i as i64)
                        .bind(m.id)
                        .bind(&m.role)
                        .bind(&m.text)
                        .bind(&m.latex)
                        .bind(m.card.as_ref().map(Json))
                        .bind(&m.exam_question_id)
                        .bind(m.turn_id.map(|t| t.0))
                        .bind(Ts(m.created_at))
                        .bind(m.outcome.as_ref().map(Json))
                        .bind(m.sources.as_ref().map(Json))
                        .execute(&mut *tx)
                        .await?;
                    }
                    let at = step.at.or(step.messages.last().map(|m| m.created_at)).unwrap_or_else(Utc::now);
                    sqlx::query(
                        "UPDATE tutor_threads SET message_count = $2, updated_at = $3, \
                         last_action = COALESCE($4, last_action) WHERE id = $1",
                    )
                    .bind(thread.0)
                    .bind(count + step.messages.len() as i32)
                    .bind(Ts(at))
                    .bind(step.last_action)
                    .execute(&mut *tx)
                    .await?;
                }
                for offer in step.offers {
                    sqlx::query(
                        "INSERT INTO drill_offers (id, learner_id, thread_id, unit_id, item_ref, prompt, question_latex, \
                         options, offered_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    )
                    .bind(&offer.id)
                    .bind(offer.learner_id.0)
                    .bind(offer.thread_id.0)
                    .bind(&offer.unit_id)
                    .bind(&offer.item_ref)
                    .bind(&offer.prompt)
                    .bind(&offer.question_latex)
                    .bind(Json(&offer.options))
                    .bind(Ts(offer.offered_at))
                    .execute(&mut *tx)
                    .await?;
                }
                let response = match step.response {
                    Some(r) => Some(<$store>::step_response(&mut tx, r.learner, r.new, r.decide).await?),
                    None => None,
                };
                if let Some(turn) = step.turn {
                    sqlx::query(
                        "INSERT INTO tutor_turns (id, thread_id, learner_id, course_id, action, validated, fallback_reason, \
                         log, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    )
                    .bind(turn.id.0)
                    .bind(turn.thread_id.0)
                    .bind(turn.learner_id.0)
                    .bind(&turn.course_id)
                    .bind(&turn.action)
                    .bind(turn.validated)
                    .bind(&turn.fallback_reason)
                    .bind(Json(&turn.log))
                    .bind(Ts(turn.created_at))
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(TutorCommit { first_seq, response })
            }

            async fn drill_offer(&self, learner: LearnerId, thread: ThreadId, id: &str) -> StoreResult<Option<DrillOfferRecord>> {
                sqlx::query(
                    "SELECT id, learner_id, thread_id, unit_id, item_ref, prompt, question_latex, options, offered_at, \
                     graded_at, grade FROM drill_offers WHERE id = $1 AND learner_id = $2 AND thread_id = $3",
                )
                .bind(id)
                .bind(learner.0)
                .bind(thread.0)
                .fetch_optional(self.reader())
                .await?
                .as_ref()
                .map(drill_offer_from_row)
                .transpose()
            }

            async fn list_turns(&self, learner: LearnerId, thread: ThreadId, offset: i64, limit: i64) -> StoreResult<Page<TurnRecord>> {
                let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM tutor_turns WHERE thread_id = $1 AND learner_id = $2")
                    .bind(thread.0)
                    .bind(learner.0)
                    .fetch_one(self.reader())
                    .await?;
                let sql = format!(
                    "SELECT {TURN_COLUMNS} FROM tutor_turns u WHERE u.thread_id = $1 AND u.learner_id = $2 \
                     ORDER BY u.created_at, u.id LIMIT {limit} OFFSET {offset}"
                );
                let items = sqlx::query(&sql)
                    .bind(thread.0)
                    .bind(learner.0)
                    .fetch_all(self.reader())
                    .await?
                    .iter()
                    .map(turn_from_row)
                    .collect::<StoreResult<_>>()?;
                Ok(Page { items, total: total as u64 })
            }

            async fn exam_statuses(&self, learner: LearnerId, course: &str, questions: &[String]) -> StoreResult<Vec<ExamStatusRecord>> {
                if questions.is_empty() {
                    return Ok(Vec::new());
                }
                let mut query = QueryBuilder::new(
                    "SELECT question_id, status, locked_until, attempts, updated_at FROM exam_status WHERE learner_id = ",
                );
                query.push_bind(learner.0).push(" AND course_id = ").push_bind(course).push(" AND question_id IN (");
                let mut list = query.separated(", ");
                for q in questions {
                    list.push_bind(q);
                }
                query.push(")");
                query.build().fetch_all(self.reader()).await?.iter().map(exam_status_from_row).collect()
            }

            async fn record_exam_event(&self, event: &ExamEventRecord, status: &ExamStatusRecord) -> StoreResult<()> {
                let mut tx = self.begin_write().await?;
                let changed = if status.attempts == 1 {
                    sqlx::query(
                        "INSERT INTO exam_status (learner_id, course_id, question_id, status, locked_until, attempts, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (learner_id, course_id, question_id) DO NOTHING",
                    )
                } else {
                    sqlx::query(
                        "UPDATE exam_status SET status = $4, locked_until = $5, attempts = $6, updated_at = $7 \
                         WHERE learner_id = $1 AND course_id = $2 AND question_id = $3 AND attempts = $6 - 1",
                    )
                }
                .bind(event.learner_id.0)
                .bind(&event.course_id)
                .bind(&status.question_id)
                .bind(&status.status)
                .bind(status.locked_until.map(Ts))
                .bind(status.attempts)
                .bind(Ts(status.updated_at))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if changed != 1 {
                    return Err(conflict(format!(
                        "exam question '{}' changed meanwhile (another answer was recorded); look at it again",
                        status.question_id
                    )));
                }
                sqlx::query(
                    "INSERT INTO exam_events (id, learner_id, course_id, question_id, kind, selected_index, correct, \
                     locked_until, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(event.id)
                .bind(event.learner_id.0)
                .bind(&event.course_id)
                .bind(&event.question_id)
                .bind(&event.kind)
                .bind(event.selected_index)
                .bind(event.correct)
                .bind(event.locked_until.map(Ts))
                .bind(Ts(event.at))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }
        }
    };
}

pub(crate) use tutor_store;
