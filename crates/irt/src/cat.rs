//! One examinee's adaptive test: the responses so far, the incremental posterior, the
//! current estimate, which item comes next and whether to stop.
//!
//! A `Cat` borrows its bank. A caller that cannot keep one alive between requests rebuilds
//! it from the stored responses with [`Cat::new`] and [`Cat::record`]: O(grid points) per
//! response (plus O(responses) per response with MLE).

use crate::bank::ItemBank;
use crate::mle::mle;
use crate::posterior::Posterior;
use crate::selection::select_item_by;
use crate::settings::{CatSettings, Estimator, SettingsError, StopRules};
use crate::Estimate;
use rand::Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a response was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatError {
    #[error("item {index} is not in the bank; allowed: 0 to {last}")]
    NoSuchItem { index: usize, last: usize },
    #[error("item {0} was already answered in this test; allowed: each item once")]
    AlreadyAnswered(usize),
}

/// One answered item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    pub item: usize,
    pub correct: bool,
}

/// Why a test should end.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The SE reached the target, with at least the minimum number of items.
    SeReached {
        se: f64,
    },
    MaxLength,
    /// Every item of the bank has been answered.
    BankExhausted,
}

#[derive(Debug, Clone)]
pub struct Cat<'a> {
    bank: &'a ItemBank,
    settings: CatSettings,
    stop: StopRules,
    posterior: Posterior,
    used: Vec<bool>,
    responses: Vec<Response>,
    estimate: Estimate,
}

impl<'a> Cat<'a> {
    pub fn new(bank: &'a ItemBank, settings: CatSettings, stop: StopRules) -> Result<Self, SettingsError> {
        settings.validate()?;
        stop.validate()?;
        let posterior = Posterior::new(&settings.grid, &settings.prior)?;
        let estimate = match settings.estimator {
            Estimator::Eap => posterior.estimate(),
            Estimator::Mle => mle(std::iter::empty(), settings.mle.start, &settings.mle),
        };
        Ok(Cat { bank, settings, stop, posterior, used: vec![false; bank.len()], responses: Vec::new(), estimate })
    }

    /// The best unanswered item by the settings' selection rule (randomesque if the
    /// settings say so); `None` once the bank is exhausted.
    pub fn next_item(&self, rng: &mut impl Rng) -> Option<usize> {
        self.next_item_where(rng, |_| true)
    }

    /// Like [`Cat::next_item`], among the unanswered items `eligible` accepts: the hook for
    /// content balancing and exposure quotas.
    pub fn next_item_where(&self, rng: &mut impl Rng, eligible: impl Fn(usize) -> bool) -> Option<usize> {
        let unused = |index: usize| !self.used[index] && eligible(index);
        let (rule, randomesque) = (self.settings.selection, self.settings.randomesque);
        select_item_by(self.bank, rule, self.estimate.theta, &self.posterior, unused, randomesque, rng)
    }

    /// Records an answer to item `index` and updates the estimate.
    pub fn record(&mut self, index: usize, correct: bool) -> Result<Estimate, CatError> {
        let item = self.bank.get(index).ok_or(CatError::NoSuchItem { index, last: self.bank.len() - 1 })?;
        if self.used[index] {
            return Err(CatError::AlreadyAnswered(index));
        }
        self.used[index] = true;
        self.responses.push(Response { item: index, correct });
        self.posterior.update(item, correct);
        self.estimate = match self.settings.estimator {
            Estimator::Eap => self.posterior.estimate(),
            Estimator::Mle => {
                let bank = self.bank.items();
                let responses = self.responses.iter().map(|r| (&bank[r.item], r.correct));
                mle(responses, self.estimate.theta, &self.settings.mle)
            }
        };
        Ok(self.estimate)
    }

    /// The current ability estimate (with the chosen estimator).
    pub fn estimate(&self) -> Estimate {
        self.estimate
    }

    /// The EAP estimate, available whichever estimator the test reports.
    pub fn eap(&self) -> Estimate {
        self.posterior.estimate()
    }

    /// Whether the test should end now, and why. The maximum length comes first, then the
    /// SE target (once `min_items` are answered), then an exhausted bank.
    pub fn should_stop(&self) -> Option<StopReason> {
        let answered = self.responses.len();
        if self.stop.max_items.is_some_and(|max| answered >= max) {
            return Some(StopReason::MaxLength);
        }
        let se = self.estimate.se;
        if answered >= self.stop.min_items && self.stop.se_target.is_some_and(|target| se <= target) {
            return Some(StopReason::SeReached { se });
        }
        if answered == self.bank.len() {
            return Some(StopReason::BankExhausted);
        }
        None
    }

    pub fn responses(&self) -> &[Response] {
        &self.responses
    }

    pub fn is_answered(&self, index: usize) -> bool {
        self.used.get(index).copied().unwrap_or(false)
    }

