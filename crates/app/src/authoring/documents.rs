//! Ingesting a learner's files: each read into chunks (`pathwise-ingest`) and stored with
//! them; ingesting a file of the same name again keeps the chunks it still has (by content
//! hash, so their ids and the citations made to them survive) and replaces the rest. An
//! unchanged file (the same bytes) is not read again.

use super::AuthoringSettings;
use crate::{AppError, AppResult, Clock, ErrorCode, ErrorKind, StoreHandle};
use chrono::{DateTime, Utc};
use pathwise_domain::{LearnerId, SourceChunkId, SourceDocumentId};
use pathwise_ingest::{Extracted, Format, IngestError};
use pathwise_store::AuthoringStore;
use pathwise_store::{SourceChunkRecord, SourceDocumentRecord};
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The longest name a document may have (a path relative to the folder ingested).
pub const MAX_NAME_CHARS: usize = 300;

/// A file ingested, as listed.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SourceDocument {
    pub id: SourceDocumentId,
    /// The file's name as given: ingesting the same name again updates this document.
    pub name: String,
    /// `markdown`, `text`, `html` or `pdf`.
    pub format: String,
    pub title: Option<String>,
    /// A PDF's page count.
    pub pages: Option<i32>,
    pub byte_size: i64,
    pub chunk_count: i32,
    pub ingested_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<SourceDocumentRecord> for SourceDocument {
    fn from(r: SourceDocumentRecord) -> Self {
        SourceDocument {
            id: r.id,
            name: r.name,
            format: r.format,
            title: r.title,
            pages: r.pages,
            byte_size: r.byte_size,
            chunk_count: r.chunk_count,
            ingested_at: r.ingested_at,
            updated_at: r.updated_at,
        }
    }
}

/// A passage of an ingested file, with where it comes from.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SourceChunk {
    pub id: SourceChunkId,
    pub document_id: SourceDocumentId,
    /// Position in the document, from 0.
    pub ordinal: i32,
    /// The headings it sits under, outermost first.
    pub heading_path: Vec<String>,
    /// The page it starts on (PDFs).
    pub page: Option<i32>,
    pub text: String,
    /// File, page and headings, as a reader looks the passage up.
    pub citation: String,
}

impl SourceChunk {
    pub(crate) fn of(record: SourceChunkRecord, document_name: &str) -> Self {
        let page = record.page.and_then(|p| u32::try_from(p).ok());
        SourceChunk {
            citation: pathwise_ingest::citation(document_name, page, &record.heading_path),
            id: record.id,
            document_id: record.document_id,
            ordinal: record.ordinal,
            heading_path: record.heading_path,
            page: record.page,
            text: record.text,
        }
    }
}

/// A document with its chunks in order.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SourceDocumentWithChunks {
    #[serde(flatten)]
    pub document: SourceDocument,
    pub chunks: Vec<SourceChunk>,
}

/// What ingesting one file did.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct IngestedDocument {
    #[serde(flatten)]
    pub document: SourceDocument,
    /// Chunks new to this document.
    pub added: usize,
    /// Chunks it already had, kept with their ids.
    pub kept: usize,
    /// Chunks the file no longer has, removed.
    pub removed: usize,
    /// The file was the same as when it was last ingested, and was not read again.
    pub unchanged: bool,
    /// PDF pages whose text could not be read (the rest of the file was).
    pub unreadable_pages: Vec<u32>,
}

/// A file found under a folder to ingest: its name (relative to the folder's parent, with
/// `/` between parts) and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    pub name: String,
    pub path: PathBuf,
}

