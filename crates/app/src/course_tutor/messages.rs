//! Threads and their timeline as clients see them.

use chrono::{DateTime, Utc};
use pathwise_course::TutorCard;
use pathwise_domain::{ThreadId, TurnId};
use pathwise_store::{ThreadRecord, TutorMessageRecord};
use serde::Serialize;

/// `TutorMessage`: one entry of a thread's timeline.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TutorMessage {
    pub id: uuid::Uuid,
    pub thread_id: ThreadId,
    pub seq: i64,
    /// `user` or `assistant`.
    pub role: String,
    pub text: String,
    pub latex: Option<String>,
    pub card: Option<TutorCard>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    pub created_at: DateTime<Utc>,
}

impl TutorMessage {
    pub(crate) fn from_record(thread: ThreadId, record: TutorMessageRecord) -> TutorMessage {
        TutorMessage {
            id: record.id,
            thread_id: thread,
            seq: record.seq,
            role: record.role,
            text: record.text,
            latex: record.latex,
            // A card that no longer reads (an older shape) is shown as text alone.
            card: record.card.and_then(|c| serde_json::from_value(c).ok()),
            turn_id: record.turn_id,
            created_at: record.created_at,
        }
    }
}

/// A new message, before the store numbers it.
pub(crate) fn new_message(
    role: &str,
    text: String,
    latex: Option<String>,
    card: Option<&TutorCard>,
    turn: Option<TurnId>,
    at: DateTime<Utc>,
) -> TutorMessageRecord {
    TutorMessageRecord {
        seq: 0,
        id: uuid::Uuid::now_v7(),
        role: role.to_string(),
        text,
        latex,
        card: card.and_then(|c| serde_json::to_value(c).ok()),
        exam_question_id: card.and_then(|c| c.exam_question_id()).map(str::to_string),
        turn_id: turn,
        created_at: at,
    }
}

/// The messages a step appended, numbered from `first_seq`.
pub(crate) fn appended(thread: ThreadId, first_seq: i64, records: Vec<TutorMessageRecord>) -> Vec<TutorMessage> {
    records
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            r.seq = first_seq + i as i64;
            TutorMessage::from_record(thread, r)
        })
        .collect()
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    pub id: ThreadId,
    pub course_id: String,
    pub title: String,
    pub message_count: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<ThreadRecord> for Thread {
    fn from(r: ThreadRecord) -> Self {
        Thread {
            id: r.id,
            course_id: r.course_id,
            title: r.title,
            message_count: r.message_count,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}
