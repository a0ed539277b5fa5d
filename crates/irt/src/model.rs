//! One item's parameters under the four-parameter logistic model (4PL), its probability
//! of a correct answer and its Fisher information.
//!
//! P(theta) = c + (d - c) / (1 + exp(-D a (theta - b))) with D = [`SCALE`] = 1: the
//! logistic metric, in which current calibration software (mirt, flexMIRT, TAM) reports
//! parameters by default. A bank calibrated in the normal-ogive metric (D = 1.702) is used
//! here by multiplying each `a` by 1.702 first; every function of this crate uses the same D.
//!
//! 1PL, 2PL and 3PL items are 4PL items with `a = 1`, `c = 0` or `d = 1` where the model
//! leaves them out, so one type serves every bank.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The scaling constant D of the logistic model (see the module documentation).
pub const SCALE: f64 = 1.0;

/// Why an item's parameters were refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ItemError {
    #[error("a = {0} is out of range; allowed: a > 0 and finite")]
    Discrimination(f64),
    #[error("b = {0} is not a finite number; allowed: any finite number")]
    Difficulty(f64),
    #[error("c = {0} is out of range; allowed: 0 <= c < d <= 1")]
    Guessing(f64),
    #[error("d = {0} is out of range; allowed: 0 <= c < d <= 1")]
    Ceiling(f64),
    #[error("c = {c} is not below d = {d}; allowed: 0 <= c < d <= 1")]
    GuessingNotBelowCeiling { c: f64, d: f64 },
}

/// A validated 4PL item: discrimination `a`, difficulty `b`, lower asymptote (guessing)
/// `c`, upper asymptote (slip) `d`. The fields are private so that every value in use has
/// passed [`ItemParams::new`]: the formulas below rely on `a > 0` and `0 <= c < d <= 1`.
///
/// In JSON: `{"a": 1.2, "b": -0.3, "c": 0.2, "d": 0.98}`, where `a` defaults to 1, `c` to 0
/// and `d` to 1 (so `{"b": 0.5}` is a Rasch item); other fields are refused.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawItem")]
pub struct ItemParams {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawItem {
    #[serde(default = "one")]
    a: f64,
    b: f64,
    #[serde(default)]
    c: f64,
    #[serde(default = "one")]
    d: f64,
}

fn one() -> f64 {
    1.0
}

impl TryFrom<RawItem> for ItemParams {
    type Error = ItemError;
    fn try_from(raw: RawItem) -> Result<Self, ItemError> {
        ItemParams::new(raw.a, raw.b, raw.c, raw.d)
    }
}

impl ItemParams {
    pub fn new(a: f64, b: f64, c: f64, d: f64) -> Result<Self, ItemError> {
        if !(a > 0.0 && a.is_finite()) {
            return Err(ItemError::Discrimination(a));
        }
        if !b.is_finite() {
            return Err(ItemError::Difficulty(b));
        }
        if !(0.0..1.0).contains(&c) {
            return Err(ItemError::Guessing(c));
        }
        if !(d > 0.0 && d <= 1.0) {
            return Err(ItemError::Ceiling(d));
        }
        if c >= d {
            return Err(ItemError::GuessingNotBelowCeiling { c, d });
        }
        Ok(ItemParams { a, b, c, d })
    }

    /// A 3PL item (`d = 1`).
    pub fn three_pl(a: f64, b: f64, c: f64) -> Result<Self, ItemError> {
        Self::new(a, b, c, 1.0)
    }

    pub fn a(&self) -> f64 {
        self.a
    }
    pub fn b(&self) -> f64 {
        self.b
    }
    pub fn c(&self) -> f64 {
        self.c
    }
    pub fn d(&self) -> f64 {
        self.d
    }

    /// The probability of a correct answer at ability `theta`.
    pub fn p(&self, theta: f64) -> f64 {
        self.curve(theta).p
    }

    /// Fisher information at `theta`: P'(theta)^2 / (P (1 - P)), which for the 4PL is
    /// D^2 a^2 (P - c)^2 (d - P)^2 / ((d - c)^2 P (1 - P)). Zero where it underflows.
    pub fn information(&self, theta: f64) -> f64 {
        let curve = self.curve(theta);
        let variance = curve.p * curve.q;
        if variance > 0.0 {
            curve.slope * curve.slope / variance
        } else {
            0.0
        }
    }

