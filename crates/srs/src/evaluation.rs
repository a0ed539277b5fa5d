//! Which scheduler predicts a learner's recall best: replays a review log item by item in
//! time order and, before each review, has every scheduler predict the probability of
//! recall; the outcome is a grade of 3 or more.
//!
//! - `sm2` replays `pathwise_domain::srs::review` and reads the interval SM-2 chose as the
//!   time at which recall has fallen to 90% (the convention of the open FSRS benchmark for
//!   schedulers that only give intervals): predicted recall = 0.9^(elapsed / interval).
//! - `fsrs_default`: FSRS with the crate's default parameters.
//! - `fsrs_fitted`: FSRS with parameters fitted on the earlier part of the log.
//! - `fsrs_refitted`: FSRS as a learner's schedule runs it, fitted again as the log grows
//!   (the scored part in four periods, each predicted with the fit made before it).
//!
//! The log is split in time: the reviews before the chronologically middle review (about
//! the first half) are the training part, used only to fit `fsrs_fitted`; every scheduler is
//! scored on the rest, so the three sets of figures are comparable. Each scheduler still
//! replays the whole history, so its state at the first scored review reflects everything
//! before it.

use crate::fsrs_fit::{fit_parameters, FittedParameters};
use crate::fsrs_scheduler::{FsrsParameters, FsrsScheduler};
use crate::metrics::Metrics;
pub use crate::replay::{fsrs_log_loss, sm2_recall, EvaluationError, SM2_INTERVAL_RETENTION};
use crate::replay::{predictions, window_predictions, FsrsReplay, Sm2Replay, Window};
use crate::review_log::ReviewLog;
use chrono::{DateTime, Utc};
use serde::{Serialize, Serializer};

/// The comparison, with the split it was made on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluationReport {
    pub items: usize,
    /// Reviews in the log (every row after an item's introduction).
    pub reviews: usize,
    /// Reviews before the split, used to fit `fsrs_fitted`, not scored.
    pub fitting_reviews: usize,
    /// Reviews from the split on, on which every scheduler is scored.
    pub scored_reviews: usize,
    /// The time of the first scored review.
    pub split_at: DateTime<Utc>,
    /// The share of scored reviews recalled.
    pub observed_recall: f64,
    pub sm2: Metrics,
    pub fsrs_default: Metrics,
    pub fsrs_fitted: FittedOutcome,
    /// FSRS as a learner's schedule runs it: fitted again as the log grows.
    pub fsrs_refitted: Refitted,
    /// The scheduler with the lowest log loss.
    pub best: &'static str,
}

/// `fsrs_fitted`'s figures, or why there are none.
#[derive(Debug, Clone, PartialEq)]
pub enum FittedOutcome {
    Scored { metrics: Metrics, fit: FittedParameters },
    Unavailable { reason: String },
}

impl FittedOutcome {
    pub fn metrics(&self) -> Option<&Metrics> {
        match self {
            FittedOutcome::Scored { metrics, .. } => Some(metrics),
            FittedOutcome::Unavailable { .. } => None,
        }
    }
}

/// Serialised with the same figures as the other schedulers (null when unavailable), plus
/// `available`, and either `reason` or the fit.
impl Serialize for FittedOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            available: bool,
            log_loss: Option<f64>,
            rmse_bins: Option<f64>,
            auc: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            reason: Option<&'a str>,
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            fit: Option<&'a FittedParameters>,
        }
        let metrics = self.metrics();
        let (reason, fit) = match self {
            FittedOutcome::Scored { fit, .. } => (None, Some(fit)),
            FittedOutcome::Unavailable { reason } => (Some(reason.as_str()), None),
        };
        Shape {
            available: metrics.is_some(),
            log_loss: metrics.map(|m| m.log_loss),
            rmse_bins: metrics.map(|m| m.rmse_bins),
            auc: metrics.and_then(|m| m.auc),
            reason,
            fit,
        }
        .serialize(serializer)
    }
}

/// How many periods the scored reviews are cut into for `fsrs_refitted`.
pub const REFIT_PERIODS: usize = 4;

/// FSRS refitted as the log grows, the way a learner's schedule is: the scored reviews are
/// cut into `REFIT_PERIODS` periods of equal size in time order, and each period is
/// predicted with what `learner_fit::fit_for_learner` chose on everything before it (the
/// learner's own parameters, or the defaults while the log is too short for a fit or the
/// fit does not beat them on the latest reviews). Scored on the same reviews as the others.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refitted {
    #[serde(flatten)]
    pub metrics: Metrics,
    pub periods: usize,
    /// The periods predicted with fitted parameters (the rest used the defaults).
    pub periods_fitted: usize,
}

