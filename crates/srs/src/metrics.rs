//! How well predicted probabilities of recall match what happened: log loss, RMSE (bins)
//! and AUC, as the open FSRS benchmark reports them.

use serde::Serialize;
use std::collections::HashMap;

/// Predictions are kept this far from 0 and 1 for the log loss, so that one confident miss
/// costs a lot (about 13.8) rather than infinity.
pub const PROBABILITY_CLAMP: f64 = 1e-6;

/// One prediction made before a review, and what happened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    /// The predicted probability of recall.
    pub probability: f64,
    /// Whether the learner recalled the item (grade 3 or more).
    pub recalled: bool,
    /// The review's bin for RMSE (bins).
    pub bin: Bin,
}

/// The FSRS benchmark's bin of a review, from the review alone (not from any scheduler's
/// prediction, so every scheduler is binned alike): the days since the item's previous
/// response, how many reviews the item has had at least a day apart (this one included),
/// and how many of those earlier ones were lapses. Each count is bucketed on a logarithmic
/// scale with the benchmark's bases (3.62, 1.89 and 1.73), exactly as `fsrs-rs` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Bin {
    pub interval: u32,
    pub reviews: u32,
    pub lapses: u32,
}

impl Bin {
    /// `elapsed_days`: whole days since the previous response; `long_term_reviews`: the
    /// item's reviews so far (this one included) that came a day or more after the response
    /// before them; `lapses`: the earlier ones of those that were failures.
    pub fn new(elapsed_days: u32, long_term_reviews: usize, lapses: usize) -> Bin {
        let interval = (2.48 * log_floor(f64::from(elapsed_days), 3.62) * 100.0).round() as u32;
        let reviews = (1.99 * log_floor(long_term_reviews as f64 + 1.0, 1.89)).round() as u32;
        let lapses = if lapses == 0 { 0 } else { (1.65 * log_floor(lapses as f64, 1.73)).round() as u32 };
        Bin { interval, reviews, lapses }
    }
}

/// `base` to the power of the whole part of log_base(x): the bucket's lower edge (0 for 0).
fn log_floor(x: f64, base: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    base.powf(x.log(base).floor())
}

/// The three figures for one scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Metrics {
    pub log_loss: f64,
    pub rmse_bins: f64,
    /// `None` when every review had the same outcome.
    pub auc: Option<f64>,
}

impl Metrics {
    pub fn of(predictions: &[Prediction]) -> Metrics {
        Metrics { log_loss: log_loss(predictions), rmse_bins: rmse_bins(predictions), auc: auc(predictions) }
    }
}

/// Mean binary cross-entropy, predictions clamped to [1e-6, 1 - 1e-6]; NaN when empty.
pub fn log_loss(predictions: &[Prediction]) -> f64 {
    let total: f64 = predictions
        .iter()
        .map(|prediction| {
            let p = prediction.probability.clamp(PROBABILITY_CLAMP, 1.0 - PROBABILITY_CLAMP);
            if prediction.recalled {
                -p.ln()
            } else {
                -(1.0 - p).ln()
            }
        })
        .sum();
    total / predictions.len() as f64
}

/// RMSE (bins): within each [`Bin`], the mean prediction against the share recalled; the
/// squared differences are averaged weighted by each bin's number of reviews, and the
/// square root taken. NaN when empty.
pub fn rmse_bins(predictions: &[Prediction]) -> f64 {
    #[derive(Default)]
    struct Sums {
        predicted: f64,
        recalled: f64,
        count: f64,
    }
    let mut bins: HashMap<Bin, Sums> = HashMap::new();
    for prediction in predictions {
        let sums = bins.entry(prediction.bin).or_default();
        sums.predicted += prediction.probability;
        sums.recalled += f64::from(u8::from(prediction.recalled));
        sums.count += 1.0;
    }
    let weighted: f64 = bins.values().map(|s| s.count * (s.predicted / s.count - s.recalled / s.count).powi(2)).sum();
    (weighted / predictions.len() as f64).sqrt()
}

