//! The SQLite response path, with group commit.
//!
//! sqlx runs each SQLite connection on a thread of its own and hands every statement over
//! to it, which costs tens of microseconds per statement on a small machine; a response
//! takes several statements, and SQLite has a single writer. So responses queue here, and
//! whichever caller finds the writer free takes the whole queue, borrows the writer's raw
//! connection from sqlx (`lock_handle`) and runs the queue in one transaction through
//! rusqlite. A response the rules refuse is refused before anything of it is written; if a
//! write itself fails, the group is rolled back and each response retried on its own, so
//! only the one at fault fails. Every caller hears back only after the commit.

use crate::sql::{check_response_target, COMPLETE_MAP_SQL, NODE_COLUMNS};
use crate::{NewResponse, ResponseContext, ResponseDecision, StoreError, StoreResult};
use chrono::{DateTime, TimeZone, Utc};
use pathwise_domain::mastery::RecentHistory;
use pathwise_domain::model::{Metadata, Node, QuizResponse};
use pathwise_domain::{DomainError, LearnerId, MapStatus, MindMapId, NodeId};
use rusqlite::{params, OptionalExtension};
use sqlx::SqlitePool;
use std::sync::{Arc, LazyLock, Mutex};
use tokio::sync::oneshot;
use uuid::Uuid;

pub(crate) type Decide = Box<dyn Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync>;
type Reply = StoreResult<(QuizResponse, Node)>;

struct Pending {
    learner: LearnerId,
    new: NewResponse,
    decide: Decide,
    reply: oneshot::Sender<Reply>,
}

#[derive(Default)]
pub(crate) struct ResponseQueue {
    pending: Mutex<Vec<Pending>>,
    leader: tokio::sync::Mutex<()>,
}

static CONTEXT_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {NODE_COLUMNS}, m.status, n.version, \
           (SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM ( \
              SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses \
              WHERE node_id = n.id ORDER BY responded_at DESC, seq DESC LIMIT {any})), \
           (SELECT group_concat(q, ',' ORDER BY t DESC, s DESC) FROM ( \
              SELECT quality AS q, responded_at AS t, seq AS s FROM quiz_responses \
              WHERE node_id = n.id AND response_type = 'review' ORDER BY responded_at DESC, seq DESC LIMIT {reviews})) \
         FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id WHERE n.id = ?1 AND m.learner_id = ?2",
        any = crate::HISTORY_ANY,
        reviews = crate::HISTORY_REVIEWS,
    )
});

const UPDATE_NODE_SQL: &str = "UPDATE mind_map_nodes SET mastery_score = ?2, mastery_status = ?3, ease_factor = ?4, \
     repetitions = ?5, interval_days = ?6, next_review_at = ?7, last_reviewed_at = ?8, updated_at = ?9, \
     version = version + 1 WHERE id = ?1";

const INSERT_RESPONSE_SQL: &str = "INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, user_answer, \
     quality, response_type, session_id, responded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

impl ResponseQueue {
    pub(crate) async fn record(
        self: &Arc<Self>,
        writer: &SqlitePool,
        learner: LearnerId,
        new: NewResponse,
        decide: Decide,
    ) -> Reply {
        let (reply, answer) = oneshot::channel();
        self.pending.lock().expect("queue lock").push(Pending { learner, new, decide, reply });
        // The writing happens in a task of its own, so that a caller that goes away (a
        // closed HTTP connection) can never interrupt a batch half-way.
        let (queue, writer) = (self.clone(), writer.clone());
        tokio::spawn(async move { queue.drain(&writer).await });
        answer.await.unwrap_or_else(|_| Err(StoreError::corrupt("the response writer stopped before answering")))
    }

    /// Write everything queued so far, unless an earlier drain already did.
    async fn drain(&self, writer: &SqlitePool) {
        let _leader = self.leader.lock().await;
        if self.pending.lock().expect("queue lock").is_empty() {
            return;
        }
        let take = || std::mem::take(&mut *self.pending.lock().expect("queue lock"));
        let mut connection = match writer.acquire().await {
            Ok(connection) => connection,
            Err(error) => return fail_all(take(), &error),
        };
        let mut handle = match connection.lock_handle().await {
            Ok(handle) => handle,
            Err(error) => return fail_all(take(), &error),
        };
        let batch = take();
        // SAFETY: the locked handle guarantees that sqlx's worker thread makes no call on
        // this connection until it is dropped, and `from_handle` does not close it.
        match unsafe { rusqlite::Connection::from_handle(handle.as_raw_handle().as_ptr()) } {
            Ok(db) => write_batch(&db, batch),
            Err(error) => fail_all(batch, &error),
        }
    }
}

