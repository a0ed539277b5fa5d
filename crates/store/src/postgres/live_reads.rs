//! The many-row reads of live analytics, PostgreSQL's way. A learner's portfolio reads
//! thousands of rows (every node, edge and recent answer of 50 maps), and most of their
//! cost is per row on both sides of the connection, not per value. So the answers and
//! edges come one row per map, each column an array (`array_agg`), and are unrolled here.

use super::PgStore;
use crate::analytics::{activity_from, NodeActivity};
use crate::sql::parse;
use crate::ts::Ts;
use crate::{StoreError, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::model::{Edge, ResponseEvent};
use pathwise_domain::{LearnerId, MindMapId, NodeId};
use sqlx::Row;
use uuid::Uuid;

impl PgStore {
    /// The rows of `AnalyticsStore::node_activity`'s query.
    pub(super) async fn read_node_activity(
        &self,
        sql: String,
        learner: LearnerId,
        map: Option<MindMapId>,
    ) -> StoreResult<Vec<NodeActivity>> {
        let mut query = sqlx::query(&sql).bind(learner.0);
        if let Some(map) = map {
            query = query.bind(map.0);
        }
        query.fetch_all(self.reader()).await?.iter().map(activity_from).collect()
    }

    /// `AnalyticsStore::response_events`: one row per map.
    pub(super) async fn read_response_events(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<ResponseEvent>> {
        let sql = format!(
            "SELECT r.mind_map_id, array_agg(r.node_id) AS node_ids, array_agg(r.quality::smallint) AS qualities, \
             array_agg(r.response_type) AS response_types, array_agg(r.session_id) AS session_ids, \
             array_agg(r.responded_at) AS responded_at \
             FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id \
             WHERE m.learner_id = $1 AND r.responded_at > $2 AND r.responded_at <= $3{} GROUP BY r.mind_map_id",
            if map.is_some() { " AND r.mind_map_id = $4" } else { "" }
        );
        let mut query = sqlx::query(&sql).bind(learner.0).bind(Ts(after)).bind(Ts(until));
        if let Some(map) = map {
            query = query.bind(map.0);
        }
        let mut events = Vec::new();
        for row in query.fetch_all(self.reader()).await? {
            let map = MindMapId(row.try_get("mind_map_id")?);
            let nodes: Vec<Uuid> = row.try_get("node_ids")?;
            let qualities: Vec<i16> = row.try_get("qualities")?;
            let kinds: Vec<String> = row.try_get("response_types")?;
            let sessions: Vec<Option<Uuid>> = row.try_get("session_ids")?;
            let times: Vec<DateTime<Utc>> = row.try_get("responded_at")?;
            same_length(nodes.len(), &[qualities.len(), kinds.len(), sessions.len(), times.len()])?;
            events.reserve(nodes.len());
            for ((((node, quality), kind), session), at) in
                nodes.into_iter().zip(qualities).zip(kinds).zip(sessions).zip(times)
            {
                events.push(ResponseEvent {
                    node_id: NodeId(node),
                    mind_map_id: map,
                    quality: u8::try_from(quality).map_err(StoreError::corrupt)?,
                    response_type: parse(&kind)?,
                    session_id: session,
                    responded_at: at,
                });
            }
        }
        Ok(events)
    }

    /// `AnalyticsStore::map_edges`, unordered: one row per map.
    pub(super) async fn read_map_edges(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Edge>> {
        let sql = format!(
            "SELECT e.mind_map_id, array_agg(e.parent_node_id) AS parents, array_agg(e.child_node_id) AS children, \
             array_agg(e.edge_type) AS edge_types, array_agg(e.created_at) AS created_at \
             FROM mind_map_edges e JOIN mind_maps m ON m.id = e.mind_map_id WHERE m.learner_id = $1{} \
             GROUP BY e.mind_map_id",
            if map.is_some() { " AND e.mind_map_id = $2" } else { "" }
        );
        let mut query = sqlx::query(&sql).bind(learner.0);
        if let Some(map) = map {
            query = query.bind(map.0);
        }
        let mut edges = Vec::new();
        for row in query.fetch_all(self.reader()).await? {
            let map = MindMapId(row.try_get("mind_map_id")?);
            let parents: Vec<Uuid> = row.try_get("parents")?;
            let children: Vec<Uuid> = row.try_get("children")?;
            let kinds: Vec<String> = row.try_get("edge_types")?;
            let times: Vec<DateTime<Utc>> = row.try_get("created_at")?;
            same_length(parents.len(), &[children.len(), kinds.len(), times.len()])?;
            edges.reserve(parents.len());
            for (((parent, child), kind), at) in parents.into_iter().zip(children).zip(kinds).zip(times) {
                edges.push(Edge {
                    mind_map_id: map,
                    parent_node_id: NodeId(parent),
                    child_node_id: NodeId(child),
                    edge_type: parse(&kind)?,
                    created_at: at,
                });
            }
        }
        Ok(edges)
    }
}

/// The arrays of one group row are aggregated together, so they are always as long as
/// each other; anything else is a broken row, not a shorter answer.
fn same_length(first: usize, others: &[usize]) -> StoreResult<()> {
    match others.iter().find(|&&len| len != first) {
        Some(len) => Err(StoreError::corrupt(format!("aggregated columns of {first} and {len} values"))),
        None => Ok(()),
    }
}
