//! Expected a posteriori (EAP) ability estimation over a fixed quadrature grid, kept
//! incrementally: the log-posterior at every grid point is updated once per response, so
//! a response costs O(grid points) however many came before it.
//!
//! The same pass keeps the normalized weights and the range of grid points where the
//! posterior is not negligible, for the selection rules that average over it.

use crate::model::ItemParams;
use crate::settings::{Grid, NormalPrior, SettingsError};
use crate::Estimate;
use std::ops::Range;

/// Grid points whose posterior density is below this fraction of the peak's are left out
/// of [`Posterior::support`]: for a normal posterior that is beyond 5.3 SD, where less than
/// 1e-7 of the mass lies.
pub const NEGLIGIBLE_WEIGHT: f64 = 1e-6;

/// The posterior of ability on the grid.
#[derive(Debug, Clone)]
pub struct Posterior {
    grid: Grid,
    nodes: Vec<f64>,
    log_density: Vec<f64>,
    /// The posterior probability of each grid point; they sum to 1.
    weights: Vec<f64>,
    support: Range<usize>,
    estimate: Estimate,
}

impl Posterior {
    /// The prior alone.
    pub fn new(grid: &Grid, prior: &NormalPrior) -> Result<Self, SettingsError> {
        grid.validate()?;
        prior.validate()?;
        let nodes: Vec<f64> = grid.nodes().collect();
        let log_density = nodes.iter().map(|&theta| prior.log_density(theta)).collect();
        let mut posterior = Posterior {
            grid: *grid,
            weights: vec![0.0; nodes.len()],
            support: 0..nodes.len(),
            nodes,
            log_density,
            estimate: Estimate { theta: prior.mean, se: prior.sd },
        };
        posterior.summarize();
        Ok(posterior)
    }

    /// Multiplies in the likelihood of one response.
    pub fn update(&mut self, item: &ItemParams, correct: bool) {
        for (log_density, &theta) in self.log_density.iter_mut().zip(&self.nodes) {
            *log_density += item.log_likelihood(theta, correct);
        }
        self.summarize();
    }

    /// The posterior mean as theta and the posterior standard deviation as its SE.
    pub fn estimate(&self) -> Estimate {
        self.estimate
    }

    /// The grid the posterior lives on.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The abilities of the grid points.
    pub fn nodes(&self) -> &[f64] {
        &self.nodes
    }

    /// The posterior probability of each grid point (they sum to 1).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The grid points from the first to the last whose density is at least
    /// [`NEGLIGIBLE_WEIGHT`] times the peak's: where an average over the posterior needs
    /// to look. Never empty.
    pub fn support(&self) -> Range<usize> {
        self.support.clone()
    }

