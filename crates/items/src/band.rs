//! Difficulty bands and generation targets.
//!
//! Difficulty is on 0..1. The bands split it at 0.4 and 0.6: easy `[0, 0.4)`, medium
//! `[0.4, 0.6)`, hard `[0.6, 1]`, which puts the document's example weights (no carry 0.3,
//! single carry 0.5, double carry 0.7) one in each band.

use crate::error::ItemError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Band {
    Easy,
    Medium,
    Hard,
}

impl Band {
    pub const ALL: [Band; 3] = [Band::Easy, Band::Medium, Band::Hard];

    pub fn of(difficulty: f64) -> Band {
        if difficulty < 0.4 {
            Band::Easy
        } else if difficulty < 0.6 {
            Band::Medium
        } else {
            Band::Hard
        }
    }

    /// The lowest difficulty in the band and the lowest above it.
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Band::Easy => (0.0, 0.4),
            Band::Medium => (0.4, 0.6),
            Band::Hard => (0.6, 1.0 + f64::EPSILON),
        }
    }

    pub fn centre(self) -> f64 {
        match self {
            Band::Easy => 0.3,
            Band::Medium => 0.5,
            Band::Hard => 0.7,
        }
    }

    pub fn contains(self, difficulty: f64) -> bool {
        Band::of(difficulty) == self
    }

    pub fn name(self) -> &'static str {
        match self {
            Band::Easy => "easy",
            Band::Medium => "medium",
            Band::Hard => "hard",
        }
    }

    /// Moves `difficulty` into the band (used so that a small refinement of a factor's
    /// weight never carries an item into the next band).
    pub(crate) fn clamp(self, difficulty: f64) -> f64 {
        let (lo, hi) = self.bounds();
        let top = if self == Band::Hard { 1.0 } else { hi - 1e-6 };
        difficulty.clamp(lo, top)
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Band {
    type Err = ItemError;
    fn from_str(s: &str) -> Result<Band, ItemError> {
        match s {
            "easy" => Ok(Band::Easy),
            "medium" => Ok(Band::Medium),
            "hard" => Ok(Band::Hard),
            other => Err(ItemError::BadTarget { given: other.to_string() }),
        }
    }
}

/// What difficulty to generate an item at: a value on 0..1 (kept to two decimals, since it
/// is part of the item's id) or a band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Difficulty(f64),
    Band(Band),
}

impl Target {
    /// A difficulty target, rounded to two decimals; refuses values outside 0..1.
    pub fn difficulty(value: f64) -> Result<Target, ItemError> {
        if !(0.0..=1.0).contains(&value) {
            return Err(ItemError::BadTarget { given: value.to_string() });
        }
        Ok(Target::Difficulty((value * 100.0).round() / 100.0))
    }

    pub(crate) fn normalized(self) -> Result<Target, ItemError> {
        match self {
            Target::Difficulty(v) => Target::difficulty(v),
            band => Ok(band),
        }
    }
}

impl From<Band> for Target {
    fn from(band: Band) -> Target {
        Target::Band(band)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Difficulty(v) => write!(f, "{v:.2}"),
            Target::Band(b) => f.write_str(b.name()),
        }
    }
}

impl FromStr for Target {
    type Err = ItemError;
    /// `0.50`, `0.5`, `easy`, `medium` or `hard`.
    fn from_str(s: &str) -> Result<Target, ItemError> {
        if let Ok(band) = s.parse::<Band>() {
            return Ok(Target::Band(band));
        }
        let value: f64 = s.parse().map_err(|_| ItemError::BadTarget { given: s.to_string() })?;
        if !value.is_finite() {
            return Err(ItemError::BadTarget { given: s.to_string() });
        }
        Target::difficulty(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_split_at_point_four_and_point_six() {
        assert_eq!(Band::of(0.0), Band::Easy);
        assert_eq!(Band::of(0.39), Band::Easy);
        assert_eq!(Band::of(0.4), Band::Medium);
        assert_eq!(Band::of(0.59), Band::Medium);
        assert_eq!(Band::of(0.6), Band::Hard);
        assert_eq!(Band::of(1.0), Band::Hard);
        for band in Band::ALL {
            assert!(band.contains(band.centre()));
            assert_eq!(Band::of(band.clamp(0.0)), band);
            assert_eq!(Band::of(band.clamp(1.0)), band);
        }
    }

    #[test]
    fn targets_round_trip_through_text() {
        for text in ["0.50", "easy", "medium", "hard", "1.00", "0.00"] {
            let target: Target = text.parse().unwrap();
            assert_eq!(target.to_string(), text);
        }
        assert_eq!("0.5".parse::<Target>().unwrap(), Target::Difficulty(0.5));
        assert_eq!(Target::difficulty(0.333).unwrap(), Target::Difficulty(0.33));
    }

    #[test]
    fn bad_targets_say_what_is_allowed() {
        for bad in ["1.5", "-0.1", "tough", "NaN", "inf"] {
            let err = bad.parse::<Target>().unwrap_err().to_string();
            assert!(err.contains("allowed: 0-1 or easy, medium, hard"), "{err}");
        }
    }
}
