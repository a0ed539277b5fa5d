//! What authoring keeps: the files a learner ingested, split into chunks that a draft course
//! cites; the drafts themselves (compare-and-set on `version`); and who may see a course a
//! learner published. Every read and write is scoped to the owning learner: another
//! learner's material is not found, never refused by name.

use crate::StoreResult;
use chrono::{DateTime, Utc};
use pathwise_domain::{CourseDraftId, LearnerId, SourceChunkId, SourceDocumentId};
use serde_json::Value;
use std::future::Future;

#[derive(Debug, Clone, PartialEq)]
pub struct SourceDocumentRecord {
    pub id: SourceDocumentId,
    pub owner_id: LearnerId,
    /// The file's name as given, unique per owner: ingesting the same name again updates it.
    pub name: String,
    /// `markdown`, `text`, `html` or `pdf`.
    pub format: String,
    pub title: Option<String>,
    pub pages: Option<i32>,
    pub byte_size: i64,
    /// SHA-256 of the file's bytes, lowercase hex.
    pub file_hash: String,
    pub chunk_count: i32,
    pub ingested_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceChunkRecord {
    pub id: SourceChunkId,
    pub document_id: SourceDocumentId,
    /// Position in the document, from 0.
    pub ordinal: i32,
    /// Of the heading path and text: the chunk's identity across re-ingestion.
    pub content_hash: String,
    pub heading_path: Vec<String>,
    pub page: Option<i32>,
    pub text: String,
}

/// What writing a document's chunks did to those stored before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChunkSync {
    /// Chunks whose content hash was not stored: inserted with the ids given.
    pub added: usize,
    /// Chunks already stored with the same content hash: kept with their stored id (their
    /// ordinal and page follow the new file).
    pub kept: usize,
    /// Stored chunks the new file no longer has: deleted.
    pub removed: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CourseDraftRecord {
    pub id: CourseDraftId,
    pub owner_id: LearnerId,
    pub title: String,
    /// `outline` or `units`.
    pub stage: String,
    /// Starts at 0; each update that succeeds adds one.
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The draft as JSON (the application's `CourseDraft`).
    pub draft: Value,
}

pub trait AuthoringStore: Send + Sync {
    /// Insert or update the owner's document of `document.name`, with exactly `chunks`, in one
    /// transaction. An existing document keeps its id and `ingested_at` (the rest is taken
    /// from `document`); chunks are matched to the stored ones by `content_hash`, and are
    /// stored under the document's stored id whatever their `document_id`. Two chunks with
    /// one content hash are refused (`Rejected`, field `chunks`), and nothing is written.
    /// Returns the document as stored and what happened to its chunks.
    fn put_source_document(
        &self,
        document: &SourceDocumentRecord,
        chunks: &[SourceChunkRecord],
    ) -> impl Future<Output = StoreResult<(SourceDocumentRecord, ChunkSync)>> + Send;
    fn source_document(
        &self,
        owner: LearnerId,
        id: SourceDocumentId,
    ) -> impl Future<Output = StoreResult<Option<SourceDocumentRecord>>> + Send;
    fn source_document_by_name(
        &self,
        owner: LearnerId,
        name: &str,
    ) -> impl Future<Output = StoreResult<Option<SourceDocumentRecord>>> + Send;
    /// The owner's documents, by name.
    fn list_source_documents(
        &self,
        owner: LearnerId,
    ) -> impl Future<Output = StoreResult<Vec<SourceDocumentRecord>>> + Send;
    /// A document's chunks in order; empty when it is not the owner's.
    fn source_chunks(
        &self,
        owner: LearnerId,
        document: SourceDocumentId,
    ) -> impl Future<Output = StoreResult<Vec<SourceChunkRecord>>> + Send;
    /// Those of `ids` that are chunks of the owner's documents, in no particular order.
    fn source_chunks_by_id(
        &self,
        owner: LearnerId,
        ids: &[SourceChunkId],
    ) -> impl Future<Output = StoreResult<Vec<SourceChunkRecord>>> + Send;
    /// Whether there was such a document of the owner's (its chunks go with it).
    fn delete_source_document(
        &self,
        owner: LearnerId,
        id: SourceDocumentId,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    fn insert_course_draft(&self, draft: &CourseDraftRecord) -> impl Future<Output = StoreResult<()>> + Send;
    fn course_draft(
        &self,
        owner: LearnerId,
        id: CourseDraftId,
    ) -> impl Future<Output = StoreResult<Option<CourseDraftRecord>>> + Send;
    /// The owner's drafts, most recently updated first.
    fn list_course_drafts(&self, owner: LearnerId) -> impl Future<Output = StoreResult<Vec<CourseDraftRecord>>> + Send;
    /// Replace the draft (title, stage, draft, updated_at, and version = `draft.version`) if
    /// its stored version is `expected_version`; false (nothing written) otherwise, or when it
    /// is not the owner's.
    fn update_course_draft(
        &self,
        draft: &CourseDraftRecord,
        expected_version: i64,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
    fn delete_course_draft(
        &self,
        owner: LearnerId,
        id: CourseDraftId,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    /// Store a course `owner` publishes (its `owner_id` is theirs, whatever `course` says):
    /// inserted, or replacing the stored one when that is the same owner's. False, and
    /// nothing written, when a course of that id is someone else's: another learner's, the
    /// operator's or a shipped one.
    fn publish_course(
        &self,
        course: &crate::CourseRecord,
        owner: LearnerId,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    /// Let `learner` see the course (idempotent: the first sharing's time is kept);
    /// `NotFound` when there is no such course or learner.
    fn share_course(
        &self,
        course_id: &str,
        learner: LearnerId,
        at: DateTime<Utc>,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Whether the course was shared with `learner`.
    fn unshare_course(&self, course_id: &str, learner: LearnerId) -> impl Future<Output = StoreResult<bool>> + Send;
    /// The learners a course is shared with.
    fn course_shares(&self, course_id: &str) -> impl Future<Output = StoreResult<Vec<LearnerId>>> + Send;
    /// The courses `learner` may see, by id, without their packs: those without an owner
    /// (the operator's and the shipped ones), the learner's own, and those shared with them.
    fn list_courses_for(
        &self,
        learner: LearnerId,
    ) -> impl Future<Output = StoreResult<Vec<crate::CourseRecord>>> + Send;
    /// Whether `learner` may see the course (false when there is no such course).
    fn course_visible_to(&self, course_id: &str, learner: LearnerId) -> impl Future<Output = StoreResult<bool>> + Send;
}
