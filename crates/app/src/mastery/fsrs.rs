//! FSRS for the learners who chose it. The response is recorded as for everyone (SM-2's
//! state stays on the node, so a learner can switch back); then FSRS, fed the node's FSRS
//! memory and the days since its last review, sets the node's interval and next review and
//! keeps its new memory, with the learner's own parameters once fitted (`fsrs_parameters`).
//! A learner who switches to FSRS has their history replayed into each node's FSRS memory
//! first. SM-2 learners pay nothing: the choice is cached for a short while.

use crate::stores::FsrsStores;
use crate::{App, AppError, AppResult};
use chrono::{DateTime, Utc};
use pathwise_domain::evidence::Rating;
use pathwise_domain::model::Node;
use pathwise_domain::{srs, LearnerId, ResponseType, SrsScheduler};
use pathwise_srs::{fsrs_review, FsrsMemory, DEFAULT_DESIRED_RETENTION};
use pathwise_store::NodeFsrs;

/// Each learner's choice of scheduler, read again every little while.
pub(crate) type SchedulerChoices = crate::learner_cache::LearnerCache<SrsScheduler>;

/// What FSRS needs from before a response.
pub(crate) struct FsrsBefore {
    last_reviewed_at: Option<DateTime<Utc>>,
    memory: Option<NodeFsrs>,
}

impl<S: FsrsStores> App<S> {
    async fn scheduler_of(&self, learner: LearnerId) -> AppResult<SrsScheduler> {
        if let Some(choice) = self.scheduler_choices.get(learner) {
            return Ok(choice);
        }
        let choice = self.store.preferences(learner).await?.srs_scheduler;
        self.scheduler_choices.keep(learner, choice);
        Ok(choice)
    }

    /// For an FSRS learner's teach or review response: the node's state before it.
    pub(crate) async fn fsrs_before(
        &self,
        learner: LearnerId,
        node: pathwise_domain::NodeId,
        response_type: ResponseType,
    ) -> AppResult<Option<FsrsBefore>> {
        if response_type == ResponseType::Diagnostic || self.scheduler_of(learner).await? != SrsScheduler::Fsrs {
            return Ok(None);
        }
        let Some(found) = self.store.get_node(learner, node).await? else { return Ok(None) };
        let memory = self.store.node_fsrs(learner, node).await?;
        Ok(Some(FsrsBefore { last_reviewed_at: found.last_reviewed_at, memory }))
    }

    /// Reschedule `node` (as the response left it) with FSRS.
    pub(crate) async fn apply_fsrs(
        &self,
        learner: LearnerId,
        before: FsrsBefore,
        rating: Rating,
        mut node: Node,
    ) -> AppResult<Node> {
        let Some(reviewed_at) = node.last_reviewed_at else { return Ok(node) };
        let elapsed_days =
            before.last_reviewed_at.map_or(0.0, |at| ((reviewed_at - at).num_seconds().max(0) as f64) / 86_400.0);
        let prior = before.memory.map(|m| FsrsMemory { stability: m.stability, difficulty: m.difficulty });
        let parameters = self.fsrs_parameters_of(learner).await?;
        let review = fsrs_review(prior, elapsed_days, rating, DEFAULT_DESIRED_RETENTION, &parameters)
            .map_err(|e| AppError::internal(format!("FSRS could not schedule node {}: {e}", node.id)))?;
        let next_review_at = srs::due_at(reviewed_at, review.interval_days);
        let memory = NodeFsrs { stability: review.memory.stability, difficulty: review.memory.difficulty };
        if self.store.apply_fsrs(learner, node.id, memory, review.interval_days, next_review_at, reviewed_at).await? {
            node.interval_days = review.interval_days;
            node.next_review_at = Some(next_review_at);
        }
        Ok(node)
    }
}
