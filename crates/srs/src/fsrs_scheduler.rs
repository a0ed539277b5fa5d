//! Live FSRS scheduling for one item, with the `fsrs` crate's model kept behind this module
//! (and `fsrs_fit.rs`, which fits its parameters): the rest of Pathwise sees only
//! [`FsrsMemory`], [`FsrsParameters`] and [`FsrsScheduler`].
//!
//! FSRS counts time in whole days: the memory update rounds the elapsed time to the nearest
//! day (0 is a same-day review, which FSRS treats as short-term memory), while
//! [`FsrsScheduler::recall_probability`] reads the exact elapsed time off the model's
//! continuous forgetting curve.

use pathwise_domain::evidence::Rating;
use pathwise_domain::srs::MAX_INTERVAL_DAYS;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;
use thiserror::Error;

/// The retention FSRS schedules for unless told otherwise: the next review falls when the
/// predicted probability of recall has dropped to 90%.
pub const DEFAULT_DESIRED_RETENTION: f64 = 0.9;
/// FSRS intervals are at least a day, like SM-2's.
pub const MIN_INTERVAL_DAYS: f64 = 1.0;

/// FSRS's memory of one item.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FsrsMemory {
    /// Days until the probability of recall falls to 90%.
    pub stability: f64,
    /// How hard the item is, from 1 (easy) to 10 (hard).
    pub difficulty: f64,
}

/// The outcome of one review: the new memory and the days until the next review.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FsrsReview {
    pub memory: FsrsMemory,
    /// Whole days, from 1 to 36,500 (SM-2's cap).
    pub interval_days: f64,
}

/// FSRS's model weights: the crate's defaults, or weights fitted on a learner's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<f32>", into = "Vec<f32>")]
pub struct FsrsParameters {
    weights: Vec<f32>,
}

impl FsrsParameters {
    /// Checks the weights (17, 19 or 21 finite numbers, the FSRS 4.5, 5 and 6 layouts) and
    /// stores them in the FSRS 6 layout, clipped to the ranges FSRS allows.
    pub fn new(weights: &[f32]) -> Result<FsrsParameters, FsrsError> {
        if !matches!(weights.len(), 17 | 19 | 21) {
            return Err(FsrsError::ParameterCount { found: weights.len() });
        }
        if let Some(index) = weights.iter().position(|weight| !weight.is_finite()) {
            return Err(FsrsError::ParameterNotFinite { index });
        }
        let weights = fsrs::check_and_fill_parameters(weights)
            .map_err(|error| FsrsError::Model { message: format!("the parameters were refused: {error:?}") })?;
        // `FSRS::new` clips the weights it is given; keep what it would use.
        fsrs::FSRS::new(&weights)
            .map_err(|error| FsrsError::Model { message: format!("the parameters were refused: {error:?}") })?;
        Ok(FsrsParameters { weights })
    }

    /// The weights, in the FSRS 6 layout (21 numbers).
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The forgetting curve's decay (the last weight), clipped to 0.1-0.8 as `fsrs::FSRS::new`
    /// clips it, so that predictions use the curve the model schedules with.
    fn decay(&self) -> f32 {
        self.weights[20].clamp(0.1, 0.8)
    }
}

impl Default for FsrsParameters {
    fn default() -> Self {
        FsrsParameters { weights: fsrs::DEFAULT_PARAMETERS.to_vec() }
    }
}

impl TryFrom<Vec<f32>> for FsrsParameters {
    type Error = FsrsError;
    fn try_from(weights: Vec<f32>) -> Result<Self, FsrsError> {
        FsrsParameters::new(&weights)
    }
}

impl From<FsrsParameters> for Vec<f32> {
    fn from(parameters: FsrsParameters) -> Vec<f32> {
        parameters.weights
    }
}

