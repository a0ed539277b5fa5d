//! Each FSRS learner's own parameters: fitted on their review log (`pathwise_srs::
//! fit_for_learner`: the `fsrs` crate's optimiser, checked on the learner's latest reviews
//! against the defaults), stored with the figures, refitted weekly by a job and whenever
//! the learner asks, and used for their next intervals. Choosing FSRS replays the learner's
//! history into every concept's FSRS memory, so that FSRS starts from what they did, not
//! from the next review.

use super::{FsrsService, FsrsStores};
use crate::{AppError, AppResult};
use chrono::{DateTime, Utc};
use pathwise_domain::{LearnerId, NodeId, ResponseType};
use pathwise_srs::{FsrsParameters, FsrsScheduler, LearnerFit, ReviewLog, ReviewRow};
use pathwise_store::{LearnerFsrs, NodeFsrs};
use serde::Serialize;
use utoipa::ToSchema;

/// Which FSRS parameters schedule a learner, and how well they predict them.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct FsrsStatus {
    /// `fitted` (the learner's own) or `defaults` (FSRS's, until a fit beats them).
    pub parameters: FsrsParametersInUse,
    /// The 21 weights in use (FSRS 6).
    pub weights: Vec<f32>,
    /// When the parameters were last fitted; none if never.
    pub fitted_at: Option<DateTime<Utc>>,
    /// Reviews (answers after a concept's first) in the learner's log at the fit.
    pub reviews: i64,
    /// The reviews the optimiser fitted on: those a day or more after the concept's
    /// previous answer (8 are needed; below 64 only the first-answer stabilities are fitted).
    pub fitted_on_reviews: i64,
    /// Only the stabilities after a first answer were fitted; the other weights are FSRS's.
    pub initial_stability_only: bool,
    /// The learner's latest reviews (a fifth) held out to check the fitting on.
    pub checked_reviews: i64,
    /// Log loss on those reviews of parameters fitted without them (lower is better).
    pub log_loss: Option<f64>,
    /// The defaults' log loss on the same reviews.
    pub default_log_loss: Option<f64>,
    /// Why the defaults are in use, when they are.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FsrsParametersInUse {
    Fitted,
    Defaults,
}

impl FsrsStatus {
    fn of(stored: Option<LearnerFsrs>) -> FsrsStatus {
        let Some(stored) = stored else {
            return FsrsStatus {
                parameters: FsrsParametersInUse::Defaults,
                weights: FsrsParameters::default().weights().to_vec(),
                fitted_at: None,
                reviews: 0,
                fitted_on_reviews: 0,
                initial_stability_only: false,
                checked_reviews: 0,
                log_loss: None,
                default_log_loss: None,
                reason: Some("not fitted yet: parameters are fitted weekly, or when asked".into()),
            };
        };
        let fitted = stored.weights.as_deref().and_then(|w| FsrsParameters::new(w).ok());
        FsrsStatus {
            parameters: if fitted.is_some() { FsrsParametersInUse::Fitted } else { FsrsParametersInUse::Defaults },
            weights: fitted.unwrap_or_default().weights().to_vec(),
            fitted_at: Some(stored.fitted_at),
            reviews: stored.reviews,
            fitted_on_reviews: stored.fitted_on_reviews,
            initial_stability_only: stored.initial_stability_only,
            checked_reviews: stored.checked_reviews,
            log_loss: stored.log_loss,
            default_log_loss: stored.default_log_loss,
            reason: stored.reason,
        }
    }
}

fn stored(fit: &LearnerFit, fitted_at: DateTime<Utc>) -> LearnerFsrs {
    LearnerFsrs {
        weights: fit.parameters.as_ref().map(|p| p.parameters.weights().to_vec()),
        reviews: fit.reviews as i64,
        fitted_on_reviews: fit.parameters.as_ref().map_or(0, |p| p.fitted_on_reviews as i64),
        initial_stability_only: fit.parameters.as_ref().is_some_and(|p| p.initial_stability_only),
        checked_reviews: fit.checked_reviews as i64,
        log_loss: fit.log_loss,
        default_log_loss: fit.default_log_loss,
        reason: fit.reason.clone(),
        fitted_at,
    }
}

impl<S: FsrsStores> FsrsService<S> {
    /// Which FSRS parameters schedule the learner, and how well they predict them.
    pub async fn status(&self, learner: LearnerId) -> AppResult<FsrsStatus> {
        Ok(FsrsStatus::of(self.store.learner_fsrs(learner).await?))
    }

