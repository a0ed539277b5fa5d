//! Replaying a review log through a scheduler, item by item in time order: before each
//! review the scheduler predicts the probability of recall, then it takes the answer. What
//! both the evaluation (which scheduler predicts a learner best) and a learner's own fit
//! (whether fitted parameters beat the defaults) are measured by.

use crate::fsrs_scheduler::{
    whole_days, FsrsError, FsrsMemory, FsrsParameters, FsrsScheduler, DEFAULT_DESIRED_RETENTION,
};
use crate::metrics::{Bin, Prediction};
use crate::review_log::{ItemHistory, ReviewEvent, ReviewLog, PASSING_GRADE};
use chrono::{DateTime, Utc};
use pathwise_domain::srs::{self as sm2, Sm2State};
use thiserror::Error;

/// The retention SM-2's intervals are read as reaching.
pub const SM2_INTERVAL_RETENTION: f64 = 0.9;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum EvaluationError {
    #[error(
        "no reviews to score: each of the {items} items has only its introduction row; \
         an item needs at least two rows (its introduction, then reviews)"
    )]
    NoReviews { items: usize },
    #[error("replaying item `{item_id}` through FSRS failed: {source}")]
    Fsrs { item_id: String, source: FsrsError },
}

/// How well FSRS with `parameters` predicts the log's reviews from `from` on (each item
/// replayed from its start): the log loss and the number of reviews scored, or `None` when
/// there are none to score.
pub fn fsrs_log_loss(
    log: &ReviewLog,
    from: DateTime<Utc>,
    parameters: &FsrsParameters,
) -> Result<Option<(f64, usize)>, EvaluationError> {
    let scheduler = FsrsScheduler::new(parameters.clone())
        .map_err(|source| EvaluationError::Fsrs { item_id: String::new(), source })?;
    let scored = predictions(log, from, &mut FsrsReplay(scheduler))?;
    Ok((!scored.is_empty()).then(|| (crate::metrics::log_loss(&scored), scored.len())))
}

/// A scheduler being replayed: one state per item.
pub(crate) trait Replay {
    type State;
    fn introduce(&mut self, answer: &ReviewEvent) -> Result<Self::State, FsrsError>;
    fn predict(&self, state: &Self::State, elapsed_days: f64) -> Result<f64, FsrsError>;
    fn review(&self, state: Self::State, elapsed_days: f64, answer: &ReviewEvent) -> Result<Self::State, FsrsError>;
}

pub(crate) struct Sm2Replay;

impl Replay for Sm2Replay {
    type State = Sm2State;
    fn introduce(&mut self, answer: &ReviewEvent) -> Result<Sm2State, FsrsError> {
        Ok(sm2::review(Sm2State::default(), answer.grade))
    }
    fn predict(&self, state: &Sm2State, elapsed_days: f64) -> Result<f64, FsrsError> {
        Ok(sm2_recall(state.interval_days, elapsed_days))
    }
    fn review(&self, state: Sm2State, _elapsed_days: f64, answer: &ReviewEvent) -> Result<Sm2State, FsrsError> {
        Ok(sm2::review(state, answer.grade))
    }
}

/// SM-2's predicted recall `elapsed_days` after a review that scheduled `interval_days`.
pub fn sm2_recall(interval_days: f64, elapsed_days: f64) -> f64 {
    SM2_INTERVAL_RETENTION.powf(elapsed_days / interval_days.max(f64::MIN_POSITIVE))
}

pub(crate) struct FsrsReplay(pub(crate) FsrsScheduler);

impl Replay for FsrsReplay {
    type State = FsrsMemory;
    fn introduce(&mut self, answer: &ReviewEvent) -> Result<FsrsMemory, FsrsError> {
        Ok(self.0.review(None, 0.0, answer.rating, DEFAULT_DESIRED_RETENTION)?.memory)
    }
    fn predict(&self, state: &FsrsMemory, elapsed_days: f64) -> Result<f64, FsrsError> {
        self.0.recall_probability(*state, elapsed_days)
    }
    fn review(&self, state: FsrsMemory, elapsed_days: f64, answer: &ReviewEvent) -> Result<FsrsMemory, FsrsError> {
        Ok(self.0.review(Some(state), elapsed_days, answer.rating, DEFAULT_DESIRED_RETENTION)?.memory)
    }
}

/// Every scored review's prediction by one scheduler, item by item.
pub(crate) fn predictions<R: Replay>(
    log: &ReviewLog,
    split_at: DateTime<Utc>,
    scheduler: &mut R,
) -> Result<Vec<Prediction>, EvaluationError> {
    window_predictions(log, Window { from: split_at, until: None }, scheduler)
}

/// The reviews scored: from `from` on, and before `until` if given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    pub(crate) from: DateTime<Utc>,
    pub(crate) until: Option<DateTime<Utc>>,
}

impl Window {
    fn holds(&self, at: DateTime<Utc>) -> bool {
        at >= self.from && self.until.is_none_or(|until| at < until)
    }
}

pub(crate) fn window_predictions<R: Replay>(
    log: &ReviewLog,
    window: Window,
    scheduler: &mut R,
) -> Result<Vec<Prediction>, EvaluationError> {
    let mut scored = Vec::new();
    for item in log.items() {
        replay_item(item, window, scheduler, &mut scored)
            .map_err(|source| EvaluationError::Fsrs { item_id: item.item_id.clone(), source })?;
    }
    Ok(scored)
}

pub(crate) fn replay_item<R: Replay>(
    item: &ItemHistory,
    window: Window,
    scheduler: &mut R,
    scored: &mut Vec<Prediction>,
) -> Result<(), FsrsError> {
    let Some((introduction, reviews)) = item.events.split_first() else { return Ok(()) };
    let mut state = scheduler.introduce(introduction)?;
    let mut previous = introduction.timestamp;
    // For the benchmark's bins: reviews a day or more after the previous response, and
    // how many of them were lapses.
    let (mut long_term_reviews, mut lapses) = (0, 0);
    for review in reviews {
        let elapsed_days = (review.timestamp - previous).num_milliseconds() as f64 / 86_400_000.0;
        let days = whole_days(elapsed_days)?;
        let recalled = review.grade >= PASSING_GRADE;
        if days > 0 {
            long_term_reviews += 1;
        }
        if window.holds(review.timestamp) {
            let probability = scheduler.predict(&state, elapsed_days)?;
            scored.push(Prediction { probability, recalled, bin: Bin::new(days, long_term_reviews, lapses) });
        }
        if days > 0 && !recalled {
            lapses += 1;
        }
        state = scheduler.review(state, elapsed_days, review)?;
        previous = review.timestamp;
    }
    Ok(())
}
