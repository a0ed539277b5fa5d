//! Authoring's SQL, shared by both stores like [`crate::sql`]; expanded next to
//! `shared_store!` and `tutor_store!`, whose imports and course reader it uses. `$db` is the
//! backend's database, for the statements built in batches.

use crate::authoring::SourceChunkRecord;
use std::collections::HashSet;

pub(crate) const DOCUMENT_COLUMNS: &str = "d.id, d.owner_id, d.name, d.format, d.title, d.pages, d.byte_size, \
     d.file_hash, d.chunk_count, d.ingested_at, d.updated_at";
pub(crate) const CHUNK_COLUMNS: &str = "c.id, c.document_id, c.ordinal, c.content_hash, c.heading_path, c.page, c.text";
pub(crate) const DRAFT_COLUMNS: &str =
    "r.id, r.owner_id, r.title, r.stage, r.version, r.created_at, r.updated_at, r.draft";

/// The courses a learner (`$1`) may see, of `courses c`: those without an owner, their own,
/// and those shared with them.
pub(crate) const VISIBLE_COURSE: &str = "(c.owner_id IS NULL OR c.owner_id = $1 OR EXISTS \
     (SELECT 1 FROM course_shares s WHERE s.course_id = c.id AND s.learner_id = $1))";

/// Rows one statement writes or names: a 500-page file's few thousand chunks take a handful
/// of statements, each well under both databases' limits on bound values. Such statements
/// are not kept prepared: each count of rows is a statement of its own, and keeping them
/// would push the store's everyday statements out of each connection's cache.
pub(crate) const ROWS_PER_STATEMENT: usize = 500;

/// The first content hash that two of `chunks` share: what tells a document's chunks apart
/// cannot be stored twice.
pub(crate) fn repeated_hash(chunks: &[SourceChunkRecord]) -> Option<&str> {
    let mut seen = HashSet::with_capacity(chunks.len());
    chunks.iter().map(|c| c.content_hash.as_str()).find(|hash| !seen.insert(*hash))
}

