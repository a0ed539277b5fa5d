//! The policy tutor's row readers and writers, which `TutorStore`'s bodies (`tutor.rs`)
//! share; stamped into each backend's module next to `shared_store!`, whose imports and map
//! writers they use.

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
    ($store:ty) => {
        pub(crate) use crate::sql_tutor::{
            COURSE_LISTING_COLUMNS, THREAD_COLUMNS, TURN_COLUMNS, TUTOR_MESSAGE_COLUMNS,
        };
        pub(crate) use crate::tutor::{
            CourseRecord, DrillOfferRecord, ExamStatusRecord, SnapshotRecord, ThreadRecord, TurnRecord, TutorCommit,
            TutorMessageRecord,
        };
        pub(crate) use pathwise_domain::{ThreadId, TurnId};

        pub(crate) fn conflict(message: String) -> StoreError {
            StoreError::Rejected(DomainError::Conflict { message })
        }

        pub(crate) fn course_from_row(row: &DbRow, with_pack: bool) -> StoreResult<CourseRecord> {
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

        pub(crate) fn tutor_snapshot_from_row(row: &DbRow) -> StoreResult<SnapshotRecord> {
            Ok(SnapshotRecord {
                learner_id: LearnerId(row.try_get("learner_id")?),
                course_id: row.try_get("course_id")?,
                snapshot: row.try_get::<Json<serde_json::Value>, _>("snapshot")?.0,
                version: row.try_get("version")?,
                mind_map_id: row.try_get::<Option<uuid::Uuid>, _>("mind_map_id")?.map(MindMapId),
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        pub(crate) fn thread_from_row(row: &DbRow) -> StoreResult<ThreadRecord> {
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

        pub(crate) fn tutor_message_from_row(row: &DbRow) -> StoreResult<TutorMessageRecord> {
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

        pub(crate) fn turn_from_row(row: &DbRow) -> StoreResult<TurnRecord> {
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

        pub(crate) fn drill_offer_from_row(row: &DbRow) -> StoreResult<DrillOfferRecord> {
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

        pub(crate) fn exam_status_from_row(row: &DbRow) -> StoreResult<ExamStatusRecord> {
            Ok(ExamStatusRecord {
                question_id: row.try_get("question_id")?,
                status: row.try_get("status")?,
                locked_until: row.try_get::<Option<Ts>, _>("locked_until")?.map(|t| t.0),
                attempts: row.try_get("attempts")?,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }
    };
}

pub(crate) use tutor_store;
