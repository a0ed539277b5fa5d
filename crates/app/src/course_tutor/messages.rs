//! Threads and their timeline as clients see them.

use chrono::{DateTime, Utc};
use pathwise_course::{MasteryTier, Source, TutorCard};
use pathwise_domain::{ThreadId, TurnId};
use pathwise_store::{ThreadRecord, TutorMessageRecord};
use serde::{Deserialize, Serialize};

/// `TutorMessage`: one entry of a thread's timeline.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
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
    /// On the tutor's reply to a graded drill or an exam answer: what it came to, so that a
    /// client can show the card it answers as answered (the nearest earlier card of the same
    /// drill or question).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<CardOutcome>,
    /// On a tutor's explanation or question in a course drafted from someone's material: the
    /// passages it draws on (a concept card lists the same under its key ideas). A drill's or
    /// an exam question's sources are kept in the turn log only, so that the reply does not
    /// point the learner at its answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
}

/// What an answer to a card came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum CardOutcome {
    /// A drill graded: the learner's answer and the verdict.
    #[serde(rename_all = "camelCase")]
    Drill {
        unit_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        drill_id: Option<String>,
        prompt: String,
        question_latex: String,
        answer: String,
        is_correct: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expected_answer: Option<String>,
    },
    /// An exam answer as the exam service graded it (a wrong one locks the question; the
    /// EXAM card carries the lock as it stands now), and the unit's tier when the answer
    /// raised it ("Mastery is now bronze", shown again when the timeline is reloaded).
    #[serde(rename_all = "camelCase")]
    Exam {
        unit_id: String,
        question_id: String,
        selected_index: usize,
        is_correct: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tier_earned: Option<MasteryTier>,
    },
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
            outcome: record.outcome.and_then(|o| serde_json::from_value(o).ok()),
            sources: record.sources.and_then(|s| serde_json::from_value(s).ok()).unwrap_or_default(),
        }
    }
}

/// `record` (the tutor's reply to an answer) carrying what the answer came to.
pub(crate) fn with_outcome(mut record: TutorMessageRecord, outcome: &CardOutcome) -> TutorMessageRecord {
    record.outcome = serde_json::to_value(outcome).ok();
    record
}

/// `record` (a tutor's reply) citing `sources`.
pub(crate) fn with_sources(mut record: TutorMessageRecord, sources: &[Source]) -> TutorMessageRecord {
    record.sources = (!sources.is_empty()).then(|| serde_json::to_value(sources).ok()).flatten();
    record
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
        outcome: None,
        sources: None,
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

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
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
