//! Every row that belongs to one learner, table by table, in a form both stores read and
//! write alike: what a learner's export holds and what an import writes back.
//!
//! The tables and their columns are declared once here ([`LEARNER_TABLES`]); the exporter,
//! the importer and the checks of an imported document all follow the declaration, and the
//! store's tests hold it to the live schema of both databases, so that a migration that
//! adds a table or a column a learner's rows live in cannot be left out of exports.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use pathwise_domain::{
    EdgeType, FlowStatus, JobKind, JobOutcome, MapStatus, MasteryStatus, ResponseType, SessionStatus, SessionType,
    SrsScheduler,
};
use serde_json::{Map, Value as Json};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

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

const fn col(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, nullable: false, refers_to: None, words: None }
}

const fn opt(name: &'static str, kind: Kind) -> Column {
    Column { name, kind, nullable: true, refers_to: None, words: None }
}

const fn id_in(name: &'static str, table: &'static str) -> Column {
    Column { name, kind: Kind::Id, nullable: false, refers_to: Some(table), words: None }
}

const fn opt_id_in(name: &'static str, table: &'static str) -> Column {
    Column { name, kind: Kind::Id, nullable: true, refers_to: Some(table), words: None }
}

/// A text column holding one of a closed set of words, which `check` knows.
const fn word(name: &'static str, check: WordCheck) -> Column {
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

    fn column_index(&self, name: &str) -> usize {
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

/// One value of a column, as its [`Kind`] says.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Id(Uuid),
    Time(DateTime<Utc>),
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Json(Json),
    Bytes(Vec<u8>),
    Date(NaiveDate),
    Qualities(Vec<u8>),
}

impl Value {
    /// The value in a document.
    pub fn to_json(&self) -> Json {
        match self {
            Value::Null => Json::Null,
            Value::Id(id) => Json::String(id.to_string()),
            Value::Time(t) => Json::String(t.to_rfc3339_opts(SecondsFormat::Micros, true)),
            Value::Text(s) => Json::String(s.clone()),
            Value::Int(n) => Json::from(*n),
            Value::Float(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
            Value::Bool(b) => Json::Bool(*b),
            Value::Json(v) => v.clone(),
            Value::Bytes(b) => Json::String(hex::encode(b)),
            Value::Date(d) => Json::String(d.format("%Y-%m-%d").to_string()),
            Value::Qualities(q) => Json::Array(q.iter().map(|&q| Json::from(q)).collect()),
        }
    }

    /// The value of a document, read as `column` keeps it; the error says what is allowed.
    pub fn from_json(column: &Column, value: &Json) -> Result<Value, String> {
        if value.is_null() && column.nullable {
            return Ok(Value::Null);
        }
        let text = || value.as_str().ok_or_else(|| format!("expected {}", describe(column.kind)));
        match column.kind {
            Kind::Json => Ok(Value::Json(value.clone())),
            _ if value.is_null() => Err(format!("must not be null; expected {}", describe(column.kind))),
            Kind::Id => Uuid::parse_str(text()?).map(Value::Id).map_err(|_| "expected a UUID".to_string()),
            Kind::Time => DateTime::parse_from_rfc3339(text()?)
                .map(|t| Value::Time(t.with_timezone(&Utc)))
                .map_err(|_| "expected an RFC 3339 time, such as 2026-03-02T09:00:00.000000Z".to_string()),
            Kind::Text => {
                let text = text()?;
                if let Some(check) = column.words {
                    check(text)?;
                }
                Ok(Value::Text(text.to_string()))
            }
            Kind::Int => value
                .as_i64()
                .filter(|n| i32::try_from(*n).is_ok())
                .map(Value::Int)
                .ok_or_else(|| "expected a whole number that fits in 32 bits".to_string()),
            Kind::BigInt => value.as_i64().map(Value::Int).ok_or_else(|| "expected a whole number".to_string()),
            Kind::Float => value.as_f64().map(Value::Float).ok_or_else(|| "expected a number".to_string()),
            Kind::Bool => value.as_bool().map(Value::Bool).ok_or_else(|| "expected true or false".to_string()),
            Kind::Bytes => hex::decode(text()?).map(Value::Bytes).map_err(|_| "expected hexadecimal bytes".to_string()),
            Kind::Date => NaiveDate::parse_from_str(text()?, "%Y-%m-%d")
                .map(Value::Date)
                .map_err(|_| "expected a day as YYYY-MM-DD".to_string()),
            Kind::Qualities => value
                .as_array()
                .and_then(|items| {
                    items.iter().map(|q| q.as_u64().filter(|q| *q <= 5).map(|q| q as u8)).collect::<Option<Vec<_>>>()
                })
                .map(Value::Qualities)
                .ok_or_else(|| "expected an array of qualities, each 0 to 5".to_string()),
        }
    }

    pub fn as_id(&self) -> Option<Uuid> {
        match self {
            Value::Id(id) => Some(*id),
            _ => None,
        }
    }

    /// An order over values of one column, for the order of a document's rows.
    fn order(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Id(a), Value::Id(b)) => a.cmp(b),
            (Value::Time(a), Value::Time(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (a, b) => a.to_json().to_string().cmp(&b.to_json().to_string()),
        }
    }
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Id => "a UUID",
        Kind::Time => "an RFC 3339 time",
        Kind::Text => "a string",
        Kind::Int | Kind::BigInt => "a whole number",
        Kind::Float => "a number",
        Kind::Bool => "true or false",
        Kind::Json => "any JSON value",
        Kind::Bytes => "hexadecimal bytes",
        Kind::Date => "a day as YYYY-MM-DD",
        Kind::Qualities => "an array of qualities",
    }
}

/// A row: one value per column of its table, in the table's column order.
pub type Row = Vec<Value>;

/// The rows of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRows {
    pub table: &'static TableSpec,
    pub rows: Vec<Row>,
}

