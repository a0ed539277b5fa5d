//! Bringing a history in from elsewhere (an Anki collection): a map created or updated with
//! its answers, as one transaction. Like [`crate::MapStore::update_map`], the store loads the
//! map under its write lock and lets the caller's rules decide what to write from it, so
//! that an answer recorded meanwhile is never overwritten by a stale copy.

use crate::StoreResult;
use pathwise_domain::mastery::RecentHistory;
use pathwise_domain::model::{MapAggregate, MapChanges, MindMap, QuizResponse};
use pathwise_domain::{DomainError, LearnerId, MindMapId, NodeId};
use std::collections::HashMap;

/// What an import writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryImport {
    /// The map to create, when the import makes a new one: its nodes and edges are then
    /// `changes.insert_nodes` and `changes.insert_edges` (and nothing else of `changes`).
    pub new_map: Option<MindMap>,
    /// What changes in the map found (or, for a new map, its nodes and edges).
    pub changes: MapChanges,
    /// Each node's recent history once the answers are in (the mastery rules read it).
    pub histories: Vec<(NodeId, RecentHistory)>,
    /// Answers to insert; they are counted into their nodes' totals and the learner's
    /// study days.
    pub responses: Vec<QuizResponse>,
}

/// A map as the import finds it: its nodes and edges, and each node's recent history.
pub struct ImportedMap<'a> {
    pub aggregate: &'a MapAggregate,
    pub histories: &'a HashMap<NodeId, RecentHistory>,
}