macro_rules! authoring_store {
    ($store:ty, $db:ty) => {
        use crate::authoring::{
            AuthoringStore, ChunkSync, CourseDraftRecord, SourceChunkRecord, SourceDocumentRecord,
        };
        use crate::sql_authoring::{
            repeated_hash, CHUNK_COLUMNS, DOCUMENT_COLUMNS, DRAFT_COLUMNS, ROWS_PER_STATEMENT, VISIBLE_COURSE,
        };
        use pathwise_domain::{CourseDraftId, SourceChunkId, SourceDocumentId};

        fn document_from_row(row: &DbRow) -> StoreResult<SourceDocumentRecord> {
            Ok(SourceDocumentRecord {
                id: SourceDocumentId(row.try_get("id")?),
                owner_id: LearnerId(row.try_get("owner_id")?),
                name: row.try_get("name")?,
                format: row.try_get("format")?,
                title: row.try_get("title")?,
                pages: row.try_get("pages")?,
                byte_size: row.try_get("byte_size")?,
                file_hash: row.try_get("file_hash")?,
                chunk_count: row.try_get("chunk_count")?,
                ingested_at: row.try_get::<Ts, _>("ingested_at")?.0,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        fn chunk_from_row(row: &DbRow) -> StoreResult<SourceChunkRecord> {
            Ok(SourceChunkRecord {
                id: SourceChunkId(row.try_get("id")?),
                document_id: SourceDocumentId(row.try_get("document_id")?),
                ordinal: row.try_get("ordinal")?,
                content_hash: row.try_get("content_hash")?,
                heading_path: row.try_get::<Json<Vec<String>>, _>("heading_path")?.0,
                page: row.try_get("page")?,
                text: row.try_get("text")?,
            })
        }

        fn draft_from_row(row: &DbRow) -> StoreResult<CourseDraftRecord> {
            Ok(CourseDraftRecord {
                id: CourseDraftId(row.try_get("id")?),
                owner_id: LearnerId(row.try_get("owner_id")?),
                title: row.try_get("title")?,
                stage: row.try_get("stage")?,
                version: row.try_get("version")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
                draft: row.try_get::<Json<serde_json::Value>, _>("draft")?.0,
            })
        }

        /// Make the document's stored chunks exactly `chunks`, matched by content hash: the
        /// vanished ones go, the kept ones take their new place (keeping their ids), the
        /// rest are inserted. Deleting first frees nothing the inserts need (their hashes
        /// were not stored), and no constraint covers the ordinals the updates move.
        async fn sync_chunks(
            conn: &mut Conn,
            document: SourceDocumentId,
            chunks: &[SourceChunkRecord],
        ) -> StoreResult<ChunkSync> {
            let stored: Vec<String> = sqlx::query_scalar("SELECT content_hash FROM source_chunks WHERE document_id = $1")
                .bind(document.0)
                .fetch_all(&mut *conn)
                .await?;
            let stored: std::collections::HashSet<&str> = stored.iter().map(String::as_str).collect();
            let wanted: std::collections::HashSet<&str> = chunks.iter().map(|c| c.content_hash.as_str()).collect();
            let vanished: Vec<&str> = stored.iter().copied().filter(|hash| !wanted.contains(hash)).collect();
            let (kept, added): (Vec<&SourceChunkRecord>, Vec<&SourceChunkRecord>) =
                chunks.iter().partition(|c| stored.contains(c.content_hash.as_str()));

            for batch in vanished.chunks(ROWS_PER_STATEMENT) {
                let mut delete = QueryBuilder::<$db>::new("DELETE FROM source_chunks WHERE document_id = ");
                delete.push_bind(document.0).push(" AND content_hash IN (");
                let mut hashes = delete.separated(", ");
                for hash in batch {
                    hashes.push_bind(*hash);
                }
                delete.push(")");
                delete.build().persistent(false).execute(&mut *conn).await?;
            }
            for batch in kept.chunks(ROWS_PER_STATEMENT) {
                // One statement per batch rather than per chunk: PostgreSQL would otherwise
                // take a round trip for each of a long file's chunks.
                let mut update =
                    QueryBuilder::<$db>::new("WITH kept (content_hash, ordinal, page, heading_path, body) AS (");
                update.push_values(batch, |mut row, chunk| {
                    row.push_bind(&chunk.content_hash)
                        .push_bind(chunk.ordinal)
                        .push_bind(chunk.page)
                        .push_bind(Json(&chunk.heading_path))
                        .push_bind(&chunk.text);
                });
                update.push(
                    ") UPDATE source_chunks SET ordinal = kept.ordinal, page = kept.page, \
                     heading_path = kept.heading_path, text = kept.body FROM kept \
                     WHERE source_chunks.content_hash = kept.content_hash AND source_chunks.document_id = ",
                );
                update.push_bind(document.0);
                update.build().persistent(false).execute(&mut *conn).await?;
            }
            for batch in added.chunks(ROWS_PER_STATEMENT) {
                let mut insert = QueryBuilder::<$db>::new(
                    "INSERT INTO source_chunks (id, document_id, ordinal, content_hash, heading_path, page, text) ",
                );
                insert.push_values(batch, |mut row, chunk| {
                    row.push_bind(chunk.id.0)
                        .push_bind(document.0)
                        .push_bind(chunk.ordinal)
                        .push_bind(&chunk.content_hash)
                        .push_bind(Json(&chunk.heading_path))
                        .push_bind(chunk.page)
                        .push_bind(&chunk.text);
                });
                insert.build().persistent(false).execute(&mut *conn).await?;
            }
            Ok(ChunkSync { added: added.len(), kept: kept.len(), removed: vanished.len() })
        }

        impl AuthoringStore for $store {
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

            async fn source_document_by_name(
                &self,
                owner: LearnerId,
                name: &str,
            ) -> StoreResult<Option<SourceDocumentRecord>> {
                let sql =
                    format!("SELECT {DOCUMENT_COLUMNS} FROM source_documents d WHERE d.owner_id = $1 AND d.name = $2");
                sqlx::query(&sql)
                    .bind(owner.0)
                    .bind(name)
                    .fetch_optional(self.reader())
                    .await?
                    .as_ref()
                    .map(document_from_row)
                    .transpose()
            }

            async fn list_source_documents(&self, owner: LearnerId) -> StoreResult<Vec<SourceDocumentRecord>> {
                let sql =
                    format!("SELECT {DOCUMENT_COLUMNS} FROM source_documents d WHERE d.owner_id = $1 ORDER BY d.name");
                sqlx::query(&sql).bind(owner.0).fetch_all(self.reader()).await?.iter().map(document_from_row).collect()
            }

            async fn source_chunks(
                &self,
                owner: LearnerId,
                document: SourceDocumentId,
            ) -> StoreResult<Vec<SourceChunkRecord>> {
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
                    let mut query = QueryBuilder::<$db>::new(format!(
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

            async fn list_course_drafts(&self, owner: LearnerId) -> StoreResult<Vec<CourseDraftRecord>> {
                let sql = format!(
                    "SELECT {DRAFT_COLUMNS} FROM course_drafts r WHERE r.owner_id = $1 ORDER BY r.updated_at DESC, r.id DESC"
                );
                sqlx::query(&sql).bind(owner.0).fetch_all(self.reader()).await?.iter().map(draft_from_row).collect()
            }

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

            async fn unshare_course(&self, course_id: &str, learner: LearnerId) -> StoreResult<bool> {
                let done = sqlx::query("DELETE FROM course_shares WHERE course_id = $1 AND learner_id = $2")
                    .bind(course_id)
                    .bind(learner.0)
                    .execute(self.writer())
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn course_shares(&self, course_id: &str) -> StoreResult<Vec<LearnerId>> {
                let learners: Vec<uuid::Uuid> = sqlx::query_scalar(
                    "SELECT learner_id FROM course_shares WHERE course_id = $1 ORDER BY shared_at, learner_id",
                )
                .bind(course_id)
                .fetch_all(self.reader())
                .await?;
                Ok(learners.into_iter().map(LearnerId).collect())
            }

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

            async fn course_visible_to(&self, course_id: &str, learner: LearnerId) -> StoreResult<bool> {
                let sql = format!("SELECT 1 FROM courses c WHERE c.id = $2 AND {VISIBLE_COURSE}");
                let found: Option<i32> =
                    sqlx::query_scalar(&sql).bind(learner.0).bind(course_id).fetch_optional(self.reader()).await?;
                Ok(found.is_some())
            }
        }
    };
}

pub(crate) use authoring_store;