/// Compares the schedulers on a log.
pub fn evaluate(log: &ReviewLog) -> Result<EvaluationReport, EvaluationError> {
    let mut review_times: Vec<DateTime<Utc>> =
        log.items().iter().flat_map(|item| item.reviews().iter().map(|review| review.timestamp)).collect();
    if review_times.is_empty() {
        return Err(EvaluationError::NoReviews { items: log.items().len() });
    }
    review_times.sort();
    let split_at = review_times[review_times.len() / 2];
    let fitting_reviews = review_times.partition_point(|time| *time < split_at);

    let sm2_predictions = predictions(log, split_at, &mut Sm2Replay)?;
    let fsrs_default_predictions = predictions(log, split_at, &mut FsrsReplay(FsrsScheduler::default()))?;
    let fsrs_fitted = if fitting_reviews == 0 {
        FittedOutcome::Unavailable { reason: "no reviews before the split to fit on".into() }
    } else {
        match fit_parameters(log, Some(split_at)) {
            Err(error) => FittedOutcome::Unavailable { reason: error.to_string() },
            Ok(fit) => match FsrsScheduler::new(fit.parameters.clone())
                .map_err(|source| EvaluationError::Fsrs { item_id: String::new(), source })
                .and_then(|scheduler| predictions(log, split_at, &mut FsrsReplay(scheduler)))
            {
                Ok(scored) => FittedOutcome::Scored { metrics: Metrics::of(&scored), fit },
                Err(error) => FittedOutcome::Unavailable { reason: error.to_string() },
            },
        }
    };

    let fsrs_refitted = refitted(log, &review_times[fitting_reviews..])?;

    let sm2 = Metrics::of(&sm2_predictions);
    let fsrs_default = Metrics::of(&fsrs_default_predictions);
    let mut best = ("sm2", sm2.log_loss);
    for (name, metrics) in [
        ("fsrs_default", Some(&fsrs_default)),
        ("fsrs_fitted", fsrs_fitted.metrics()),
        ("fsrs_refitted", Some(&fsrs_refitted.metrics)),
    ] {
        if let Some(metrics) = metrics.filter(|m| m.log_loss < best.1) {
            best = (name, metrics.log_loss);
        }
    }
    let scored_reviews = sm2_predictions.len();
    Ok(EvaluationReport {
        items: log.items().len(),
        reviews: review_times.len(),
        fitting_reviews,
        scored_reviews,
        split_at,
        observed_recall: sm2_predictions.iter().filter(|p| p.recalled).count() as f64 / scored_reviews as f64,
        sm2,
        fsrs_default,
        fsrs_fitted,
        fsrs_refitted,
        best: best.0,
    })
}

