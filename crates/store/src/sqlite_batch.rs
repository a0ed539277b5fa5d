//! The SQLite response path, with group commit.
//!
//! sqlx runs each SQLite connection on a thread of its own and hands every statement over
//! to it, which costs tens of microseconds per statement on a small machine; a response
//! takes several statements, and SQLite has a single writer. So responses go to a writer
//! thread of their own, which holds its own connection through rusqlite with its
//! statements prepared once: it takes everything queued, runs it in one transaction and
//! answers every caller after the commit. A response the rules refuse is refused before
//! anything of it is written; if a write itself fails, the group is rolled back and each
//! response retried on its own, so only the one at fault fails. Other writes (map edits,
//! learners) go through sqlx; `BEGIN IMMEDIATE` and the busy timeout order the two.

use crate::error::sqlite_error;
use crate::sql::{
    check_response_target, context_from, parse, qualities_of, Columns, Plain, COMPLETE_MAP_SQL, CONTEXT_SQL,
};
use crate::sqlite_checkpoint::Checkpoints;
use crate::{BoxedDecide, NewResponse, ResponseDecision, StoreError, StoreResult};
use chrono::{DateTime, TimeZone, Utc};
use pathwise_domain::model::{Metadata, Node, QuizResponse};
use pathwise_domain::LearnerId;
use rusqlite::params;
use std::fmt::Display;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::Duration;
use tokio::sync::oneshot;
use uuid::Uuid;

type Reply = StoreResult<(QuizResponse, Node)>;

/// At most this many responses share a transaction, so that one group never holds the
/// write lock for long.
const MAX_GROUP: usize = 256;

/// The writer's connection: as durable as the others (WAL with `synchronous = NORMAL`),
/// with a page cache that holds the pages responses touch (16 MiB rather than 2 MiB),
/// and checkpoints every 10,000 pages rather than 1,000, so that a page rewritten by many
/// responses is copied into the database file once instead of ten times.
const WRITER_PRAGMAS: &str = "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
     PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 10000;";

struct Pending {
    learner: LearnerId,
    new: NewResponse,
    decide: BoxedDecide,
    reply: oneshot::Sender<Reply>,
}

/// The way to the writer thread; the thread ends when the last store clone is dropped.
#[derive(Clone)]
pub(crate) struct ResponseWriter {
    queue: mpsc::Sender<Pending>,
    /// Responses queued and not yet taken by the writer thread.
    waiting: Arc<AtomicUsize>,
}

impl ResponseWriter {
    /// Open the writer's connection to the (already migrated) database and start its thread.
    pub(crate) fn start(path: &Path, busy_timeout: Duration) -> StoreResult<Self> {
        let db = rusqlite::Connection::open(path).map_err(sqlite_error)?;
        db.busy_timeout(busy_timeout).map_err(sqlite_error)?;
        db.execute_batch(WRITER_PRAGMAS).map_err(sqlite_error)?;
        db.set_prepared_statement_cache_capacity(8);
        let checkpoints = Checkpoints::start(path, busy_timeout)?;
        let (queue, incoming) = mpsc::channel();
        let waiting = Arc::new(AtomicUsize::new(0));
        let taken = Arc::clone(&waiting);
        std::thread::Builder::new()
            .name("pathwise-responses".into())
            .spawn(move || write_until_closed(&db, &incoming, &checkpoints, &taken))
            .map_err(|e| StoreError::Config(format!("cannot start the SQLite response writer: {e}")))?;
        Ok(ResponseWriter { queue, waiting })
    }

