//! FSRS for the learners who chose it: a service of its own, bound by the four store traits
//! it reads and writes, holding the one cache of what schedules each learner.
//!
//! The response is recorded as for everyone (SM-2's state stays on the node, so a learner
//! can switch back); then FSRS, fed the node's FSRS memory and the days since its last
//! review, sets the node's interval and next review and keeps its new memory, with the
//! learner's own parameters once fitted (`parameters`). A learner who switches to FSRS has
//! their history replayed into each node's FSRS memory first. SM-2 learners pay nothing:
//! what schedules a learner is cached for a short while.

pub mod parameters;

use crate::learner_cache::LearnerCache;
use crate::{AppError, AppResult, Clock, StoreHandle};
use chrono::{DateTime, Utc};
use pathwise_domain::evidence::Rating;
use pathwise_domain::model::Node;
use pathwise_domain::{srs, LearnerId, NodeId, ResponseType, SrsScheduler};
use pathwise_srs::{fsrs_review, FsrsMemory, FsrsParameters, DEFAULT_DESIRED_RETENTION};
use pathwise_store::{AnalyticsStore, FsrsStore, MapStore, NodeFsrs, PreferenceStore};
use std::sync::Arc;

/// What the FSRS service asks of its store: FSRS memories and fitted parameters, the
/// learner's choice of scheduler, their answers (the review log), and the node answered.
pub trait FsrsStores: StoreHandle + AnalyticsStore + FsrsStore + MapStore + PreferenceStore {}
impl<T: StoreHandle + AnalyticsStore + FsrsStore + MapStore + PreferenceStore> FsrsStores for T {}

/// FSRS scheduling, the learners' fitted parameters and their replayed memories.
#[derive(Clone)]
pub struct FsrsService<S = pathwise_store::AnyStore> {
    store: S,
    clock: Arc<dyn Clock>,
    /// What schedules each learner, read again every little while: another server may have
    /// refitted their parameters or seen them change scheduler.
    schedulers: LearnerCache<LearnerScheduler>,
}

/// What schedules a learner, as cached.
#[derive(Clone)]
enum LearnerScheduler {
    Sm2,
    /// FSRS, with the parameters in use (their own once fitted, the defaults until then).
    Fsrs(FsrsParameters),
}

/// What FSRS needs from before a response.
pub(crate) struct FsrsBefore {
    last_reviewed_at: Option<DateTime<Utc>>,
    memory: Option<NodeFsrs>,
    parameters: FsrsParameters,
}

impl<S: StoreHandle> FsrsService<S> {
    pub fn new(store: S, clock: Arc<dyn Clock>) -> Self {
        FsrsService { store, clock, schedulers: LearnerCache::default() }
    }

    /// Read the learner's scheduler and parameters again next time: this server changed
    /// them, or the learner is gone.
    pub(crate) fn forget(&self, learner: LearnerId) {
        self.schedulers.forget(learner);
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

impl<S: FsrsStores> FsrsService<S> {
    async fn scheduler_of(&self, learner: LearnerId) -> AppResult<LearnerScheduler> {
        if let Some(scheduler) = self.schedulers.get(learner) {
            return Ok(scheduler);
        }
        let scheduler = match self.store.preferences(learner).await?.srs_scheduler {
            SrsScheduler::Sm2 => LearnerScheduler::Sm2,
            SrsScheduler::Fsrs => LearnerScheduler::Fsrs(self.stored_parameters(learner).await?),
        };
        self.schedulers.keep(learner, scheduler.clone());
        Ok(scheduler)
    }

    /// The parameters that schedule the learner (or would, on SM-2): their own once fitted,
    /// else the defaults.
    pub(crate) async fn parameters_of(&self, learner: LearnerId) -> AppResult<FsrsParameters> {
        match self.scheduler_of(learner).await? {
            LearnerScheduler::Fsrs(parameters) => Ok(parameters),
            LearnerScheduler::Sm2 => self.stored_parameters(learner).await,
        }
    }

    async fn stored_parameters(&self, learner: LearnerId) -> AppResult<FsrsParameters> {
        let stored = self.store.learner_fsrs(learner).await?;
        Ok(stored.and_then(|s| s.weights).and_then(|w| FsrsParameters::new(&w).ok()).unwrap_or_default())
    }

    /// For an FSRS learner's teach or review response: the node's state before it.
    pub(crate) async fn before(
        &self,
        learner: LearnerId,
        node: NodeId,
        response_type: ResponseType,
    ) -> AppResult<Option<FsrsBefore>> {
        if response_type == ResponseType::Diagnostic {
            return Ok(None);
        }
        let LearnerScheduler::Fsrs(parameters) = self.scheduler_of(learner).await? else { return Ok(None) };
        let Some(found) = self.store.get_node(learner, node).await? else { return Ok(None) };
        let memory = self.store.node_fsrs(learner, node).await?;
        Ok(Some(FsrsBefore { last_reviewed_at: found.last_reviewed_at, memory, parameters }))
    }

    /// Reschedule `node` (as the response left it) with FSRS.
    pub(crate) async fn apply(
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
        let review = fsrs_review(prior, elapsed_days, rating, DEFAULT_DESIRED_RETENTION, &before.parameters)
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
