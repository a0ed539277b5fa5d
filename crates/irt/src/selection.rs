//! Choosing the next item among those a caller allows, by one of three rules
//! ([`Selection`]), optionally randomesque (uniformly among the k best) to spread exposure
//! across the bank.
//!
//! - Maximum information: Fisher information at the current estimate.
//! - Posterior-weighted information: Fisher information averaged over the posterior.
//! - KL (KLP): the Kullback-Leibler divergence of the item's response distribution at each
//!   ability from the one at the estimate, averaged over the posterior.
//!
//! Early in a test the estimate is poor and the posterior wide; the last two rules then
//! favour items that discriminate over the whole range the examinee may be in, not only
//! at a point that may be far off. Once the posterior is narrow they rank items as
//! maximum information does: the posterior-weighted information tends to the information
//! at the estimate, and the KL divergence to half of it times the posterior variance.
//!
//! The averages run over the grid points where the posterior is not negligible
//! ([`Posterior::support`]), with the items' values at those points from the table the
//! bank keeps for the grid (see [`bank`](crate::bank)): a few multiply-adds per item and
//! point.

use crate::bank::{GridTable, ItemBank};
use crate::model::ItemParams;
use crate::posterior::Posterior;
use crate::settings::Selection;
use rand::Rng;
use std::ops::Range;

/// The index of the most informative item at `theta` among those `eligible` accepts, or,
/// with `randomesque` k > 1, one drawn uniformly from the k most informative. `None` when
/// no item is eligible. Ties go to the lower index, so k = 1 uses no randomness at all.
///
/// `eligible` is where content constraints layer on: the item not yet used, of the
/// wanted domain, not over its exposure quota.
pub fn select_item(
    bank: &ItemBank,
    theta: f64,
    eligible: impl Fn(usize) -> bool,
    randomesque: usize,
    rng: &mut impl Rng,
) -> Option<usize> {
    let candidates = bank.items().iter().enumerate().filter(|(index, _)| eligible(*index));
    best(candidates.map(|(index, item)| (index, item.information(theta))), randomesque, rng)
}

/// Like [`select_item`], ranking the items by `rule`: `theta` is the current estimate and
/// `posterior` the posterior of ability the averaging rules weight by.
pub fn select_item_by(
    bank: &ItemBank,
    rule: Selection,
    theta: f64,
    posterior: &Posterior,
    eligible: impl Fn(usize) -> bool,
    randomesque: usize,
    rng: &mut impl Rng,
) -> Option<usize> {
    let candidates = bank.items().iter().enumerate().filter(|(index, _)| eligible(*index));
    match rule {
        Selection::MaxInfo => best(candidates.map(|(index, item)| (index, item.information(theta))), randomesque, rng),
        Selection::PosteriorWeightedInfo => {
            let mut averages = PosteriorAverages::new(bank, posterior);
            let scored = candidates.map(|(index, item)| (index, averages.information(index, item)));
            best(scored, randomesque, rng)
        }
        Selection::Kl => {
            let mut averages = PosteriorAverages::new(bank, posterior);
            let scored = candidates.map(|(index, item)| (index, averages.kl(index, item, theta)));
            best(scored, randomesque, rng)
        }
    }
}

/// The best of the scored candidates, or with `randomesque` k > 1 one drawn uniformly from
/// the k best; ties go to the lower index.
fn best(scored: impl Iterator<Item = (usize, f64)>, randomesque: usize, rng: &mut impl Rng) -> Option<usize> {
    if randomesque <= 1 {
        let mut top: Option<(usize, f64)> = None;
        for (index, score) in scored {
            if top.is_none_or(|(_, leader)| score > leader) {
                top = Some((index, score));
            }
        }
        return top.map(|(index, _)| index);
    }
    // The k best so far, best first; k is small, so insertion beats a heap.
    let mut top: Vec<(usize, f64)> = Vec::with_capacity(randomesque + 1);
    for (index, score) in scored {
        if top.len() == randomesque && top.last().is_some_and(|&(_, last)| score <= last) {
            continue;
        }
        let at = top.partition_point(|&(_, other)| other >= score);
        top.insert(at, (index, score));
        top.truncate(randomesque);
    }
    if top.is_empty() {
        return None;
    }
    Some(top[rng.gen_range(0..top.len())].0)
}

/// Averages of items' values over the posterior's support.
struct PosteriorAverages<'a> {
    table: Option<&'a GridTable>,
    support: Range<usize>,
    /// The support's grid points and their posterior weights, which sum to `mass` (1 to
    /// within 1e-7: the rest lies where the posterior is negligible).
    nodes: &'a [f64],
    weights: &'a [f64],
    mass: f64,
    /// An item's values over the support when the bank has no table for the grid.
    computed: Vec<f64>,
}

impl<'a> PosteriorAverages<'a> {
    fn new(bank: &'a ItemBank, posterior: &'a Posterior) -> Self {
        let support = posterior.support();
        let weights = &posterior.weights()[support.clone()];
        PosteriorAverages {
            table: bank.grid_table(posterior.grid()),
            nodes: &posterior.nodes()[support.clone()],
            support,
            weights,
            mass: weights.iter().sum(),
            computed: Vec::new(),
        }
    }

