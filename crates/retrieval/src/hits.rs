//! What a query returns, shaped like the metadata of policy-tutor.md PV-AI-004/005 so that the
//! prompt builder can inject hits as they are, and the keys that name documents for embeddings.
//!
//! Every hit carries the `score` it was ranked by, for callers and logs; it is not serialized,
//! because the model's CONTEXT should hold course content, not ranking internals. It is a BM25
//! score, or a reciprocal-rank-fusion score when embeddings took part; 0 means the document
//! matched none of the message's words and was returned only because it passed the filter.

use pathwise_course::{ChunkType, Tier};
use serde::{Deserialize, Serialize};

pub use pathwise_course::SupportType;
use std::fmt;

/// A unit's anchor: the short canonical statement of what the unit is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnchorHit {
    pub unit_id: String,
    pub title: String,
    pub anchor_text: String,
    pub tags: Vec<String>,
    pub misconceptions: Vec<String>,
    #[serde(skip)]
    pub score: f64,
}

/// A piece of teaching content of a unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChunkHit {
    /// The passage's id, when the course gives it one: what a reply cites it by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage_id: Option<String>,
    pub course_id: String,
    pub unit_id: String,
    pub chunk_type: ChunkType,
    pub source_id: String,
    pub section: Option<String>,
    pub text: String,
    #[serde(skip)]
    pub score: f64,
}

/// An exam question the tutor may offer: metadata only. The stem is searched but never returned,
/// and the options, the correct answer and the memo are not in the index at all, so nothing here
/// can leak an answer into the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExamCandidateHit {
    pub course_id: String,
    pub question_id: String,
    pub unit_ids: Vec<String>,
    pub difficulty_tier: Tier,
    pub tags: Vec<String>,
    #[serde(skip)]
    pub score: f64,
}

/// A question's worked memo or its video's transcript, for guiding a learner (policy-tutor.md
/// says: never to reveal answers; that is the prompt's rule, not something the index can check).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SupportHit {
    pub question_id: String,
    pub support_type: SupportType,
    pub text: String,
    #[serde(skip)]
    pub score: f64,
}

/// One document of the index, for attaching embeddings. Its [`Display`](fmt::Display) form
/// (`unit_anchors/ALG-01`, `unit_content_chunks/17`, `exam_candidates/Q1`,
/// `exam_support_chunks/Q1/memo`) is stable, e.g. for caching vectors.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DocKey {
    /// A unit's anchor, by unit id.
    UnitAnchor(String),
    /// A content chunk, by its position in the course's content (chunks have no ids).
    ContentChunk(usize),
    /// An exam question's candidate entry, by question id.
    ExamCandidate(String),
    /// A question's memo or video transcript, by question id.
    ExamSupport(String, SupportType),
}

impl fmt::Display for DocKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocKey::UnitAnchor(unit) => write!(f, "unit_anchors/{unit}"),
            DocKey::ContentChunk(position) => write!(f, "unit_content_chunks/{position}"),
            DocKey::ExamCandidate(question) => write!(f, "exam_candidates/{question}"),
            DocKey::ExamSupport(question, kind) => write!(f, "exam_support_chunks/{question}/{}", kind.name()),
        }
    }
}
