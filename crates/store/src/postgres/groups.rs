//! The PostgreSQL response path, with group writes.
//!
//! Each response needs a read (the node, its map's status, its recent history), the
//! mastery rules, and a write; alone that is two round trips and a commit per response.
//! Responses that arrive together are taken as a group instead: one read for all of their
//! nodes, one statement that writes all of them, one commit. The write is guarded by each
//! node's version, so another server writing the same node meanwhile is noticed and that
//! response is read and decided again. A group holds at most one response per node; a
//! response that masters its node (and may complete its map) goes the single way, under
//! the map's lock; and if the group statement fails, each of its responses is written on
//! its own, so that only the one at fault fails.

use super::record_alone;
use crate::sql::{check_response_target, context_from, NODE_COLUMNS};
use crate::{BoxedDecide, NewResponse, ResponseContext, ResponseDecision, StoreError, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::model::{Node, QuizResponse};
use pathwise_domain::{DomainError, LearnerId, NodeId};
use sqlx::{PgPool, Row};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};
use tokio::sync::oneshot;
use uuid::Uuid;

type Reply = StoreResult<(QuizResponse, Node)>;

/// At most this many responses share a statement.
const MAX_GROUP: usize = 128;

/// How often a response is read and decided again when another writer changed its node
/// first, before it is refused as a conflict.
pub(super) const MAX_ATTEMPTS: usize = 8;

struct Pending {
    learner: LearnerId,
    new: NewResponse,
    decide: BoxedDecide,
    reply: oneshot::Sender<Reply>,
    attempts: usize,
}

/// How many groups may be on their way at once: while one waits for its commit to reach
/// the disk, the next is read and decided.
const GROUPS_IN_FLIGHT: usize = 2;

pub(crate) struct ResponseGroups {
    queue: Mutex<Queue>,
    writers: tokio::sync::Semaphore,
}

#[derive(Default)]
struct Queue {
    pending: Vec<Pending>,
    /// Nodes with a response in a group on its way; their next responses wait for it.
    in_flight: HashSet<NodeId>,
}

impl Default for ResponseGroups {
    fn default() -> Self {
        ResponseGroups { queue: Mutex::default(), writers: tokio::sync::Semaphore::new(GROUPS_IN_FLIGHT) }
    }
}

impl std::fmt::Debug for ResponseGroups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseGroups").finish_non_exhaustive()
    }
}

static READ_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {NODE_COLUMNS}, m.status AS map_status, n.version, n.recent_qualities, n.recent_review_qualities, \
         m.learner_id \
         FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id WHERE n.id = ANY($1)"
    )
});

/// Every node update (each response counted in its node's totals), study day and response
/// insert of a group, in one statement (so atomic without a transaction); a response is
/// inserted only if its node is still at the version read. Study days are inserted in
/// order, so that two groups on their way at once wait for each other's new days in the
/// same order rather than deadlock. Returns the nodes written.
const WRITE_SQL: &str = "WITH input AS ( \
       SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::float8[], $4::text[], $5::float8[], $6::int4[], \
         $7::float8[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], $11::text[], $12::text[], \
         $13::uuid[], $14::uuid[], $15::text[], $16::text[], $17::int4[], $18::text[], $19::uuid[], \
         $20::timestamptz[], $21::bytea[], $22::uuid[], $23::timestamptz[], $24::int4[]) \
       AS i(node_id, version, score, status, ease, repetitions, interval_days, next_review_at, \
         last_reviewed_at, updated_at, recent, recent_reviews, response_id, mind_map_id, question_text, \
         user_answer, quality, response_type, session_id, responded_at, idempotency_key, learner_id, mastered_at, \
         rating)), \
     updated AS ( \
       UPDATE mind_map_nodes n SET mastery_score = i.score, mastery_status = i.status, ease_factor = i.ease, \
         repetitions = i.repetitions, interval_days = i.interval_days, next_review_at = i.next_review_at, \
         last_reviewed_at = i.last_reviewed_at, updated_at = i.updated_at, mastered_at = i.mastered_at, \
         recent_qualities = string_to_array(i.recent, ',')::smallint[], \
         recent_review_qualities = string_to_array(i.recent_reviews, ',')::smallint[], \
         response_count = n.response_count + 1, quality_sum = n.quality_sum + i.quality, version = n.version + 1 \
       FROM input i WHERE n.id = i.node_id AND n.version = i.version RETURNING n.id), \
     studied AS ( \
       INSERT INTO study_days (learner_id, day) \
       SELECT DISTINCT i.learner_id, (i.responded_at AT TIME ZONE 'UTC')::date FROM input i \
       JOIN updated u ON u.id = i.node_id ORDER BY 1, 2 ON CONFLICT DO NOTHING) \
     INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, user_answer, quality, response_type, \
       session_id, responded_at, idempotency_key, rating) \
     SELECT i.response_id, i.node_id, i.mind_map_id, i.question_text, i.user_answer, i.quality, i.response_type, \
       i.session_id, i.responded_at, i.idempotency_key, i.rating FROM input i JOIN updated u ON u.id = i.node_id \
     RETURNING node_id";

