//! The learner model: a learner's maps of concepts, the nodes' mastery, the responses that
//! move it.

use crate::{NewResponse, Page, ResponseContext, ResponseDecision, ResponseFilter, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::model::{MapAggregate, MapChanges, MindMap, Node, QuizResponse};
use pathwise_domain::{DomainError, LearnerId, MapStatus, MindMapId, NodeId};
use std::collections::HashMap;

/// A learner's maps of concepts, their nodes' mastery and the responses that move it. Every
/// read and write is scoped to one learner: another learner's records are simply not found.
#[pathwise_store_macros::capability]
pub trait MapStore {
    async fn get_map(&self, learner: LearnerId, id: MindMapId) -> StoreResult<Option<MindMap>> {
        let sql = format!("SELECT {MAP_COLUMNS} FROM mind_maps m WHERE m.id = $1 AND m.learner_id = $2");
        sqlx::query(&sql)
            .bind(id.0)
            .bind(learner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(map_from_row)
            .transpose()
    }

    /// A map with all its nodes (in sequence order) and edges.
    async fn load_map(&self, learner: LearnerId, id: MindMapId) -> StoreResult<Option<MapAggregate>> {
        let mut conn = self.reader().acquire().await?;
        load_aggregate(&mut conn, learner, id, false).await
    }

    async fn list_maps(
        &self,
        learner: LearnerId,
        status: Option<MapStatus>,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<MindMap>> {
        let rows = crate::sql::LearnerListing {
            table: "mind_maps",
            alias: "m",
            columns: MAP_COLUMNS,
            newest_by: "created_at",
        };
        learner_page(self.reader(), &rows, learner, status.map(|s| s.as_str()), offset, limit, map_from_row).await
    }

    /// Delete a map with everything in it; false if there was no such map.
    async fn delete_map(&self, learner: LearnerId, id: MindMapId) -> StoreResult<bool> {
        let done = sqlx::query("DELETE FROM mind_maps WHERE id = $1 AND learner_id = $2")
            .bind(id.0)
            .bind(learner.0)
            .execute(self.writer())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Create a map and write `changes` to it, in one transaction.
    async fn insert_map(&self, map: &MindMap, changes: &MapChanges) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        insert_map_row(&mut tx, map).await?;
        apply_changes(&mut tx, changes).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Create a map for a topic and write `changes` to it, in one transaction, if `place`
    /// allows: it sees the learner's maps (under a per-learner write lock, so that two
    /// imports of one topic cannot both miss each other) and names the map the new one
    /// replaces, if any, which is deleted in the same transaction. Returns that map's id.
    async fn insert_topic_map<F>(&self, map: &MindMap, changes: &MapChanges, place: F) -> StoreResult<Option<MindMapId>>
    where
        F: FnOnce(&[MindMap]) -> Result<Option<MindMapId>, DomainError> + Send + 'static,
    {
        let mut tx = self.begin_write().await?;
        // One learner's new maps take turns, so that the second sees the first. (On
        // SQLite the write transaction is already the database's only one.)
        sqlx::query(&format!("SELECT 1 FROM learners WHERE id = $1 {}", Self::MAP_LOCK))
            .bind(map.learner_id.0)
            .fetch_optional(&mut *tx)
            .await?;
        let sql = format!("SELECT {MAP_COLUMNS} FROM mind_maps m WHERE m.learner_id = $1");
        let maps = sqlx::query(&sql)
            .bind(map.learner_id.0)
            .fetch_all(&mut *tx)
            .await?
            .iter()
            .map(map_from_row)
            .collect::<StoreResult<Vec<_>>>()?;
        let replaced = place(&maps)?;
        if let Some(old) = replaced {
            sqlx::query("DELETE FROM mind_maps WHERE id = $1 AND learner_id = $2")
                .bind(old.0)
                .bind(map.learner_id.0)
                .execute(&mut *tx)
                .await?;
        }
        insert_map_row(&mut tx, map).await?;
        apply_changes(&mut tx, changes).await?;
        tx.commit().await?;
        Ok(replaced)
    }

    /// Load a map under a write lock, let `decide` compute the changes from it, and write
    /// them in the same transaction. If `decide` refuses, nothing is written.
    async fn update_map<T, F>(&self, learner: LearnerId, id: MindMapId, decide: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&MapAggregate) -> Result<(MapChanges, T), DomainError> + Send + 'static,
    {
        let mut tx = self.begin_write().await?;
        let aggregate = load_aggregate(&mut tx, learner, id, true).await?.ok_or(StoreError::NotFound("mind map"))?;
        let (changes, out) = decide(&aggregate)?;
        if !changes.is_empty() {
            apply_changes(&mut tx, &changes).await?;
        }
        tx.commit().await?;
        Ok(out)
    }

    /// The map's frontier, unordered: nodes still to learn whose every prerequisite is
    /// mastered. This is `graph::frontier` as one query, so that a large map is not loaded
    /// whole to answer it; the conformance suite checks that the two agree.
    async fn frontier(&self, learner: LearnerId, map: MindMapId) -> StoreResult<Vec<Node>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
             WHERE n.mind_map_id = $1 AND m.learner_id = $2 \
             AND n.mastery_status IN ('unseen', 'diagnosed', 'learning') AND {} \
             AND NOT EXISTS (SELECT 1 FROM mind_map_edges e JOIN mind_map_nodes p ON p.id = e.parent_node_id \
               WHERE e.child_node_id = n.id AND e.edge_type = 'prerequisite' AND p.mastery_status <> 'mastered' \
               AND {})",
            crate::sql::not_grouping("n"),
            crate::sql::not_grouping("p"),
        );
        sqlx::query(&sql).bind(map.0).bind(learner.0).fetch_all(self.reader()).await?.iter().map(node_from).collect()
    }

    async fn get_node(&self, learner: LearnerId, id: NodeId) -> StoreResult<Option<Node>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
             WHERE n.id = $1 AND m.learner_id = $2"
        );
        sqlx::query(&sql)
            .bind(id.0)
            .bind(learner.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(node_from)
            .transpose()
    }

    /// The single write path for responses: read the node and its recent history, let
    /// `decide` apply the mastery rules, then insert the response and update the node (and
    /// complete the map when its last node is mastered) atomically.
    async fn record_response<F>(
        &self,
        learner: LearnerId,
        response: NewResponse,
        decide: F,
    ) -> StoreResult<(QuizResponse, Node)>
    where
        F: Fn(&ResponseContext) -> Result<ResponseDecision, DomainError> + Send + Sync + 'static,
    {
        self.record_response_impl(learner, response, decide).await
    }

    /// A node's responses, newest first; `None` if the node is not the learner's.
    async fn node_history(
        &self,
        learner: LearnerId,
        node: NodeId,
        limit: Option<i64>,
    ) -> StoreResult<Option<Vec<QuizResponse>>> {
        // The node's id, not a literal: `SELECT 1` is INT4 in PostgreSQL and would
        // not decode as i64 there.
        let owned: Option<uuid::Uuid> = sqlx::query_scalar(
            "SELECT n.id FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id WHERE n.id = $1 AND m.learner_id = $2",
        )
        .bind(node.0)
        .bind(learner.0)
        .fetch_optional(self.reader())
        .await?;
        if owned.is_none() {
            return Ok(None);
        }
        let sql = format!(
            "SELECT {RESPONSE_COLUMNS} FROM quiz_responses r WHERE r.node_id = $1 \
             ORDER BY r.responded_at DESC, r.seq DESC LIMIT $2"
        );
        let rows = sqlx::query(&sql).bind(node.0).bind(limit.unwrap_or(i64::MAX)).fetch_all(self.reader()).await?;
        rows.iter().map(response_from_row).collect::<StoreResult<Vec<_>>>().map(Some)
    }

    async fn list_responses(
        &self,
        learner: LearnerId,
        filter: &ResponseFilter,
        offset: i64,
        limit: i64,
    ) -> StoreResult<Page<QuizResponse>> {
        fn scoped<'a>(select: &str, learner: LearnerId, filter: &'a ResponseFilter) -> QueryBuilder<'a, Db> {
            let mut query = QueryBuilder::new(select);
            query.push(" FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id WHERE m.learner_id = ");
            query.push_bind(learner.0);
            if let Some(map) = filter.mind_map_id {
                query.push(" AND r.mind_map_id = ").push_bind(map.0);
            }
            if let Some(node) = filter.node_id {
                query.push(" AND r.node_id = ").push_bind(node.0);
            }
            if let Some(kind) = filter.response_type {
                query.push(" AND r.response_type = ").push_bind(kind.as_str());
            }
            query
        }
        let total: i64 =
            scoped("SELECT COUNT(*)", learner, filter).build_query_scalar().fetch_one(self.reader()).await?;
        let mut page = scoped(&format!("SELECT {RESPONSE_COLUMNS}"), learner, filter);
        page.push(" ORDER BY r.responded_at DESC, r.seq DESC LIMIT ").push_bind(limit);
        page.push(" OFFSET ").push_bind(offset);
        let items =
            page.build().fetch_all(self.reader()).await?.iter().map(response_from_row).collect::<StoreResult<_>>()?;
        Ok(Page { items, total: total as u64 })
    }

    /// For every node of a map with responses: the latest `per_node` qualities, newest first,
    /// from the history the node keeps (at most `RecentHistory::KEPT` of them).
    async fn recent_qualities(
        &self,
        learner: LearnerId,
        map: MindMapId,
        per_node: i64,
    ) -> StoreResult<HashMap<NodeId, Vec<u8>>> {
        // The history each node keeps, as the response path wrote it.
        let rows = sqlx::query(
            "SELECT n.id, n.recent_qualities FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
             WHERE n.mind_map_id = $1 AND m.learner_id = $2",
        )
        .bind(map.0)
        .bind(learner.0)
        .fetch_all(self.reader())
        .await?;
        let mut out: HashMap<NodeId, Vec<u8>> = HashMap::new();
        for row in rows {
            let mut qualities = row.qualities("recent_qualities")?;
            qualities.truncate(usize::try_from(per_node).unwrap_or(0));
            if !qualities.is_empty() {
                out.insert(NodeId(row.try_get("id")?), qualities);
            }
        }
        Ok(out)
    }

    /// Nodes of the learner's active maps due for review by `until`, soonest first.
    async fn pending_reviews(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<Node>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
             WHERE m.learner_id = $1 AND m.status = 'active' AND n.next_review_at IS NOT NULL \
             AND n.next_review_at <= $2{} ORDER BY n.next_review_at, n.id",
            map_filter(map, "n.mind_map_id", 3)
        );
        let query = sqlx::query(&sql).bind(learner.0).bind(Ts(until));
        bind_map(query, map).fetch_all(self.reader()).await?.iter().map(node_from).collect()
    }

    /// Maps of every learner with this status, for jobs that visit them all.
    async fn maps_with_status(&self, status: MapStatus) -> StoreResult<Vec<MindMap>> {
        let sql = format!(
            "SELECT {MAP_COLUMNS} FROM mind_maps m WHERE m.status = $1 ORDER BY m.learner_id, m.created_at, m.id"
        );
        sqlx::query(&sql).bind(status.as_str()).fetch_all(self.reader()).await?.iter().map(map_from_row).collect()
    }
}