/// `fsrs_refitted`: `scored_times` are the scored reviews' times, sorted.
fn refitted(log: &ReviewLog, scored_times: &[DateTime<Utc>]) -> Result<Refitted, EvaluationError> {
    let starts: Vec<DateTime<Utc>> =
        (0..REFIT_PERIODS).map(|period| scored_times[scored_times.len() * period / REFIT_PERIODS]).collect();
    let mut scored = Vec::with_capacity(scored_times.len());
    let mut periods_fitted = 0;
    for (period, &from) in starts.iter().enumerate() {
        let until = starts.get(period + 1).copied();
        if until == Some(from) {
            continue; // reviews at one instant: the period is empty
        }
        let fit = crate::learner_fit::fit_for_learner(&log.before(from))?;
        let parameters = match fit.parameters {
            Some(fitted) => {
                periods_fitted += 1;
                fitted.parameters
            }
            None => FsrsParameters::default(),
        };
        let scheduler = FsrsScheduler::new(parameters)
            .map_err(|source| EvaluationError::Fsrs { item_id: String::new(), source })?;
        scored.extend(window_predictions(log, Window { from, until }, &mut FsrsReplay(scheduler))?);
    }
    Ok(Refitted { metrics: Metrics::of(&scored), periods: REFIT_PERIODS, periods_fitted })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Bin;
    use crate::replay::replay_item;
    use crate::review_log::ReviewRow;
    use pathwise_domain::srs::{self as sm2, Sm2State};

    fn at_day(day: f64) -> DateTime<Utc> {
        let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().with_timezone(&Utc);
        start + chrono::Duration::milliseconds((day * 86_400_000.0) as i64)
    }

    fn row(item: &str, day: f64, grade: u8) -> ReviewRow {
        ReviewRow::graded(item, at_day(day), grade)
    }

    fn from(at: DateTime<Utc>) -> Window {
        Window { from: at, until: None }
    }

    #[test]
    fn sm2_replay_predicts_from_the_intervals_the_domain_schedules() {
        // Introduction (grade 4) schedules 1 day; reviewed after 2 days: 0.9^2. Grade 5
        // then schedules 6 days; reviewed after 3 days: 0.9^0.5. Then grade 3 after a
        // failure-free run schedules 6 * 2.6 = 15.6 days.
        let grades = [4, 5, 3, 4];
        let days = [0.0, 2.0, 5.0, 20.6];
        let log = ReviewLog::from_rows(days.iter().zip(grades).map(|(&day, grade)| row("x", day, grade)));
        let mut scored = Vec::new();
        replay_item(&log.items()[0], from(at_day(0.0)), &mut Sm2Replay, &mut scored).unwrap();
        let mut state = sm2::review(Sm2State::default(), grades[0]);
        for (index, prediction) in scored.iter().enumerate() {
            let elapsed = days[index + 1] - days[index];
            assert!((prediction.probability - 0.9f64.powf(elapsed / state.interval_days)).abs() < 1e-9);
            state = sm2::review(state, grades[index + 1]);
        }
        let probabilities: Vec<f64> = scored.iter().map(|p| p.probability).collect();
        assert!((probabilities[0] - 0.81).abs() < 1e-9);
        assert!((probabilities[1] - 0.9f64.sqrt()).abs() < 1e-9);
        assert!((probabilities[2] - 0.9).abs() < 1e-6, "15.6 days after a 15.6-day interval is 90%");
    }

    #[test]
    fn only_reviews_from_the_split_on_are_scored_and_bins_count_lapses_before_them() {
        let log = ReviewLog::from_rows([row("x", 0.0, 4), row("x", 1.0, 1), row("x", 3.0, 4), row("x", 3.1, 4)]);
        let mut scored = Vec::new();
        replay_item(&log.items()[0], from(at_day(3.0)), &mut Sm2Replay, &mut scored).unwrap();
        assert_eq!(scored.len(), 2);
        assert_eq!(scored[0].bin, Bin::new(2, 2, 1));
        assert_eq!(scored[1].bin, Bin::new(0, 2, 1), "a same-day review is not a long-term one");
        assert!(scored[0].recalled);
    }

    #[test]
    fn a_log_of_introductions_only_cannot_be_evaluated() {
        let log = ReviewLog::from_rows([row("x", 0.0, 4), row("y", 1.0, 4)]);
        assert_eq!(evaluate(&log), Err(EvaluationError::NoReviews { items: 2 }));
    }

    #[test]
    fn a_small_log_reports_fsrs_fitted_unavailable_and_scores_the_later_half() {
        let log = ReviewLog::from_rows([
            row("x", 0.0, 4),
            row("x", 1.0, 4),
            row("x", 7.0, 2),
            row("y", 0.0, 5),
            row("y", 4.0, 4),
            row("y", 9.0, 5),
        ]);
        let report = evaluate(&log).unwrap();
        assert_eq!((report.reviews, report.fitting_reviews, report.scored_reviews), (4, 2, 2));
        assert_eq!(report.split_at, at_day(7.0));
        assert!((report.observed_recall - 0.5).abs() < 1e-12);
        assert!(report.sm2.log_loss.is_finite() && report.fsrs_default.log_loss.is_finite());
        let FittedOutcome::Unavailable { reason } = &report.fsrs_fitted else { panic!("{:?}", report.fsrs_fitted) };
        assert!(reason.contains("too few reviews"), "{reason}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["fsrs_fitted"]["available"], false);
        assert!(json["fsrs_fitted"]["log_loss"].is_null());
        assert!(json["sm2"]["rmse_bins"].is_number());
        assert_eq!(json["scored_reviews"], 2);
    }

    #[test]
    fn a_single_review_is_scored_with_nothing_to_fit_on() {
        let report = evaluate(&ReviewLog::from_rows([row("x", 0.0, 4), row("x", 2.0, 4)])).unwrap();
        assert_eq!((report.fitting_reviews, report.scored_reviews), (0, 1));
        assert_eq!(report.sm2.auc, None, "one outcome only");
        assert_eq!(
            report.fsrs_fitted,
            FittedOutcome::Unavailable { reason: "no reviews before the split to fit on".into() }
        );
    }
}