/// ROC AUC by the rank statistic (Mann-Whitney U): the chance that a random recalled
/// review was given a higher probability than a random forgotten one, tied probabilities
/// counting half (they share their average rank). `None` unless both outcomes occur.
pub fn auc(predictions: &[Prediction]) -> Option<f64> {
    let positives = predictions.iter().filter(|p| p.recalled).count();
    let negatives = predictions.len() - positives;
    if positives == 0 || negatives == 0 {
        return None;
    }
    let mut sorted: Vec<&Prediction> = predictions.iter().collect();
    sorted.sort_by(|a, b| a.probability.total_cmp(&b.probability));
    let mut positive_rank_sum = 0.0;
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start;
        while end + 1 < sorted.len() && sorted[end + 1].probability == sorted[start].probability {
            end += 1;
        }
        // Ranks count from 1; the tied run start..=end shares their average.
        let average_rank = (start + end) as f64 / 2.0 + 1.0;
        positive_rank_sum += average_rank * sorted[start..=end].iter().filter(|p| p.recalled).count() as f64;
        start = end + 1;
    }
    let (positives, negatives) = (positives as f64, negatives as f64);
    Some((positive_rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIN_A: Bin = Bin { interval: 1, reviews: 1, lapses: 0 };
    const BIN_B: Bin = Bin { interval: 2, reviews: 1, lapses: 0 };

    fn predictions(pairs: &[(f64, bool)]) -> Vec<Prediction> {
        pairs.iter().map(|&(probability, recalled)| Prediction { probability, recalled, bin: BIN_A }).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn log_loss_is_the_mean_cross_entropy() {
        // -(ln 0.8 + ln(1 - 0.4)) / 2 = (0.2231435513 + 0.5108256238) / 2
        let value = log_loss(&predictions(&[(0.8, true), (0.4, false)]));
        assert!(close(value, 0.366_984_587_5), "{value}");
    }

    #[test]
    fn log_loss_clamps_certain_predictions_that_turn_out_wrong() {
        let value = log_loss(&predictions(&[(1.0, false)]));
        assert!(close(value, -(1e-6f64).ln()), "{value}");
        assert!(close(log_loss(&predictions(&[(1.0, true)])), -(1.0f64 - 1e-6).ln()));
    }

    #[test]
    fn rmse_bins_compares_mean_prediction_and_recall_per_bin_weighted_by_count() {
        let mut all = predictions(&[(0.9, true), (0.7, false), (0.8, true)]);
        all.push(Prediction { probability: 0.5, recalled: true, bin: BIN_B });
        // Bin A: mean prediction 0.8, recall 2/3, 3 reviews; bin B: 0.5 against 1, 1 review.
        let expected = ((3.0 * (0.8f64 - 2.0 / 3.0).powi(2) + 0.25) / 4.0).sqrt();
        assert!(close(rmse_bins(&all), expected), "{} vs {expected}", rmse_bins(&all));
    }

    #[test]
    fn rmse_bins_is_zero_when_each_bin_is_calibrated() {
        assert!(close(rmse_bins(&predictions(&[(0.5, true), (0.5, false)])), 0.0));
    }

    #[test]
    fn auc_counts_correctly_ordered_pairs() {
        // Positives 0.9, 0.4; negatives 0.5, 0.1: 3 of 4 pairs ordered correctly.
        let value = auc(&predictions(&[(0.9, true), (0.5, false), (0.4, true), (0.1, false)])).unwrap();
        assert!(close(value, 0.75), "{value}");
        assert!(close(auc(&predictions(&[(0.9, true), (0.1, false)])).unwrap(), 1.0));
        assert!(close(auc(&predictions(&[(0.1, true), (0.9, false)])).unwrap(), 0.0));
    }

    #[test]
    fn auc_counts_tied_pairs_as_half() {
        // Pairs: (0.5+, 0.5-) tie = 0.5, (0.5+, 0.2-) = 1, (0.8+, 0.5-) = 1, (0.8+, 0.2-) = 1.
        let value = auc(&predictions(&[(0.5, true), (0.5, false), (0.2, false), (0.8, true)])).unwrap();
        assert!(close(value, 3.5 / 4.0), "{value}");
        assert!(close(auc(&predictions(&[(0.5, true), (0.5, false)])).unwrap(), 0.5));
    }

    #[test]
    fn auc_is_none_with_only_one_outcome() {
        assert_eq!(auc(&predictions(&[(0.9, true), (0.3, true)])), None);
        assert_eq!(auc(&predictions(&[(0.9, false)])), None);
    }

    #[test]
    fn bins_follow_the_fsrs_benchmark_buckets() {
        // Same-day reviews sit in interval bucket 0; 1-3 days share 248; 4-13 days 898.
        assert_eq!(Bin::new(0, 0, 0), Bin { interval: 0, reviews: 2, lapses: 0 });
        assert_eq!(Bin::new(1, 1, 0).interval, 248);
        assert_eq!(Bin::new(3, 1, 0).interval, 248);
        assert_eq!(Bin::new(4, 1, 0).interval, 898);
        assert_eq!(Bin::new(13, 1, 0).interval, 898);
        // Review counts: 1 review -> length 2 -> 1.89^1 * 1.99 = 3.76 -> 4.
        assert_eq!(Bin::new(1, 1, 0).reviews, 4);
        // Lapses: 1 -> 1.65 -> 2; 2 -> 1.73 * 1.65 = 2.85 -> 3.
        assert_eq!(Bin::new(1, 3, 1).lapses, 2);
        assert_eq!(Bin::new(1, 3, 2).lapses, 3);
    }
}
