//! The many-row reads of live analytics, SQLite's way: through rusqlite
//! (`sqlite_read.rs`), whose rows cost far less each than sqlx's.

use super::SqliteStore;
use crate::analytics::{activity_from, NodeActivity};
use crate::sql::map_filter;
use crate::sqlite_read::{edge_from, response_event_from};
use crate::StoreResult;
use chrono::{DateTime, Utc};
use pathwise_domain::model::{Edge, ResponseEvent};
use pathwise_domain::{LearnerId, MindMapId};
use rusqlite::types::Value;

/// An id as SQLite keeps it: its 16 bytes.
fn id(uuid: uuid::Uuid) -> Value {
    Value::Blob(uuid.as_bytes().to_vec())
}

/// A timestamp as SQLite keeps it: microseconds since the epoch (`Ts`).
fn micros(at: DateTime<Utc>) -> Value {
    Value::Integer(at.timestamp_micros())
}

impl SqliteStore {
    /// The rows of `AnalyticsStore::node_activity`'s query (`$1` the learner, `$2` the map).
    pub(crate) async fn read_node_activity(
        &self,
        sql: String,
        learner: LearnerId,
        map: Option<MindMapId>,
    ) -> StoreResult<Vec<NodeActivity>> {
        let params = [Some(id(learner.0)), map.map(|m| id(m.0))].into_iter().flatten().collect();
        self.many_rows.rows(sql, params, |row| activity_from(row)).await
    }

    /// `AnalyticsStore::response_events`.
    pub(crate) async fn read_response_events(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<ResponseEvent>> {
        let sql = format!(
            "SELECT r.node_id, r.mind_map_id, r.quality, r.rating, r.response_type, r.session_id, r.responded_at \
             FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id \
             WHERE m.learner_id = $1 AND r.responded_at > $2 AND r.responded_at <= $3{}",
            map_filter(map, "r.mind_map_id", 4)
        );
        let params = [Some(id(learner.0)), Some(micros(after)), Some(micros(until)), map.map(|m| id(m.0))]
            .into_iter()
            .flatten()
            .collect();
        self.many_rows.rows(sql, params, response_event_from).await
    }

    /// `AnalyticsStore::map_edges`, unordered.
    pub(crate) async fn read_map_edges(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Edge>> {
        let sql = format!(
            "SELECT e.mind_map_id, e.parent_node_id, e.child_node_id, e.edge_type, e.created_at \
             FROM mind_map_edges e JOIN mind_maps m ON m.id = e.mind_map_id WHERE m.learner_id = $1{}",
            map_filter(map, "e.mind_map_id", 2)
        );
        let params = [Some(id(learner.0)), map.map(|m| id(m.0))].into_iter().flatten().collect();
        self.many_rows.rows(sql, params, edge_from).await
    }
}
