//! The evaluation on a deterministic synthetic log: 200 items whose recall follows an
//! exponential forgetting curve, reviewed at jittered intervals.

use chrono::{DateTime, Duration, Utc};
use pathwise_srs::{evaluate, parse_review_log, write_review_log, FittedOutcome, ReviewRow};

/// xorshift64*: a small seeded generator, so the log is the same on every run.
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.next_f64()
    }
}

fn synthetic_rows(items: usize, seed: u64) -> Vec<ReviewRow> {
    let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().with_timezone(&Utc);
    let mut rng = Rng(seed);
    let mut rows = Vec::new();
    for item in 0..items {
        let item_id = format!("item-{item:03}");
        // Days until recall falls to 1/e (recall is 90% after about a tenth of it), and
        // how much a recall multiplies it.
        let mut stability = rng.between(5.0, 30.0);
        let growth = rng.between(1.8, 3.3);
        let mut day = rng.between(0.0, 60.0);
        rows.push(ReviewRow { item_id: item_id.clone(), timestamp: at(start, day), grade: 4 });
        for _ in 0..12 {
            // Reviews aimed at 90% recall, early or late by up to a factor of three.
            let elapsed = (stability * 0.105 * rng.between(0.3, 3.0)).max(1.0);
            day += elapsed;
            if day > 365.0 {
                break;
            }
            let recall = (-elapsed / stability).exp();
            if rng.next_f64() < recall {
                stability *= growth;
                let grade = if recall > 0.9 {
                    5
                } else if recall > 0.75 {
                    4
                } else {
                    3
                };
                rows.push(ReviewRow { item_id: item_id.clone(), timestamp: at(start, day), grade });
            } else {
                stability = (stability * 0.4).max(5.0);
                let grade = (rng.next_f64() * 3.0) as u8;
                rows.push(ReviewRow { item_id: item_id.clone(), timestamp: at(start, day), grade });
                // Half the lapses are relearnt a quarter of an hour later, the same day.
                if rng.next_f64() < 0.5 {
                    day += 0.01;
                    rows.push(ReviewRow { item_id: item_id.clone(), timestamp: at(start, day), grade: 4 });
                }
            }
        }
    }
    // Shuffle, so the parser has to put each item's rows back in time order.
    for index in (1..rows.len()).rev() {
        let other = (rng.next_f64() * (index + 1) as f64) as usize;
        rows.swap(index, other.min(index));
    }
    rows
}

fn at(start: DateTime<Utc>, day: f64) -> DateTime<Utc> {
    start + Duration::seconds((day * 86_400.0) as i64)
}

#[test]
fn a_synthetic_log_of_200_items_gives_finite_figures_for_all_three_schedulers() {
    let rows = synthetic_rows(200, 0x5eed);
    let log = parse_review_log(&write_review_log(&rows)).unwrap();
    assert_eq!(log.items().len(), 200);
    let report = evaluate(&log).unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());

    assert_eq!(report.reviews, rows.len() - 200, "every row but an item's first is a review");
    assert_eq!(report.fitting_reviews + report.scored_reviews, report.reviews);
    assert!(report.fitting_reviews.abs_diff(report.scored_reviews) <= 2, "the split halves the reviews");
    let FittedOutcome::Scored { metrics: fitted, fit } = &report.fsrs_fitted else {
        panic!("fsrs_fitted should be available: {:?}", report.fsrs_fitted)
    };
    assert!(fit.fitted_on_reviews <= report.fitting_reviews);
    for (name, metrics) in [("sm2", &report.sm2), ("fsrs_default", &report.fsrs_default), ("fsrs_fitted", fitted)] {
        assert!(metrics.log_loss.is_finite() && metrics.log_loss > 0.0, "{name}: {metrics:?}");
        assert!(metrics.rmse_bins.is_finite() && (0.0..=1.0).contains(&metrics.rmse_bins), "{name}: {metrics:?}");
        let auc = metrics.auc.unwrap_or_else(|| panic!("{name}: both outcomes occur"));
        assert!((0.0..=1.0).contains(&auc), "{name}: {metrics:?}");
    }
    // Not absurd: better than a coin, calibrated to within a few points per bin, ranking
    // recalls above lapses, and no worse than the defaults it started from by much.
    assert!(fitted.log_loss < std::f64::consts::LN_2, "{fitted:?}");
    assert!(fitted.rmse_bins < 0.15, "{fitted:?}");
    assert!(fitted.auc.unwrap() > 0.6, "{fitted:?}");
    assert!(fitted.log_loss < report.fsrs_default.log_loss + 0.02, "{fitted:?} vs {:?}", report.fsrs_default);
}

#[test]
fn the_synthetic_log_is_the_same_on_every_run() {
    assert_eq!(synthetic_rows(20, 7), synthetic_rows(20, 7));
    assert_ne!(synthetic_rows(20, 7), synthetic_rows(20, 8));
}
