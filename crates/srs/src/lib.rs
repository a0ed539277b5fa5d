//! Spaced-repetition schedulers beside SM-2 and their evaluation on review logs.
//!
//! SM-2 (`pathwise_domain::srs`) stays Pathwise's default; FSRS is available per learner.
//! This crate does no I/O beyond parsing the text it is given, and never reads the clock.
//!
//! - [`review_log`]: the review log CSV (`item_id,timestamp,grade[,rating]`), parsed and written.
//! - [`fsrs_scheduler`]: live FSRS scheduling of one item; with [`fsrs_fit`] the only
//!   modules that touch the `fsrs` crate, whose types never leave them.
//! - [`fsrs_fit`]: fitting FSRS's parameters on a learner's history.
//! - [`learner_fit`]: a learner's own parameters for their schedule, checked on their
//!   latest reviews against the defaults.
//! - [`metrics`]: log loss, RMSE (bins) and AUC of predicted recall.
//! - [`synthetic`]: deterministic review logs for tests and benchmarks.
//! - `replay`: a log replayed through a scheduler, predicting each review before taking it;
//!   what both the evaluation and a learner's fit are measured by.
//! - [`evaluation`]: SM-2, FSRS with default and with fitted parameters, compared on a log.

pub mod evaluation;
pub mod fsrs_fit;
pub mod fsrs_scheduler;
pub mod learner_fit;
pub mod metrics;
mod replay;
pub mod review_log;
pub mod synthetic;

pub use evaluation::{evaluate, EvaluationError, EvaluationReport, FittedOutcome};
pub use fsrs_fit::{fit_parameters, FitError, FittedParameters, MIN_FIT_REVIEWS, MIN_FULL_FIT_REVIEWS};
pub use fsrs_scheduler::{
    fsrs_review, FsrsError, FsrsMemory, FsrsParameters, FsrsReview, FsrsScheduler, DEFAULT_DESIRED_RETENTION,
};
pub use learner_fit::{fit_for_learner, LearnerFit};
pub use metrics::Metrics;
pub use review_log::{parse_review_log, write_review_log, ReviewEvent, ReviewLog, ReviewLogError, ReviewRow};