#[pathwise_store_macros::capability]
pub trait ImportStore {
    /// Load `existing` (when given) under a write lock with its nodes' histories, let
    /// `decide` say what to write, and write it in the same transaction; nothing is written
    /// if `decide` refuses. `existing` that is not the learner's map is not found.
    async fn import_history<T, F>(&self, learner: LearnerId, existing: Option<MindMapId>, decide: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(Option<ImportedMap<'_>>) -> Result<(HistoryImport, T), DomainError> + Send + 'static,
    {
        let mut tx = self.begin_write().await?;
        let (import, outcome) = match existing {
            Some(id) => {
                let aggregate = load_aggregate(&mut tx, learner, id, true).await?.ok_or(StoreError::NotFound("map"))?;
                let mut histories = HashMap::new();
                for row in sqlx::query(
                    "SELECT id, recent_qualities, recent_review_qualities FROM mind_map_nodes \
                     WHERE mind_map_id = $1",
                )
                .bind(id.0)
                .fetch_all(&mut *tx)
                .await?
                {
                    histories.insert(
                        NodeId(row.try_get("id")?),
                        RecentHistory {
                            qualities: row.qualities("recent_qualities")?,
                            review_qualities: row.qualities("recent_review_qualities")?,
                        },
                    );
                }
                decide(Some(ImportedMap { aggregate: &aggregate, histories: &histories }))?
            }
            None => decide(None)?,
        };
        // A new map's nodes (with their histories) and edges go in many to a
        // statement: a deck of thousands of cards is a few round trips, not thousands.
        let mut written_histories = std::collections::HashSet::new();
        match &import.new_map {
            Some(map) => {
                insert_map_row(&mut tx, map).await?;
                let histories: HashMap<NodeId, &RecentHistory> =
                    import.histories.iter().map(|(id, h)| (*id, h)).collect();
                let empty = RecentHistory::default();
                for chunk in import.changes.insert_nodes.chunks(NODES_PER_INSERT) {
                    let mut insert = QueryBuilder::<Db>::new(
                        "INSERT INTO mind_map_nodes (id, mind_map_id, label, description, depth, effort_minutes, \
                         sequence, mastery_score, mastery_status, ease_factor, repetitions, interval_days, \
                         next_review_at, last_reviewed_at, metadata, created_at, updated_at, recent_qualities, \
                         recent_review_qualities, mastered_at) ",
                    );
                    insert.push_values(chunk, |mut row, node| {
                        let history = histories.get(&node.id).copied().unwrap_or(&empty);
                        row.push_bind(node.id.0)
                            .push_bind(node.mind_map_id.0)
                            .push_bind(node.label.clone())
                            .push_bind(node.description.clone())
                            .push_bind(node.depth)
                            .push_bind(node.effort_minutes)
                            .push_bind(node.sequence)
                            .push_bind(node.mastery_score)
                            .push_bind(node.mastery_status.as_str())
                            .push_bind(node.ease_factor)
                            .push_bind(node.repetitions)
                            .push_bind(node.interval_days)
                            .push_bind(node.next_review_at.map(Ts))
                            .push_bind(node.last_reviewed_at.map(Ts))
                            .push_bind(Json(node.metadata.clone()))
                            .push_bind(Ts(node.created_at))
                            .push_bind(Ts(node.updated_at))
                            .push_bind(Self::write_qualities(&history.qualities))
                            .push_bind(Self::write_qualities(&history.review_qualities))
                            .push_bind(node.mastered_at.map(Ts));
                    });
                    insert.build().execute(&mut *tx).await?;
                }
                written_histories.extend(import.changes.insert_nodes.iter().map(|n| n.id));
                for chunk in import.changes.insert_edges.chunks(NODES_PER_INSERT) {
                    let mut insert = QueryBuilder::<Db>::new(
                        "INSERT INTO mind_map_edges (mind_map_id, parent_node_id, child_node_id, edge_type, created_at) ",
                    );
                    insert.push_values(chunk, |mut row, edge| {
                        row.push_bind(edge.mind_map_id.0)
                            .push_bind(edge.parent_node_id.0)
                            .push_bind(edge.child_node_id.0)
                            .push_bind(edge.edge_type.as_str())
                            .push_bind(Ts(edge.created_at));
                    });
                    insert.build().execute(&mut *tx).await?;
                }
            }
            None => apply_changes(&mut tx, &import.changes).await?,
        }
        for (node, history) in import.histories.iter().filter(|(id, _)| !written_histories.contains(id)) {
            sqlx::query("UPDATE mind_map_nodes SET recent_qualities = $2, recent_review_qualities = $3 WHERE id = $1")
                .bind(node.0)
                .bind(Self::write_qualities(&history.qualities))
                .bind(Self::write_qualities(&history.review_qualities))
                .execute(&mut *tx)
                .await?;
        }
        for chunk in import.responses.chunks(RESPONSES_PER_INSERT) {
            let mut insert = QueryBuilder::<Db>::new(
                "INSERT INTO quiz_responses (id, node_id, mind_map_id, question_text, user_answer, quality, \
                 response_type, session_id, responded_at, idempotency_key, rating) ",
            );
            insert.push_values(chunk, |mut row, r| {
                row.push_bind(r.id.0)
                    .push_bind(r.node_id.0)
                    .push_bind(r.mind_map_id.0)
                    .push_bind(r.question_text.clone())
                    .push_bind(r.user_answer.clone())
                    .push_bind(i32::from(r.quality))
                    .push_bind(r.response_type.as_str())
                    .push_bind(r.session_id)
                    .push_bind(Ts(r.responded_at))
                    .push_bind(None::<Vec<u8>>)
                    .push_bind(i32::from(r.rating.number()));
            });
            insert.build().execute(&mut *tx).await?;
        }
        let maps: std::collections::BTreeSet<MindMapId> = import.responses.iter().map(|r| r.mind_map_id).collect();
        for map in maps {
            // The totals analytics read, counted again from the answers themselves.
            sqlx::query(
                "UPDATE mind_map_nodes SET \
                   response_count = (SELECT COUNT(*) FROM quiz_responses r WHERE r.node_id = mind_map_nodes.id), \
                   quality_sum = (SELECT COALESCE(SUM(r.quality), 0) FROM quiz_responses r \
                     WHERE r.node_id = mind_map_nodes.id) \
                 WHERE mind_map_id = $1",
            )
            .bind(map.0)
            .execute(&mut *tx)
            .await?;
        }
        let days: std::collections::BTreeSet<chrono::NaiveDate> =
            import.responses.iter().map(|r| r.responded_at.date_naive()).collect();
        for day in days {
            sqlx::query("INSERT INTO study_days (learner_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING")
                .bind(learner.0)
                .bind(day)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(outcome)
    }
}

/// How many responses one INSERT carries (10 columns each: within both databases' limits
/// on bound values, and few round trips for a long log).
pub(crate) const RESPONSES_PER_INSERT: usize = 1_000;
/// How many nodes (19 columns each) or edges one INSERT of a new map carries.
pub(crate) const NODES_PER_INSERT: usize = 500;

macro_rules! import_store {
    ($store:ty, $db:ty) => {
        pub(crate) use crate::history_import::{ImportedMap, NODES_PER_INSERT, RESPONSES_PER_INSERT};
        pub(crate) use pathwise_domain::mastery::RecentHistory;
    };
}
pub(crate) use import_store;
