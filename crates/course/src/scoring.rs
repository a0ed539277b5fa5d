//! Unit priority scores (policy-tutor.md PF-3.3): every component normalized to 0..1 by an
//! explicit function, combined by fixed weights. Scores rank candidate units; they never
//! override prerequisite gating.

use crate::tier::MasteryTier;

/// Linear decay over 72 hours; unknown (infinite) recency is 0.
pub fn recency_value(hours_since_touched: f64) -> f64 {
    if !hours_since_touched.is_finite() {
        return 0.0;
    }
    (1.0 - hours_since_touched / 72.0).clamp(0.0, 1.0)
}

pub fn mapped_value(confidence: f64) -> f64 {
    if confidence.is_nan() {
        return 0.0;
    }
    confidence.clamp(0.0, 1.0)
}

pub fn in_progress_value(is_in_progress: bool) -> f64 {
    if is_in_progress {
        1.0
    } else {
        0.0
    }
}

/// Higher when the unit has further to go.
pub fn tier_need_value(tier: MasteryTier) -> f64 {
    match tier {
        MasteryTier::None => 1.0,
        MasteryTier::Bronze => 0.7,
        MasteryTier::Silver => 0.4,
        MasteryTier::Gold => 0.1,
    }
}

/// A drill streak of 0 is 0, of 1 is 0.5, of 2 or more is 1.
pub fn drill_evidence_value(streak_correct: u32) -> f64 {
    match streak_correct {
        0 => 0.0,
        1 => 0.5,
        _ => 1.0,
    }
}

/// What a unit's score is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreInputs {
    pub mapped_confidence: f64,
    pub is_focus: bool,
    pub is_in_progress: bool,
    pub recency_hours: f64,
    pub mastery_tier: MasteryTier,
    pub drill_streak: u32,
}

/// `0.35 intent + 0.15 recency + 0.15 in progress + 0.20 tier need + 0.15 drill evidence`,
/// where intent is `0.7 mapped + 0.3 focus`; clamped to 0..1.
pub fn unit_priority_score(x: ScoreInputs) -> f64 {
    let intent = 0.7 * mapped_value(x.mapped_confidence) + 0.3 * if x.is_focus { 1.0 } else { 0.0 };
    let score = 0.35 * intent
        + 0.15 * recency_value(x.recency_hours)
        + 0.15 * in_progress_value(x.is_in_progress)
        + 0.20 * tier_need_value(x.mastery_tier)
        + 0.15 * drill_evidence_value(x.drill_streak);
    score.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizations_match_the_document() {
        assert_eq!(recency_value(0.0), 1.0);
        assert_eq!(recency_value(36.0), 0.5);
        assert_eq!(recency_value(72.0), 0.0);
        assert_eq!(recency_value(500.0), 0.0);
        assert_eq!(recency_value(f64::INFINITY), 0.0);
        assert_eq!(recency_value(-5.0), 1.0);
        assert_eq!(mapped_value(1.7), 1.0);
        assert_eq!(mapped_value(-0.2), 0.0);
        assert_eq!(mapped_value(0.92), 0.92);
        assert_eq!((in_progress_value(true), in_progress_value(false)), (1.0, 0.0));
        assert_eq!(tier_need_value(MasteryTier::None), 1.0);
        assert_eq!(tier_need_value(MasteryTier::Bronze), 0.7);
        assert_eq!(tier_need_value(MasteryTier::Silver), 0.4);
        assert_eq!(tier_need_value(MasteryTier::Gold), 0.1);
        assert_eq!(
            (drill_evidence_value(0), drill_evidence_value(1), drill_evidence_value(2), drill_evidence_value(9)),
            (0.0, 0.5, 1.0, 1.0)
        );
    }

    #[test]
    fn the_score_is_the_weighted_sum() {
        let all = ScoreInputs {
            mapped_confidence: 1.0,
            is_focus: true,
            is_in_progress: true,
            recency_hours: 0.0,
            mastery_tier: MasteryTier::None,
            drill_streak: 2,
        };
        assert!((unit_priority_score(all) - 1.0).abs() < 1e-12);
        let none = ScoreInputs {
            mapped_confidence: 0.0,
            is_focus: false,
            is_in_progress: false,
            recency_hours: f64::INFINITY,
            mastery_tier: MasteryTier::Gold,
            drill_streak: 0,
        };
        assert!((unit_priority_score(none) - 0.02).abs() < 1e-12);
        let some = ScoreInputs { mapped_confidence: 0.5, is_focus: false, recency_hours: 36.0, ..none };
        // 0.35 * 0.35 + 0.15 * 0.5 + 0.2 * 0.1
        assert!((unit_priority_score(some) - (0.1225 + 0.075 + 0.02)).abs() < 1e-12);
    }
}
