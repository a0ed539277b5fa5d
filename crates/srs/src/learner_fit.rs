//! A learner's own FSRS parameters, as their schedule uses them: fitted on their whole
//! review log, and kept only if the same fitting, done on all but their latest reviews,
//! predicts those latest reviews about as well as the defaults do or better (within
//! `WORSE_TOLERANCE`). A learner whose fit
//! would schedule worse than the defaults keeps the defaults, with the figures that say so.

use crate::fsrs_fit::{fit_parameters, FitError, FittedParameters};
use crate::fsrs_scheduler::FsrsParameters;
use crate::replay::{fsrs_log_loss, EvaluationError};
use crate::review_log::ReviewLog;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The share of a learner's reviews, the latest ones, held out to check a fit on.
pub const HELD_OUT_SHARE: f64 = 0.2;
/// How much worse (relatively) than the defaults' log loss the fitting may do on the held-out
/// reviews and still be used: a fifth of a short log is a few dozen reviews, on which a
/// difference under 1% is noise, while the parameters also carry what the whole log says.
pub const WORSE_TOLERANCE: f64 = 0.01;

/// What a learner's schedule uses, and how well it predicts them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LearnerFit {
    /// The parameters to schedule with; `None` keeps FSRS's defaults (see `reason`).
    pub parameters: Option<FittedParameters>,
    /// Reviews in the log (responses after an item's first).
    pub reviews: usize,
    /// The held-out check: how many of the latest reviews it scored (0 when there was
    /// nothing to check against), the log loss of parameters fitted without them, and the
    /// defaults' log loss on the same reviews. Lower is better.
    pub checked_reviews: usize,
    pub log_loss: Option<f64>,
    pub default_log_loss: Option<f64>,
    /// Why the defaults are kept, when they are.
    pub reason: Option<String>,
}

impl LearnerFit {
    /// The log loss of what is in use: the fit's, or the defaults' when they are kept.
    pub fn log_loss_in_use(&self) -> Option<f64> {
        match self.parameters {
            Some(_) => self.log_loss.or(self.default_log_loss),
            None => self.default_log_loss,
        }
    }
}

/// Fits a learner's parameters for their schedule (see the module's documentation).
pub fn fit_for_learner(log: &ReviewLog) -> Result<LearnerFit, EvaluationError> {
    let reviews = log.review_count();
    let held_out_from = held_out_from(log);
    let default_score = match held_out_from {
        Some(from) => fsrs_log_loss(log, from, &FsrsParameters::default())?,
        None => None,
    };
    let mut fit = LearnerFit {
        parameters: None,
        reviews,
        checked_reviews: default_score.map_or(0, |(_, count)| count),
        log_loss: None,
        default_log_loss: default_score.map(|(loss, _)| loss),
        reason: None,
    };
    let whole = match fit_parameters(log, None) {
        Ok(whole) => whole,
        Err(error) => {
            fit.reason = Some(kept_defaults_because(&error));
            return Ok(fit);
        }
    };
    // The check: the same fitting without the latest reviews, scored on them.
    if let Some(from) = held_out_from {
        if let Ok(earlier) = fit_parameters(log, Some(from)) {
            fit.log_loss = fsrs_log_loss(log, from, &earlier.parameters)?.map(|(loss, _)| loss);
        }
    }
    match (fit.log_loss, fit.default_log_loss) {
        (Some(fitted), Some(defaults)) if fitted > defaults * (1.0 + WORSE_TOLERANCE) => {
            fit.reason = Some(format!(
                "fitted on your earlier reviews, parameters predicted your latest {} reviews worse than the \
                 defaults (log loss {fitted:.3} against {defaults:.3}), so the defaults stay",
                fit.checked_reviews
            ));
        }
        _ => fit.parameters = Some(whole),
    }
    Ok(fit)
}