    /// Responses waiting for the writer thread.
    pub(crate) fn queue_depth(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Queue a response and wait for its commit (or refusal). A caller that goes away
    /// (a closed HTTP connection) cannot interrupt a group half-way: the thread finishes it.
    pub(crate) async fn record(&self, learner: LearnerId, new: NewResponse, decide: BoxedDecide) -> Reply {
        let (reply, answer) = oneshot::channel();
        // Counted before it is sent, so that the writer never takes away more than was added.
        self.waiting.fetch_add(1, Ordering::Relaxed);
        self.queue.send(Pending { learner, new, decide, reply }).map_err(|_| {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            StoreError::Backend("the SQLite response writer has stopped".into())
        })?;
        answer.await.unwrap_or_else(|_| Err(StoreError::Backend("the response writer stopped before answering".into())))
    }
}

fn write_until_closed(
    db: &rusqlite::Connection,
    incoming: &mpsc::Receiver<Pending>,
    checkpoints: &Checkpoints,
    waiting: &AtomicUsize,
) {
    while let Ok(first) = incoming.recv() {
        let mut group = Vec::with_capacity(16);
        group.push(first);
        group.extend(incoming.try_iter().take(MAX_GROUP - 1));
        waiting.fetch_sub(group.len(), Ordering::Relaxed);
        // A panic in the rules must not take the writer down with it: the callers of this
        // group hear that it failed (their reply senders drop), and the next group starts
        // from a clean connection.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write_batch(db, group))).is_err()
            && !db.is_autocommit()
        {
            let _ = db.execute_batch("ROLLBACK");
        }
        checkpoints.written();
    }
}

/// The node as the rules left it, with the response counted in its totals (`?12` is the
/// response's quality, `?13` when the node was first mastered).
pub(crate) const UPDATE_NODE_SQL: &str =
    "UPDATE mind_map_nodes SET mastery_score = ?2, mastery_status = ?3, ease_factor = ?4, \
     repetitions = ?5, interval_days = ?6, next_review_at = ?7, last_reviewed_at = ?8, updated_at = ?9, \
     recent_qualities = ?10, recent_review_qualities = ?11, response_count = response_count + 1, \
     quality_sum = quality_sum + ?12, mastered_at = ?13, version = version + 1 WHERE id = ?1";

/// The learner studied on the response's (UTC) day; only the day's first response writes.
pub(crate) const INSERT_STUDY_DAY_SQL: &str =
    "INSERT INTO study_days (learner_id, day) VALUES (?1, ?2) ON CONFLICT DO NOTHING";

pub(crate) const INSERT_RESPONSE_SQL: &str = "INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, \
     user_answer, quality, response_type, session_id, responded_at, idempotency_key, rating) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

/// A write of one response failed: its caller hears why. A key used before is a duplicate,
/// which the caller answers with the first response; anything else is the database's fault.
fn fail_alone(batch: Vec<Pending>, error: StoreError) {
    let error = match error {
        StoreError::Duplicate(_) | StoreError::Busy(_) => error,
        other => StoreError::Backend(format!("SQLite write failed: {other}")),
    };
    if let Some(item) = batch.into_iter().next() {
        let _ = item.reply.send(Err(error));
    }
}

/// The unique index on responses' keys refused the insert: the key stored a response before
/// (in an earlier group, or earlier in this one). Checked by the index alone rather than by a
/// query first, which every keyed response would pay for.
fn insert_error(error: rusqlite::Error) -> StoreError {
    match &error {
        rusqlite::Error::SqliteFailure(failure, Some(message))
            if failure.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                && message.contains("quiz_responses.idempotency_key") =>
        {
            StoreError::Duplicate("a response with this idempotency key")
        }
        _ => sqlite_error(error),
    }
}

fn write_batch(db: &rusqlite::Connection, batch: Vec<Pending>) {
    match run_transaction(db, &batch) {
        Ok(results) => {
            for (item, result) in batch.into_iter().zip(results) {
                let _ = item.reply.send(result);
            }
        }
        // A write statement failed and the group was rolled back: write each response on
        // its own, so that only the one at fault fails.
        Err(_) if batch.len() > 1 => batch.into_iter().for_each(|item| write_batch(db, vec![item])),
        Err(error) => fail_alone(batch, error),
    }
}

/// One transaction for the group. A response refused before anything was written just
/// gets its refusal; a failed write rolls the whole group back.
fn run_transaction(db: &rusqlite::Connection, batch: &[Pending]) -> StoreResult<Vec<Reply>> {
    db.execute_batch("BEGIN IMMEDIATE").map_err(sqlite_error)?;
    let mut results = Vec::with_capacity(batch.len());
    for item in batch {
        let written = match decide_one(db, item) {
            Ok(decision) => write_one(db, item, &decision).map(|()| Ok((item.new.response.clone(), decision.node))),
            Err(refused) => Ok(Err(refused)),
        };
        match written {
            Ok(result) => results.push(result),
            Err(error) => {
                let _ = db.execute_batch("ROLLBACK");
                return Err(error);
            }
        }
    }
    if let Err(error) = db.execute_batch("COMMIT") {
        let _ = db.execute_batch("ROLLBACK");
        return Err(sqlite_error(error));
    }
    Ok(results)
}

/// The columns of `CONTEXT_SQL`, asked of SQLite once.
static CONTEXT_COLUMNS: OnceLock<Vec<String>> = OnceLock::new();

/// Read the node and its history and let the mastery rules decide; writes nothing.
fn decide_one(db: &rusqlite::Connection, item: &Pending) -> StoreResult<ResponseDecision> {
    let new = &item.new;
    let mut read = db.prepare_cached(&CONTEXT_SQL).map_err(sqlite_error)?;
    let names = CONTEXT_COLUMNS.get_or_init(|| column_names(&read));
    let mut rows = read.query(params![new.node_id.0.as_bytes(), item.learner.0.as_bytes()]).map_err(sqlite_error)?;
    let row = rows.next().map_err(sqlite_error)?.ok_or(StoreError::NotFound("node"))?;
    let context = context_from(&NamedRow { row, names })?;
    check_response_target(new, &context.node)?;
    Ok((item.decide)(&context)?)
}

/// Write a decided response: the node's new state, the response row, and the map's
/// completion when its last node was just mastered.
fn write_one(db: &rusqlite::Connection, item: &Pending, decision: &ResponseDecision) -> StoreResult<()> {
    let (new, node) = (&item.new, &decision.node);
    db.prepare_cached(UPDATE_NODE_SQL)
        .and_then(|mut s| {
            s.execute(params![
                node.id.0.as_bytes(),
                node.mastery_score,
                node.mastery_status.as_str(),
                node.ease_factor,
                node.repetitions,
                node.interval_days,
                node.next_review_at.map(|t| t.timestamp_micros()),
                node.last_reviewed_at.map(|t| t.timestamp_micros()),
                node.updated_at.timestamp_micros(),
                list_of(&decision.history.qualities),
                list_of(&decision.history.review_qualities),
                i32::from(new.quality),
                node.mastered_at.map(|t| t.timestamp_micros()),
            ])
        })
        .map_err(sqlite_error)?;
    db.prepare_cached(INSERT_RESPONSE_SQL)
        .and_then(|mut s| {
            s.execute(params![
                new.id.0.as_bytes(),
                new.node_id.0.as_bytes(),
                new.mind_map_id.0.as_bytes(),
                new.question_text,
                new.user_answer,
                i32::from(new.quality),
                new.response_type.as_str(),
                new.session_id.as_ref().map(|s| s.as_bytes().to_vec()),
                new.responded_at.timestamp_micros(),
                new.stored_key(item.learner),
                i32::from(new.rating.number()),
            ])
        })
        .map_err(insert_error)?;
    db.prepare_cached(INSERT_STUDY_DAY_SQL)
        .and_then(|mut s| s.execute(params![item.learner.0.as_bytes(), study_day(new.responded_at)]))
        .map_err(sqlite_error)?;
    if decision.became_mastered {
        db.prepare_cached(&COMPLETE_MAP_SQL)
            // By name: SQLite numbers `$n` parameters in order of appearance, not by n.
            .and_then(|mut s| {
                s.execute(rusqlite::named_params! {
                    "$1": new.mind_map_id.0.as_bytes(),
                    "$2": new.responded_at.timestamp_micros(),
                })
            })
            .map_err(sqlite_error)?;
    }
    Ok(())
}

pub(crate) fn uuid_at(row: &rusqlite::Row, i: usize) -> rusqlite::Result<Uuid> {
    let bytes: Vec<u8> = row.get(i)?;
    Uuid::from_slice(&bytes)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Blob, Box::new(e)))
}

