//! Maximum likelihood ability estimation: Newton-Raphson (Fisher scoring where the
//! likelihood is not concave) with a bounded step inside fixed bounds, and a bounded-step
//! rule while the pattern has no finite maximum.

use crate::model::{ItemParams, SCALE};
use crate::settings::MleSettings;
use crate::Estimate;

/// How close two successive iterates must be to stop.
const TOLERANCE: f64 = 1e-8;
/// The most times one step is halved.
const HALVINGS: u32 = 40;

/// `value` limited to [lower, upper]; unlike `f64::clamp` it cannot panic, whatever the
/// settings (a caller may pass settings that were never validated).
fn within(value: f64, lower: f64, upper: f64) -> f64 {
    value.max(lower).min(upper)
}

/// The MLE of ability from `responses`, starting from `previous` (the last estimate).
///
/// While every answer is correct (or every one wrong) the likelihood rises without end
/// toward +inf (-inf); the estimate then moves `extreme_step` from `previous` toward that
/// side, clamped to the bounds. Otherwise the likelihood is climbed from `previous` in steps
/// of at most `max_step`, never downhill; an estimate at a bound means the maximum lies
/// beyond it. A 3PL likelihood may have more than one peak: this finds the one uphill of
/// `previous`. The SE
/// is 1 / sqrt(test information) at the estimate (infinite with no responses).
pub fn mle<'a>(
    responses: impl Iterator<Item = (&'a ItemParams, bool)> + Clone,
    previous: f64,
    settings: &MleSettings,
) -> Estimate {
    let clamp = |theta: f64| within(theta, settings.lower, settings.upper);
    let (answered, correct) = responses.clone().fold((0usize, 0usize), |(n, r), (_, ok)| (n + 1, r + ok as usize));
    let theta = if answered == 0 {
        clamp(previous)
    } else if correct == answered {
        clamp(previous + settings.extreme_step)
    } else if correct == 0 {
        clamp(previous - settings.extreme_step)
    } else {
        maximize(responses.clone(), clamp(previous), settings)
    };
    let information = test_information(responses.map(|(item, _)| item), theta);
    Estimate { theta, se: 1.0 / information.sqrt() }
}

fn maximize<'a>(
    responses: impl Iterator<Item = (&'a ItemParams, bool)> + Clone,
    start: f64,
    settings: &MleSettings,
) -> f64 {
    let clamp = |theta: f64| within(theta, settings.lower, settings.upper);
    let mut theta = start;
    let mut here = derivatives(responses.clone(), theta);
    for _ in 0..settings.max_iterations {
        // Newton where the log-likelihood is concave: Fisher scoring alone crawls across
        // the flat shoulders a 3PL likelihood can have. Elsewhere Fisher scoring, whose
        // step always points uphill.
        let curvature = if here.observed > 0.0 { here.observed } else { here.expected };
        if curvature <= 0.0 {
            break;
        }
        let mut step = within(here.score / curvature, -settings.max_step, settings.max_step);
        // Halve a step that would lower the likelihood (an overshoot past the peak); after
        // HALVINGS halvings the step is below any tolerance that matters.
        let mut next = clamp(theta + step);
        let mut there = derivatives(responses.clone(), next);
        for _ in 0..HALVINGS {
            if there.log_likelihood >= here.log_likelihood || step.abs() < TOLERANCE {
                break;
            }
            step /= 2.0;
            next = clamp(theta + step);
            there = derivatives(responses.clone(), next);
        }
        let moved = (next - theta).abs();
        (theta, here) = (next, there);
        if moved < TOLERANCE {
            break;
        }
    }
    theta
}

/// The log-likelihood and its derivatives at one ability.
struct Derivatives {
    log_likelihood: f64,
    score: f64,
    /// Minus the second derivative of the log-likelihood.
    observed: f64,
    /// The test information, the expectation of `observed`.
    expected: f64,
}

fn derivatives<'a>(responses: impl Iterator<Item = (&'a ItemParams, bool)>, theta: f64) -> Derivatives {
    let mut sums = Derivatives { log_likelihood: 0.0, score: 0.0, observed: 0.0, expected: 0.0 };
    for (item, correct) in responses {
        sums.log_likelihood += item.log_likelihood(theta, correct);
        let curve = item.curve(theta);
        let variance = curve.p * curve.q;
        if variance <= 0.0 {
            continue;
        }
        // u - P, written with 1 - P as q so that a far-off answer does not cancel to 0.
        let residual = if correct { curve.q } else { -curve.p };
        let weight = curve.slope / variance;
        // d/dtheta of P' / (P Q), with P'' = P' D a (1 - 2 L) and (P Q)' = P' (Q - P).
        let second = curve.slope * SCALE * item.a() * curve.falling_minus_rising;
        let weight_slope =
            (second * variance - curve.slope * curve.slope * (curve.q - curve.p)) / (variance * variance);
        sums.score += residual * weight;
        sums.expected += curve.slope * weight;
        sums.observed += curve.slope * weight - residual * weight_slope;
    }
    sums
}

