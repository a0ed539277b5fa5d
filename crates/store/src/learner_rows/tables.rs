//! The declaration: every table a learner's rows live in, with its columns' kinds, which
//! rows are the learner's, and the checks an imported row's words pass.

use pathwise_domain::{
    EdgeType, FlowStatus, JobKind, JobOutcome, MapStatus, MasteryStatus, ResponseType, SessionStatus, SessionType,
    SrsScheduler,
};

/// Tables a learner's rows came to live in after documents of version 1 were first written:
/// a document exported before them does not list them, and is read as having none.
pub const TABLES_ADDED_SINCE_VERSION_1: &[&str] =
    &["source_documents", "source_chunks", "course_drafts", "learner_fsrs"];

/// How a column's values are kept (each database in its own way) and written in a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A UUID (`UUID`, SQLite's 16-byte `BLOB`); a string in a document.
    Id,
    /// A time (`TIMESTAMPTZ`, SQLite's integer microseconds); RFC 3339 with microseconds.
    Time,
    Text,
    /// `INTEGER`.
    Int,
    /// `BIGINT` (SQLite has one integer type).
    BigInt,
    /// `DOUBLE PRECISION`, SQLite's `REAL`.
    Float,
    /// `BOOLEAN`, SQLite's 0 or 1.
    Bool,
    /// `JSONB`, SQLite's JSON text; the value itself in a document.
    Json,
    /// `BYTEA`, SQLite's `BLOB`; lowercase hex in a document.
    Bytes,
    /// A calendar day (`DATE`, SQLite's `YYYY-MM-DD` text).
    Date,
    /// A node's latest qualities (`SMALLINT[]`, SQLite's comma-separated text); an array.
    Qualities,
}

/// Whether a text is one of a column's words; the error names those allowed.
pub type WordCheck = fn(&str) -> Result<(), String>;

#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    /// The learner's table whose ids this column holds: an imported row may point only at
    /// rows of the same document.
    pub refers_to: Option<&'static str>,
    /// For a text column the store reads back as one of a closed set of words (a status, a
    /// kind): the check an imported value must pass, whose error names the words allowed.
    /// A word this server does not know would otherwise be found only when the row is
    /// read: by the scheduler, say, for every learner's jobs.
    pub words: Option<WordCheck>,
}

pub(super) const fn col(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, nullable: false, refers_to: None, words: None }
}

pub(super) const fn opt(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, nullable: true, refers_to: None, words: None }
}

pub(super) const fn id_in(name: &'static str, table: &'static str) -> Column {
    Column { name, kind: Kind::Id, nullable: false, refers_to: Some(table), words: None }
}

pub(super) const fn opt_id_in(name: &'static str, table: &'static str) -> Column {
    Column { name, kind: Kind::Id, nullable: true, refers_to: Some(table), words: None }
}

/// A text column holding one of a closed set of words, which `check` knows.
pub(super) const fn word(name: &'static str, check: WordCheck) -> Column {
    Column { name, kind: Kind::Text, nullable: false, refers_to: None, words: Some(check) }
}

/// A word of the domain vocabulary `T`.
fn one_of<T: std::str::FromStr>(text: &str) -> Result<(), String>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>().map(drop).map_err(|e| e.to_string())
}

fn session_event_kind(text: &str) -> Result<(), String> {
    pathwise_domain::session::SessionEventKind::parse(text).map(drop).map_err(|e| e.to_string())
}

/// `text` if it is one of `words`; the error names them, as the domain's vocabularies do.
fn among(text: &str, words: &[&str]) -> Result<(), String> {
    if words.contains(&text) {
        Ok(())
    } else {
        Err(format!("'{text}' is not one of: {}", words.join(", ")))
    }
}

/// The formats a document is ingested from.
fn document_format(text: &str) -> Result<(), String> {
    among(text, &["markdown", "text", "html", "pdf"])
}

/// How far a draft course has come: its outline, then each unit's material.
fn draft_stage(text: &str) -> Result<(), String> {
    among(text, &["outline", "units"])
}

/// One table a learner's rows live in.
#[derive(Debug)]
pub struct TableSpec {
    pub name: &'static str,
    pub columns: &'static [Column],
    /// Which of the table's rows are the learner's (`$1` is the learner's id).
    pub filter: &'static str,
    /// The columns that tell rows apart, which order them in a document.
    pub key: &'static [&'static str],
    /// A table numbered by a database sequence (`seq`) shared by every learner: the number
    /// is not exported (another server has its own), the rows keep its order, and an
    /// import numbers them anew in that order.
    pub sequenced: bool,
}