impl ResponseGroups {
    pub(crate) async fn record(
        self: &Arc<Self>,
        pool: &PgPool,
        learner: LearnerId,
        new: NewResponse,
        decide: BoxedDecide,
    ) -> Reply {
        let (reply, answer) = oneshot::channel();
        self.queue.lock().expect("queue lock").pending.push(Pending { learner, new, decide, reply, attempts: 0 });
        // The writing happens in a task of its own, so that a caller that goes away (a
        // closed HTTP connection) never interrupts a group half-way.
        let (groups, pool) = (self.clone(), pool.clone());
        tokio::spawn(async move { groups.drain(&pool).await });
        answer.await.unwrap_or_else(|_| Err(StoreError::Backend("the response writer stopped before answering".into())))
    }

    /// Write groups until nothing is left that this drain may take. Whoever finishes a
    /// group looks again, so a response held back behind its node is never stranded.
    async fn drain(&self, pool: &PgPool) {
        let Ok(_writer) = self.writers.acquire().await else { return };
        loop {
            let group = self.take_group();
            if group.is_empty() {
                return;
            }
            let nodes: Vec<NodeId> = group.iter().map(|item| item.new.node_id).collect();
            let retry = write_group(pool, group).await;
            let mut queue = self.queue.lock().expect("queue lock");
            for node in &nodes {
                queue.in_flight.remove(node);
            }
            queue.pending.extend(retry);
        }
    }

    /// The oldest queued responses, at most one per node and none for a node already on
    /// its way; the others wait for a later group.
    fn take_group(&self) -> Vec<Pending> {
        let mut queue = self.queue.lock().expect("queue lock");
        let Queue { pending, in_flight } = &mut *queue;
        let (mut group, mut later) = (Vec::new(), Vec::new());
        for item in pending.drain(..) {
            if group.len() < MAX_GROUP && in_flight.insert(item.new.node_id) {
                group.push(item);
            } else {
                later.push(item);
            }
        }
        *pending = later;
        group
    }
}

/// What the group read found for one node.
struct Found {
    context: ResponseContext,
    version: i64,
    learner: LearnerId,
}

/// Decide and write one group; returns the responses to try again (their node changed).
async fn write_group(pool: &PgPool, group: Vec<Pending>) -> Vec<Pending> {
    let ids: Vec<Uuid> = group.iter().map(|item| item.new.node_id.0).collect();
    let Ok(found) = read_nodes(pool, &ids).await else {
        // Each on its own, so that each caller hears the failure as it is (a busy pool is
        // "try again", not a bug).
        write_each_alone(pool, group).await;
        return Vec::new();
    };
    let mut decided = Vec::with_capacity(group.len());
    let mut alone = Vec::new();
    for item in group {
        match decide_one(&item, found.get(&item.new.node_id)) {
            // Rare, and it may complete the map: the single path locks the map. It runs
            // before this group's nodes are released, so no later group races it.
            Ok((decision, _)) if decision.became_mastered => alone.push(item),
            Ok((decision, version)) => decided.push((item, decision, version)),
            Err(refused) => {
                let _ = item.reply.send(Err(refused));
            }
        }
    }
    write_each_alone(pool, alone).await;
    if decided.is_empty() {
        return Vec::new();
    }
    match write_decided(pool, &decided).await {
        Ok(written) => {
            let mut retry = Vec::new();
            for (mut item, decision, _) in decided {
                if written.contains(&item.new.node_id.0) {
                    let _ = item.reply.send(Ok((item.new.response.clone(), decision.node)));
                } else if item.attempts + 1 >= MAX_ATTEMPTS {
                    let _ = item.reply.send(Err(too_many_attempts()));
                } else {
                    item.attempts += 1;
                    retry.push(item);
                }
            }
            retry
        }
        // The statement failed as a whole: write each response on its own, so that only
        // the one at fault fails.
        Err(_) => {
            write_each_alone(pool, decided.into_iter().map(|(item, _, _)| item)).await;
            Vec::new()
        }
    }
}