/// What was wrong with a request to FSRS.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FsrsError {
    #[error(
        "desired retention {value} is not allowed; expected a number strictly between 0 and 1 (usually 0.7 to 0.97)"
    )]
    DesiredRetention { value: f64 },
    #[error("elapsed days {value} is not allowed; expected a finite number of days, 0 or more")]
    ElapsedDays { value: f64 },
    #[error("FSRS takes 17, 19 or 21 parameters (FSRS 4.5, 5 or 6), not {found}")]
    ParameterCount { found: usize },
    #[error("FSRS parameter {index} is not a finite number")]
    ParameterNotFinite { index: usize },
    #[error("FSRS memory (stability {stability}, difficulty {difficulty}) is not allowed; expected finite numbers, stability above 0")]
    Memory { stability: f64, difficulty: f64 },
    #[error("FSRS could not compute a schedule: {message}")]
    Model { message: String },
}

/// An FSRS model with fixed parameters. Building one validates 21 numbers, so it is cheap;
/// still, build it once per learner and reuse it for every response ([`FsrsScheduler::default`]
/// hands out a copy of one built once).
#[derive(Debug, Clone)]
pub struct FsrsScheduler {
    model: fsrs::FSRS,
    parameters: FsrsParameters,
}

static DEFAULT_SCHEDULER: LazyLock<FsrsScheduler> =
    LazyLock::new(|| FsrsScheduler::new(FsrsParameters::default()).expect("the default parameters are valid"));

impl Default for FsrsScheduler {
    fn default() -> Self {
        DEFAULT_SCHEDULER.clone()
    }
}

impl FsrsScheduler {
    pub fn new(parameters: FsrsParameters) -> Result<FsrsScheduler, FsrsError> {
        let model = fsrs::FSRS::new(parameters.weights())
            .map_err(|error| FsrsError::Model { message: format!("the parameters were refused: {error:?}") })?;
        Ok(FsrsScheduler { model, parameters })
    }

    pub fn parameters(&self) -> &FsrsParameters {
        &self.parameters
    }

    /// One response: `prior` is the item's memory (`None` for its first learning),
    /// `elapsed_days` the time since its last response, `rating` the answer's. Returns the
    /// new memory and the whole days until the next review, at which the predicted recall
    /// is `desired_retention` (capped at 1 to 36,500 days).
    pub fn review(
        &self,
        prior: Option<FsrsMemory>,
        elapsed_days: f64,
        rating: Rating,
        desired_retention: f64,
    ) -> Result<FsrsReview, FsrsError> {
        if !(desired_retention > 0.0 && desired_retention < 1.0) {
            return Err(FsrsError::DesiredRetention { value: desired_retention });
        }
        let prior = prior.map(to_model_memory).transpose()?;
        let states = self
            .model
            .next_states(prior, desired_retention as f32, whole_days(elapsed_days)?)
            .map_err(|error| FsrsError::Model { message: format!("{error:?}") })?;
        let state = match rating {
            Rating::Again => states.again,
            Rating::Hard => states.hard,
            Rating::Good => states.good,
            Rating::Easy => states.easy,
        };
        let interval_days = f64::from(state.interval).round().clamp(MIN_INTERVAL_DAYS, MAX_INTERVAL_DAYS);
        let memory =
            FsrsMemory { stability: f64::from(state.memory.stability), difficulty: f64::from(state.memory.difficulty) };
        Ok(FsrsReview { memory, interval_days })
    }

    /// The memory an item's responses leave, replayed in order (the first is its first
    /// learning): what FSRS would hold now had it scheduled the item from the start. `None`
    /// for an item never answered.
    pub fn replay(&self, events: &[crate::review_log::ReviewEvent]) -> Result<Option<FsrsMemory>, FsrsError> {
        Ok(self.replay_schedule(events, DEFAULT_DESIRED_RETENTION)?.map(|review| review.memory))
    }

    /// Like [`FsrsScheduler::replay`], with the interval the last response gets at
    /// `desired_retention`: the schedule FSRS would have given the item.
    pub fn replay_schedule(
        &self,
        events: &[crate::review_log::ReviewEvent],
        desired_retention: f64,
    ) -> Result<Option<FsrsReview>, FsrsError> {
        let mut last: Option<FsrsReview> = None;
        let mut previous = None;
        for event in events {
            let elapsed_days = previous.map_or(0.0, |at: chrono::DateTime<chrono::Utc>| {
                (event.timestamp - at).num_milliseconds().max(0) as f64 / 86_400_000.0
            });
            last = Some(self.review(last.map(|r| r.memory), elapsed_days, event.rating, desired_retention)?);
            previous = Some(event.timestamp);
        }
        Ok(last)
    }