pub(crate) fn time_at(row: &rusqlite::Row, i: usize) -> rusqlite::Result<Option<DateTime<Utc>>> {
    Ok(row.get::<_, Option<i64>>(i)?.and_then(|micros| Utc.timestamp_micros(micros).single()))
}

/// A rusqlite row read by name, as the shared decoders (`node_from`, `context_from`) read
/// sqlx's. `names` are its statement's columns, asked of SQLite once per statement: rusqlite's
/// own lookup by name asks SQLite again for every column it passes, on every value read.
/// Text is borrowed from the row, not copied out of it.
pub(crate) struct NamedRow<'a> {
    pub(crate) row: &'a rusqlite::Row<'a>,
    pub(crate) names: &'a [String],
}

/// A statement's column names, to read its rows by ([`NamedRow`]).
pub(crate) fn column_names(statement: &rusqlite::Statement) -> Vec<String> {
    statement.column_names().into_iter().map(String::from).collect()
}

impl<'a> NamedRow<'a> {
    fn index(&self, column: &str) -> rusqlite::Result<usize> {
        let found = self.names.iter().position(|name| name == column);
        found.ok_or_else(|| rusqlite::Error::InvalidColumnName(column.into()))
    }

    /// The text in `column`, borrowed from the row.
    fn text(&self, column: &str) -> StoreResult<&'a str> {
        let read = || {
            let index = self.index(column)?;
            let value = self.row.get_ref(index)?;
            value.as_str().map_err(|_| rusqlite::Error::InvalidColumnType(index, column.into(), value.data_type()))
        };
        read().map_err(sqlite_error)
    }

    /// An id that may be null.
    pub(crate) fn maybe_id(&self, column: &str) -> StoreResult<Option<Uuid>> {
        let read = || {
            let index = self.index(column)?;
            match self.row.get_ref(index)? {
                rusqlite::types::ValueRef::Null => Ok(None),
                _ => uuid_at(self.row, index).map(Some),
            }
        };
        read().map_err(sqlite_error)
    }
}

