//! How a test estimates ability, chooses items and stops, with the project's best
//! settings as the defaults.
//!
//! The defaults were chosen on simulations (`pathwise cat-sim`, a 500-item 3PL bank, 1,000
//! examinees from N(0, 1), seeds 1 and 2; RMSE after 5 / 30 items, mean length to SE 0.3):
//! - EAP with an N(0, 1) prior: 0.49 / 0.24, 18.0 items. MLE: 0.80-0.83 / 0.26, 19.7-19.9
//!   items, because it has no finite estimate until the first mixed pattern and the
//!   bounded-step rule overshoots; its SE is also erratic early (mean 0.9-1.3 at 5-10
//!   items). EAP's shrinkage toward the prior mean costs almost nothing here (bias within
//!   +-0.02). On a bank from `synthetic::random_3pl_bank`, a wider N(0, 2^2) prior raised
//!   the RMSE after 5 items from 0.51 to 0.64.
//! - Maximum information, no randomesque (k = 1): k = 5 added about 0.5 items to reach SE
//!   0.3 and 2-5% RMSE over the first 10 items, k = 10 about 1.5 items. Randomesque buys
//!   exposure control, not precision; a bank that needs it raises `randomesque`.
//! - Selection by maximum information at the estimate (`max_info`). On 400-item banks from
//!   `synthetic::population` with 1,000 N(0, 1) examinees (`pathwise cat-sim --generate 400
//!   --compare`, seeds 1-7; median and range of RMSE after 20 items, mean length to SE 0.3):
//!   `max_info` 0.296 (0.284-0.324), 20.9 items; `posterior_weighted_info` 0.301
//!   (0.287-0.320), 21.0 items; `kl` 0.299 (0.284-0.319), 20.9 items. Paired by seed, KL's
//!   RMSE was 0.001-0.003 lower on average at every checkpoint and posterior-weighted
//!   information's within +-0.003, with lengths within 0.1 items: less than the spread
//!   between seeds, and 5,000 examinees on seeds 11-13 reversed the sign on one seed of
//!   three. No rule wins, so the default stays the one that costs least: a KL step on a
//!   1,000-item bank costs about five times a maximum-information step (BENCHMARKS.md).
//! - Start at theta 0, the prior mean, where the average examinee is.
//! - 121 grid points over [-6, 6] (step 0.1): on the same random bank, 81 points over
//!   [-4, 4] and 401 over [-6, 6] gave the same figures to 0.001, and the wider range keeps abilities out to 5 SD inside
//!   the grid; EAP matches brute-force integration to 1e-6 (see `posterior`'s tests).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why settings were refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SettingsError {
    #[error("grid: {points} points over [{lo}, {hi}]; allowed: 3 to 10001 points, lo < hi, both finite")]
    Grid { lo: f64, hi: f64, points: usize },
    #[error("prior: N({mean}, {sd}); allowed: a finite mean and a finite sd > 0")]
    Prior { mean: f64, sd: f64 },
    #[error(
        "mle: bounds [{lower}, {upper}], start {start}, max_step {max_step}, extreme_step {extreme_step}, \
         max_iterations {max_iterations}; allowed: finite lower < upper, start within the bounds, steps > 0, \
         max_iterations >= 1"
    )]
    Mle { lower: f64, upper: f64, start: f64, max_step: f64, extreme_step: f64, max_iterations: u32 },
    #[error("randomesque = 0; allowed: 1 (always the best item by the selection rule) or more")]
    Randomesque,
    #[error("se_target = {0}; allowed: a finite number > 0")]
    SeTarget(f64),
    #[error("max_items = 0; allowed: 1 or more, or no maximum")]
    MaxItems,
    #[error("min_items = {min} exceeds max_items = {max}; allowed: min_items <= max_items")]
    MinAboveMax { min: usize, max: usize },
    #[error("selection {0:?} is not a rule; allowed: max_info, posterior_weighted_info, kl")]
    Selection(String),
}

/// Which estimate a test reports and selects items at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Estimator {
    /// Expected a posteriori: the posterior mean and SD on the quadrature grid.
    #[default]
    Eap,
    /// Maximum likelihood by Fisher scoring, SE from the test information.
    Mle,
}