    /// The predicted probability of recalling an item with this memory `elapsed_days` after
    /// its last response.
    pub fn recall_probability(&self, memory: FsrsMemory, elapsed_days: f64) -> Result<f64, FsrsError> {
        if !(elapsed_days.is_finite() && elapsed_days >= 0.0) {
            return Err(FsrsError::ElapsedDays { value: elapsed_days });
        }
        let state = to_model_memory(memory)?;
        let recall = fsrs::current_retrievability(state, elapsed_days as f32, self.parameters.decay());
        Ok(f64::from(recall))
    }
}

/// One response with a scheduler built for these parameters; for many responses build an
/// [`FsrsScheduler`] once instead (with the default parameters this reuses a cached model).
pub fn fsrs_review(
    prior: Option<FsrsMemory>,
    elapsed_days: f64,
    rating: Rating,
    desired_retention: f64,
    parameters: &FsrsParameters,
) -> Result<FsrsReview, FsrsError> {
    if *parameters == DEFAULT_SCHEDULER.parameters {
        DEFAULT_SCHEDULER.review(prior, elapsed_days, rating, desired_retention)
    } else {
        FsrsScheduler::new(parameters.clone())?.review(prior, elapsed_days, rating, desired_retention)
    }
}

/// Elapsed time in the whole days FSRS counts: rounded to the nearest day.
pub(crate) fn whole_days(elapsed_days: f64) -> Result<u32, FsrsError> {
    if !(elapsed_days.is_finite() && elapsed_days >= 0.0) {
        return Err(FsrsError::ElapsedDays { value: elapsed_days });
    }
    Ok(elapsed_days.round().min(f64::from(u32::MAX)) as u32)
}