    pub fn bank(&self) -> &'a ItemBank {
        self.bank
    }

    pub fn settings(&self) -> &CatSettings {
        &self.settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ItemParams;
    use crate::settings::Selection;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn bank(size: usize) -> ItemBank {
        let items = (0..size).map(|i| ItemParams::three_pl(1.0 + 0.1 * (i % 5) as f64, -2.0 + 0.2 * i as f64, 0.1));
        ItemBank::new(items.map(Result::unwrap).collect()).unwrap()
    }

    fn no_stop() -> StopRules {
        StopRules { se_target: None, min_items: 0, max_items: None }
    }

    #[test]
    fn items_are_never_given_twice_and_the_bank_runs_out() {
        let bank = bank(8);
        let mut cat = Cat::new(&bank, CatSettings::default(), no_stop()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut given = Vec::new();
        while let Some(index) = cat.next_item(&mut rng) {
            assert!(!given.contains(&index));
            given.push(index);
            cat.record(index, given.len() % 2 == 0).unwrap();
        }
        assert_eq!(given.len(), 8);
        assert_eq!(cat.should_stop(), Some(StopReason::BankExhausted));
    }

    #[test]
    fn bad_responses_are_refused_without_changing_the_test() {
        let bank = bank(3);
        let mut cat = Cat::new(&bank, CatSettings::default(), no_stop()).unwrap();
        assert_eq!(cat.record(3, true), Err(CatError::NoSuchItem { index: 3, last: 2 }));
        cat.record(1, true).unwrap();
        let before = cat.estimate();
        assert_eq!(
            cat.record(1, false).unwrap_err().to_string(),
            "item 1 was already answered in this test; allowed: each item once"
        );
        assert_eq!((cat.estimate(), cat.responses().len()), (before, 1));
    }

    #[test]
    fn the_first_item_is_chosen_at_the_prior_mean_and_the_estimate_follows_answers() {
        let bank = bank(21);
        let mut cat = Cat::new(&bank, CatSettings::default(), no_stop()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let first = cat.next_item(&mut rng).unwrap();
        assert!((bank.items()[first].b() - 0.0).abs() < 0.3, "{first}");
        let up = cat.record(first, true).unwrap();
        assert!(up.theta > 0.0 && up.se < 1.0);
        assert!(bank.items()[cat.next_item(&mut rng).unwrap()].b() > bank.items()[first].b());
    }

    #[test]
    fn stop_rules_apply_in_order_and_the_minimum_holds_back_only_the_se_rule() {
        let bank = bank(21);
        let stop = StopRules { se_target: Some(0.99), min_items: 2, max_items: Some(3) };
        let mut cat = Cat::new(&bank, CatSettings::default(), stop).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let answer = |cat: &mut Cat, rng: &mut ChaCha8Rng| {
            let index = cat.next_item(rng).unwrap();
            cat.record(index, true).unwrap();
        };
        answer(&mut cat, &mut rng);
        assert_eq!(cat.should_stop(), None, "SE {} is below target but only one item", cat.estimate().se);
        answer(&mut cat, &mut rng);
        assert!(matches!(cat.should_stop(), Some(StopReason::SeReached { .. })));
        answer(&mut cat, &mut rng);
        assert_eq!(cat.should_stop(), Some(StopReason::MaxLength));
    }

    #[test]
    fn content_constraints_restrict_the_candidates() {
        let bank = bank(21);
        let cat = Cat::new(&bank, CatSettings::default(), no_stop()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(cat.next_item_where(&mut rng, |i| i % 2 == 1 && i > 15), Some(17));
        assert_eq!(cat.next_item_where(&mut rng, |_| false), None);
    }

    #[test]
    fn mle_tests_take_bounded_steps_until_the_pattern_is_mixed() {
        let bank = bank(21);
        let settings = CatSettings { estimator: Estimator::Mle, ..CatSettings::default() };
        let mut cat = Cat::new(&bank, settings, no_stop()).unwrap();
        assert!(cat.estimate().se.is_infinite());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for expected in [1.0, 2.0] {
            let index = cat.next_item(&mut rng).unwrap();
            assert_eq!(cat.record(index, true).unwrap().theta, expected);
        }
        let index = cat.next_item(&mut rng).unwrap();
        let mixed = cat.record(index, false).unwrap();
        assert!(mixed.theta.is_finite() && mixed.se.is_finite() && mixed.theta < 4.0);
        assert!(cat.eap().se < 1.0);
    }

    #[test]
    fn every_rule_gives_each_item_once_and_a_seed_repeats_the_test() {
        let bank = bank(30);
        for selection in Selection::ALL {
            let settings = CatSettings { selection, randomesque: 3, ..CatSettings::default() };
            let run = |seed: u64| {
                let mut cat = Cat::new(&bank, settings, no_stop()).unwrap();
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                while let Some(index) = cat.next_item(&mut rng) {
                    cat.record(index, (index * 7) % 3 != 0).unwrap();
                }
                cat.responses().iter().map(|r| r.item).collect::<Vec<_>>()
            };
            let given = run(8);
            let mut sorted = given.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..30).collect::<Vec<_>>(), "{selection}");
            assert_eq!(given, run(8), "{selection}");
            assert_ne!(given, run(9), "{selection}");
        }
    }

    #[test]
    fn invalid_settings_are_refused() {
        let bank = bank(3);
        let stop = StopRules { se_target: None, min_items: 4, max_items: Some(2) };
        assert!(matches!(Cat::new(&bank, CatSettings::default(), stop), Err(SettingsError::MinAboveMax { .. })));
    }
}
