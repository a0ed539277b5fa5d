//! Courses from a learner's own material: files ingested into chunks that remember where
//! they came from (file, page, headings), so that a course drafted from them can cite them.
//! Everything here belongs to the learner who ingested it; another learner's material is
//! not found, never refused by name.

pub mod documents;
pub mod drafts;
pub mod model_drafting;
pub mod sharing;

pub use documents::{Documents, IngestedDocument, SourceChunk, SourceDocument, SourceDocumentWithChunks};
pub use drafts::{DraftEdit, DraftPassage, DraftProblem, DraftSkill, DraftSummary, DraftUnits, DraftView, NewDraft};
pub use model_drafting::{ModelEstimate, OutlineDrafted, UnitDrafted};
pub use sharing::CourseShares;

use std::path::PathBuf;

/// What ingestion may read, and how much.
#[derive(Debug, Clone)]
pub struct AuthoringSettings {
    /// The folder files may be ingested from by path on the server's machine (MCP, HTTP);
    /// `None`: by path not at all (files are uploaded, or sent as text).
    pub ingest_dir: Option<PathBuf>,
    /// Bounds on one file.
    pub limits: pathwise_ingest::Limits,
    /// The most files one folder ingestion reads.
    pub max_files: usize,
}

impl Default for AuthoringSettings {
    fn default() -> Self {
        AuthoringSettings { ingest_dir: None, limits: pathwise_ingest::Limits::default(), max_files: 500 }
    }
}