/// How the next item is chosen among the eligible ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// Maximum Fisher information at the current estimate.
    #[default]
    MaxInfo,
    /// Fisher information averaged over the posterior of ability (van der Linden 1998):
    /// while the posterior is wide it favours items informative over the whole range the
    /// examinee may be in, not only at the point estimate.
    PosteriorWeightedInfo,
    /// Kullback-Leibler information between the response distributions at the estimate
    /// and at each other ability, averaged over the posterior (KLP; Chang and Ying 1996,
    /// Chen, Ankenmann and Chang 2000): how well the item tells the estimate apart from
    /// the abilities the examinee may still have.
    Kl,
}

impl Selection {
    /// Every rule, in the order reports list them.
    pub const ALL: [Selection; 3] = [Selection::MaxInfo, Selection::PosteriorWeightedInfo, Selection::Kl];

    /// The rule's name in settings, JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Selection::MaxInfo => "max_info",
            Selection::PosteriorWeightedInfo => "posterior_weighted_info",
            Selection::Kl => "kl",
        }
    }
}

impl std::fmt::Display for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Selection {
    type Err = SettingsError;
    fn from_str(name: &str) -> Result<Self, SettingsError> {
        Selection::ALL.into_iter().find(|rule| rule.name() == name).ok_or_else(|| SettingsError::Selection(name.into()))
    }
}

/// Evenly spaced quadrature points from `lo` to `hi`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    pub lo: f64,
    pub hi: f64,
    pub points: usize,
}

impl Default for Grid {
    fn default() -> Self {
        Grid { lo: -6.0, hi: 6.0, points: 121 }
    }
}

impl Grid {
    pub fn nodes(&self) -> impl Iterator<Item = f64> + '_ {
        let step = (self.hi - self.lo) / self.points.saturating_sub(1).max(1) as f64;
        (0..self.points).map(move |i| self.lo + step * i as f64)
    }

    pub fn validate(&self) -> Result<(), SettingsError> {
        let ok = self.lo.is_finite() && self.hi.is_finite() && self.lo < self.hi && (3..=10_001).contains(&self.points);
        ok.then_some(()).ok_or(SettingsError::Grid { lo: self.lo, hi: self.hi, points: self.points })
    }
}

/// The population distribution of ability, N(mean, sd^2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NormalPrior {
    pub mean: f64,
    pub sd: f64,
}

impl Default for NormalPrior {
    fn default() -> Self {
        NormalPrior { mean: 0.0, sd: 1.0 }
    }
}

impl NormalPrior {
    /// The log density up to a constant (the constant cancels in every use).
    pub fn log_density(&self, theta: f64) -> f64 {
        let z = (theta - self.mean) / self.sd;
        -0.5 * z * z
    }

    pub fn validate(&self) -> Result<(), SettingsError> {
        let ok = self.mean.is_finite() && self.sd.is_finite() && self.sd > 0.0;
        ok.then_some(()).ok_or(SettingsError::Prior { mean: self.mean, sd: self.sd })
    }
}

/// Maximum likelihood by Fisher scoring within `[lower, upper]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MleSettings {
    pub lower: f64,
    pub upper: f64,
    /// The estimate before any response.
    pub start: f64,
    /// The largest Fisher-scoring step: a full step from a flat likelihood can jump far past the root.
    pub max_step: f64,
    /// While every answer is correct (or every one wrong) there is no finite MLE; the
    /// estimate then moves this far from the previous one toward the bound.
    pub extreme_step: f64,
    pub max_iterations: u32,
}

impl Default for MleSettings {
    fn default() -> Self {
        MleSettings { lower: -4.0, upper: 4.0, start: 0.0, max_step: 1.0, extreme_step: 1.0, max_iterations: 50 }
    }
}

impl MleSettings {
    pub fn validate(&self) -> Result<(), SettingsError> {
        let ok = self.lower.is_finite()
            && self.upper.is_finite()
            && self.lower < self.upper
            && (self.lower..=self.upper).contains(&self.start)
            && self.max_step > 0.0
            && self.extreme_step > 0.0
            && self.max_iterations >= 1;
        ok.then_some(()).ok_or(SettingsError::Mle {
            lower: self.lower,
            upper: self.upper,
            start: self.start,
            max_step: self.max_step,
            extreme_step: self.extreme_step,
            max_iterations: self.max_iterations,
        })
    }
}

