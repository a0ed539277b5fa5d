//! What live analytics read. A learner's figures are computed when they are asked for,
//! from a handful of queries whose cost does not grow with the length of the history:
//! every node of the learner's maps with the totals and recent qualities the response path
//! keeps on it, their edges, the responses of the last week, the month's reviews counted
//! by the database, the snapshot a trend or a velocity starts from, and the days the learner studied.
//! Each is one query however many maps the learner has; `map` narrows it to one.

use crate::learning_loop::Snapshot;
use crate::sql::Columns;
use crate::{StoreError, StoreResult};
use chrono::{DateTime, NaiveDate, Utc};
use pathwise_domain::model::{Edge, NodeProgress, ResponseEvent};
use pathwise_domain::{LearnerId, MindMapId, NodeId};

/// A node's progress with what its responses left on it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeActivity {
    pub node: NodeProgress,
    /// The qualities of its latest responses, newest first (the latest seven at most:
    /// `RecentHistory::KEPT`).
    pub recent_qualities: Vec<u8>,
    /// Every response the node has had, and the sum of their qualities.
    pub responses: u64,
    pub quality_sum: u64,
}

#[pathwise_store_macros::capability]
pub trait AnalyticsStore {
    /// The concepts of the learner's maps (or of `map`), each map's in learning order as
    /// `load_map` gives them, maps in id order; a node that only groups others
    /// (`Node::is_grouping`) is left out.
    async fn node_activity(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<NodeActivity>> {
        // Unordered: sorted here (`NodeProgress::map_order`), where it costs less. A node
        // that only groups others is not a concept: no figure counts it.
        let sql = format!(
            "SELECT {NODE_ACTIVITY_COLUMNS} \
             FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id WHERE m.learner_id = $1 AND {}{}",
            crate::sql::not_grouping("n"),
            map_filter(map, "n.mind_map_id", 2)
        );
        let mut nodes = self.read_node_activity(sql, learner, map).await?;
        nodes.sort_unstable_by(|a, b| {
            a.node.mind_map_id.cmp(&b.node.mind_map_id).then_with(|| a.node.map_order(&b.node))
        });
        Ok(nodes)
    }

    /// The edges of the learner's maps (or of `map`).
    async fn map_edges(&self, learner: LearnerId, map: Option<MindMapId>) -> StoreResult<Vec<Edge>> {
        let mut edges = self.read_map_edges(learner, map).await?;
        edges.sort_unstable_by(|a, b| a.mind_map_id.cmp(&b.mind_map_id).then_with(|| a.map_order(b)));
        Ok(edges)
    }

    /// The learner's responses (or those on `map`) answered after `after` and no later
    /// than `until`, in no particular order.
    async fn response_events(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<Vec<ResponseEvent>> {
        self.read_response_events(learner, map, after, until).await
    }

    /// For each of the learner's maps (or for `map`) with `review` responses answered after
    /// `after` and no later than `until`: how many, and how many of quality `retained` or
    /// more. Counted by the database, so that a month of responses is not loaded to count
    /// its reviews.
    async fn review_tallies(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
        retained: u8,
    ) -> StoreResult<Vec<(MindMapId, u32, u32)>> {
        let sql = format!(
            "SELECT r.mind_map_id, COUNT(*) AS reviews, \
             SUM(CASE WHEN r.quality >= $4 THEN 1 ELSE 0 END) AS retained \
             FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id \
             WHERE m.learner_id = $1 AND r.response_type = 'review' \
             AND r.responded_at > $2 AND r.responded_at <= $3{} GROUP BY r.mind_map_id",
            map_filter(map, "r.mind_map_id", 5)
        );
        let query = sqlx::query(&sql).bind(learner.0).bind(Ts(after)).bind(Ts(until)).bind(i32::from(retained));
        let count = |value: i64| u32::try_from(value).map_err(StoreError::corrupt);
        bind_map(query, map)
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(|row| {
                let map = MindMapId(row.try_get("mind_map_id")?);
                Ok((map, count(row.try_get("reviews")?)?, count(row.try_get("retained")?)?))
            })
            .collect()
    }

    /// For each of the learner's maps (or for `map`) its oldest snapshot dated from `from`
    /// to the day before `before`; maps without one are left out.
    async fn first_snapshots(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        from: NaiveDate,
        before: NaiveDate,
    ) -> StoreResult<Vec<Snapshot>> {
        // The first date of each map in the range, then its row by the primary key.
        let first = format!(
            "SELECT mind_map_id, MIN(snapshot_date) AS first_date FROM analytics_snapshots \
             WHERE learner_id = $1 AND snapshot_date >= $2 AND snapshot_date < $3{} GROUP BY mind_map_id",
            map_filter(map, "mind_map_id", 4)
        );
        let sql = format!(
            "SELECT s.mind_map_id, s.learner_id, s.snapshot_date, s.metrics, s.created_at \
             FROM analytics_snapshots s JOIN ({first}) f \
             ON s.mind_map_id = f.mind_map_id AND s.snapshot_date = f.first_date ORDER BY s.mind_map_id"
        );
        let query = sqlx::query(&sql).bind(learner.0).bind(from).bind(before);
        bind_map(query, map).fetch_all(self.reader()).await?.iter().map(snapshot_from_row).collect()
    }

    /// The (UTC) days on which the learner answered anything, newest first, from `until`
    /// back, at most `limit` of them.
    async fn study_days(&self, learner: LearnerId, until: NaiveDate, limit: i64) -> StoreResult<Vec<NaiveDate>> {
        Ok(sqlx::query_scalar(
            "SELECT day FROM study_days WHERE learner_id = $1 AND day <= $2 ORDER BY day DESC LIMIT $3",
        )
        .bind(learner.0)
        .bind(until)
        .bind(limit)
        .fetch_all(self.reader())
        .await?)
    }
}

/// The columns of a node's progress and activity, read by name ([`activity_from`]).
pub(crate) const NODE_ACTIVITY_COLUMNS: &str = "n.id, n.mind_map_id, n.label, n.depth, n.sequence, n.mastery_score, \
     n.mastery_status, n.ease_factor, n.next_review_at, n.last_reviewed_at, n.mastered_at, n.recent_qualities, \
     n.response_count, n.quality_sum";

/// A node's progress and activity from a row of [`NODE_ACTIVITY_COLUMNS`], for both stores.
pub(crate) fn activity_from(row: &impl Columns) -> StoreResult<NodeActivity> {
    let count = |value: i64| u64::try_from(value).map_err(StoreError::corrupt);
    Ok(NodeActivity {
        node: NodeProgress {
            id: NodeId(row.id("id")?),
            mind_map_id: MindMapId(row.id("mind_map_id")?),
            label: row.plain("label")?,
            depth: row.plain("depth")?,
            sequence: row.plain("sequence")?,
            mastery_score: row.plain("mastery_score")?,
            mastery_status: row.word("mastery_status")?,
            ease_factor: row.plain("ease_factor")?,
            next_review_at: row.maybe_time("next_review_at")?,
            last_reviewed_at: row.maybe_time("last_reviewed_at")?,
            mastered_at: row.maybe_time("mastered_at")?,
        },
        recent_qualities: row.qualities("recent_qualities")?,
        responses: count(row.plain("response_count")?)?,
        quality_sum: count(row.plain("quality_sum")?)?,
    })
}

/// The SQL of [`AnalyticsStore`], shared by both stores. Expanded next to `shared_store!`
/// and `loop_store!`, whose row readers it uses; the backend supplies
/// `read_node_activity`, which runs the node query its own way (SQLite's reads its many
/// rows through rusqlite: `sqlite_read.rs`).
macro_rules! analytics_store {
    ($store:ty) => {
        pub(crate) use crate::analytics::NODE_ACTIVITY_COLUMNS;
    };
}

pub(crate) use analytics_store;