/// Every row a learner has, table by table, in [`LEARNER_TABLES`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerRows {
    pub learner: crate::Learner,
    pub tables: Vec<TableRows>,
}

/// Why a document's rows cannot be imported: the path of the value at fault and what is
/// allowed there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct RowsError {
    pub field: String,
    pub message: String,
}

impl RowsError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        RowsError { field: field.into(), message: message.into() }
    }
}

impl TableRows {
    /// Rows in the order of their key (a sequenced table keeps the order it was read in).
    pub fn sort(&mut self) {
        if self.table.sequenced {
            return;
        }
        let key: Vec<usize> = self.table.key.iter().map(|k| self.table.column_index(k)).collect();
        self.rows.sort_by(|a, b| key.iter().map(|&i| a[i].order(&b[i])).find(|o| o.is_ne()).unwrap_or(Ordering::Equal));
    }
}

impl LearnerRows {
    /// The rows as a document's `tables`: each table by name, each row an object of its
    /// columns.
    pub fn tables_to_json(&self) -> Map<String, Json> {
        self.tables
            .iter()
            .map(|t| {
                let rows = t
                    .rows
                    .iter()
                    .map(|row| {
                        let object: Map<String, Json> =
                            t.table.columns.iter().zip(row).map(|(c, v)| (c.name.to_string(), v.to_json())).collect();
                        Json::Object(object)
                    })
                    .collect();
                (t.table.name.to_string(), Json::Array(rows))
            })
            .collect()
    }

