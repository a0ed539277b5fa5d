//! What the policy tutor keeps: courses (checked packs, whole), each learner's snapshot per
//! course (compare-and-set on `version`) with the map its evidence lands on, tutor threads
//! with their timeline and turn log, and the built-in exam service's statuses and events.
//! A turn's snapshot, messages and log are written in one transaction.

use crate::{Page, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::model::{MapChanges, MindMap};
use pathwise_domain::{LearnerId, MindMapId, NodeId, ThreadId, TurnId};
use serde_json::Value;
use std::future::Future;
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

pub trait TutorStore {
    /// Insert or replace a course.
    fn put_course(&self, course: &CourseRecord) -> impl Future<Output = StoreResult<()>> + Send;
    fn get_course(&self, id: &str) -> impl Future<Output = StoreResult<Option<CourseRecord>>> + Send;
    /// A course's content hash, to tell whether a cached copy is current.
    fn course_hash(&self, id: &str) -> impl Future<Output = StoreResult<Option<String>>> + Send;
    /// Every course, by id, without their packs.
    fn list_courses(&self) -> impl Future<Output = StoreResult<Vec<CourseRecord>>> + Send;

    fn get_tutor_snapshot(
        &self,
        learner: LearnerId,
        course: &str,
    ) -> impl Future<Output = StoreResult<Option<SnapshotRecord>>> + Send;
    /// Create a snapshot with the learner's map of the course, in one transaction; false
    /// (and nothing written) if the learner already has one.
    fn insert_tutor_snapshot(
        &self,
        snapshot: &SnapshotRecord,
        map: Option<&CourseMap>,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
    /// The node standing for `unit` on a course map.
    fn course_unit_node(
        &self,
        learner: LearnerId,
        map: MindMapId,
        unit: &str,
    ) -> impl Future<Output = StoreResult<Option<NodeId>>> + Send;

    fn insert_thread(&self, thread: &ThreadRecord) -> impl Future<Output = StoreResult<()>> + Send;
    fn get_thread(
        &self,
        learner: LearnerId,
        id: ThreadId,
    ) -> impl Future<Output = StoreResult<Option<ThreadRecord>>> + Send;
    /// A learner's threads, most recently active first, optionally of one course.
    fn list_threads(
        &self,
        learner: LearnerId,
        course: Option<&str>,
        offset: i64,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Page<ThreadRecord>>> + Send;
    /// A thread's messages after `after` (a seq), oldest first, at most `limit`.
    fn thread_messages(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        after: i64,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<TutorMessageRecord>>> + Send;
    /// Whether an EXAM card in the thread offered this question.
    fn thread_offered_question(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        question: &str,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
    /// Write a step (see [`TutorStep`]); a stale snapshot refuses the whole step with a
    /// conflict and writes nothing, as does a refusal of its response by the mastery rules.
    fn commit_tutor_step(&self, step: TutorStep<'_>) -> impl Future<Output = StoreResult<TutorCommit>> + Send;
    /// A drill offered in this learner's thread, by its id.
    fn drill_offer(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<DrillOfferRecord>>> + Send;
    /// A thread's turn log, oldest first.
    fn list_turns(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        offset: i64,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Page<TurnRecord>>> + Send;

    /// The statuses of those questions a learner has touched.
    fn exam_statuses(
        &self,
        learner: LearnerId,
        course: &str,
        questions: &[String],
    ) -> impl Future<Output = StoreResult<Vec<ExamStatusRecord>>> + Send;
    /// Record an event and the question's new status, if the status is still at
    /// `status.attempts - 1` events; otherwise refuse with a conflict and write nothing.
    fn record_exam_event(
        &self,
        event: &ExamEventRecord,
        status: &ExamStatusRecord,
    ) -> impl Future<Output = StoreResult<()>> + Send;
}
