//! What FSRS keeps: its memory of each node (stability and difficulty) and each learner's
//! own fitted parameters.

use crate::StoreResult;
use chrono::{DateTime, Utc};
use pathwise_domain::{LearnerId, NodeId};

/// FSRS's memory of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeFsrs {
    pub stability: f64,
    pub difficulty: f64,
}

/// A learner's own FSRS parameters as last fitted, with how well the fitting predicted
/// their latest reviews; `weights` is `None` when the defaults were kept (`reason` says why).
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerFsrs {
    pub weights: Option<Vec<f32>>,
    /// Reviews in the learner's log when fitted.
    pub reviews: i64,
    /// Reviews the optimiser fitted on (a day or more after the concept's previous answer).
    pub fitted_on_reviews: i64,
    pub initial_stability_only: bool,
    /// The latest reviews held out to check the fitting on, and the log losses there.
    pub checked_reviews: i64,
    pub log_loss: Option<f64>,
    pub default_log_loss: Option<f64>,
    pub reason: Option<String>,
    pub fitted_at: DateTime<Utc>,
}

#[pathwise_store_macros::capability]
pub trait FsrsStore {
    /// FSRS's memory of a learner's node, if it has one.
    async fn node_fsrs(&self, learner: LearnerId, node: NodeId) -> StoreResult<Option<NodeFsrs>> {
        let row = sqlx::query(
            "SELECT f.stability, f.difficulty FROM node_fsrs f JOIN mind_map_nodes n ON n.id = f.node_id \
             JOIN mind_maps m ON m.id = n.mind_map_id WHERE f.node_id = $1 AND m.learner_id = $2",
        )
        .bind(node.0)
        .bind(learner.0)
        .fetch_optional(self.reader())
        .await?;
        row.map(|r| {
            let (stability, difficulty) = (r.try_get("stability")?, r.try_get("difficulty")?);
            Ok(NodeFsrs { stability, difficulty })
        })
        .transpose()
    }

    /// Keep FSRS's memory of a node and its schedule: the node's interval and next review,
    /// provided it was last reviewed at `reviewed_at` (a later response has not moved it
    /// since). Whether it was applied.
    async fn apply_fsrs(
        &self,
        learner: LearnerId,
        node: NodeId,
        memory: NodeFsrs,
        interval_days: f64,
        next_review_at: DateTime<Utc>,
        reviewed_at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        let moved = sqlx::query(
            "UPDATE mind_map_nodes SET interval_days = $3, next_review_at = $4, version = version + 1 \
             WHERE id = $1 AND last_reviewed_at = $5 \
             AND mind_map_id IN (SELECT id FROM mind_maps WHERE learner_id = $2)",
        )
        .bind(node.0)
        .bind(learner.0)
        .bind(interval_days)
        .bind(Ts(next_review_at))
        .bind(Ts(reviewed_at))
        .execute(&mut *tx)
        .await?;
        if moved.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO node_fsrs (node_id, stability, difficulty, updated_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (node_id) DO UPDATE SET stability = excluded.stability, \
             difficulty = excluded.difficulty, updated_at = excluded.updated_at",
        )
        .bind(node.0)
        .bind(memory.stability)
        .bind(memory.difficulty)
        .bind(Ts(reviewed_at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The learner's own FSRS parameters, if they were ever fitted.
    async fn learner_fsrs(&self, learner: LearnerId) -> StoreResult<Option<LearnerFsrs>> {
        let row = sqlx::query(
            "SELECT weights, reviews, fitted_on_reviews, initial_stability_only, checked_reviews, log_loss, \
             default_log_loss, reason, fitted_at FROM learner_fsrs WHERE learner_id = $1",
        )
        .bind(learner.0)
        .fetch_optional(self.reader())
        .await?;
        row.map(|r| {
            Ok(LearnerFsrs {
                weights: r.try_get::<Option<Json<Vec<f32>>>, _>("weights")?.map(|w| w.0),
                reviews: i64::from(r.try_get::<i32, _>("reviews")?),
                fitted_on_reviews: i64::from(r.try_get::<i32, _>("fitted_on_reviews")?),
                initial_stability_only: r.try_get("initial_stability_only")?,
                checked_reviews: i64::from(r.try_get::<i32, _>("checked_reviews")?),
                log_loss: r.try_get("log_loss")?,
                default_log_loss: r.try_get("default_log_loss")?,
                reason: r.try_get("reason")?,
                fitted_at: r.try_get::<Ts, _>("fitted_at")?.0,
            })
        })
        .transpose()
    }

    async fn set_learner_fsrs(&self, learner: LearnerId, fit: &LearnerFsrs) -> StoreResult<()> {
        let count = |n: i64| i32::try_from(n).map_err(StoreError::corrupt);
        sqlx::query(
            "INSERT INTO learner_fsrs (learner_id, weights, reviews, fitted_on_reviews, initial_stability_only, \
             checked_reviews, log_loss, default_log_loss, reason, fitted_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (learner_id) DO UPDATE SET \
             weights = excluded.weights, reviews = excluded.reviews, fitted_on_reviews = excluded.fitted_on_reviews, \
             initial_stability_only = excluded.initial_stability_only, checked_reviews = excluded.checked_reviews, \
             log_loss = excluded.log_loss, default_log_loss = excluded.default_log_loss, \
             reason = excluded.reason, fitted_at = excluded.fitted_at",
        )
        .bind(learner.0)
        .bind(fit.weights.as_ref().map(Json))
        .bind(count(fit.reviews)?)
        .bind(count(fit.fitted_on_reviews)?)
        .bind(fit.initial_stability_only)
        .bind(count(fit.checked_reviews)?)
        .bind(fit.log_loss)
        .bind(fit.default_log_loss)
        .bind(fit.reason.as_deref())
        .bind(Ts(fit.fitted_at))
        .execute(self.writer())
        .await?;
        Ok(())
    }

    /// Replace FSRS's memory of the learner's nodes: `memories` for those given, none for the
    /// learner's other nodes. Nodes not the learner's are left alone.
    async fn replace_fsrs_memories(
        &self,
        learner: LearnerId,
        memories: &[(NodeId, NodeFsrs)],
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "DELETE FROM node_fsrs WHERE node_id IN (SELECT n.id FROM mind_map_nodes n \
             JOIN mind_maps m ON m.id = n.mind_map_id WHERE m.learner_id = $1)",
        )
        .bind(learner.0)
        .execute(&mut *tx)
        .await?;
        for (node, memory) in memories {
            sqlx::query(
                "INSERT INTO node_fsrs (node_id, stability, difficulty, updated_at) \
                 SELECT n.id, $3, $4, $5 FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id \
                 WHERE n.id = $1 AND m.learner_id = $2",
            )
            .bind(node.0)
            .bind(learner.0)
            .bind(memory.stability)
            .bind(memory.difficulty)
            .bind(Ts(now))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The learners who chose FSRS.
    async fn fsrs_learners(&self) -> StoreResult<Vec<LearnerId>> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "SELECT learner_id FROM learner_preferences WHERE srs_scheduler = 'fsrs' ORDER BY learner_id",
        )
        .fetch_all(self.reader())
        .await?;
        Ok(ids.into_iter().map(LearnerId).collect())
    }
}
