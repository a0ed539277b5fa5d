//! The evaluation on a deterministic synthetic log: 200 items whose recall follows an
//! exponential forgetting curve, reviewed at jittered intervals.

use pathwise_srs::synthetic::review_rows as synthetic_rows;
use pathwise_srs::{evaluate, parse_review_log, write_review_log, FittedOutcome};

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
    // Refitted as the schedule is: every period has enough before it to fit on.
    let refitted = &report.fsrs_refitted;
    assert_eq!((refitted.periods, refitted.periods_fitted), (4, 4), "{refitted:?}");
    assert!(refitted.metrics.log_loss < std::f64::consts::LN_2, "{refitted:?}");
}

#[test]
fn the_synthetic_log_is_the_same_on_every_run() {
    assert_eq!(synthetic_rows(20, 7), synthetic_rows(20, 7));
    assert_ne!(synthetic_rows(20, 7), synthetic_rows(20, 8));
}
