//! What authoring keeps: the files a learner ingested, split into chunks that a draft course
//! cites; the drafts themselves (compare-and-set on `version`); and who may see a course a
//! learner published. Every read and write is scoped to the owning learner: another
//! learner's material is not found, never refused by name.

use crate::{CourseRecord, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::{CourseDraftId, LearnerId, SourceChunkId, SourceDocumentId};
use serde_json::Value;

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

#[pathwise_store_macros::capability]
pub trait AuthoringStore: Send + Sync {
    /// Insert or update the owner's document of `document.name`, with exactly `chunks`, in one
    /// transaction. An existing document keeps its id and `ingested_at` (the rest is taken
    /// from `document`); chunks are matched to the stored ones by `content_hash`, and are
    /// stored under the document's stored id whatever their `document_id`. Two chunks with
    /// one content hash are refused (`Rejected`, field `chunks`), and nothing is written.
    /// Returns the document as stored and what happened to its chunks.
    async fn put_source_document(
        &self,
        document: &SourceDocumentRecord,
        chunks: &[SourceChunkRecord],
    ) -> StoreResult<(SourceDocumentRecord, ChunkSync)> {
        if let Some(hash) = repeated_hash(chunks) {
            return Err(DomainError::invalid(
                "chunks",
                format!("two chunks have the content hash {hash}; a document's chunks are told apart by it"),
            )
            .into());
        }
        let mut tx = self.begin_write().await?;
        // An upsert rather than a look-up and a write: two ingestions of one new name
        // at once meet here, and the second updates what the first inserted. On
        // PostgreSQL the document's row stays locked to the end, so that the two
        // never sync its chunks at the same time.
        let stored = sqlx::query(
            "INSERT INTO source_documents (id, owner_id, name, format, title, pages, byte_size, file_hash, \
             chunk_count, ingested_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
             ON CONFLICT (owner_id, name) DO UPDATE SET format = excluded.format, title = excluded.title, \
             pages = excluded.pages, byte_size = excluded.byte_size, file_hash = excluded.file_hash, \
             chunk_count = excluded.chunk_count, updated_at = excluded.updated_at \
             RETURNING id, ingested_at",
        )
        .bind(document.id.0)
        .bind(document.owner_id.0)
        .bind(&document.name)
        .bind(&document.format)
        .bind(&document.title)
        .bind(document.pages)
        .bind(document.byte_size)
        .bind(&document.file_hash)
        .bind(document.chunk_count)
        .bind(Ts(document.ingested_at))
        .bind(Ts(document.updated_at))
        .fetch_one(&mut *tx)
        .await?;
        let stored = SourceDocumentRecord {
            id: SourceDocumentId(stored.try_get("id")?),
            ingested_at: stored.try_get::<Ts, _>("ingested_at")?.0,
            ..document.clone()
        };
        let sync = sync_chunks(&mut tx, stored.id, chunks).await?;
        tx.commit().await?;
        Ok((stored, sync))
    }

    async fn source_document(
        &self,
        owner: LearnerId,
        id: SourceDocumentId,
    ) -> StoreResult<Option<SourceDocumentRecord>> {
        let sql = format!("SELECT {DOCUMENT_COLUMNS} FROM source_documents d WHERE d.id = $1 AND d.owner_id = $2");
        sqlx::query(&sql)
            .bind(id.0)
            .bind(owner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(document_from_row)
            .transpose()
    }

    async fn source_document_by_name(&self, owner: LearnerId, name: &str) -> StoreResult<Option<SourceDocumentRecord>> {
        let sql = format!("SELECT {DOCUMENT_COLUMNS} FROM source_documents d WHERE d.owner_id = $1 AND d.name = $2");
        sqlx::query(&sql)
            .bind(owner.0)
            .bind(name)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(document_from_row)
            .transpose()
    }

    /// The owner's documents, by name.
    async fn list_source_documents(&self, owner: LearnerId) -> StoreResult<Vec<SourceDocumentRecord>> {
        let sql = format!("SELECT {DOCUMENT_COLUMNS} FROM source_documents d WHERE d.owner_id = $1 ORDER BY d.name");
        sqlx::query(&sql).bind(owner.0).fetch_all(self.reader()).await?.iter().map(document_from_row).collect()
    }

    /// A document's chunks in order; empty when it is not the owner's.
    async fn source_chunks(&self, owner: LearnerId, document: SourceDocumentId) -> StoreResult<Vec<SourceChunkRecord>> {
        let sql = format!(
            "SELECT {CHUNK_COLUMNS} FROM source_chunks c JOIN source_documents d ON d.id = c.document_id \
             WHERE c.document_id = $1 AND d.owner_id = $2 ORDER BY c.ordinal, c.id"
        );
        sqlx::query(&sql)
            .bind(document.0)
            .bind(owner.0)
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(chunk_from_row)
            .collect()
    }

    /// Those of `ids` that are chunks of the owner's documents, in no particular order.
    async fn source_chunks_by_id(
        &self,
        owner: LearnerId,
        ids: &[SourceChunkId],
    ) -> StoreResult<Vec<SourceChunkRecord>> {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut found = Vec::with_capacity(ids.len());
        for batch in ids.chunks(ROWS_PER_STATEMENT) {
            let mut query = QueryBuilder::<Db>::new(format!(
                "SELECT {CHUNK_COLUMNS} FROM source_chunks c JOIN source_documents d ON d.id = c.document_id \
                 WHERE d.owner_id = "
            ));
            query.push_bind(owner.0).push(" AND c.id IN (");
            let mut list = query.separated(", ");
            for id in batch {
                list.push_bind(id.0);
            }
            query.push(")");
            for row in query.build().persistent(false).fetch_all(self.reader()).await? {
                found.push(chunk_from_row(&row)?);
            }
        }
        Ok(found)
    }

    /// Whether there was such a document of the owner's (its chunks go with it).
    async fn delete_source_document(&self, owner: LearnerId, id: SourceDocumentId) -> StoreResult<bool> {
        let done = sqlx::query("DELETE FROM source_documents WHERE id = $1 AND owner_id = $2")
            .bind(id.0)
            .bind(owner.0)
            .execute(self.writer())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn insert_course_draft(&self, draft: &CourseDraftRecord) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO course_drafts (id, owner_id, title, stage, version, created_at, updated_at, draft) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(draft.id.0)
        .bind(draft.owner_id.0)
        .bind(&draft.title)
        .bind(&draft.stage)
        .bind(draft.version)
        .bind(Ts(draft.created_at))
        .bind(Ts(draft.updated_at))
        .bind(Json(&draft.draft))
        .execute(self.writer())
        .await?;
        Ok(())
    }

    async fn course_draft(&self, owner: LearnerId, id: CourseDraftId) -> StoreResult<Option<CourseDraftRecord>> {
        let sql = format!("SELECT {DRAFT_COLUMNS} FROM course_drafts r WHERE r.id = $1 AND r.owner_id = $2");
        sqlx::query(&sql)
            .bind(id.0)
            .bind(owner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(draft_from_row)
            .transpose()
    }

    /// The owner's drafts, most recently updated first.
    async fn list_course_drafts(&self, owner: LearnerId) -> StoreResult<Vec<CourseDraftRecord>> {
        let sql = format!(
            "SELECT {DRAFT_COLUMNS} FROM course_drafts r WHERE r.owner_id = $1 ORDER BY r.updated_at DESC, r.id DESC"
        );
        sqlx::query(&sql).bind(owner.0).fetch_all(self.reader()).await?.iter().map(draft_from_row).collect()
    }

    /// Replace the draft (title, stage, draft, updated_at, and version = `draft.version`) if
    /// its stored version is `expected_version`; false (nothing written) otherwise, or when it
    /// is not the owner's.
    async fn update_course_draft(&self, draft: &CourseDraftRecord, expected_version: i64) -> StoreResult<bool> {
        let done = sqlx::query(
            "UPDATE course_drafts SET title = $3, stage = $4, draft = $5, updated_at = $6, version = $7 \
             WHERE id = $1 AND owner_id = $2 AND version = $8",
        )
        .bind(draft.id.0)
        .bind(draft.owner_id.0)
        .bind(&draft.title)
        .bind(&draft.stage)
        .bind(Json(&draft.draft))
        .bind(Ts(draft.updated_at))
        .bind(draft.version)
        .bind(expected_version)
        .execute(self.writer())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn delete_course_draft(&self, owner: LearnerId, id: CourseDraftId) -> StoreResult<bool> {
        let done = sqlx::query("DELETE FROM course_drafts WHERE id = $1 AND owner_id = $2")
            .bind(id.0)
            .bind(owner.0)
            .execute(self.writer())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Store a course `owner` publishes (its `owner_id` is theirs, whatever `course` says):
    /// inserted, or replacing the stored one when that is the same owner's. False, and
    /// nothing written, when a course of that id is someone else's: another learner's, the
    /// operator's or a shipped one.
    async fn publish_course(&self, course: &crate::CourseRecord, owner: LearnerId) -> StoreResult<bool> {
        // The update applies only where the stored course is the same owner's; a course
        // without an owner (the operator's, a shipped one) is never the learner's.
        let done = sqlx::query(
            "INSERT INTO courses (id, title, pack, content_hash, builtin, unit_count, question_count, \
             imported_at, owner_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (id) DO UPDATE SET title = excluded.title, pack = excluded.pack, \
             content_hash = excluded.content_hash, unit_count = excluded.unit_count, \
             question_count = excluded.question_count, imported_at = excluded.imported_at \
             WHERE courses.owner_id = excluded.owner_id",
        )
        .bind(&course.id)
        .bind(&course.title)
        .bind(Json(&course.pack))
        .bind(&course.content_hash)
        .bind(false)
        .bind(course.unit_count)
        .bind(course.question_count)
        .bind(Ts(course.imported_at))
        .bind(owner.0)
        .execute(self.writer())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Let `learner` see the course (idempotent: the first sharing's time is kept);
    /// `NotFound` when there is no such course or learner.
    async fn share_course(&self, course_id: &str, learner: LearnerId, at: DateTime<Utc>) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO course_shares (course_id, learner_id, shared_at) VALUES ($1, $2, $3) \
             ON CONFLICT (course_id, learner_id) DO NOTHING",
        )
        .bind(course_id)
        .bind(learner.0)
        .bind(Ts(at))
        .execute(self.writer())
        .await
        .map_err(|e| match &e {
            sqlx::Error::Database(db) if db.kind() == sqlx::error::ErrorKind::ForeignKeyViolation => {
                StoreError::NotFound("course or learner")
            }
            _ => StoreError::Database(e),
        })?;
        Ok(())
    }

    /// Whether the course was shared with `learner`.
    async fn unshare_course(&self, course_id: &str, learner: LearnerId) -> StoreResult<bool> {
        let done = sqlx::query("DELETE FROM course_shares WHERE course_id = $1 AND learner_id = $2")
            .bind(course_id)
            .bind(learner.0)
            .execute(self.writer())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The learners a course is shared with.
    async fn course_shares(&self, course_id: &str) -> StoreResult<Vec<LearnerId>> {
        let learners: Vec<uuid::Uuid> = sqlx::query_scalar(
            "SELECT learner_id FROM course_shares WHERE course_id = $1 ORDER BY shared_at, learner_id",
        )
        .bind(course_id)
        .fetch_all(self.reader())
        .await?;
        Ok(learners.into_iter().map(LearnerId).collect())
    }

    /// The courses `learner` may see, by id, without their packs: those without an owner
    /// (the operator's and the shipped ones), the learner's own, and those shared with them.
    async fn list_courses_for(&self, learner: LearnerId) -> StoreResult<Vec<CourseRecord>> {
        // Three lookups rather than one scan with `VISIBLE_COURSE`: SQLite keeps
        // `owner_id` after the pack (a column added later goes last), and reading it
        // from a row walks the pack's overflow pages, so a scan would read every
        // published course whole. Found through `idx_courses_owner`, the owner is
        // read from the index; only the courses shared with the learner are read
        // from their rows.
        let sql = format!(
            "SELECT {COURSE_LISTING_COLUMNS} FROM courses c WHERE c.owner_id IS NULL \
             UNION ALL SELECT {COURSE_LISTING_COLUMNS} FROM courses c WHERE c.owner_id = $1 \
             UNION ALL SELECT {COURSE_LISTING_COLUMNS} FROM course_shares s JOIN courses c ON c.id = s.course_id \
             WHERE s.learner_id = $1 AND c.owner_id IS NOT NULL AND c.owner_id <> $1 \
             ORDER BY id"
        );
        sqlx::query(&sql)
            .bind(learner.0)
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(|row| course_from_row(row, false))
            .collect()
    }

    /// Whether `learner` may see the course (false when there is no such course).
    async fn course_visible_to(&self, course_id: &str, learner: LearnerId) -> StoreResult<bool> {
        let sql = format!("SELECT 1 FROM courses c WHERE c.id = $2 AND {VISIBLE_COURSE}");
        let found: Option<i32> =
            sqlx::query_scalar(&sql).bind(learner.0).bind(course_id).fetch_optional(self.reader()).await?;
        Ok(found.is_some())
    }
}