    /// The posterior mean of `value` of item `index`, read from the table's `column` when
    /// there is a table.
    fn mean(
        &mut self,
        index: usize,
        column: impl Fn(&'a GridTable, usize) -> &'a [f64],
        value: impl Fn(f64) -> f64,
    ) -> f64 {
        let values = match self.table {
            Some(table) => &column(table, index)[self.support.clone()],
            None => {
                self.computed.clear();
                self.computed.extend(self.nodes.iter().map(|&theta| value(theta)));
                &self.computed
            }
        };
        dot(self.weights, values) / self.mass
    }

    /// Fisher information averaged over the posterior.
    fn information(&mut self, index: usize, item: &ItemParams) -> f64 {
        self.mean(index, GridTable::information, |theta| item.information(theta))
    }

    /// The posterior mean over theta of KL(P(. | estimate) || P(. | theta)) for the item:
    /// sum over the answers x of P(x | estimate) (ln P(x | estimate) - E[ln P(x | theta)]).
    fn kl(&mut self, index: usize, item: &ItemParams, estimate: f64) -> f64 {
        let mean_log_p = self.mean(index, GridTable::log_p, |theta| item.log_likelihood(theta, true));
        let mean_log_q = self.mean(index, GridTable::log_q, |theta| item.log_likelihood(theta, false));
        // P and 1 - P from one exponential; a probability that underflows to 0 adds
        // nothing (x ln x -> 0), where 0 * ln 0 would be NaN.
        let curve = item.curve(estimate);
        let term = |probability: f64, mean_log: f64| {
            if probability > 0.0 {
                probability * (probability.ln() - mean_log)
            } else {
                0.0
            }
        };
        term(curve.p, mean_log_p) + term(curve.q, mean_log_q)
    }
}

/// The dot product, in four running sums so that the additions need not wait on each other.
fn dot(weights: &[f64], values: &[f64]) -> f64 {
    let mut lanes = [0.0; 4];
    let (weight_chunks, value_chunks) = (weights.chunks_exact(4), values.chunks_exact(4));
    let tail: f64 =
        weight_chunks.remainder().iter().zip(value_chunks.remainder()).map(|(weight, value)| weight * value).sum();
    for (w, v) in weight_chunks.zip(value_chunks) {
        for lane in 0..4 {
            lanes[lane] += w[lane] * v[lane];
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{Grid, NormalPrior};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn bank() -> ItemBank {
        let items = [(1.0, -2.0), (1.0, 0.0), (1.0, 1.0), (2.0, 3.0), (0.5, 0.1)];
        ItemBank::new(items.iter().map(|&(a, b)| ItemParams::three_pl(a, b, 0.0).unwrap()).collect()).unwrap()
    }

    #[test]
    fn picks_the_most_informative_eligible_item() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(select_item(&bank(), 0.0, |_| true, 1, &mut rng), Some(1));
        assert_eq!(select_item(&bank(), 3.0, |_| true, 1, &mut rng), Some(3));
        assert_eq!(select_item(&bank(), 0.0, |i| i != 1, 1, &mut rng), Some(2));
        assert_eq!(select_item(&bank(), 0.0, |_| false, 1, &mut rng), None);
    }

    #[test]
    fn randomesque_draws_only_among_the_k_most_informative() {
        // At theta 0.4: item 1 (b = 0) and item 2 (b = 1) lead, the rest trail.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut seen = [0usize; 5];
        for _ in 0..400 {
            seen[select_item(&bank(), 0.4, |_| true, 2, &mut rng).unwrap()] += 1;
        }
        assert_eq!((seen[0], seen[3], seen[4]), (0, 0, 0), "{seen:?}");
        assert!(seen[1] > 150 && seen[2] > 150, "{seen:?}");
        assert_eq!(select_item(&bank(), 0.4, |i| i == 4, 3, &mut rng), Some(4));
        assert_eq!(select_item(&bank(), 0.4, |_| false, 3, &mut rng), None);
    }

    #[test]
    fn randomesque_of_one_matches_maximum_information_and_a_large_k_covers_the_bank() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[select_item(&bank(), 0.0, |_| true, 10, &mut rng).unwrap()] = true;
        }
        assert_eq!(seen, [true; 5]);
    }

    fn item(a: f64, b: f64, c: f64) -> ItemParams {
        ItemParams::three_pl(a, b, c).unwrap()
    }

    fn normal_posterior(grid: Grid, mean: f64, sd: f64) -> Posterior {
        Posterior::new(&grid, &NormalPrior { mean, sd }).unwrap()
    }

    fn choose(bank: &ItemBank, rule: Selection, posterior: &Posterior) -> Option<usize> {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        select_item_by(bank, rule, posterior.estimate().theta, posterior, |_| true, 1, &mut rng)
    }

    /// Item 0 is steep with much guessing: the most information at 0 (1.93) but little
    /// away from it. Item 1 has half the slope and no guessing: less information at 0
    /// (1.00) but more over a wide range. Item 2 is off to the side.
    fn peaked_and_broad() -> ItemBank {
        ItemBank::new(vec![item(4.0, 0.0, 0.35), item(2.0, 0.0, 0.0), item(1.0, 2.0, 0.2)]).unwrap()
    }

