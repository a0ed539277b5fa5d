//! `pathwise srs-eval FILE [--json]`: SM-2 and FSRS compared on a review log. Needs no
//! database or configuration; the work is `pathwise_srs::evaluate`.

use anyhow::{Context, Result};
use pathwise_srs::{EvaluationReport, FittedOutcome, Metrics};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SrsEvalFlags {
    /// The review log (CSV with the header item_id,timestamp,grade; RFC 3339 timestamps,
    /// grades 0-5). Each item's first row is its introduction, the rest are reviews.
    file: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(flags: SrsEvalFlags) -> Result<()> {
    let file = flags.file.display();
    let text = std::fs::read_to_string(&flags.file).with_context(|| format!("cannot read {file}"))?;
    let log = pathwise_srs::parse_review_log(&text).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    let report = pathwise_srs::evaluate(&log).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    if flags.json {
        crate::output::line(serde_json::to_string(&report)?)
    } else {
        crate::output::text(table(&report))
    }
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
    let _ =
        writeln!(out, "\nlowest log loss: {} (lower log loss and RMSE are better, higher AUC is better)", report.best);
    out
}