/// The sum of the items' Fisher information at `theta`.
pub fn test_information<'a>(items: impl Iterator<Item = &'a ItemParams>, theta: f64) -> f64 {
    items.map(|item| item.information(theta)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn item(a: f64, b: f64, c: f64) -> ItemParams {
        ItemParams::three_pl(a, b, c).unwrap()
    }

    fn estimate(responses: &[(ItemParams, bool)], previous: f64) -> Estimate {
        mle(responses.iter().map(|(it, ok)| (it, *ok)), previous, &MleSettings::default())
    }

    #[test]
    fn rasch_items_at_one_difficulty_give_the_log_odds_of_the_score() {
        // With n identical Rasch items at b = 0 and r correct, P(theta) = r / n at the MLE.
        let it = item(1.0, 0.0, 0.0);
        for (n, r) in [(10, 3), (10, 7), (20, 1), (5, 4)] {
            let responses: Vec<_> = (0..n).map(|i| (it, i < r)).collect();
            let found = estimate(&responses, 0.0);
            let p = r as f64 / n as f64;
            assert!((found.theta - (p / (1.0 - p)).ln()).abs() < 1e-7, "{n} {r}: {found:?}");
            assert!((found.se - 1.0 / (n as f64 * p * (1.0 - p)).sqrt()).abs() < 1e-7);
        }
    }

    #[test]
    fn observed_information_is_minus_the_numeric_second_derivative() {
        let responses = [(item(1.5, 0.3, 0.2), true), (item(0.7, -1.0, 0.0), false), (item(2.2, 1.1, 0.15), true)];
        let at = |theta| derivatives(responses.iter().map(|(it, ok)| (it, *ok)), theta);
        let h = 1e-4;
        for theta in [-2.0, -0.4, 0.0, 0.9, 2.5] {
            let numeric = -(at(theta + h).log_likelihood - 2.0 * at(theta).log_likelihood
                + at(theta - h).log_likelihood)
                / (h * h);
            let slope = (at(theta + h).log_likelihood - at(theta - h).log_likelihood) / (2.0 * h);
            assert!((at(theta).observed - numeric).abs() < 1e-5, "{theta}: {} vs {numeric}", at(theta).observed);
            assert!((at(theta).score - slope).abs() < 1e-7);
        }
    }

    #[test]
    fn a_flat_three_pl_shoulder_is_crossed_to_the_peak() {
        // Fisher scoring alone needed hundreds of iterations on this pattern.
        let raw = [
            (1.737, 1.305, 0.125, true),
            (1.594, 1.658, 0.0, false),
            (1.672, 0.117, 0.0, false),
            (2.485, -1.998, 0.0, false),
            (1.896, 1.115, 0.059, true),
            (1.042, 0.0, 0.147, true),
            (1.564, 0.844, 0.163, true),
            (1.379, -0.925, 0.0, true),
            (1.233, -1.029, 0.113, true),
        ];
        let responses: Vec<_> = raw.iter().map(|&(a, b, c, ok)| (item(a, b, c), ok)).collect();
        let settings = MleSettings { max_iterations: 10, ..MleSettings::default() };
        let found = mle(responses.iter().map(|(it, ok)| (it, *ok)), 0.0, &settings);
        let score = derivatives(responses.iter().map(|(it, ok)| (it, *ok)), found.theta).score;
        assert!(score.abs() < 1e-9 && (found.theta + 0.25).abs() < 0.05, "{found:?}, score {score}");
    }

    #[test]
    fn a_far_root_is_reached_through_bounded_steps() {
        // One correct answer in twenty: the root is near -2.94, three steps from 0.
        let it = item(1.0, 0.0, 0.0);
        let responses: Vec<_> = (0..20).map(|i| (it, i == 0)).collect();
        assert!((estimate(&responses, 0.0).theta - (1.0f64 / 19.0).ln()).abs() < 1e-7);
    }

    #[test]
    fn all_correct_or_all_wrong_patterns_take_a_bounded_step_toward_the_bound() {
        let it = item(1.2, 0.5, 0.2);
        assert_eq!(estimate(&[(it, true)], 0.0).theta, 1.0);
        assert_eq!(estimate(&[(it, true), (it, true)], 3.5).theta, 4.0);
        let wrong = estimate(&[(it, false), (it, false)], -1.0);
        assert_eq!(wrong.theta, -2.0);
        assert!((wrong.se - 1.0 / (2.0 * it.information(-2.0)).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn invalid_settings_give_an_estimate_rather_than_a_panic() {
        let it = item(1.0, 0.0, 0.0);
        let settings = MleSettings { lower: 4.0, upper: -4.0, max_step: f64::NAN, ..MleSettings::default() };
        let responses = [(it, true), (it, false)];
        let _ = mle(responses.iter().map(|(it, ok)| (it, *ok)), f64::NAN, &settings);
    }

    #[test]
    fn with_no_responses_the_estimate_is_the_start_with_infinite_se() {
        let found = estimate(&[], 0.3);
        assert_eq!(found.theta, 0.3);
        assert!(found.se.is_infinite());
    }

    proptest! {
        #[test]
        fn the_score_is_zero_at_an_interior_estimate(
            items in proptest::collection::vec((0.5f64..2.5, -2.0f64..2.0, 0.0f64..0.25, any::<bool>()), 2..40)
        ) {
            let responses: Vec<_> = items.iter().map(|&(a, b, c, ok)| (item(a, b, c), ok)).collect();
            let mixed = responses.iter().any(|r| r.1) && responses.iter().any(|r| !r.1);
            let found = estimate(&responses, 0.0);
            prop_assert!(found.theta.is_finite() && found.se > 0.0);
            prop_assert!((-4.0..=4.0).contains(&found.theta));
            if mixed && found.theta.abs() < 3.99 {
                let log_likelihood = |theta: f64| -> f64 {
                    responses.iter().map(|(it, ok)| it.log_likelihood(theta, *ok)).sum()
                };
                let h = 1e-5;
                let slope = (log_likelihood(found.theta + h) - log_likelihood(found.theta - h)) / (2.0 * h);
                // A 3PL likelihood may have several maxima; at any of them the slope is 0.
                prop_assert!(slope.abs() < 1e-4, "slope {slope} at {found:?}");
            }
        }
    }
}