    #[test]
    fn with_a_wide_posterior_the_averaging_rules_prefer_the_item_informative_over_its_spread() {
        let bank = peaked_and_broad();
        let wide = normal_posterior(Grid::default(), 0.0, 3.0);
        assert_eq!(choose(&bank, Selection::MaxInfo, &wide), Some(0));
        assert_eq!(choose(&bank, Selection::PosteriorWeightedInfo, &wide), Some(1));
        assert_eq!(choose(&bank, Selection::Kl, &wide), Some(1));
    }

    #[test]
    fn with_a_concentrated_posterior_every_rule_agrees_with_maximum_information() {
        let bank = peaked_and_broad();
        let narrow = normal_posterior(Grid::default(), 0.0, 0.15);
        for rule in Selection::ALL {
            assert_eq!(choose(&bank, rule, &narrow), Some(0), "{rule}");
        }
        // Along the scale, on a bank of items spread over it and a fine grid.
        let spread: Vec<ItemParams> =
            (0..13).map(|i| item(0.8 + 0.15 * (i % 4) as f64, -3.0 + 0.5 * i as f64, 0.15)).collect();
        let bank = ItemBank::new(spread).unwrap();
        let fine = Grid { lo: -6.0, hi: 6.0, points: 2401 };
        for mean in [-2.2, -1.0, 0.3, 1.4, 2.6] {
            let narrow = normal_posterior(fine, mean, 0.05);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let most_informative = select_item(&bank, narrow.estimate().theta, |_| true, 1, &mut rng);
            for rule in Selection::ALL {
                assert_eq!(choose(&bank, rule, &narrow), most_informative, "{rule} at {mean}");
            }
        }
    }

    #[test]
    fn the_averaging_rules_respect_eligibility_and_randomesque() {
        let bank = peaked_and_broad();
        let wide = normal_posterior(Grid::default(), 0.0, 3.0);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for rule in [Selection::PosteriorWeightedInfo, Selection::Kl] {
            assert_eq!(select_item_by(&bank, rule, 0.0, &wide, |i| i != 1, 1, &mut rng), Some(0));
            assert_eq!(select_item_by(&bank, rule, 0.0, &wide, |_| false, 1, &mut rng), None);
            let mut seen = [0usize; 3];
            for _ in 0..300 {
                seen[select_item_by(&bank, rule, 0.0, &wide, |_| true, 2, &mut rng).unwrap()] += 1;
            }
            assert!(seen[0] > 100 && seen[1] > 100 && seen[2] == 0, "{rule}: {seen:?}");
        }
    }

    #[test]
    fn the_averages_match_their_definitions_with_or_without_the_table() {
        let bank = ItemBank::new(vec![item(1.3, -0.4, 0.2), item(0.7, 1.5, 0.0), item(2.2, 0.1, 0.25)]).unwrap();
        let mut posterior = normal_posterior(Grid::default(), 0.0, 1.0);
        posterior.update(&bank.items()[0], true);
        posterior.update(&bank.items()[1], false);
        let estimate = posterior.estimate().theta;
        let mut tabulated = PosteriorAverages::new(&bank, &posterior);
        assert!(tabulated.table.is_some());
        let mut computed = PosteriorAverages { table: None, ..PosteriorAverages::new(&bank, &posterior) };
        for (index, it) in bank.items().iter().enumerate() {
            // The definitions, summed over the whole grid.
            let (mut information, mut kl) = (0.0, 0.0);
            let (p_hat, q_hat) = (it.p(estimate), 1.0 - it.p(estimate));
            for (&weight, &theta) in posterior.weights().iter().zip(posterior.nodes()) {
                let (p, q) = (it.p(theta), 1.0 - it.p(theta));
                information += weight * it.information(theta);
                kl += weight * (p_hat * (p_hat / p).ln() + q_hat * (q_hat / q).ln());
            }
            for averages in [&mut tabulated, &mut computed] {
                let (got_information, got_kl) = (averages.information(index, it), averages.kl(index, it, estimate));
                assert!((got_information - information).abs() < 1e-6, "{index}: {got_information} vs {information}");
                assert!((got_kl - kl).abs() < 1e-6 && got_kl > 0.0, "{index}: {got_kl} vs {kl}");
            }
        }
    }

    #[test]
    fn a_bank_tabulates_only_the_first_grid_it_is_asked_for() {
        let bank = bank();
        let coarse = Grid { lo: -4.0, hi: 4.0, points: 81 };
        let table = bank.grid_table(&coarse).unwrap();
        assert_eq!(table.information(4).len(), 81);
        assert_eq!(table.information(4)[40], bank.items()[4].information(0.0));
        assert!(bank.grid_table(&Grid::default()).is_none());
        // Rules still work on the other grid, computing as they go.
        let posterior = normal_posterior(Grid::default(), 0.0, 1.0);
        assert_eq!(choose(&bank, Selection::Kl, &posterior), choose(&bank, Selection::MaxInfo, &posterior));
    }
}