/// The time from which the latest `HELD_OUT_SHARE` of reviews fall, or `None` for a log
/// with too few reviews to hold any out (fewer than two).
fn held_out_from(log: &ReviewLog) -> Option<DateTime<Utc>> {
    let mut times: Vec<DateTime<Utc>> =
        log.items().iter().flat_map(|item| item.reviews().iter().map(|review| review.timestamp)).collect();
    if times.len() < 2 {
        return None;
    }
    times.sort();
    let held_out = ((times.len() as f64 * HELD_OUT_SHARE).ceil() as usize).clamp(1, times.len() - 1);
    Some(times[times.len() - held_out])
}

fn kept_defaults_because(error: &FitError) -> String {
    match error {
        FitError::TooFewReviews { found, needed } => format!(
            "{found} of your reviews came a day or more after the concept's previous answer; FSRS needs {needed} \
             such reviews to fit parameters of your own, so the defaults stay until then"
        ),
        FitError::KeptDefaults => "after setting outliers aside, the optimiser had too few of your reviews left to \
                                   fit on, so the defaults stay"
            .to_string(),
        other => format!("{other}; the defaults stay"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review_log::ReviewRow;

    fn at_day(day: f64) -> DateTime<Utc> {
        let start = DateTime::parse_from_rfc3339("2026-01-01T08:00:00Z").unwrap().with_timezone(&Utc);
        start + chrono::Duration::milliseconds((day * 86_400_000.0) as i64)
    }

    fn row(item: usize, day: f64, grade: u8) -> ReviewRow {
        ReviewRow::graded(format!("item-{item}"), at_day(day), grade)
    }

    /// Items reviewed at growing intervals, recalled mostly (a forgetting pattern of its
    /// own: longer memories than FSRS's defaults assume), so a fit has something to find.
    fn long_memory_log(items: usize) -> ReviewLog {
        let mut rows = Vec::new();
        for item in 0..items {
            // Each item at its own minute, so that no two reviews share a time.
            let mut day = (item % 30) as f64 + item as f64 / 1440.0;
            rows.push(row(item, day, 4));
            for (step, gap) in [3.0, 9.0, 25.0, 60.0].into_iter().enumerate() {
                day += gap;
                let grade = if (item + step) % 11 == 0 { 1 } else { 5 };
                rows.push(row(item, day, grade));
            }
        }
        ReviewLog::from_rows(rows)
    }

    #[test]
    fn a_short_log_keeps_the_defaults_and_says_how_many_reviews_are_needed() {
        let log = ReviewLog::from_rows([row(0, 0.0, 4), row(0, 2.0, 4), row(1, 0.0, 3), row(1, 3.0, 1)]);
        let fit = fit_for_learner(&log).unwrap();
        assert_eq!(fit.parameters, None);
        assert_eq!(fit.reviews, 2);
        let reason = fit.reason.clone().unwrap();
        assert!(reason.contains("2 of your reviews") && reason.contains("needs 8"), "{reason}");
        assert_eq!(fit.checked_reviews, 1, "the latest fifth, at least one");
        assert!(fit.default_log_loss.is_some_and(f64::is_finite));
        assert_eq!(fit.log_loss_in_use(), fit.default_log_loss);
    }

    #[test]
    fn a_long_log_gets_parameters_checked_on_its_latest_reviews() {
        let log = long_memory_log(200);
        let fit = fit_for_learner(&log).unwrap();
        assert_eq!(fit.reviews, 800);
        assert_eq!(fit.checked_reviews, 160, "a fifth of 800");
        let (fitted, defaults) = (fit.log_loss.unwrap(), fit.default_log_loss.unwrap());
        assert!(fitted <= defaults, "the fit predicts this learner better: {fitted} against {defaults}");
        let parameters = fit.parameters.as_ref().expect("parameters of their own");
        assert!(!parameters.initial_stability_only && parameters.fitted_on_reviews == 800);
        assert_eq!(fit.reason, None);
        assert_eq!(fit.log_loss_in_use(), Some(fitted));
    }

    #[test]
    fn an_empty_log_keeps_the_defaults_with_nothing_checked() {
        let fit = fit_for_learner(&ReviewLog::from_rows([])).unwrap();
        assert_eq!((fit.parameters.is_none(), fit.reviews, fit.checked_reviews), (true, 0, 0));
        assert_eq!((fit.log_loss, fit.default_log_loss), (None, None));
    }
}