/// The files a path names: itself, or every file of a supported format under it (hidden
/// ones left out), in name order. Refused past `max_files`, so that a mistyped path (a home
/// folder) is not read whole.
pub fn files_under(path: &Path, max_files: usize) -> AppResult<Vec<FoundFile>> {
    let metadata = std::fs::metadata(path).map_err(|e| path_error(path, &e))?;
    if !metadata.is_dir() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return Ok(vec![FoundFile { name, path: path.to_path_buf() }]);
    }
    let prefix = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut found = Vec::new();
    let mut folders = vec![(path.to_path_buf(), prefix)];
    while let Some((folder, name)) = folders.pop() {
        let mut entries = std::fs::read_dir(&folder)
            .map_err(|e| path_error(&folder, &e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| path_error(&folder, &e))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if file_name.starts_with('.') {
                continue;
            }
            let entry_name = if name.is_empty() { file_name.clone() } else { format!("{name}/{file_name}") };
            let kind = entry.file_type().map_err(|e| path_error(&entry.path(), &e))?;
            if kind.is_dir() {
                folders.push((entry.path(), entry_name));
            } else if Format::from_file_name(&file_name).is_some() {
                if found.len() == max_files {
                    return Err(AppError::new(
                        ErrorKind::Invalid,
                        ErrorCode::TooManyFiles,
                        format!(
                            "{} holds more than {max_files} files of a supported format; ingest its folders one at a time",
                            path.display()
                        ),
                    ));
                }
                found.push(FoundFile { name: entry_name, path: entry.path() });
            }
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

fn path_error(path: &Path, error: &std::io::Error) -> AppError {
    let kind = if error.kind() == std::io::ErrorKind::NotFound { ErrorKind::NotFound } else { ErrorKind::Invalid };
    AppError::new(kind, ErrorCode::UnreadablePath, format!("{}: {error}", path.display()))
        .with_details(json!({ "path": path.display().to_string() }))
}

/// A refusal of a file as a client error naming the file and the reason.
fn ingest_error(error: IngestError) -> AppError {
    let kind = match error {
        IngestError::TooLarge { .. } => ErrorKind::TooLarge,
        _ => ErrorKind::Invalid,
    };
    let file = error.file().to_string();
    AppError::new(kind, error.code(), error.to_string()).with_details(json!({ "file": file }))
}

/// A document's name, trimmed: not blank, not too long, no control characters.
fn document_name(name: &str) -> AppResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(AppError::invalid("name", "a document needs a name (its file name, e.g. notes.md)"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(AppError::invalid("name", format!("at most {MAX_NAME_CHARS} characters")));
    }
    if name.chars().any(char::is_control) {
        return Err(AppError::invalid("name", "a name has no control characters"));
    }
    Ok(name.to_string())
}

/// A learner's own documents, ingested into chunks that remember where they came from: a
/// service of its own over the authoring store, with what ingestion may read.
#[derive(Clone)]
pub struct Documents<S = pathwise_store::AnyStore> {
    store: S,
    clock: Arc<dyn Clock>,
    settings: Arc<AuthoringSettings>,
}

impl<S: StoreHandle> Documents<S> {
    pub fn new(store: S, clock: Arc<dyn Clock>, settings: AuthoringSettings) -> Self {
        Documents { store, clock, settings: Arc::new(settings) }
    }

    /// What ingestion may read, and how much.
    pub fn settings(&self) -> &AuthoringSettings {
        &self.settings
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl<S: StoreHandle + AuthoringStore> Documents<S> {
    /// Read one file (its name picks the format) into chunks and store them as the learner's
    /// document of that name, keeping the chunks an earlier version already had.
    pub async fn ingest(&self, learner: LearnerId, name: &str, bytes: Vec<u8>) -> AppResult<IngestedDocument> {
        let prepared = self.prepare(learner, name, bytes).await?;
        self.store_prepared(learner, prepared).await
    }

    async fn store_prepared(&self, learner: LearnerId, prepared: Prepared) -> AppResult<IngestedDocument> {
        match prepared {
            Prepared::Unchanged(document) => Ok(document),
            Prepared::Read { name, file_hash, byte_size, extracted } => {
                self.store_extracted(learner, name, file_hash, byte_size, extracted).await
            }
        }
    }

    async fn store_extracted(
        &self,
        learner: LearnerId,
        name: String,
        file_hash: String,
        byte_size: usize,
        extracted: Extracted,
    ) -> AppResult<IngestedDocument> {
        let now = self.now();
        let document_id = SourceDocumentId(crate::new_id());
        // A passage repeated under the same headings is one passage to cite.
        let mut seen = HashSet::new();
        let chunks: Vec<SourceChunkRecord> = extracted
            .chunks
            .into_iter()
            .filter(|c| seen.insert(c.content_hash.clone()))
            .enumerate()
            .map(|(ordinal, c)| SourceChunkRecord {
                id: SourceChunkId(crate::new_id()),
                document_id,
                ordinal: ordinal as i32,
                content_hash: c.content_hash,
                heading_path: c.heading_path,
                page: c.page.map(|p| p as i32),
                text: c.text,
            })
            .collect();
        let record = SourceDocumentRecord {
            id: document_id,
            owner_id: learner,
            name,
            format: extracted.format.name().to_string(),
            title: extracted.title,
            pages: extracted.pages.map(|p| p as i32),
            byte_size: byte_size as i64,
            file_hash,
            chunk_count: chunks.len() as i32,
            ingested_at: now,
            updated_at: now,
        };
        let (stored, sync) = self.store.put_source_document(&record, &chunks).await?;
        Ok(IngestedDocument {
            document: stored.into(),
            added: sync.added,
            kept: sync.kept,
            removed: sync.removed,
            unchanged: false,
            unreadable_pages: extracted.unreadable_pages,
        })
    }

    /// Ingest a file or folder on the server's machine, under the folder this server ingests
    /// from (`ingest_dir`) and nowhere else; `progress` hears of each file before it is read.
    pub async fn ingest_path(
        &self,
        learner: LearnerId,
        path: &Path,
        progress: &(dyn Fn(usize, usize, &str) + Send + Sync),
    ) -> AppResult<Vec<IngestedDocument>> {
        let Some(root) = &self.settings.ingest_dir else {
            return Err(AppError::new(
                ErrorKind::Forbidden,
                ErrorCode::IngestPathDisabled,
                "this server ingests no files by path: its operator sets ingest_dir (PATHWISE_INGEST_DIR) to the \
                 folder it may read; or upload the file, or send its text",
            ));
        };
        let root = root.canonicalize().map_err(|e| path_error(root, &e))?;
        let asked = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
        let resolved = asked.canonicalize().map_err(|e| path_error(&asked, &e))?;
        if !resolved.starts_with(&root) {
            return Err(AppError::new(
                ErrorKind::Forbidden,
                ErrorCode::OutsideIngestDir,
                format!("{} is outside the folder this server ingests from ({})", path.display(), root.display()),
            )
            .with_details(json!({ "path": path.display().to_string(), "ingest_dir": root.display().to_string() })));
        }
        let files = files_under(&resolved, self.settings.max_files)?;
        self.ingest_files(learner, &files, progress).await
    }

    /// Ingest files the caller found (`files_under`), all or none: every file is read and
    /// checked before any is stored, so a folder with one bad file stores nothing and the
    /// error names that file. `progress` hears of each file before it is read, with how many
    /// are done and how many there are, and once more at the end.
    pub async fn ingest_files(
        &self,
        learner: LearnerId,
        files: &[FoundFile],
        progress: &(dyn Fn(usize, usize, &str) + Send + Sync),
    ) -> AppResult<Vec<IngestedDocument>> {
        if files.is_empty() {
            return Err(AppError::new(
                ErrorKind::Invalid,
                ErrorCode::NoDocuments,
                "no Markdown (.md), plain text (.txt), HTML (.html) or PDF (.pdf) files to ingest",
            ));
        }
        let mut read = Vec::with_capacity(files.len());
        for (done, file) in files.iter().enumerate() {
            progress(done, files.len(), &file.name);
            let size = std::fs::metadata(&file.path).map_err(|e| path_error(&file.path, &e))?.len();
            if size > self.settings.limits.max_bytes as u64 {
                return Err(ingest_error(IngestError::TooLarge {
                    file: file.name.clone(),
                    size: size as usize,
                    limit: self.settings.limits.max_bytes,
                }));
            }
            let bytes = std::fs::read(&file.path).map_err(|e| path_error(&file.path, &e))?;
            read.push(self.prepare(learner, &file.name, bytes).await?);
        }
        progress(files.len(), files.len(), "");
        let mut ingested = Vec::with_capacity(read.len());
        for prepared in read {
            ingested.push(self.store_prepared(learner, prepared).await?);
        }
        Ok(ingested)
    }

    /// A file read and checked, not yet stored.
    async fn prepare(&self, learner: LearnerId, name: &str, bytes: Vec<u8>) -> AppResult<Prepared> {
        let name = document_name(name)?;
        let file_hash = hex::encode(Sha256::digest(&bytes));
        if let Some(stored) =
            self.store.source_document_by_name(learner, &name).await?.filter(|d| d.file_hash == file_hash)
        {
            let kept = stored.chunk_count as usize;
            return Ok(Prepared::Unchanged(IngestedDocument {
                document: stored.into(),
                added: 0,
                kept,
                removed: 0,
                unchanged: true,
                unreadable_pages: Vec::new(),
            }));
        }
        let limits = self.settings.limits;
        let byte_size = bytes.len();
        let extracted = {
            let name = name.clone();
            tokio::task::spawn_blocking(move || pathwise_ingest::extract(&name, &bytes, &limits))
                .await
                .map_err(|e| AppError::internal(format!("reading a document: {e}")))?
                .map_err(ingest_error)?
        };
        Ok(Prepared::Read { name, file_hash, byte_size, extracted })
    }

    /// The learner's documents, by name.
    pub async fn list(&self, learner: LearnerId) -> AppResult<Vec<SourceDocument>> {
        Ok(self.store.list_source_documents(learner).await?.into_iter().map(Into::into).collect())
    }

    /// One of the learner's documents with its chunks.
    pub async fn get(&self, learner: LearnerId, id: SourceDocumentId) -> AppResult<SourceDocumentWithChunks> {
        let document =
            self.store.source_document(learner, id).await?.ok_or_else(|| AppError::not_found("document", id))?;
        let chunks = self.store.source_chunks(learner, id).await?;
        let chunks = chunks.into_iter().map(|c| SourceChunk::of(c, &document.name)).collect();
        Ok(SourceDocumentWithChunks { document: document.into(), chunks })
    }

    /// Remove one of the learner's documents with its chunks.
    pub async fn delete(&self, learner: LearnerId, id: SourceDocumentId) -> AppResult<()> {
        if self.store.delete_source_document(learner, id).await? {
            Ok(())
        } else {
            Err(AppError::not_found("document", id))
        }
    }
}

enum Prepared {
    Unchanged(IngestedDocument),
    Read { name: String, file_hash: String, byte_size: usize, extracted: Extracted },
}
