//! Fitting a learner's FSRS parameters as their schedule does (`pathwise_srs::fit_for_learner`:
//! the optimiser on the whole log and on all but the latest fifth, both scored), on a
//! synthetic log of about `reviews` reviews (`pathwise_srs::synthetic`).

use super::stats::Stats;
use anyhow::Result;
use pathwise_srs::{fit_for_learner, synthetic, ReviewLog};
use serde_json::json;
use std::time::Instant;

pub(crate) fn fsrs_fit(reviews: usize, runs: usize) -> Result<()> {
    // The synthetic year holds about 7.75 reviews an item: items enough for at least `reviews`.
    let items = reviews.div_ceil(7).max(1);
    let log = ReviewLog::from_rows(synthetic::review_rows(items, 0x5eed));
    let mut latencies = Vec::with_capacity(runs);
    let mut fit = None;
    for _ in 0..runs {
        let started = Instant::now();
        fit = Some(fit_for_learner(&log)?);
        latencies.push(started.elapsed());
    }
    let fit = fit.expect("at least one run");
    let elapsed = latencies.iter().sum();
    Stats { ops: latencies.len(), concurrency: 1, elapsed, latencies }.print(
        "fsrs_fit",
        "-",
        json!({
            "reviews": fit.reviews,
            "fitted_on_reviews": fit.parameters.as_ref().map(|p| p.fitted_on_reviews),
            "checked_reviews": fit.checked_reviews,
            "log_loss": fit.log_loss,
            "default_log_loss": fit.default_log_loss,
            "own_parameters": fit.parameters.is_some(),
        }),
    );
    Ok(())
}