    /// Recomputes the weights, the support and the estimate from the log-density.
    fn summarize(&mut self) {
        // Weights relative to the largest, so that long tests do not underflow to 0/0.
        let peak = self.log_density.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (mut total, mut first, mut second) = (0.0, 0.0, 0.0);
        let (mut lowest, mut highest) = (usize::MAX, 0);
        for (index, ((&log_density, &theta), weight)) in
            self.log_density.iter().zip(&self.nodes).zip(&mut self.weights).enumerate()
        {
            *weight = (log_density - peak).exp();
            if *weight >= NEGLIGIBLE_WEIGHT {
                lowest = lowest.min(index);
                highest = index;
            }
            total += *weight;
            first += *weight * theta;
            second += *weight * theta * theta;
        }
        for weight in &mut self.weights {
            *weight /= total;
        }
        // The peak itself has weight 1, so the range always holds at least one point.
        self.support = lowest..highest + 1;
        let mean = first / total;
        let variance = (second / total - mean * mean).max(0.0);
        self.estimate = Estimate { theta: mean, se: variance.sqrt() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn item(a: f64, b: f64, c: f64) -> ItemParams {
        ItemParams::three_pl(a, b, c).unwrap()
    }

    fn prior() -> NormalPrior {
        NormalPrior { mean: 0.0, sd: 1.0 }
    }

    /// The posterior mean and SD by the trapezoid rule on 160,001 points over [-10, 10].
    fn brute_force(responses: &[(ItemParams, bool)]) -> (f64, f64) {
        let (points, lo, hi) = (160_001, -10.0, 10.0);
        let step = (hi - lo) / (points - 1) as f64;
        let (mut total, mut first, mut second) = (0.0, 0.0, 0.0);
        for i in 0..points {
            let theta = lo + step * i as f64;
            let edge = if i == 0 || i == points - 1 { 0.5 } else { 1.0 };
            let likelihood: f64 =
                responses.iter().map(|(it, correct)| if *correct { it.p(theta) } else { 1.0 - it.p(theta) }).product();
            let weight = edge * (-0.5 * theta * theta).exp() * likelihood;
            total += weight;
            first += weight * theta;
            second += weight * theta * theta;
        }
        let mean = first / total;
        (mean, (second / total - mean * mean).sqrt())
    }

    fn run(responses: &[(ItemParams, bool)]) -> Estimate {
        let mut posterior = Posterior::new(&Grid::default(), &prior()).unwrap();
        for (it, correct) in responses {
            posterior.update(it, *correct);
        }
        posterior.estimate()
    }

    #[test]
    fn with_no_responses_the_estimate_is_the_prior() {
        let estimate = run(&[]);
        assert!(estimate.theta.abs() < 1e-12);
        assert!((estimate.se - 1.0).abs() < 1e-6, "{estimate:?}");
    }

    #[test]
    fn eap_matches_brute_force_integration_on_a_small_two_pl_bank() {
        let bank =
            [item(1.0, -1.0, 0.0), item(1.5, -0.5, 0.0), item(0.8, 0.0, 0.0), item(2.0, 0.5, 0.0), item(1.2, 1.0, 0.0)];
        for pattern in 0..32u32 {
            let responses: Vec<_> = bank.iter().enumerate().map(|(i, it)| (*it, pattern >> i & 1 == 1)).collect();
            let (mean, sd) = brute_force(&responses);
            let estimate = run(&responses);
            assert!((estimate.theta - mean).abs() < 1e-6, "pattern {pattern:05b}: {} vs {mean}", estimate.theta);
            assert!((estimate.se - sd).abs() < 1e-6, "pattern {pattern:05b}: {} vs {sd}", estimate.se);
        }
    }

    #[test]
    fn eap_matches_brute_force_on_a_long_three_pl_test() {
        let responses: Vec<_> = (0..40)
            .map(|i| {
                let b = -2.0 + 0.1 * i as f64;
                (item(0.8 + 0.05 * (i % 7) as f64, b, 0.2), (i * 7) % 10 < 6)
            })
            .collect();
        let (mean, sd) = brute_force(&responses);
        let estimate = run(&responses);
        assert!(
            (estimate.theta - mean).abs() < 1e-6 && (estimate.se - sd).abs() < 1e-6,
            "{estimate:?} vs {mean}, {sd}"
        );
    }

    #[test]
    fn an_invalid_grid_or_prior_is_refused() {
        let grid = Grid { lo: -4.0, hi: 4.0, points: 0 };
        assert!(matches!(Posterior::new(&grid, &prior()), Err(SettingsError::Grid { .. })));
        let prior = NormalPrior { mean: f64::NAN, sd: 1.0 };
        assert!(matches!(Posterior::new(&Grid::default(), &prior), Err(SettingsError::Prior { .. })));
    }

    #[test]
    fn a_symmetric_pattern_on_symmetric_items_estimates_zero() {
        let it = item(1.0, 0.0, 0.0);
        let estimate = run(&[(it, true), (it, false), (it, true), (it, false)]);
        assert!(estimate.theta.abs() < 1e-12);
    }

    proptest! {
        #[test]
        fn two_pl_posterior_sd_never_exceeds_the_prior_sd(
            items in proptest::collection::vec((0.3f64..3.0, -3.0f64..3.0, any::<bool>()), 1..40)
        ) {
            // With log-concave (1PL/2PL) likelihoods and a normal prior the posterior is at
            // least as log-concave as the prior, so its variance is at most the prior's.
            let responses: Vec<_> = items.iter().map(|&(a, b, correct)| (item(a, b, 0.0), correct)).collect();
            let estimate = run(&responses);
            prop_assert!(estimate.se <= 1.0 + 1e-9 && estimate.se > 0.0);
            prop_assert!(estimate.theta.is_finite());
        }

        #[test]
        fn se_shrinks_as_identical_items_are_answered_alternately(a in 0.5f64..2.5, n in 1usize..20) {
            // Alternating answers on items at the prior mean keep the posterior centred, so
            // each further pair of responses can only narrow it.
            let it = item(a, 0.0, 0.0);
            let pairs = |count: usize| -> Vec<(ItemParams, bool)> {
                (0..count).flat_map(|_| [(it, true), (it, false)]).collect()
            };
            prop_assert!(run(&pairs(n + 1)).se < run(&pairs(n)).se);
        }

        #[test]
        fn a_correct_answer_raises_the_estimate_and_a_wrong_one_lowers_it(
            a in 0.3f64..3.0, b in -3.0f64..3.0, c in 0.0f64..0.3
        ) {
            let it = item(a, b, c);
            prop_assert!(run(&[(it, true)]).theta > 0.0);
            prop_assert!(run(&[(it, false)]).theta < 0.0);
        }
    }
}