fn to_model_memory(memory: FsrsMemory) -> Result<fsrs::MemoryState, FsrsError> {
    let FsrsMemory { stability, difficulty } = memory;
    if !(stability.is_finite() && stability > 0.0 && difficulty.is_finite()) {
        return Err(FsrsError::Memory { stability, difficulty });
    }
    Ok(fsrs::MemoryState { stability: stability as f32, difficulty: difficulty as f32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_learning_takes_the_initial_stability_of_the_rating() {
        let scheduler = FsrsScheduler::default();
        let good = scheduler.review(None, 0.0, Rating::Good, DEFAULT_DESIRED_RETENTION).unwrap();
        // The default initial stability for Good is 2.3065 days; at 90% retention the
        // interval equals the stability, rounded to whole days.
        assert!((good.memory.stability - 2.3065).abs() < 1e-4, "{good:?}");
        assert_eq!(good.interval_days, 2.0);
        let easy = scheduler.review(None, 0.0, Rating::Easy, DEFAULT_DESIRED_RETENTION).unwrap();
        assert!((easy.memory.stability - 8.2956).abs() < 1e-4);
        assert_eq!(easy.interval_days, 8.0);
        let again = scheduler.review(None, 0.0, Rating::Again, DEFAULT_DESIRED_RETENTION).unwrap();
        assert_eq!(again.interval_days, 1.0, "intervals are at least a day");
    }

    #[test]
    fn a_recall_grows_stability_and_a_lapse_shrinks_it() {
        let scheduler = FsrsScheduler::default();
        let learned = scheduler.review(None, 0.0, Rating::Good, 0.9).unwrap().memory;
        let recalled = scheduler.review(Some(learned), 3.0, Rating::Good, 0.9).unwrap();
        let forgotten = scheduler.review(Some(learned), 3.0, Rating::Again, 0.9).unwrap();
        assert!(recalled.memory.stability > learned.stability);
        assert!(forgotten.memory.stability < learned.stability);
        assert!(recalled.interval_days > forgotten.interval_days);
    }

    #[test]
    fn higher_desired_retention_gives_shorter_intervals() {
        let scheduler = FsrsScheduler::default();
        let memory = FsrsMemory { stability: 30.0, difficulty: 5.0 };
        let relaxed = scheduler.review(Some(memory), 30.0, Rating::Good, 0.8).unwrap();
        let strict = scheduler.review(Some(memory), 30.0, Rating::Good, 0.95).unwrap();
        assert!(strict.interval_days < relaxed.interval_days);
    }

    #[test]
    fn intervals_are_capped_at_one_hundred_years() {
        let scheduler = FsrsScheduler::default();
        let memory = FsrsMemory { stability: 30_000.0, difficulty: 1.0 };
        let review = scheduler.review(Some(memory), 30_000.0, Rating::Easy, 0.7).unwrap();
        assert_eq!(review.interval_days, MAX_INTERVAL_DAYS);
    }

    #[test]
    fn recall_is_ninety_percent_after_stability_days() {
        let scheduler = FsrsScheduler::default();
        let memory = FsrsMemory { stability: 10.0, difficulty: 5.0 };
        assert!((scheduler.recall_probability(memory, 0.0).unwrap() - 1.0).abs() < 1e-6);
        assert!((scheduler.recall_probability(memory, 10.0).unwrap() - 0.9).abs() < 1e-5);
        assert!(scheduler.recall_probability(memory, 100.0).unwrap() < 0.9);
    }

    #[test]
    fn bad_requests_say_what_is_allowed() {
        let scheduler = FsrsScheduler::default();
        let error = scheduler.review(None, 0.0, Rating::Good, 1.0).unwrap_err();
        assert!(error.to_string().contains("strictly between 0 and 1"), "{error}");
        assert!(matches!(scheduler.review(None, -1.0, Rating::Good, 0.9), Err(FsrsError::ElapsedDays { .. })));
        assert!(matches!(scheduler.review(None, f64::NAN, Rating::Good, 0.9), Err(FsrsError::ElapsedDays { .. })));
        let bad_memory = FsrsMemory { stability: 0.0, difficulty: 5.0 };
        assert!(matches!(scheduler.review(Some(bad_memory), 1.0, Rating::Good, 0.9), Err(FsrsError::Memory { .. })));
    }

    #[test]
    fn parameters_are_checked_and_round_trip_through_json() {
        assert_eq!(FsrsParameters::new(&[1.0; 5]), Err(FsrsError::ParameterCount { found: 5 }));
        let mut weights = fsrs::DEFAULT_PARAMETERS.to_vec();
        weights[3] = f32::NAN;
        assert_eq!(FsrsParameters::new(&weights), Err(FsrsError::ParameterNotFinite { index: 3 }));
        let defaults = FsrsParameters::default();
        assert_eq!(FsrsParameters::new(defaults.weights()).unwrap(), defaults);
        let json = serde_json::to_string(&defaults).unwrap();
        assert_eq!(serde_json::from_str::<FsrsParameters>(&json).unwrap(), defaults);
        assert!(serde_json::from_str::<FsrsParameters>("[1.0, 2.0]").is_err());
    }

    #[test]
    fn the_free_function_matches_a_scheduler_built_once() {
        let fitted = FsrsParameters::new(&[
            0.3, 1.5, 3.0, 10.0, 6.0, 0.8, 3.0, 0.01, 1.8, 0.15, 0.8, 1.5, 0.06, 0.26, 1.6, 0.6, 1.9, 0.5, 0.09, 0.06,
            0.2,
        ])
        .unwrap();
        let memory = FsrsMemory { stability: 5.0, difficulty: 6.0 };
        for parameters in [FsrsParameters::default(), fitted] {
            let scheduler = FsrsScheduler::new(parameters.clone()).unwrap();
            assert_eq!(
                fsrs_review(Some(memory), 4.0, Rating::Good, 0.9, &parameters).unwrap(),
                scheduler.review(Some(memory), 4.0, Rating::Good, 0.9).unwrap()
            );
        }
    }
}