async fn write_each_alone(pool: &PgPool, items: impl IntoIterator<Item = Pending>) {
    for item in items {
        let result = record_alone(pool, item.learner, &item.new, &item.decide).await;
        let _ = item.reply.send(result);
    }
}

pub(super) fn too_many_attempts() -> StoreError {
    StoreError::Rejected(DomainError::Conflict {
        message: "node: too many simultaneous responses for this node; try again".into(),
    })
}

async fn read_nodes(pool: &PgPool, ids: &[Uuid]) -> StoreResult<HashMap<NodeId, Found>> {
    let rows = sqlx::query(&READ_SQL).bind(ids).fetch_all(pool).await?;
    let mut found = HashMap::with_capacity(rows.len());
    for row in rows {
        let context = context_from(&row)?;
        let (version, learner) = (row.try_get("version")?, LearnerId(row.try_get("learner_id")?));
        found.insert(context.node.id, Found { context, version, learner });
    }
    Ok(found)
}

/// The rules' decision for one response, or why it is refused; another learner's node is
/// as absent as a missing one.
fn decide_one(item: &Pending, found: Option<&Found>) -> StoreResult<(ResponseDecision, i64)> {
    let found = found.filter(|f| f.learner == item.learner).ok_or(StoreError::NotFound("node"))?;
    check_response_target(&item.new, &found.context.node)?;
    Ok(((item.decide)(&found.context)?, found.version))
}

async fn write_decided(pool: &PgPool, decided: &[(Pending, ResponseDecision, i64)]) -> StoreResult<HashSet<Uuid>> {
    fn column<T>(
        decided: &[(Pending, ResponseDecision, i64)],
        f: impl Fn(&Pending, &ResponseDecision, i64) -> T,
    ) -> Vec<T> {
        decided.iter().map(|(item, decision, version)| f(item, decision, *version)).collect()
    }
    let list = |qualities: &[u8]| qualities.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
    let times = |f: fn(&Node) -> Option<DateTime<Utc>>| column(decided, |_, d, _| f(&d.node));
    let written: Vec<Uuid> = sqlx::query_scalar(WRITE_SQL)
        .bind(column(decided, |_, d, _| d.node.id.0))
        .bind(column(decided, |_, _, version| version))
        .bind(column(decided, |_, d, _| d.node.mastery_score))
        .bind(column(decided, |_, d, _| d.node.mastery_status.as_str()))
        .bind(column(decided, |_, d, _| d.node.ease_factor))
        .bind(column(decided, |_, d, _| d.node.repetitions))
        .bind(column(decided, |_, d, _| d.node.interval_days))
        .bind(times(|n| n.next_review_at))
        .bind(times(|n| n.last_reviewed_at))
        .bind(column(decided, |_, d, _| d.node.updated_at))
        .bind(column(decided, |_, d, _| list(&d.history.qualities)))
        .bind(column(decided, |_, d, _| list(&d.history.review_qualities)))
        .bind(column(decided, |p, _, _| p.new.id.0))
        .bind(column(decided, |p, _, _| p.new.mind_map_id.0))
        .bind(column(decided, |p, _, _| p.new.question_text.clone()))
        .bind(column(decided, |p, _, _| p.new.user_answer.clone()))
        .bind(column(decided, |p, _, _| i32::from(p.new.quality)))
        .bind(column(decided, |p, _, _| p.new.response_type.as_str()))
        .bind(column(decided, |p, _, _| p.new.session_id))
        .bind(column(decided, |p, _, _| p.new.responded_at))
        .bind(column(decided, |p, _, _| p.new.stored_key(p.learner)))
        .bind(column(decided, |p, _, _| p.learner.0))
        .bind(times(|n| n.mastered_at))
        .bind(column(decided, |p, _, _| i32::from(p.new.rating.number())))
        .fetch_all(pool)
        .await?;
    Ok(written.into_iter().collect())
}
