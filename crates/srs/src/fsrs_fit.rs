//! Fitting FSRS's parameters to a learner's history with the `fsrs` crate's optimiser
//! (`compute_parameters`). Like `fsrs_scheduler.rs`, it keeps the crate's types inside.

use crate::fsrs_scheduler::{whole_days, FsrsParameters};
use crate::review_log::ReviewLog;
use chrono::{DateTime, Utc};
use serde::Serialize;
use thiserror::Error;

/// The fewest reviews a fit needs: reviews that came a day or more after the item's previous
/// response (same-day ones are short-term memory, which the optimiser does not fit on). It
/// is the `fsrs` crate's own threshold: below it the optimiser returns the defaults.
pub const MIN_FIT_REVIEWS: usize = 8;
/// Below this many such reviews the optimiser fits only the initial stabilities of the four
/// ratings and keeps the other weights at their defaults (the crate's threshold too).
pub const MIN_FULL_FIT_REVIEWS: usize = 64;

/// Parameters fitted on a history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FittedParameters {
    pub parameters: FsrsParameters,
    /// The reviews the optimiser was given (those a day or more after the previous response).
    pub fitted_on_reviews: usize,
    /// True when the optimiser, after discarding outliers, had too little left to fit more
    /// than the initial stabilities of the four ratings; the other weights are the defaults.
    pub initial_stability_only: bool,
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum FitError {
    #[error(
        "too few reviews to fit FSRS: {found} came a day or more after the item's previous response, \
         at least {needed} are needed"
    )]
    TooFewReviews { found: usize, needed: usize },
    #[error("the FSRS optimiser kept the default parameters: too few reviews were left after it discarded outliers")]
    KeptDefaults,
    #[error("the FSRS optimiser failed: {message}")]
    Optimiser { message: String },
}

/// Fits FSRS's parameters on the log's responses before `before` (all of them if `None`).
pub fn fit_parameters(log: &ReviewLog, before: Option<DateTime<Utc>>) -> Result<FittedParameters, FitError> {
    let train_set = training_items(log, before);
    if train_set.len() < MIN_FIT_REVIEWS {
        return Err(FitError::TooFewReviews { found: train_set.len(), needed: MIN_FIT_REVIEWS });
    }
    let fitted_on_reviews = train_set.len();
    let input = fsrs::ComputeParametersInput { train_set, ..Default::default() };
    // The optimiser is third-party numeric code with internal assertions; a panic in it
    // must cost the fitted figures only, not the whole evaluation.
    let weights = std::panic::catch_unwind(move || fsrs::compute_parameters(input))
        .map_err(|panic| FitError::Optimiser { message: panic_message(panic.as_ref()) })?
        .map_err(|error| FitError::Optimiser { message: format!("{error:?}") })?;
    if weights.as_slice() == fsrs::DEFAULT_PARAMETERS.as_slice() {
        return Err(FitError::KeptDefaults);
    }
    let initial_stability_only = weights[4..] == fsrs::DEFAULT_PARAMETERS[4..];
    let parameters =
        FsrsParameters::new(&weights).map_err(|error| FitError::Optimiser { message: error.to_string() })?;
    Ok(FittedParameters { parameters, fitted_on_reviews, initial_stability_only })
}

/// The optimiser's training items: for every review at least a day after the item's
/// previous response, the item's history up to and including it, oldest review first.
fn training_items(log: &ReviewLog, before: Option<DateTime<Utc>>) -> Vec<fsrs::FSRSItem> {
    let mut items: Vec<(DateTime<Utc>, fsrs::FSRSItem)> = Vec::new();
    for history in log.items() {
        let events: Vec<_> = history.events.iter().filter(|event| before.is_none_or(|b| event.timestamp < b)).collect();
        let mut reviews = Vec::with_capacity(events.len());
        for (index, event) in events.iter().enumerate() {
            let delta_t = match index {
                0 => 0,
                _ => {
                    let elapsed =
                        (event.timestamp - events[index - 1].timestamp).num_milliseconds() as f64 / 86_400_000.0;
                    whole_days(elapsed).unwrap_or(0)
                }
            };
            let rating = u32::from(event.rating.number());
            reviews.push(fsrs::FSRSReview { rating, delta_t });
            if index > 0 && delta_t > 0 {
                items.push((event.timestamp, fsrs::FSRSItem { reviews: reviews.clone() }));
            }
        }
    }
    // The optimiser weighs recent reviews more and expects them in time order.
    items.sort_by_key(|(timestamp, _)| *timestamp);
    items.into_iter().map(|(_, item)| item).collect()
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "it panicked".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review_log::{ReviewLog, ReviewRow};

    fn row(item: &str, day: i64, hour: i64, grade: u8) -> ReviewRow {
        let start = DateTime::parse_from_rfc3339("2026-01-01T08:00:00Z").unwrap().with_timezone(&Utc);
        ReviewRow::graded(item, start + chrono::Duration::days(day) + chrono::Duration::hours(hour), grade)
    }

    #[test]
    fn training_items_are_the_histories_up_to_each_review_a_day_or_more_apart() {
        let log = ReviewLog::from_rows([row("a", 0, 0, 4), row("a", 0, 2, 2), row("a", 1, 0, 5), row("a", 4, 0, 3)]);
        let items = training_items(&log, None);
        let shapes: Vec<Vec<(u32, u32)>> =
            items.iter().map(|item| item.reviews.iter().map(|r| (r.rating, r.delta_t)).collect()).collect();
        assert_eq!(
            shapes,
            vec![vec![(3, 0), (1, 0), (4, 1)], vec![(3, 0), (1, 0), (4, 1), (2, 3)]],
            "the same-day relearning stays in the history but is not a training item"
        );
        assert_eq!(
            training_items(&log, Some(row("a", 4, 0, 0).timestamp)).len(),
            1,
            "responses from `before` on are left out"
        );
    }

    #[test]
    fn fitting_on_too_few_reviews_says_how_many_are_needed() {
        let log = ReviewLog::from_rows([row("a", 0, 0, 4), row("a", 2, 0, 4)]);
        let error = fit_parameters(&log, None).unwrap_err();
        assert_eq!(error, FitError::TooFewReviews { found: 1, needed: MIN_FIT_REVIEWS });
        assert!(error.to_string().contains("at least 8 are needed"), "{error}");
    }
}