impl Columns for NamedRow<'_> {
    fn plain<T: Plain>(&self, column: &str) -> StoreResult<T> {
        self.index(column).and_then(|i| self.row.get(i)).map_err(sqlite_error)
    }

    fn id(&self, column: &str) -> StoreResult<Uuid> {
        self.index(column).and_then(|i| uuid_at(self.row, i)).map_err(sqlite_error)
    }

    fn time(&self, column: &str) -> StoreResult<DateTime<Utc>> {
        Ok(self.maybe_time(column)?.unwrap_or_default())
    }

    fn maybe_time(&self, column: &str) -> StoreResult<Option<DateTime<Utc>>> {
        self.index(column).and_then(|i| time_at(self.row, i)).map_err(sqlite_error)
    }

    fn word<T: FromStr>(&self, column: &str) -> StoreResult<T>
    where
        T::Err: Display,
    {
        parse(self.text(column)?)
    }

    fn metadata(&self, column: &str) -> StoreResult<Metadata> {
        serde_json::from_str(self.text(column)?).map_err(StoreError::corrupt)
    }

    fn qualities(&self, column: &str) -> StoreResult<Vec<u8>> {
        qualities_of(self.text(column)?)
    }
}

/// The study day of a response as `study_days` keeps it: its UTC date, `YYYY-MM-DD` (how
/// sqlx writes a date, so that both connections agree).
pub(crate) fn study_day(at: DateTime<Utc>) -> String {
    at.date_naive().format("%Y-%m-%d").to_string()
}

/// Qualities as the node keeps them: newest first, comma-separated.
pub(crate) fn list_of(qualities: &[u8]) -> String {
    qualities.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locked_database_is_busy_and_other_failures_are_the_backends() {
        let locked = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None);
        assert!(matches!(sqlite_error(locked), StoreError::Busy(_)));
        let table_locked =
            rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_LOCKED), None);
        assert!(sqlite_error(table_locked).is_busy());
        let io = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR), None);
        assert!(matches!(sqlite_error(io), StoreError::Backend(_)));
    }
}
