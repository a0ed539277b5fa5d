//! `pathwise srs-eval FILE [--json]`: SM-2 and FSRS compared on a review log. Needs no
//! database or configuration; the work is `pathwise_srs::evaluate`.
//!
//! A log with no reviews yet (a fresh `pathwise export-reviews`: nothing answered, or each
//! concept answered once) is not a bad file: it is too little data, said as such with exit
//! status 0, so that a script exporting and evaluating a new learner does not fail.

use anyhow::{Context, Result};
use pathwise_srs::{EvaluationError, EvaluationReport, FittedOutcome, Metrics, ReviewLogError};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SrsEvalFlags {
    /// The review log (CSV with the header item_id,timestamp,grade, or item_id,timestamp,grade,rating;
    /// RFC 3339 timestamps, grades 0-5, ratings again/hard/good/easy). Each item's first row
    /// is its introduction, the rest are reviews.
    file: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(flags: SrsEvalFlags) -> Result<()> {
    let file = flags.file.display();
    let text = std::fs::read_to_string(&flags.file).with_context(|| format!("cannot read {file}"))?;
    let outcome = match pathwise_srs::parse_review_log(&text) {
        Err(ReviewLogError::NoRows { .. }) => Outcome::TooLittleData(TooLittleData {
            evaluated: false,
            items: 0,
            reviews: 0,
            reason: "the log has no responses yet (only its header)".into(),
        }),
        Err(error) => anyhow::bail!("{file}: {error}"),
        Ok(log) => match pathwise_srs::evaluate(&log) {
            Err(EvaluationError::NoReviews { items }) => Outcome::TooLittleData(TooLittleData {
                evaluated: false,
                items,
                reviews: 0,
                reason: format!(
                    "{} only its introduction (its first response), and the schedulers are scored \
                     on the responses after it",
                    if items == 1 { "its one item has".to_string() } else { format!("each of its {items} items has") }
                ),
            }),
            Err(error) => anyhow::bail!("{file}: {error}"),
            Ok(report) => Outcome::Evaluated(Evaluated { evaluated: true, report: Box::new(report) }),
        },
    };
    match (&outcome, flags.json) {
        (outcome, true) => crate::output::line(serde_json::to_string(outcome)?),
        (Outcome::Evaluated(evaluated), false) => crate::output::text(table(&evaluated.report)),
        (Outcome::TooLittleData(nothing), false) => crate::output::line(format!(
            "nothing to evaluate yet in {file}: {}. Answer each concept's reviews as they come due \
             (over days, not minutes), export the log again and run srs-eval on it.",
            nothing.reason
        )),
    }
}

/// What `--json` prints: the report, or why there is none; `evaluated` tells them apart.
#[derive(Serialize)]
#[serde(untagged)]
enum Outcome {
    Evaluated(Evaluated),
    TooLittleData(TooLittleData),
}

#[derive(Serialize)]
struct Evaluated {
    evaluated: bool,
    #[serde(flatten)]
    report: Box<EvaluationReport>,
}

#[derive(Serialize)]
struct TooLittleData {
    evaluated: bool,
    items: usize,
    reviews: usize,
    reason: String,
}

fn table(report: &EvaluationReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} items, {} reviews: the {} before {} fit fsrs_fitted; all schedulers are scored on the {} after \
         (recalled: {:.1}%)\n",
        report.items,
        report.reviews,
        report.fitting_reviews,
        report.split_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        report.scored_reviews,
        report.observed_recall * 100.0,
    );
    let _ = writeln!(out, "{:<14} {:>9} {:>11} {:>7}", "scheduler", "log loss", "RMSE(bins)", "AUC");
    let row = |out: &mut String, name: &str, metrics: &Metrics| {
        let auc = metrics.auc.map_or("-".to_string(), |auc| format!("{auc:.4}"));
        let _ = writeln!(out, "{name:<14} {:>9.4} {:>11.4} {auc:>7}", metrics.log_loss, metrics.rmse_bins);
    };
    row(&mut out, "sm2", &report.sm2);
    row(&mut out, "fsrs_default", &report.fsrs_default);
    match &report.fsrs_fitted {
        FittedOutcome::Scored { metrics, .. } => row(&mut out, "fsrs_fitted", metrics),
        FittedOutcome::Unavailable { reason } => {
            let _ = writeln!(out, "{:<14} unavailable: {reason}", "fsrs_fitted");
        }
    }
    row(&mut out, "fsrs_refitted", &report.fsrs_refitted.metrics);
    let _ = writeln!(
        out,
        "\nfsrs_refitted is FSRS as a learner's schedule runs it: the scored reviews in {} periods, each \
         predicted with the parameters fitted on everything before it ({} of them fitted, the rest on the defaults)",
        report.fsrs_refitted.periods, report.fsrs_refitted.periods_fitted
    );
    let _ =
        writeln!(out, "lowest log loss: {} (lower log loss and RMSE are better, higher AUC is better)", report.best);
    out
}