    /// Fit the learner's parameters on their review log now and keep them.
    pub async fn fit(&self, learner: LearnerId) -> AppResult<FsrsStatus> {
        let log = self.review_log(learner).await?;
        let fit = tokio::task::spawn_blocking(move || pathwise_srs::fit_for_learner(&log))
            .await
            .map_err(|e| AppError::internal(format!("fitting FSRS stopped: {e}")))?
            .map_err(|e| AppError::internal(format!("fitting FSRS failed: {e}")))?;
        let record = stored(&fit, self.now());
        self.store.set_learner_fsrs(learner, &record).await?;
        self.forget(learner);
        Ok(FsrsStatus::of(Some(record)))
    }

    /// The weekly job: every FSRS learner's parameters fitted again.
    pub async fn refit_learners(&self) -> AppResult<String> {
        let learners = self.store.fsrs_learners().await?;
        let mut fitted = 0;
        for &learner in &learners {
            if self.fit(learner).await?.parameters == FsrsParametersInUse::Fitted {
                fitted += 1;
            }
        }
        let learners = match learners.len() {
            1 => "1 FSRS learner".to_string(),
            n => format!("{n} FSRS learners"),
        };
        Ok(format!("{learners} refitted, {fitted} on parameters of their own"))
    }

    /// Replay the learner's history into each concept's FSRS memory, with the parameters
    /// that schedule them; how many concepts have a memory after.
    pub(crate) async fn replay_memories(&self, learner: LearnerId) -> AppResult<usize> {
        let log = self.review_log(learner).await?;
        let scheduler = FsrsScheduler::new(self.parameters_of(learner).await?)
            .map_err(|e| AppError::internal(format!("the learner's FSRS parameters are unusable: {e}")))?;
        let mut memories = Vec::with_capacity(log.items().len());
        for item in log.items() {
            let Ok(node) = item.item_id.parse::<uuid::Uuid>() else { continue };
            let replayed = scheduler
                .replay(&item.events)
                .map_err(|e| AppError::internal(format!("replaying concept {node} through FSRS failed: {e}")))?;
            if let Some(memory) = replayed {
                memories.push((NodeId(node), NodeFsrs { stability: memory.stability, difficulty: memory.difficulty }));
            }
        }
        self.store.replace_fsrs_memories(learner, &memories, self.now()).await?;
        Ok(memories.len())
    }

    /// Schedule `nodes` (whose answers just came in from elsewhere) as FSRS would have: each
    /// one's history replayed with the learner's parameters, its memory kept and its next
    /// review set by the interval the last answer gets. A node answered here since is left
    /// to its own schedule. How many were scheduled.
    pub(crate) async fn schedule_imported(
        &self,
        learner: LearnerId,
        nodes: &std::collections::HashSet<NodeId>,
    ) -> AppResult<usize> {
        let log = self.review_log(learner).await?;
        let scheduler = FsrsScheduler::new(self.parameters_of(learner).await?)
            .map_err(|e| AppError::internal(format!("the learner's FSRS parameters are unusable: {e}")))?;
        let mut scheduled = 0;
        for item in log.items() {
            let Ok(node) = item.item_id.parse::<uuid::Uuid>().map(NodeId) else { continue };
            let Some(last) = item.events.last().filter(|_| nodes.contains(&node)) else { continue };
            let Some(review) = scheduler
                .replay_schedule(&item.events, pathwise_srs::DEFAULT_DESIRED_RETENTION)
                .map_err(|e| AppError::internal(format!("replaying concept {node} through FSRS failed: {e}")))?
            else {
                continue;
            };
            let memory = NodeFsrs { stability: review.memory.stability, difficulty: review.memory.difficulty };
            let next = pathwise_domain::srs::due_at(last.timestamp, review.interval_days);
            if self.store.apply_fsrs(learner, node, memory, review.interval_days, next, last.timestamp).await? {
                scheduled += 1;
            }
        }
        Ok(scheduled)
    }

    /// What FSRS schedules from: the learner's teach and review answers (a diagnostic finds
    /// out what is known; it is not a review), each concept an item.
    async fn review_log(&self, learner: LearnerId) -> AppResult<ReviewLog> {
        let events = self.store.response_events(learner, None, DateTime::<Utc>::UNIX_EPOCH, self.now()).await?;
        Ok(ReviewLog::from_rows(events.into_iter().filter(|e| e.response_type != ResponseType::Diagnostic).map(|e| {
            ReviewRow { item_id: e.node_id.to_string(), timestamp: e.responded_at, grade: e.quality, rating: e.rating }
        })))
    }
}