fn fail_all(batch: Vec<Pending>, error: &dyn std::fmt::Display) {
    for item in batch {
        let _ = item.reply.send(Err(StoreError::Config(format!("SQLite write failed: {error}"))));
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
        Err(error) => fail_all(batch, &error),
    }
}

/// One transaction for the group. A response refused before anything was written just
/// gets its refusal; a failed write rolls the whole group back.
fn run_transaction(db: &rusqlite::Connection, batch: &[Pending]) -> StoreResult<Vec<Reply>> {
    db.execute_batch("BEGIN IMMEDIATE").map_err(sqlite_error)?;
    let mut results = Vec::with_capacity(batch.len());
    for item in batch {
        let written = match decide_one(db, item) {
            Ok(decision) => write_one(db, item, &decision).map(|()| Ok((item.new.clone(), decision.node))),
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

fn sqlite_error(error: rusqlite::Error) -> StoreError {
    StoreError::Config(format!("SQLite: {error}"))
}

/// Read the node and its history and let the mastery rules decide; writes nothing.
fn decide_one(db: &rusqlite::Connection, item: &Pending) -> StoreResult<ResponseDecision> {
    let new = &item.new;
    let mut read = db.prepare_cached(&CONTEXT_SQL).map_err(sqlite_error)?;
    let row = read
        .query_row(params![new.node_id.0.as_bytes(), item.learner.0.as_bytes()], |row| {
            Ok((
                node_from(row),
                row.get::<_, String>(17)?,
                row.get::<_, Option<String>>(19)?,
                row.get::<_, Option<String>>(20)?,
            ))
        })
        .optional()
        .map_err(sqlite_error)?
        .ok_or(StoreError::NotFound("node"))?;
    let (node, map_status, recent, recent_reviews) = row;
    let node = node?;
    check_response_target(new, &node)?;
    let map_status: MapStatus = crate::sql::parse(&map_status)?;
    let history = RecentHistory { qualities: qualities_of(recent)?, review_qualities: qualities_of(recent_reviews)? };
    Ok((item.decide)(&ResponseContext { map_status, node, history })?)
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
            ])
        })
        .map_err(sqlite_error)?;
    if decision.became_mastered {
        db.prepare_cached(COMPLETE_MAP_SQL)
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

fn uuid_at(row: &rusqlite::Row, i: usize) -> rusqlite::Result<Uuid> {
    let bytes: Vec<u8> = row.get(i)?;
    Uuid::from_slice(&bytes)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Blob, Box::new(e)))
}

fn time_at(row: &rusqlite::Row, i: usize) -> rusqlite::Result<Option<DateTime<Utc>>> {
    Ok(row.get::<_, Option<i64>>(i)?.and_then(|micros| Utc.timestamp_micros(micros).single()))
}

/// A node from the columns of `NODE_COLUMNS`, in that order.
fn node_from(row: &rusqlite::Row) -> StoreResult<Node> {
    let read = || -> rusqlite::Result<(Node, String, String)> {
        let node = Node {
            id: NodeId(uuid_at(row, 0)?),
            mind_map_id: MindMapId(uuid_at(row, 1)?),
            label: row.get(2)?,
            description: row.get(3)?,
            depth: row.get(4)?,
            effort_minutes: row.get(5)?,
            sequence: row.get(6)?,
            mastery_score: row.get(7)?,
            mastery_status: pathwise_domain::MasteryStatus::Unseen,
            ease_factor: row.get(9)?,
            repetitions: row.get(10)?,
            interval_days: row.get(11)?,
            next_review_at: time_at(row, 12)?,
            last_reviewed_at: time_at(row, 13)?,
            metadata: Metadata::new(),
            created_at: time_at(row, 15)?.unwrap_or_default(),
            updated_at: time_at(row, 16)?.unwrap_or_default(),
        };
        Ok((node, row.get(8)?, row.get(14)?))
    };
    let (mut node, status, metadata) = read().map_err(sqlite_error)?;
    node.mastery_status = crate::sql::parse(&status)?;
    node.metadata = serde_json::from_str(&metadata).map_err(StoreError::corrupt)?;
    Ok(node)
}

fn qualities_of(list: Option<String>) -> StoreResult<Vec<u8>> {
    list.as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|q| !q.is_empty())
        .map(|q| q.parse::<u8>().map_err(StoreError::corrupt))
        .collect()
}
