//! Authoring's row readers and batch writers, which `AuthoringStore`'s bodies
//! (`authoring.rs`) share; stamped into each backend's module next to `shared_store!` and
//! `tutor_store!`, whose imports and course reader they use.

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
        pub(crate) use crate::authoring::{ChunkSync, CourseDraftRecord, SourceChunkRecord, SourceDocumentRecord};
        pub(crate) use crate::sql_authoring::{
            repeated_hash, CHUNK_COLUMNS, DOCUMENT_COLUMNS, DRAFT_COLUMNS, ROWS_PER_STATEMENT, VISIBLE_COURSE,
        };
        pub(crate) use pathwise_domain::{CourseDraftId, SourceChunkId, SourceDocumentId};

        pub(crate) fn document_from_row(row: &DbRow) -> StoreResult<SourceDocumentRecord> {
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

        pub(crate) fn chunk_from_row(row: &DbRow) -> StoreResult<SourceChunkRecord> {
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

        pub(crate) fn draft_from_row(row: &DbRow) -> StoreResult<CourseDraftRecord> {
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
        pub(crate) async fn sync_chunks(
            conn: &mut Conn,
            document: SourceDocumentId,
            chunks: &[SourceChunkRecord],
        ) -> StoreResult<ChunkSync> {
            let stored: Vec<String> =
                sqlx::query_scalar("SELECT content_hash FROM source_chunks WHERE document_id = $1")
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
    };
}

pub(crate) use authoring_store;