    /// A document's `tables` read for `learner`: every table named, every column of each
    /// row present with a value of its kind and nothing else, and every row the learner's
    /// (its `learner_id` or `owner_id` the learner's, its references to rows of this document).
    pub fn from_json(learner: crate::Learner, tables: &Map<String, Json>) -> Result<LearnerRows, RowsError> {
        if let Some(unknown) = tables.keys().find(|name| learner_table(name).is_none()) {
            let allowed = LEARNER_TABLES.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
            return Err(RowsError::new(format!("tables.{unknown}"), format!("unknown table; allowed: {allowed}")));
        }
        let mut read = Vec::with_capacity(LEARNER_TABLES.len());
        let none = Vec::new();
        for table in LEARNER_TABLES {
            let path = format!("tables.{}", table.name);
            let rows = match tables.get(table.name) {
                None if TABLES_ADDED_SINCE_VERSION_1.contains(&table.name) => &none,
                None => return Err(RowsError::new(path, "missing; every table is listed, [] when it has no rows")),
                Some(Json::Array(rows)) => rows,
                Some(_) => return Err(RowsError::new(path, "expected an array of rows")),
            };
            let rows = rows
                .iter()
                .enumerate()
                .map(|(i, row)| read_row(table, row, &format!("{path}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            read.push(TableRows { table, rows });
        }
        let rows = LearnerRows { learner, tables: read };
        rows.check_unique_keys()?;
        rows.check_ownership()?;
        Ok(rows)
    }

    /// No two rows of a table share a key: a document that repeats a row is at fault
    /// itself, whatever the server it is imported into holds.
    fn check_unique_keys(&self) -> Result<(), RowsError> {
        for t in self.tables.iter().filter(|t| !t.table.key.is_empty()) {
            let key: Vec<usize> = t.table.key.iter().map(|k| t.table.column_index(k)).collect();
            let compare = |a: &usize, b: &usize| {
                key.iter().map(|&i| t.rows[*a][i].order(&t.rows[*b][i])).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
            };
            let mut by_key: Vec<usize> = (0..t.rows.len()).collect();
            by_key.sort_by(compare);
            if let Some(pair) = by_key.windows(2).find(|pair| compare(&pair[0], &pair[1]).is_eq()) {
                let (first, again) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
                return Err(RowsError::new(
                    format!("tables.{}[{again}]", t.table.name),
                    format!("repeats row {first} of the same table: two rows with one {}", t.table.key.join(" and ")),
                ));
            }
        }
        Ok(())
    }

    /// Every row is the learner's: a column naming the learner ([`Column::names_the_learner`])
    /// holds the learner's id (or nothing, where it may), and a reference names a row of this document, never one of
    /// another learner's on the server the document is imported into.
    fn check_ownership(&self) -> Result<(), RowsError> {
        let learner = self.learner.id.0;
        let mut ids: HashMap<&str, HashSet<Uuid>> = HashMap::new();
        for t in &self.tables {
            if let Some(i) = t.table.columns.iter().position(|c| c.name == "id" && c.kind == Kind::Id) {
                ids.insert(t.table.name, t.rows.iter().filter_map(|r| r[i].as_id()).collect());
            }
        }
        for t in &self.tables {
            for (r, row) in t.rows.iter().enumerate() {
                for (column, value) in t.table.columns.iter().zip(row) {
                    let field = || format!("tables.{}[{r}].{}", t.table.name, column.name);
                    if column.names_the_learner() && value.as_id() != Some(learner) {
                        return Err(RowsError::new(field(), format!("must be the learner's id, {learner}")));
                    }
                    if let (Some(table), Some(id)) = (column.refers_to, value.as_id()) {
                        if !ids.get(table).is_some_and(|known| known.contains(&id)) {
                            return Err(RowsError::new(
                                field(),
                                format!("{id} is not one of the document's {table}; a learner's rows refer only to their own"),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The courses the rows refer to, which the server importing them must have.
    pub fn courses(&self) -> Vec<String> {
        let mut courses: Vec<String> = self
            .tables
            .iter()
            .filter(|t| matches!(t.table.name, "tutor_snapshots" | "tutor_threads"))
            .flat_map(|t| {
                let i = t.table.column_index("course_id");
                t.rows.iter().filter_map(move |row| match &row[i] {
                    Value::Text(course) => Some(course.clone()),
                    _ => None,
                })
            })
            .collect();
        courses.sort();
        courses.dedup();
        courses
    }

    pub fn row_count(&self) -> usize {
        self.tables.iter().map(|t| t.rows.len()).sum()
    }
}

fn read_row(table: &TableSpec, row: &Json, path: &str) -> Result<Row, RowsError> {
    let Json::Object(object) = row else {
        return Err(RowsError::new(path, format!("expected an object with {}", table.column_names())));
    };
    if let Some(unknown) = object.keys().find(|k| table.column(k).is_none()) {
        return Err(RowsError::new(
            format!("{path}.{unknown}"),
            format!("unknown column; allowed: {}", table.column_names()),
        ));
    }
    table
        .columns
        .iter()
        .map(|column| {
            let field = format!("{path}.{}", column.name);
            let value = object.get(column.name).ok_or_else(|| RowsError::new(&field, "missing"))?;
            Value::from_json(column, value).map_err(|message| RowsError::new(&field, message))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathwise_domain::LearnerId;
    use serde_json::json;

    fn learner() -> crate::Learner {
        crate::Learner {
            id: LearnerId(Uuid::from_u128(7)),
            name: "Ada".into(),
            is_local: false,
            created_at: DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc),
        }
    }

    fn empty_tables() -> Map<String, Json> {
        LEARNER_TABLES.iter().map(|t| (t.name.to_string(), json!([]))).collect()
    }

    #[test]
    fn every_kind_reads_back_what_it_writes() {
        let values = [
            (col("a", Id), Value::Id(Uuid::from_u128(9))),
            (col("a", Time), Value::Time(learner().created_at + chrono::Duration::microseconds(17))),
            (col("a", Text), Value::Text("x".into())),
            (col("a", Int), Value::Int(-3)),
            (col("a", BigInt), Value::Int(1 << 40)),
            (col("a", Float), Value::Float(0.1 + 0.2)),
            (col("a", Bool), Value::Bool(true)),
            (col("a", Json), Value::Json(json!({ "k": [1, 2.5, null] }))),
            (col("a", Bytes), Value::Bytes(vec![0, 255, 16])),
            (col("a", Date), Value::Date(NaiveDate::from_ymd_opt(2026, 3, 2).unwrap())),
            (col("a", Qualities), Value::Qualities(vec![5, 0, 3])),
            (opt("a", Time), Value::Null),
        ];
        for (column, value) in values {
            assert_eq!(Value::from_json(&column, &value.to_json()), Ok(value));
        }
    }

    #[test]
    fn a_value_of_the_wrong_kind_is_refused_with_what_is_allowed() {
        assert_eq!(
            Value::from_json(&col("a", Int), &json!(1u64 << 40)).unwrap_err(),
            "expected a whole number that fits in 32 bits"
        );
        assert_eq!(Value::from_json(&col("a", Id), &json!("nope")).unwrap_err(), "expected a UUID");
        assert_eq!(Value::from_json(&col("a", Text), &Json::Null).unwrap_err(), "must not be null; expected a string");
        assert!(Value::from_json(&col("a", Qualities), &json!([6])).is_err());
    }

    #[test]
    fn a_document_names_every_table_and_only_known_ones() {
        assert!(LearnerRows::from_json(learner(), &empty_tables()).is_ok());
        let mut missing = empty_tables();
        missing.remove("sessions");
        assert_eq!(LearnerRows::from_json(learner(), &missing).unwrap_err().field, "tables.sessions");
        // A document from before a table existed does not list it, and has none of its rows.
        let mut older = empty_tables();
        for table in TABLES_ADDED_SINCE_VERSION_1 {
            older.remove(*table);
        }
        assert!(LearnerRows::from_json(learner(), &older).is_ok());
        let mut unknown = empty_tables();
        unknown.insert("secrets".into(), json!([]));
        let error = LearnerRows::from_json(learner(), &unknown).unwrap_err();
        assert_eq!(error.field, "tables.secrets");
        assert!(error.message.contains("mind_maps"), "{}", error.message);
    }

    #[test]
    fn a_row_must_have_exactly_its_columns() {
        let row = json!({ "learner_id": learner().id, "day": "2026-03-02" });
        let mut tables = empty_tables();
        tables.insert("study_days".into(), json!([row]));
        assert!(LearnerRows::from_json(learner(), &tables).is_ok());
        tables.insert("study_days".into(), json!([{ "learner_id": learner().id }]));
        assert_eq!(LearnerRows::from_json(learner(), &tables).unwrap_err().field, "tables.study_days[0].day");
        tables.insert("study_days".into(), json!([{ "learner_id": learner().id, "day": "2026-03-02", "x": 1 }]));
        assert_eq!(LearnerRows::from_json(learner(), &tables).unwrap_err().field, "tables.study_days[0].x");
    }

    #[test]
    fn rows_of_another_learner_or_pointing_outside_the_document_are_refused() {
        let mut tables = empty_tables();
        tables.insert("study_days".into(), json!([{ "learner_id": Uuid::from_u128(8), "day": "2026-03-02" }]));
        let error = LearnerRows::from_json(learner(), &tables).unwrap_err();
        assert_eq!(error.field, "tables.study_days[0].learner_id");
        let mut tables = empty_tables();
        tables.insert(
            "node_fsrs".into(),
            json!([{ "node_id": Uuid::from_u128(99), "stability": 1.0, "difficulty": 5.0,
                     "updated_at": "2026-03-02T09:00:00Z" }]),
        );
        let error = LearnerRows::from_json(learner(), &tables).unwrap_err();
        assert_eq!(error.field, "tables.node_fsrs[0].node_id");
        assert!(error.message.contains("mind_map_nodes"), "{}", error.message);
    }

    #[test]
    fn what_a_learner_made_must_be_their_own_and_of_known_words() {
        let draft = |owner: Uuid, stage: &str| {
            json!([{ "id": Uuid::from_u128(1), "owner_id": owner, "title": "Sets", "stage": stage, "version": 0,
                     "created_at": "2026-03-02T09:00:00Z", "updated_at": "2026-03-02T09:00:00Z", "draft": {} }])
        };
        let mut tables = empty_tables();
        tables.insert("course_drafts".into(), draft(learner().id.0, "outline"));
        assert!(LearnerRows::from_json(learner(), &tables).is_ok());
        tables.insert("course_drafts".into(), draft(Uuid::from_u128(8), "outline"));
        assert_eq!(LearnerRows::from_json(learner(), &tables).unwrap_err().field, "tables.course_drafts[0].owner_id");
        tables.insert("course_drafts".into(), draft(learner().id.0, "published"));
        let error = LearnerRows::from_json(learner(), &tables).unwrap_err();
        assert_eq!(error.field, "tables.course_drafts[0].stage");
        assert!(error.message.contains("outline, units"), "{}", error.message);
    }

    #[test]
    fn every_declared_key_is_a_column_of_its_table() {
        for table in LEARNER_TABLES {
            for key in table.key {
                assert!(table.column(key).is_some(), "{}.{key}", table.name);
            }
            assert!(table.sequenced || !table.key.is_empty(), "{} has neither key nor sequence", table.name);
            for column in table.columns {
                if let Some(target) = column.refers_to {
                    let target = learner_table(target).expect("a learner table");
                    let earlier = LEARNER_TABLES.iter().position(|t| t.name == target.name)
                        <= LEARNER_TABLES.iter().position(|t| t.name == table.name);
                    // mind_maps.root_node_id has no foreign key, so its nodes may come after.
                    assert!(
                        earlier || column.name == "root_node_id",
                        "{}.{} before its table",
                        table.name,
                        column.name
                    );
                }
            }
        }
    }
}
