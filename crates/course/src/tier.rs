//! Mastery tiers per unit (policy-tutor.md PF-5.1): bronze, silver and gold, earned by
//! passing exam questions of that tier with drill readiness, never by the model's word.

use crate::pack::Tier;
use pathwise_domain::MasteryStatus;
use serde::{Deserialize, Serialize};

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum MasteryTier {
    #[default]
    None,
    Bronze,
    Silver,
    Gold,
}

impl MasteryTier {
    /// Where a tier puts the unit's concept on the learner's map, at least: one picture of
    /// progress, whichever door shows it. A tier is earned by an exam with drill readiness,
    /// so bronze and silver show a concept learned and in review; gold, mastered (a course
    /// has nothing left to earn there, as a map's graduation has nothing left to review).
    pub fn node_floor(self) -> Option<MasteryStatus> {
        match self {
            MasteryTier::None => None,
            MasteryTier::Bronze | MasteryTier::Silver => Some(MasteryStatus::Reviewing),
            MasteryTier::Gold => Some(MasteryStatus::Mastered),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MasteryTier::None => "none",
            MasteryTier::Bronze => "bronze",
            MasteryTier::Silver => "silver",
            MasteryTier::Gold => "gold",
        }
    }
}

impl From<Tier> for MasteryTier {
    fn from(tier: Tier) -> MasteryTier {
        match tier {
            Tier::Bronze => MasteryTier::Bronze,
            Tier::Silver => MasteryTier::Silver,
            Tier::Gold => MasteryTier::Gold,
        }
    }
}

/// The exam tier that would move a unit on from its mastery tier (`desiredExamTierFromMastery`).
pub fn desired_exam_tier(mastery: MasteryTier) -> Tier {
    match mastery {
        MasteryTier::None => Tier::Bronze,
        MasteryTier::Bronze => Tier::Silver,
        MasteryTier::Silver | MasteryTier::Gold => Tier::Gold,
    }
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema,
)]
pub struct PassedByTier {
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
}

impl PassedByTier {
    pub(crate) fn add(&mut self, tier: Tier) {
        match tier {
            Tier::Bronze => self.bronze += 1,
            Tier::Silver => self.silver += 1,
            Tier::Gold => self.gold += 1,
        }
    }
}

/// The tier a unit's evidence supports (`updateUnitMasteryTier`): bronze needs a drill streak
/// of two and a bronze pass; silver, bronze and a silver pass; gold, silver and a gold pass.
pub fn tier_from_evidence(drill_streak: u32, passed: &PassedByTier) -> MasteryTier {
    let bronze = drill_streak >= 2 && passed.bronze >= 1;
    let silver = bronze && passed.silver >= 1;
    let gold = silver && passed.gold >= 1;
    if gold {
        MasteryTier::Gold
    } else if silver {
        MasteryTier::Silver
    } else if bronze {
        MasteryTier::Bronze
    } else {
        MasteryTier::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tier(streak: u32, bronze: u32, silver: u32, gold: u32) -> MasteryTier {
        tier_from_evidence(streak, &PassedByTier { bronze, silver, gold })
    }

    #[test]
    fn tiers_need_drill_readiness_and_each_lower_tier() {
        assert_eq!(tier(0, 0, 0, 0), MasteryTier::None);
        assert_eq!(tier(1, 1, 0, 0), MasteryTier::None, "streak of one is not ready");
        assert_eq!(tier(2, 1, 0, 0), MasteryTier::Bronze);
        assert_eq!(tier(2, 1, 1, 0), MasteryTier::Silver);
        assert_eq!(tier(3, 1, 1, 1), MasteryTier::Gold);
        assert_eq!(tier(5, 0, 1, 1), MasteryTier::None, "silver without bronze");
        assert_eq!(tier(5, 1, 0, 1), MasteryTier::Bronze, "gold without silver");
    }

    #[test]
    fn the_desired_tier_is_the_next_one_up() {
        assert_eq!(desired_exam_tier(MasteryTier::None), Tier::Bronze);
        assert_eq!(desired_exam_tier(MasteryTier::Bronze), Tier::Silver);
        assert_eq!(desired_exam_tier(MasteryTier::Silver), Tier::Gold);
        assert_eq!(desired_exam_tier(MasteryTier::Gold), Tier::Gold);
    }
}
