//! A learner moved between servers: everything that is theirs as one JSON document, and
//! that document written into another server under the same ids, on either store.
//!
//! The document holds every row of every table that is the learner's
//! (`pathwise_store::learner_rows`), each row an object of its columns: maps, nodes,
//! edges, responses, flows, jobs, snapshots, preferences, FSRS memory, sessions with their
//! events and conversations, tutor snapshots, threads, messages, turns, drill offers, exam
//! attempts, kept replies, study days and calls to the language model. Tokens are in it as
//! their SHA-256 hashes (never the tokens, which no server keeps), so that the learner's
//! tokens go on working on the server the document is imported into; whoever holds the
//! document can let those tokens in wherever they import it, so it is kept like a
//! credential. Courses are shared authored content, not the learner's: the importing server
//! must have the courses the learner's threads and snapshots are about.

use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind, Learner};
use chrono::{DateTime, Utc};
use pathwise_domain::lifecycle::clean_text;
use pathwise_domain::LearnerId;
use pathwise_store::learner_rows::LearnerRows;
use pathwise_store::{LearnerAdminStore, MapStore, TutorStore};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a learner document says it is.
pub const DOCUMENT_FORMAT: &str = "pathwise-learner";
/// The version of the document this server writes and reads: the schema's tables and
/// columns as of this release. A server reads only documents of its own version.
pub const DOCUMENT_VERSION: u32 = 1;

/// Everything about one learner, as one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LearnerDocument {
    /// Always `pathwise-learner`.
    #[schema(pattern = "^pathwise-learner$")]
    pub format: String,
    /// The document's version; this server reads and writes version 1.
    #[schema(minimum = 1, maximum = 1)]
    pub version: u32,
    pub exported_at: DateTime<Utc>,
    pub learner: ExportedLearner,
    /// Every table holding the learner's rows, by name, each an array of rows; a row is an
    /// object of the table's columns (ids as UUIDs, times in RFC 3339 with microseconds,
    /// JSON columns as their values, bytes in hex). Every table is listed, `[]` when empty.
    #[schema(value_type = Object)]
    pub tables: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportedLearner {
    pub id: LearnerId,
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    /// Whether they were the exporting server's local learner. An import makes an ordinary
    /// learner, who signs in with a token: being local belongs to a server, not a learner.
    pub is_local: bool,
    pub created_at: DateTime<Utc>,
}

/// What an import wrote.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ImportedLearner {
    pub id: LearnerId,
    pub name: String,
    /// Rows written, over every table.
    pub rows: u64,
}

impl LearnerDocument {
    /// A document read from its JSON text. What it says it is (its format and version) is
    /// read first, so that a document of another version is refused for that, rather than
    /// for a field this version does not know.
    pub fn from_json(text: &str) -> AppResult<LearnerDocument> {
        crate::curriculum::expect_json_object(text)?;
        /// Only what the document says it is; every other field is left unread.
        #[derive(Deserialize)]
        struct Header {
            format: Option<Value>,
            version: Option<Value>,
        }
        if let Ok(header) = serde_json::from_str::<Header>(text) {
            if let Some(format) = header.format.as_ref().and_then(Value::as_str) {
                check_format(format)?;
            }
            if let Some(version) = header.version.as_ref().and_then(Value::as_u64) {
                check_version(version)?;
            }
        }
        crate::curriculum::parse_json(text)
    }
}

fn check_format(format: &str) -> AppResult<()> {
    if format == DOCUMENT_FORMAT {
        return Ok(());
    }
    Err(AppError::invalid("format", format!("'{format}' is not a learner document; expected '{DOCUMENT_FORMAT}'")))
}

fn check_version(version: u64) -> AppResult<()> {
    if version == u64::from(DOCUMENT_VERSION) {
        return Ok(());
    }
    Err(AppError::invalid(
        "version",
        format!(
            "version {version} is not read by this server, which reads version {DOCUMENT_VERSION}; export the \
             learner again from a server of this release"
        ),
    ))
}

impl<S: StoreHandle + LearnerAdminStore + MapStore + TutorStore> App<S> {
    /// Everything about the learner, as of one moment.
    pub async fn export_learner(&self, id: LearnerId) -> AppResult<LearnerDocument> {
        let rows = self.store.learner_rows(id).await?.ok_or_else(|| AppError::not_found("learner", id))?;
        let learner = &rows.learner;
        Ok(LearnerDocument {
            format: DOCUMENT_FORMAT.to_string(),
            version: DOCUMENT_VERSION,
            exported_at: self.now(),
            learner: ExportedLearner {
                id: learner.id,
                name: learner.name.clone(),
                is_local: learner.is_local,
                created_at: learner.created_at,
            },
            tables: rows.tables_to_json(),
        })
    }

    /// Write a learner's document into this server under its ids, in one transaction: a
    /// learner of that id here already is refused (409 `learner_exists`), a course the
    /// rows need and this server lacks too (409 `course_missing`), and a document that is
    /// not of this version, or whose rows are not all of the learner, is refused naming the
    /// field at fault (422). Nothing is written unless everything is.
    pub async fn import_learner(&self, document: &LearnerDocument) -> AppResult<ImportedLearner> {
        check_format(&document.format)?;
        check_version(u64::from(document.version))?;
        let exported = &document.learner;
        let learner = Learner {
            id: exported.id,
            name: clean_text("learner.name", &exported.name, 200)?,
            is_local: false,
            created_at: exported.created_at,
        };
        let rows = LearnerRows::from_json(learner.clone(), &document.tables)
            .map_err(|e| AppError::invalid(&e.field, e.message))?;
        if self.store.learner(learner.id).await?.is_some() {
            return Err(learner_exists(learner.id));
        }
        let mut missing = Vec::new();
        for course in rows.courses() {
            if self.store.course_hash(&course).await?.is_none() {
                missing.push(course);
            }
        }
        if !missing.is_empty() {
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::CourseMissing,
                format!(
                    "the learner studied courses this server does not have: {}; import them first (pathwise \
                     import-course FILE, or POST /api/courses), then import the learner",
                    missing.join(", ")
                ),
            )
            .with_details(serde_json::json!({ "courses": missing })));
        }
        self.store.insert_learner_rows(&rows).await.map_err(|e| match e {
            // Another import of the same learner got there first.
            pathwise_store::StoreError::Exists(_) => learner_exists(learner.id),
            other => AppError::from(other),
        })?;
        self.fsrs.forget(learner.id);
        Ok(ImportedLearner { id: learner.id, name: learner.name, rows: rows.row_count() as u64 })
    }
}

fn learner_exists(id: LearnerId) -> AppError {
    AppError::new(
        ErrorKind::Conflict,
        ErrorCode::LearnerExists,
        format!("learner {id} is on this server already; nothing was imported (delete them first to replace them)"),
    )
    .with_details(serde_json::json!({ "id": id }))
}