/// Estimation and item selection. `Default` gives the project's best settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CatSettings {
    pub estimator: Estimator,
    /// The prior of EAP (the posterior is kept whichever estimator reports).
    pub prior: NormalPrior,
    pub grid: Grid,
    pub mle: MleSettings,
    /// Choose uniformly among this many best items by the selection rule (1 = always the best).
    pub randomesque: usize,
    /// The rule that ranks the eligible items.
    #[serde(default)]
    pub selection: Selection,
}

impl Default for CatSettings {
    fn default() -> Self {
        CatSettings {
            estimator: Estimator::Eap,
            prior: NormalPrior::default(),
            grid: Grid::default(),
            mle: MleSettings::default(),
            randomesque: 1,
            selection: Selection::default(),
        }
    }
}

impl CatSettings {
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.grid.validate()?;
        self.prior.validate()?;
        self.mle.validate()?;
        if self.randomesque == 0 {
            return Err(SettingsError::Randomesque);
        }
        Ok(())
    }
}

/// When a test ends. `min_items` holds back only the SE rule; the maximum and an
/// exhausted bank end a test whatever the minimum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StopRules {
    /// Stop once the SE is at most this.
    pub se_target: Option<f64>,
    pub min_items: usize,
    pub max_items: Option<usize>,
}

impl Default for StopRules {
    /// SE <= 0.3 (reliability about 0.91 in an N(0, 1) population), at least 5 items so
    /// that a lucky start cannot end a test, at most 60.
    fn default() -> Self {
        StopRules { se_target: Some(0.3), min_items: 5, max_items: Some(60) }
    }
}

impl StopRules {
    pub fn validate(&self) -> Result<(), SettingsError> {
        if let Some(target) = self.se_target.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(SettingsError::SeTarget(target));
        }
        match self.max_items {
            Some(0) => Err(SettingsError::MaxItems),
            Some(max) if self.min_items > max => Err(SettingsError::MinAboveMax { min: self.min_items, max }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid() {
        assert_eq!(CatSettings::default().validate(), Ok(()));
        assert_eq!(StopRules::default().validate(), Ok(()));
        let nodes: Vec<f64> = Grid::default().nodes().collect();
        assert_eq!((nodes[0], nodes[60], nodes[120]), (-6.0, 0.0, 6.0));
    }

    #[test]
    fn invalid_settings_say_what_is_allowed() {
        let settings = CatSettings { randomesque: 0, ..CatSettings::default() };
        assert_eq!(settings.validate(), Err(SettingsError::Randomesque));
        let settings = CatSettings { prior: NormalPrior { mean: 0.0, sd: 0.0 }, ..CatSettings::default() };
        assert_eq!(
            settings.validate().unwrap_err().to_string(),
            "prior: N(0, 0); allowed: a finite mean and a finite sd > 0"
        );
        let settings = CatSettings { grid: Grid { lo: 1.0, hi: -1.0, points: 11 }, ..CatSettings::default() };
        assert!(matches!(settings.validate(), Err(SettingsError::Grid { .. })));
        let rules = StopRules { se_target: None, min_items: 10, max_items: Some(5) };
        assert_eq!(rules.validate(), Err(SettingsError::MinAboveMax { min: 10, max: 5 }));
        let rules = StopRules { se_target: Some(-0.1), ..StopRules::default() };
        assert_eq!(rules.validate(), Err(SettingsError::SeTarget(-0.1)));
    }

    #[test]
    fn selection_rules_go_by_their_names_and_an_unknown_name_lists_the_rules() {
        for rule in Selection::ALL {
            assert_eq!(rule.name().parse::<Selection>(), Ok(rule));
            assert_eq!(serde_json::to_value(rule).unwrap(), rule.name());
        }
        assert_eq!(
            "fisher".parse::<Selection>().unwrap_err().to_string(),
            "selection \"fisher\" is not a rule; allowed: max_info, posterior_weighted_info, kl"
        );
        let mut json = serde_json::to_value(CatSettings::default()).unwrap();
        json["selection"] = "posterior_weighted_info".into();
        let settings: CatSettings = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(settings.selection, Selection::PosteriorWeightedInfo);
        json["selection"] = "KL".into();
        let error = serde_json::from_value::<CatSettings>(json.clone()).unwrap_err().to_string();
        assert!(error.contains("expected one of `max_info`, `posterior_weighted_info`, `kl`"), "{error}");
        // Settings written before the rule existed read as the default rule.
        json.as_object_mut().unwrap().remove("selection");
        assert_eq!(serde_json::from_value::<CatSettings>(json).unwrap().selection, Selection::default());
    }
}
