//! What the policy tutor keeps: courses (checked packs, whole), each learner's snapshot per
//! course (compare-and-set on `version`) with the map its evidence lands on, tutor threads
//! with their timeline and turn log, and the built-in exam service's statuses and events.
//! A turn's snapshot, messages and log are written in one transaction.

use crate::{Page, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::model::{MapChanges, MindMap};
use pathwise_domain::{LearnerId, MindMapId, NodeId, ThreadId, TurnId};
use serde_json::Value;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq)]
pub struct CourseRecord {
    pub id: String,
    pub title: String,
    /// The course pack as JSON (`Value::Null` in listings, which leave it out).
    pub pack: Value,
    /// Identifies the pack's content; a re-import with the same hash changes nothing.
    pub content_hash: String,
    /// Shipped with Pathwise, installed at start-up.
    pub builtin: bool,
    pub unit_count: i32,
    pub question_count: i32,
    pub imported_at: DateTime<Utc>,
    /// The learner who published it, who decides whom it is shared with; `None` for the
    /// operator's courses and the shipped ones, which every learner sees.
    pub owner_id: Option<LearnerId>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotRecord {
    pub learner_id: LearnerId,
    pub course_id: String,
    /// The `StudentSnapshot` as JSON.
    pub snapshot: Value,
    pub version: i64,
    pub mind_map_id: Option<MindMapId>,
    pub updated_at: DateTime<Utc>,
}

/// The learner's map of a course, made with the snapshot: the map, its nodes and edges, and
/// which node stands for which unit.
#[derive(Debug, Clone, PartialEq)]
pub struct CourseMap {
    pub map: MindMap,
    pub changes: MapChanges,
    pub unit_nodes: Vec<(String, NodeId)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRecord {
    pub id: ThreadId,
    pub learner_id: LearnerId,
    pub course_id: String,
    pub title: String,
    pub last_action: Option<String>,
    pub message_count: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TutorMessageRecord {
    /// Given by the store when the message is appended (1, 2, ... per thread).
    pub seq: i64,
    pub id: Uuid,
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
    pub latex: Option<String>,
    pub card: Option<Value>,
    /// The exam question an EXAM card offered (what submits are checked against).
    pub exam_question_id: Option<String>,
    pub turn_id: Option<TurnId>,
    pub created_at: DateTime<Utc>,
    /// On the reply to a graded drill or an exam answer: what it came to (JSON).
    pub outcome: Option<Value>,
    /// The passages of the course's material the reply cites (JSON).
    pub sources: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TurnRecord {
    pub id: TurnId,
    pub thread_id: ThreadId,
    pub learner_id: LearnerId,
    pub course_id: String,
    pub action: String,
    pub validated: bool,
    pub fallback_reason: Option<String>,
    /// Everything PF-7.1 asks to log, as JSON.
    pub log: Value,
    pub created_at: DateTime<Utc>,
}

/// One step of a thread, written in one transaction: the snapshot (compare-and-set on its
/// version), messages appended to the thread, the thread's latest action, the turn's log,
/// the drills its cards offer, the drill it grades and the response that grading records on
/// the learner's map. Either all of it is stored or none.
#[derive(Clone, Default)]
pub struct TutorStep<'a> {
    pub snapshot: Option<&'a SnapshotRecord>,
    pub thread: Option<ThreadId>,
    pub messages: &'a [TutorMessageRecord],
    /// Set the thread's latest action (a turn's).
    pub last_action: Option<&'a str>,
    pub turn: Option<&'a TurnRecord>,
    pub at: Option<DateTime<Utc>>,
    /// Drills the step's cards offer.
    pub offers: &'a [DrillOfferRecord],
    /// A drill this step grades (its id, the grading to keep): the step is refused with
    /// [`StoreError::Duplicate`](crate::StoreError::Duplicate) if the drill was graded before.
    pub graded: Option<(&'a str, &'a Value)>,
    /// Evidence to record as a response on the learner's map, through the mastery rules.
    pub response: Option<StepResponse<'a>>,
}

/// A response a tutor step records in its own transaction.
#[derive(Clone, Copy)]
pub struct StepResponse<'a> {
    pub learner: LearnerId,
    pub new: &'a crate::NewResponse,
    pub decide: &'a crate::Decide,
}

/// What a step stored: the seq of its first message, and the response with its node as the
/// mastery rules left it, if the step recorded one.
#[derive(Debug, Clone, PartialEq)]
pub struct TutorCommit {
    pub first_seq: i64,
    pub response: Option<(pathwise_domain::model::QuizResponse, pathwise_domain::model::Node)>,
}

/// A drill a thread offered: what grading it needs, never shown to the learner but by its
/// opaque id.
#[derive(Debug, Clone, PartialEq)]
pub struct DrillOfferRecord {
    pub id: String,
    pub learner_id: LearnerId,
    pub thread_id: ThreadId,
    pub unit_id: String,
    /// A blueprint drill's item id, to regenerate and grade it exactly; none for a drill the
    /// model wrote.
    pub item_ref: Option<String>,
    pub prompt: String,
    pub question_latex: String,
    pub options: Vec<String>,
    pub offered_at: DateTime<Utc>,
    pub graded_at: Option<DateTime<Utc>>,
    /// The first grading, kept to answer a replay with it.
    pub grade: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExamStatusRecord {
    pub question_id: String,
    /// `available`, `locked` or `passed`.
    pub status: String,
    pub locked_until: Option<DateTime<Utc>>,
    /// Events on the question so far; guards changes (compare-and-set).
    pub attempts: i32,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExamEventRecord {
    pub id: Uuid,
    pub learner_id: LearnerId,
    pub course_id: String,
    pub question_id: String,
    /// `submit`, `memo` or `video`.
    pub kind: String,
    pub selected_index: Option<i32>,
    pub correct: Option<bool>,
    pub locked_until: Option<DateTime<Utc>>,
    pub at: DateTime<Utc>,
}

#[pathwise_store_macros::capability]
pub trait TutorStore {
    /// Insert or replace a course.
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

    /// A course's content hash, to tell whether a cached copy is current.
    async fn course_hash(&self, id: &str) -> StoreResult<Option<String>> {
        Ok(sqlx::query_scalar("SELECT content_hash FROM courses WHERE id = $1")
            .bind(id)
            .fetch_optional(self.reader())
            .await?)
    }

    /// Every course, by id, without their packs.
    async fn list_courses(&self) -> StoreResult<Vec<CourseRecord>> {
        sqlx::query(&format!("SELECT {COURSE_LISTING_COLUMNS} FROM courses c ORDER BY c.id"))
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

    /// Create a snapshot with the learner's map of the course, in one transaction; false
    /// (and nothing written) if the learner already has one.
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

    /// The node standing for `unit` on a course map.
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

    /// A learner's threads, most recently active first, optionally of one course.
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

    /// A thread's messages after `after` (a seq), oldest first, at most `limit`.
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

    /// Whether an EXAM card in the thread offered this question.
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

    /// Write a step (see [`TutorStep`]); a stale snapshot refuses the whole step with a
    /// conflict and writes nothing, as does a refusal of its response by the mastery rules.
    async fn commit_tutor_step(&self, step: TutorStep<'_>) -> StoreResult<TutorCommit> {
        let mut tx = self.begin_write().await?;
        let mut first_seq = 0;
        if let Some((drill, grade)) = step.graded {
            let done =
                sqlx::query("UPDATE drill_offers SET graded_at = $2, grade = $3 WHERE id = $1 AND graded_at IS NULL")
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
            let sql = format!("SELECT message_count FROM tutor_threads WHERE id = $1 {}", Self::ROW_LOCK);
            let count: Option<i32> = sqlx::query_scalar(&sql).bind(thread.0).fetch_optional(&mut *tx).await?;
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
            Some(r) => Some(Self::step_response(&mut tx, r.learner, r.new, r.decide).await?),
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

    /// A drill offered in this learner's thread, by its id.
    async fn drill_offer(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        id: &str,
    ) -> StoreResult<Option<DrillOfferRecord>> {
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

    /// A thread's turn log, oldest first.
    async fn list_turns(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<TurnRecord>> {
        let total: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM tutor_turns WHERE thread_id = $1 AND learner_id = $2")
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

    /// The statuses of those questions a learner has touched.
    async fn exam_statuses(
        &self,
        learner: LearnerId,
        course: &str,
        questions: &[String],
    ) -> StoreResult<Vec<ExamStatusRecord>> {
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

    /// Record an event and the question's new status, if the status is still at
    /// `status.attempts - 1` events; otherwise refuse with a conflict and write nothing.
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
