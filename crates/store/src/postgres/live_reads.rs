//! The many-row reads of live analytics, PostgreSQL's way. A learner's portfolio reads
//! thousands of rows (every node, edge and recent answer of 50 maps), and most of their
//! cost is per row on both sides of the connection, not per value. So the answers and
//! edges come one row per map, each column an array (`array_agg`), and are unrolled here.

use super::{bind_map, PgStore};
use crate::analytics::{activity_from, NodeActivity};
use crate::sql::{map_filter, parse};
use crate::ts::Ts;
use crate::{StoreError, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::model::{Edge, ResponseEvent};
use pathwise_domain::{LearnerId, MindMapId, NodeId};
use sqlx::Row;
use uuid::Uuid;

impl PgStore {
    /// The rows of `AnalyticsStore::node_activity`'s query.
    pub(crate) async fn read_node_activity(
        &self,
        sql: String,
        learner: LearnerId,
        map: Option<MindMapId>,
    ) -> StoreResult<Vec<NodeActivity>> {
        bind_map(sqlx::query(&sql).bind(learner.0), map)
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(activity_from)
            .collect()
    }

    /// `AnalyticsStore::response_events`: one row per map.
    pub(crate) async fn read_response_events(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<ResponseEvent>> {
        let sql = format!(
            "SELECT r.mind_map_id, array_agg(r.node_id) AS node_ids, array_agg(r.quality::smallint) AS qualities, \
             array_agg(r.rating) AS ratings, \
             array_agg(r.response_type) AS response_types, array_agg(r.session_id) AS session_ids, \
             array_agg(r.responded_at) AS responded_at \
             FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id \
             WHERE m.learner_id = $1 AND r.responded_at > $2 AND r.responded_at <= $3{} GROUP BY r.mind_map_id",
            map_filter(map, "r.mind_map_id", 4)
        );
        let query = sqlx::query(&sql).bind(learner.0).bind(Ts(after)).bind(Ts(until));
        let mut events = Vec::new();
        for row in bind_map(query, map).fetch_all(self.reader()).await? {
            let map = MindMapId(row.try_get("mind_map_id")?);
            let nodes: Vec<Uuid> = row.try_get("node_ids")?;
            let qualities: Vec<i16> = row.try_get("qualities")?;
            let ratings: Vec<i32> = row.try_get("ratings")?;
            let kinds: Vec<String> = row.try_get("response_types")?;
            let sessions: Vec<Option<Uuid>> = row.try_get("session_ids")?;
            let times: Vec<DateTime<Utc>> = row.try_get("responded_at")?;
            let lengths = [nodes.len(), qualities.len(), ratings.len(), kinds.len(), sessions.len(), times.len()];
            unroll(&mut events, &lengths, |i| {
                Ok(ResponseEvent {
                    node_id: NodeId(nodes[i]),
                    mind_map_id: map,
                    quality: u8::try_from(qualities[i]).map_err(StoreError::corrupt)?,
                    rating: crate::sql::rating_from(ratings[i].into())?,
                    response_type: parse(&kinds[i])?,
                    session_id: sessions[i],
                    responded_at: times[i],
                })
            })?;
        }
        Ok(events)
    }

    /// `AnalyticsStore::map_edges`, unordered: one row per map.
    pub(crate) async fn read_map_edges(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Edge>> {
        let sql = format!(
            "SELECT e.mind_map_id, array_agg(e.parent_node_id) AS parents, array_agg(e.child_node_id) AS children, \
             array_agg(e.edge_type) AS edge_types, array_agg(e.created_at) AS created_at \
             FROM mind_map_edges e JOIN mind_maps m ON m.id = e.mind_map_id WHERE m.learner_id = $1{} \
             GROUP BY e.mind_map_id",
            map_filter(map, "e.mind_map_id", 2)
        );
        let mut edges = Vec::new();
        for row in bind_map(sqlx::query(&sql).bind(learner.0), map).fetch_all(self.reader()).await? {
            let map = MindMapId(row.try_get("mind_map_id")?);
            let parents: Vec<Uuid> = row.try_get("parents")?;
            let children: Vec<Uuid> = row.try_get("children")?;
            let kinds: Vec<String> = row.try_get("edge_types")?;
            let times: Vec<DateTime<Utc>> = row.try_get("created_at")?;
            unroll(&mut edges, &[parents.len(), children.len(), kinds.len(), times.len()], |i| {
                Ok(Edge {
                    mind_map_id: map,
                    parent_node_id: NodeId(parents[i]),
                    child_node_id: NodeId(children[i]),
                    edge_type: parse(&kinds[i])?,
                    created_at: times[i],
                })
            })?;
        }
        Ok(edges)
    }
}

/// The rows of one group row, appended to `out`: `row(i)` reads them across its aggregated
/// columns at position `i`. The columns (their `lengths`) are aggregated together, so they
/// are always as long as each other; anything else is a broken row, not a shorter answer.
fn unroll<T>(out: &mut Vec<T>, lengths: &[usize], mut row: impl FnMut(usize) -> StoreResult<T>) -> StoreResult<()> {
    let rows = lengths.first().copied().unwrap_or_default();
    if let Some(other) = lengths.iter().find(|&&len| len != rows) {
        return Err(StoreError::corrupt(format!("aggregated columns of {rows} and {other} values")));
    }
    out.reserve(rows);
    for i in 0..rows {
        out.push(row(i)?);
    }
    Ok(())
}