/// A table is the one of its name: there is one declaration of each.
impl PartialEq for TableSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Column {
    /// Whether the column names the learner the row belongs to: `learner_id`, or `owner_id`
    /// on what a learner made (the documents they ingested, their drafts). An imported row
    /// must name the document's learner there.
    pub fn names_the_learner(&self) -> bool {
        self.kind == Kind::Id && matches!(self.name, "learner_id" | "owner_id")
    }
}

impl TableSpec {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub(super) fn column_index(&self, name: &str) -> usize {
        self.columns.iter().position(|c| c.name == name).expect("a declared key column")
    }

    pub fn column_names(&self) -> String {
        self.columns.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
    }
}

use Kind::*;

const OWN: &str = "learner_id = $1";
const OWNED: &str = "owner_id = $1";
const OWN_MAPS: &str = "mind_map_id IN (SELECT id FROM mind_maps WHERE learner_id = $1)";

/// Every table holding a learner's rows, parents before children (the order an import
/// writes them in). `learners` itself is the document's `learner`; `courses` are shared
/// content and are not a learner's to export, not even the ones a learner published (see
/// [`NOT_LEARNER_TABLES`]).
pub static LEARNER_TABLES: &[TableSpec] = &[
    TableSpec {
        name: "api_tokens",
        columns: &[
            col("id", Id),
            col("learner_id", Id),
            col("name", Text),
            col("token_hash", Text),
            col("created_at", Time),
            opt("last_used_at", Time),
            opt("revoked_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "mind_maps",
        columns: &[
            col("id", Id),
            col("learner_id", Id),
            col("title", Text),
            opt_id_in("root_node_id", "mind_map_nodes"),
            word("status", one_of::<MapStatus>),
            col("metadata", Json),
            col("created_at", Time),
            col("updated_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "mind_map_nodes",
        columns: &[
            col("id", Id),
            id_in("mind_map_id", "mind_maps"),
            col("label", Text),
            opt("description", Text),
            col("depth", Int),
            opt("effort_minutes", Int),
            opt("sequence", Int),
            col("mastery_score", Float),
            word("mastery_status", one_of::<MasteryStatus>),
            col("ease_factor", Float),
            col("repetitions", Int),
            col("interval_days", Float),
            opt("next_review_at", Time),
            opt("last_reviewed_at", Time),
            col("metadata", Json),
            col("version", BigInt),
            col("created_at", Time),
            col("updated_at", Time),
            col("recent_qualities", Qualities),
            col("recent_review_qualities", Qualities),
            col("response_count", BigInt),
            col("quality_sum", BigInt),
            opt("mastered_at", Time),
        ],
        filter: OWN_MAPS,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "mind_map_edges",
        columns: &[
            id_in("mind_map_id", "mind_maps"),
            id_in("parent_node_id", "mind_map_nodes"),
            id_in("child_node_id", "mind_map_nodes"),
            word("edge_type", one_of::<EdgeType>),
            col("created_at", Time),
        ],
        filter: OWN_MAPS,
        key: &["parent_node_id", "child_node_id"],
        sequenced: false,
    },
    TableSpec {
        name: "quiz_responses",
        columns: &[
            col("id", Id),
            id_in("node_id", "mind_map_nodes"),
            id_in("mind_map_id", "mind_maps"),
            col("question_text", Text),
            opt("user_answer", Text),
            col("quality", Int),
            word("response_type", one_of::<ResponseType>),
            // A session, tutor thread or flow of the learner's, or one since deleted.
            opt("session_id", Id),
            col("responded_at", Time),
            opt("idempotency_key", Bytes),
            col("rating", Int),
        ],
        filter: OWN_MAPS,
        key: &["id"],
        sequenced: true,
    },
    TableSpec {
        name: "llm_calls",
        columns: &[
            col("learner_id", Id),
            col("operation", Text),
            col("prompt_tokens", BigInt),
            col("completion_tokens", BigInt),
            col("created_at", Time),
        ],
        filter: OWN,
        key: &[],
        sequenced: true,
    },
    TableSpec {
        name: "teaching_flows",
        columns: &[
            col("id", Id),
            col("learner_id", Id),
            col("topic", Text),
            opt("goal", Text),
            opt_id_in("mind_map_id", "mind_maps"),
            word("status", one_of::<FlowStatus>),
            col("version", BigInt),
            col("session_count", BigInt),
            col("state", Json),
            col("started_at", Time),
            col("last_session_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "jobs",
        columns: &[
            col("id", Id),
            word("kind", one_of::<JobKind>),
            opt("name", Text),
            opt("learner_id", Id),
            opt_id_in("mind_map_id", "mind_maps"),
            opt_id_in("node_id", "mind_map_nodes"),
            col("payload", Json),
            opt("cron", Text),
            col("run_at", Time),
            opt("expires_at", Time),
            opt("lease_owner", Text),
            opt("lease_until", Time),
            col("attempts", Int),
            opt("last_error", Text),
            col("created_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "job_runs",
        columns: &[
            // The job may have run its course and gone; its runs stay.
            col("job_id", Id),
            word("kind", one_of::<JobKind>),
            opt("learner_id", Id),
            opt("mind_map_id", Id),
            col("scheduled_for", Time),
            col("worker", Text),
            word("outcome", one_of::<JobOutcome>),
            opt("detail", Text),
            col("finished_at", Time),
        ],
        filter: OWN,
        key: &[],
        sequenced: true,
    },
    TableSpec {
        name: "analytics_snapshots",
        columns: &[
            id_in("mind_map_id", "mind_maps"),
            col("learner_id", Id),
            col("snapshot_date", Date),
            col("metrics", Json),
            col("created_at", Time),
        ],
        filter: OWN,
        key: &["mind_map_id", "snapshot_date"],
        sequenced: false,
    },
    TableSpec {
        name: "learner_preferences",
        columns: &[
            col("learner_id", Id),
            opt("daily_review_cap", Int),
            word("srs_scheduler", one_of::<SrsScheduler>),
            col("updated_at", Time),
        ],
        filter: OWN,
        key: &["learner_id"],
        sequenced: false,
    },
    TableSpec {
        name: "learner_fsrs",
        columns: &[
            col("learner_id", Id),
            opt("weights", Json),
            col("reviews", Int),
            col("fitted_on_reviews", Int),
            col("initial_stability_only", Bool),
            col("checked_reviews", Int),
            opt("log_loss", Float),
            opt("default_log_loss", Float),
            opt("reason", Text),
            col("fitted_at", Time),
        ],
        filter: OWN,
        key: &["learner_id"],
        sequenced: false,
    },
    TableSpec {
        name: "node_fsrs",
        columns: &[
            id_in("node_id", "mind_map_nodes"),
            col("stability", Float),
            col("difficulty", Float),
            col("updated_at", Time),
        ],
        filter: "node_id IN (SELECT n.id FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
                 WHERE m.learner_id = $1)",
        key: &["node_id"],
        sequenced: false,
    },
    TableSpec {
        name: "sessions",
        columns: &[
            col("id", Id),
            col("learner_id", Id),
            word("session_type", one_of::<SessionType>),
            word("status", one_of::<SessionStatus>),
            col("version", BigInt),
            col("title", Text),
            col("config", Json),
            col("state", Json),
            opt("lease_owner", Text),
            opt("lease_until", Time),
            col("created_at", Time),
            col("updated_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "session_events",
        columns: &[
            id_in("session_id", "sessions"),
            col("seq", BigInt),
            word("kind", session_event_kind),
            col("payload", Json),
            col("created_at", Time),
        ],
        filter: "session_id IN (SELECT id FROM sessions WHERE learner_id = $1)",
        key: &["session_id", "seq"],
        sequenced: false,
    },
    TableSpec {
        name: "session_messages",
        columns: &[
            id_in("session_id", "sessions"),
            col("seq", BigInt),
            col("role", Text),
            col("content", Text),
            col("tool_calls", Json),
            opt("tool_call_id", Text),
            col("created_at", Time),
        ],
        filter: "session_id IN (SELECT id FROM sessions WHERE learner_id = $1)",
        key: &["session_id", "seq"],
        sequenced: false,
    },
    TableSpec {
        name: "tutor_snapshots",
        columns: &[
            col("learner_id", Id),
            col("course_id", Text),
            col("snapshot", Json),
            col("version", BigInt),
            opt_id_in("mind_map_id", "mind_maps"),
            col("updated_at", Time),
        ],
        filter: OWN,
        key: &["course_id"],
        sequenced: false,
    },
    TableSpec {
        name: "course_unit_nodes",
        columns: &[id_in("mind_map_id", "mind_maps"), col("unit_id", Text), id_in("node_id", "mind_map_nodes")],
        filter: OWN_MAPS,
        key: &["mind_map_id", "unit_id"],
        sequenced: false,
    },
    TableSpec {
        name: "tutor_threads",
        columns: &[
            col("id", Id),
            col("learner_id", Id),
            col("course_id", Text),
            col("title", Text),
            opt("last_action", Text),
            col("message_count", Int),
            col("created_at", Time),
            col("updated_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "tutor_messages",
        columns: &[
            id_in("thread_id", "tutor_threads"),
            col("seq", BigInt),
            col("id", Id),
            col("role", Text),
            col("text", Text),
            opt("latex", Text),
            opt("card", Json),
            opt("exam_question_id", Text),
            opt("turn_id", Id),
            col("created_at", Time),
            opt("outcome", Json),
            opt("sources", Json),
        ],
        filter: "thread_id IN (SELECT id FROM tutor_threads WHERE learner_id = $1)",
        key: &["thread_id", "seq"],
        sequenced: false,
    },
    TableSpec {
        name: "tutor_turns",
        columns: &[
            col("id", Id),
            id_in("thread_id", "tutor_threads"),
            col("learner_id", Id),
            col("course_id", Text),
            col("action", Text),
            col("validated", Bool),
            opt("fallback_reason", Text),
            col("log", Json),
            col("created_at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "exam_status",
        columns: &[
            col("learner_id", Id),
            col("course_id", Text),
            col("question_id", Text),
            col("status", Text),
            opt("locked_until", Time),
            col("attempts", Int),
            col("updated_at", Time),
        ],
        filter: OWN,
        key: &["course_id", "question_id"],
        sequenced: false,
    },
    TableSpec {
        name: "exam_events",
        columns: &[
            col("id", Id),
            col("learner_id", Id),
            col("course_id", Text),
            col("question_id", Text),
            col("kind", Text),
            opt("selected_index", Int),
            opt("correct", Bool),
            opt("locked_until", Time),
            col("at", Time),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "drill_offers",
        columns: &[
            col("id", Text),
            col("learner_id", Id),
            id_in("thread_id", "tutor_threads"),
            col("unit_id", Text),
            opt("item_ref", Text),
            col("prompt", Text),
            col("question_latex", Text),
            col("options", Json),
            col("offered_at", Time),
            opt("graded_at", Time),
            opt("grade", Json),
        ],
        filter: OWN,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "idempotency_keys",
        columns: &[
            col("learner_id", Id),
            col("key", Text),
            col("fingerprint", Text),
            col("status", Int),
            col("body", Text),
            col("created_at", Time),
        ],
        filter: OWN,
        key: &["key"],
        sequenced: false,
    },
    TableSpec {
        name: "study_days",
        columns: &[col("learner_id", Id), col("day", Date)],
        filter: OWN,
        key: &["day"],
        sequenced: false,
    },
    TableSpec {
        name: "source_documents",
        columns: &[
            col("id", Id),
            col("owner_id", Id),
            col("name", Text),
            word("format", document_format),
            opt("title", Text),
            opt("pages", Int),
            col("byte_size", BigInt),
            col("file_hash", Text),
            col("chunk_count", Int),
            col("ingested_at", Time),
            col("updated_at", Time),
        ],
        filter: OWNED,
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "source_chunks",
        columns: &[
            col("id", Id),
            id_in("document_id", "source_documents"),
            col("ordinal", Int),
            col("content_hash", Text),
            col("heading_path", Json),
            opt("page", Int),
            col("text", Text),
        ],
        filter: "document_id IN (SELECT id FROM source_documents WHERE owner_id = $1)",
        key: &["id"],
        sequenced: false,
    },
    TableSpec {
        name: "course_drafts",
        columns: &[
            col("id", Id),
            col("owner_id", Id),
            col("title", Text),
            word("stage", draft_stage),
            col("version", BigInt),
            col("created_at", Time),
            col("updated_at", Time),
            col("draft", Json),
        ],
        filter: OWNED,
        key: &["id"],
        sequenced: false,
    },
];

/// Tables that hold no learner's rows: the learners themselves (a document's `learner`),
/// the shared courses, who a course is shared with, and the migrations' own record.
///
/// A course a learner published (`courses.owner_id`) is not in their document either: once
/// published it is content others study, and goes with its owner only when the owner is
/// deleted. What the learner wrote is their draft, which is in the document and can be
/// published again. A course's sharing is its owner's decision about their course, not a
/// row of the learner it is shared with, and goes with the course.
pub const NOT_LEARNER_TABLES: &[&str] = &["learners", "courses", "course_shares", "_sqlx_migrations"];

pub fn learner_table(name: &str) -> Option<&'static TableSpec> {
    LEARNER_TABLES.iter().find(|t| t.name == name)
}