    /// ln P(theta) if `correct`, else ln(1 - P(theta)): one response's log-likelihood,
    /// exact far into the tails where computing P first would round to 0 or 1.
    pub fn log_likelihood(&self, theta: f64, correct: bool) -> f64 {
        let z = SCALE * self.a * (theta - self.b);
        // The logistic curve L rises from 0 to 1; P = c + (d - c) L and 1 - P = (1 - d) + (d - c)(1 - L).
        // When the asymptote term is zero the log is taken of L itself, which never rounds to 0.
        if correct {
            if self.c > 0.0 {
                (self.c + (self.d - self.c) * logistic(z)).ln()
            } else {
                self.d.ln() + ln_logistic(z)
            }
        } else if self.d < 1.0 {
            ((1.0 - self.d) + (self.d - self.c) * logistic(-z)).ln()
        } else {
            (1.0 - self.c).ln() + ln_logistic(-z)
        }
    }

    /// P, 1 - P and dP/dtheta at `theta`, each computed without cancellation.
    pub(crate) fn curve(&self, theta: f64) -> Curve {
        let z = SCALE * self.a * (theta - self.b);
        let e = (-z.abs()).exp();
        let (small, large) = (e / (1.0 + e), 1.0 / (1.0 + e));
        let (rising, falling) = if z >= 0.0 { (large, small) } else { (small, large) };
        let span = self.d - self.c;
        // Measured from the nearer asymptote, so that P stays within [c, d] when rounded.
        let (p, q) = if z >= 0.0 {
            (self.d - span * falling, (1.0 - self.d) + span * falling)
        } else {
            (self.c + span * rising, (1.0 - self.c) - span * rising)
        };
        Curve { p, q, slope: SCALE * self.a * span * rising * falling, falling_minus_rising: falling - rising }
    }
}

/// An item's response curve at one ability.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Curve {
    pub p: f64,
    pub q: f64,
    pub slope: f64,
    /// 1 - 2 L for the logistic curve L; the second derivative needs it.
    pub falling_minus_rising: f64,
}

fn logistic(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// ln(1 / (1 + exp(-z))).
fn ln_logistic(z: f64) -> f64 {
    if z >= 0.0 {
        -(-z).exp().ln_1p()
    } else {
        z - z.exp().ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn item(a: f64, b: f64, c: f64, d: f64) -> ItemParams {
        ItemParams::new(a, b, c, d).unwrap()
    }

    #[test]
    fn p_is_halfway_between_the_asymptotes_at_the_difficulty() {
        let it = item(1.7, 0.4, 0.2, 0.9);
        assert!((it.p(0.4) - 0.55).abs() < 1e-12);
        assert!((item(1.0, 0.0, 0.0, 1.0).p(1.0) - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn two_pl_information_is_a_squared_p_q() {
        let it = item(1.3, -0.5, 0.0, 1.0);
        for theta in [-3.0, -0.5, 0.0, 2.0] {
            let p = it.p(theta);
            assert!((it.information(theta) - 1.3 * 1.3 * p * (1.0 - p)).abs() < 1e-12);
        }
    }

    #[test]
    fn information_matches_the_squared_numeric_derivative_over_p_q() {
        let h = 1e-5;
        for it in [item(1.0, 0.0, 0.0, 1.0), item(2.1, 0.7, 0.25, 1.0), item(0.8, -1.2, 0.1, 0.85)] {
            for theta in [-3.0, -1.0, -0.2, 0.0, 0.6, 1.5, 3.5] {
                let slope = (it.p(theta + h) - it.p(theta - h)) / (2.0 * h);
                let p = it.p(theta);
                let numeric = slope * slope / (p * (1.0 - p));
                let closed = it.information(theta);
                assert!((closed - numeric).abs() < 1e-7 * closed.max(1.0), "{it:?} at {theta}: {closed} vs {numeric}");
            }
        }
    }

    #[test]
    fn information_is_minus_the_expected_second_derivative_of_the_log_likelihood() {
        let (it, h) = (item(1.4, 0.3, 0.2, 0.95), 1e-4);
        for theta in [-2.0, 0.0, 0.3, 1.9] {
            let second = |correct| {
                (it.log_likelihood(theta + h, correct) - 2.0 * it.log_likelihood(theta, correct)
                    + it.log_likelihood(theta - h, correct))
                    / (h * h)
            };
            let p = it.p(theta);
            let expected = -(p * second(true) + (1.0 - p) * second(false));
            assert!((expected - it.information(theta)).abs() < 1e-5, "{expected} vs {}", it.information(theta));
        }
    }

    #[test]
    fn log_likelihood_stays_finite_far_in_the_tails() {
        let it = item(2.0, 0.0, 0.0, 1.0);
        assert!((it.log_likelihood(-500.0, true) - (-1000.0)).abs() < 1e-9);
        assert!((it.log_likelihood(500.0, false) - (-1000.0)).abs() < 1e-9);
        assert_eq!(it.information(-500.0), 0.0);
    }

    #[test]
    fn invalid_parameters_are_refused_with_the_allowed_range() {
        let error = ItemParams::new(1.0, 0.0, 1.2, 1.0).unwrap_err();
        assert_eq!(error.to_string(), "c = 1.2 is out of range; allowed: 0 <= c < d <= 1");
        let error = ItemParams::new(1.0, 0.0, 0.6, 0.5).unwrap_err();
        assert_eq!(error.to_string(), "c = 0.6 is not below d = 0.5; allowed: 0 <= c < d <= 1");
        assert!(matches!(ItemParams::new(0.0, 0.0, 0.0, 1.0), Err(ItemError::Discrimination(_))));
        assert!(matches!(ItemParams::new(f64::NAN, 0.0, 0.0, 1.0), Err(ItemError::Discrimination(_))));
        assert!(matches!(ItemParams::new(1.0, f64::INFINITY, 0.0, 1.0), Err(ItemError::Difficulty(_))));
        assert!(matches!(ItemParams::new(1.0, 0.0, -0.1, 1.0), Err(ItemError::Guessing(_))));
        assert!(matches!(ItemParams::new(1.0, 0.0, 0.0, 1.01), Err(ItemError::Ceiling(_))));
    }

    #[test]
    fn json_items_default_a_to_one_c_to_zero_and_d_to_one() {
        let it: ItemParams = serde_json::from_str(r#"{"b": 0.5}"#).unwrap();
        assert_eq!(it, item(1.0, 0.5, 0.0, 1.0));
        let it: ItemParams = serde_json::from_str(r#"{"a": 1.5, "b": 0.5, "c": 0.2}"#).unwrap();
        assert_eq!(it, item(1.5, 0.5, 0.2, 1.0));
        let error = serde_json::from_str::<ItemParams>(r#"{"a": 1, "b": 0, "c": 0.5, "d": 0.5}"#).unwrap_err();
        assert!(error.to_string().contains("c = 0.5 is not below d = 0.5"), "{error}");
        assert!(serde_json::from_str::<ItemParams>(r#"{"a": 1, "b": 0, "e": 1}"#).is_err());
    }

    fn any_item() -> impl Strategy<Value = ItemParams> {
        (0.05f64..4.0, -4.0f64..4.0, 0.0f64..0.5, 0.0f64..0.5).prop_map(|(a, b, c, gap)| {
            let d = (c + 0.01 + gap).min(1.0);
            item(a, b, c, d)
        })
    }

    proptest! {
        #[test]
        fn information_is_non_negative_and_finite(it in any_item(), theta in -50.0f64..50.0) {
            let info = it.information(theta);
            prop_assert!(info >= 0.0 && info.is_finite());
        }

        #[test]
        fn p_rises_with_theta_between_the_asymptotes(it in any_item(), theta in -8.0f64..8.0, gap in 0.001f64..3.0) {
            let (low, high) = (it.p(theta), it.p(theta + gap));
            prop_assert!(low <= high);
            prop_assert!(it.c() <= low && high <= it.d());
        }

        #[test]
        fn log_likelihood_is_the_log_of_p(it in any_item(), theta in -6.0f64..6.0) {
            let p = it.p(theta);
            prop_assert!((it.log_likelihood(theta, true) - p.ln()).abs() < 1e-9);
            prop_assert!((it.log_likelihood(theta, false) - (1.0 - p).ln()).abs() < 1e-6 / (1.0 - p));
        }
    }
}
