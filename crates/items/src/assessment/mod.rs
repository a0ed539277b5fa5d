//! Assessment blueprints (session-flow.md 10 `EvaluationBlueprint`, 13.4): sections of
//! items drawn from skill blueprints and inline pools with a difficulty distribution, and
//! how items are selected: one fixed form for everyone, a form sampled per session, or
//! adaptively one at a time.

mod plan;

pub use plan::{adaptive_candidates, plan_form};

use crate::band::Band;
use crate::blueprint::{valid_id, Skills};
use crate::error::AssessmentError;
use crate::inline::InlineItem;
use crate::item::Item;
use serde::{Deserialize, Serialize};

const MAX_TIME_LIMIT_MINUTES: u32 = 24 * 60;
const MAX_ITEMS: usize = 500;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssessmentBlueprint {
    pub assessment_id: String,
    pub title: String,
    pub time_limit_minutes: u32,
    #[serde(alias = "item_selection_algorithm")]
    pub selection: Selection,
    /// When given, must equal the sum of the sections' item counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_items: Option<usize>,
    pub sections: Vec<SectionSpec>,
    /// For `selection = "adaptive"`; defaults as in [`AdaptiveSettings`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveSettings>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The same form for everyone (its seed comes from the assessment id).
    Fixed,
    /// A form sampled per session seed.
    RandomFromPool,
    /// Items chosen one at a time by ability (IRT); see [`adaptive_candidates`].
    Adaptive,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionSpec {
    pub section_id: String,
    pub skill_domain: String,
    pub item_count: usize,
    /// Skill ids of the library (or of the same pack).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skill_blueprints: Vec<String>,
    /// Needed by fixed and random forms; sums to `item_count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty_distribution: Option<DifficultyDistribution>,
    /// Items written out (D4 option A), drawn like generated ones by their difficulty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pool: Vec<InlineItem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DifficultyDistribution {
    #[serde(default)]
    pub easy: usize,
    #[serde(default)]
    pub medium: usize,
    #[serde(default)]
    pub hard: usize,
}

impl DifficultyDistribution {
    pub fn total(&self) -> usize {
        self.easy + self.medium + self.hard
    }

    pub fn count(&self, band: Band) -> usize {
        match band {
            Band::Easy => self.easy,
            Band::Medium => self.medium,
            Band::Hard => self.hard,
        }
    }
}

/// Stopping and selection rules of an adaptive assessment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveSettings {
    /// Stop after this many items (default: the sections' total).
    #[serde(default)]
    pub max_items: Option<usize>,
    /// Never stop before this many (default: 5, or the maximum when smaller).
    #[serde(default)]
    pub min_items: Option<usize>,
    /// Stop once the ability's standard error is at most this (default 0.3).
    #[serde(default = "default_se_target")]
    pub se_target: f64,
    /// Pick at random among this many best items, to spread exposure (default 1: always
    /// the best).
    #[serde(default = "default_randomesque")]
    pub randomesque: usize,
    /// How the next item is ranked: "max_info", "posterior_weighted_info" or "kl"
    /// (default: the IRT engine's default rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<AdaptiveSelection>,
}

/// The item selection rules of the IRT engine (`pathwise_irt::Selection`), by the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveSelection {
    /// Fisher information at the ability estimate.
    MaxInfo,
    /// Fisher information averaged over the posterior of ability.
    PosteriorWeightedInfo,
    /// Kullback-Leibler information averaged over the posterior of ability.
    Kl,
}

impl AdaptiveSelection {
    /// The rule's name, as in the blueprint and in the engine's settings.
    pub fn name(self) -> &'static str {
        match self {
            AdaptiveSelection::MaxInfo => "max_info",
            AdaptiveSelection::PosteriorWeightedInfo => "posterior_weighted_info",
            AdaptiveSelection::Kl => "kl",
        }
    }
}

fn default_se_target() -> f64 {
    0.3
}
fn default_randomesque() -> usize {
    1
}

/// Adaptive settings with every default filled in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveRules {
    pub max_items: usize,
    pub min_items: usize,
    pub se_target: f64,
    pub randomesque: usize,
    /// `None`: the IRT engine's default rule.
    pub selection: Option<AdaptiveSelection>,
}

/// An assessment blueprint checked against a library.
#[derive(Debug, Clone)]
pub struct Assessment {
    spec: AssessmentBlueprint,
    /// Each section's pool as items.
    pub(crate) pools: Vec<Vec<Item>>,
    rules: Option<AdaptiveRules>,
}

impl Assessment {
    /// Checks the blueprint: ids, counts and distributions, and that the library has every
    /// skill it names and can make every band it asks for.
    pub fn new(spec: AssessmentBlueprint, library: &impl Skills) -> Result<Assessment, AssessmentError> {
        let fail = |problem: String| AssessmentError { assessment_id: spec.assessment_id.clone(), problem };
        if !valid_id(&spec.assessment_id) {
            return Err(fail("assessment_id is not allowed; allowed: 1-100 letters, digits, '.', '_' and '-'".into()));
        }
        if spec.title.trim().is_empty() {
            return Err(fail("title is empty".into()));
        }
        if !(1..=MAX_TIME_LIMIT_MINUTES).contains(&spec.time_limit_minutes) {
            return Err(fail(format!(
                "time_limit_minutes {} is out of range; allowed: 1-{MAX_TIME_LIMIT_MINUTES}",
                spec.time_limit_minutes
            )));
        }
        if spec.sections.is_empty() {
            return Err(fail("has no sections; give at least one".into()));
        }
        let mut pools = Vec::with_capacity(spec.sections.len());
        for (i, section) in spec.sections.iter().enumerate() {
            let id = &section.section_id;
            if id.trim().is_empty() {
                return Err(fail(format!("sections[{i}] has an empty section_id")));
            }
            if spec.sections[..i].iter().any(|s| &s.section_id == id) {
                return Err(fail(format!("section id '{id}' is used twice")));
            }
            pools.push(
                check_section(section, spec.selection, library).map_err(|p| fail(format!("section '{id}': {p}")))?,
            );
        }
        let total: usize = spec.sections.iter().map(|s| s.item_count).sum();
        if total > MAX_ITEMS {
            return Err(fail(format!("{total} items in all; allowed: at most {MAX_ITEMS}")));
        }
        if let Some(given) = spec.total_items.filter(|t| *t != total) {
            return Err(fail(format!("total_items is {given} but the sections' item counts sum to {total}")));
        }
        let rules = match (spec.selection, &spec.adaptive) {
            (Selection::Adaptive, settings) => Some(adaptive_rules(settings.as_ref(), total).map_err(fail)?),
            (_, Some(_)) => return Err(fail("adaptive settings apply to selection = \"adaptive\" only".into())),
            (_, None) => None,
        };
        Ok(Assessment { spec, pools, rules })
    }

    pub fn id(&self) -> &str {
        &self.spec.assessment_id
    }

    pub fn spec(&self) -> &AssessmentBlueprint {
        &self.spec
    }

    pub fn title(&self) -> &str {
        &self.spec.title
    }

    pub fn selection(&self) -> Selection {
        self.spec.selection
    }

    pub fn time_limit_minutes(&self) -> u32 {
        self.spec.time_limit_minutes
    }

    pub fn total_items(&self) -> usize {
        self.spec.sections.iter().map(|s| s.item_count).sum()
    }

    /// The rules of an adaptive assessment, defaults filled in; `None` for a form.
    pub fn adaptive(&self) -> Option<AdaptiveRules> {
        self.rules
    }

    /// The inline items of every section's pool.
    pub fn pool_items(&self) -> impl Iterator<Item = &Item> {
        self.pools.iter().flatten()
    }
}

fn check_section(section: &SectionSpec, selection: Selection, library: &impl Skills) -> Result<Vec<Item>, String> {
    if section.item_count == 0 {
        return Err("item_count is 0; allowed: 1 or more".into());
    }
    if section.skill_blueprints.is_empty() && section.pool.is_empty() {
        return Err("has neither skill_blueprints nor a pool to draw items from".into());
    }
    let mut skills = Vec::with_capacity(section.skill_blueprints.len());
    for id in &section.skill_blueprints {
        skills.push(library.skill(id).ok_or_else(|| format!("references unknown skill '{id}'"))?);
    }
    let mut pool: Vec<Item> = Vec::with_capacity(section.pool.len());
    for (i, inline) in section.pool.iter().enumerate() {
        let item = inline.to_item().map_err(|e| format!("pool[{i}]: {e}"))?;
        if let Some(first) = pool.iter().position(|p| p.content_key == item.content_key) {
            return Err(format!("pool[{i}] repeats pool[{first}]"));
        }
        pool.push(item);
    }
    let Some(distribution) = section.difficulty_distribution else {
        return if selection == Selection::Adaptive {
            Ok(pool)
        } else {
            Err(format!(
                "fixed and random_from_pool forms need difficulty_distribution {{ easy, medium, hard }} summing to item_count {}",
                section.item_count
            ))
        };
    };
    if distribution.total() != section.item_count {
        return Err(format!(
            "difficulty_distribution sums to {} (easy {} + medium {} + hard {}) but item_count is {}",
            distribution.total(),
            distribution.easy,
            distribution.medium,
            distribution.hard,
            section.item_count
        ));
    }
    for band in Band::ALL {
        let wanted = distribution.count(band);
        if wanted == 0 || skills.iter().any(|s| s.can_produce(band)) {
            continue;
        }
        let in_pool = pool.iter().filter(|i| i.band() == band).count();
        if in_pool < wanted {
            let skill_list = if skills.is_empty() {
                "it has no skill blueprints".to_string()
            } else {
                format!("none of its skill blueprints ({}) makes {band} items", section.skill_blueprints.join(", "))
            };
            return Err(format!("asks for {wanted} {band} items, but {skill_list} and its pool has {in_pool}"));
        }
    }
    Ok(pool)
}

fn adaptive_rules(settings: Option<&AdaptiveSettings>, total: usize) -> Result<AdaptiveRules, String> {
    let s = settings.copied().unwrap_or(AdaptiveSettings {
        max_items: None,
        min_items: None,
        se_target: default_se_target(),
        randomesque: default_randomesque(),
        selection: None,
    });
    let max_items = s.max_items.unwrap_or(total);
    let min_items = s.min_items.unwrap_or(5.min(max_items));
    if !(1..=MAX_ITEMS).contains(&max_items) {
        return Err(format!("adaptive.max_items {max_items} is out of range; allowed: 1-{MAX_ITEMS}"));
    }
    if min_items < 1 || min_items > max_items {
        return Err(format!("adaptive.min_items {min_items} is out of range; allowed: 1-{max_items} (max_items)"));
    }
    if !(s.se_target > 0.0 && s.se_target <= 2.0) {
        return Err(format!("adaptive.se_target {} is out of range; allowed: above 0, at most 2", s.se_target));
    }
    if !(1..=10).contains(&s.randomesque) {
        return Err(format!("adaptive.randomesque {} is out of range; allowed: 1-10", s.randomesque));
    }
    Ok(AdaptiveRules {
        max_items,
        min_items,
        se_target: s.se_target,
        randomesque: s.randomesque,
        selection: s.selection,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(toml_text: &str) -> Result<AdaptiveSettings, toml::de::Error> {
        toml::from_str(toml_text)
    }

    #[test]
    fn the_selection_rule_is_optional_and_carried_into_the_rules() {
        let rules = adaptive_rules(Some(&settings("").unwrap()), 20).unwrap();
        assert_eq!((rules.randomesque, rules.selection), (1, None));
        assert_eq!(adaptive_rules(None, 20).unwrap(), rules);
        for (name, rule) in [
            ("max_info", AdaptiveSelection::MaxInfo),
            ("posterior_weighted_info", AdaptiveSelection::PosteriorWeightedInfo),
            ("kl", AdaptiveSelection::Kl),
        ] {
            let parsed = settings(&format!("selection = \"{name}\"\nrandomesque = 2")).unwrap();
            let rules = adaptive_rules(Some(&parsed), 20).unwrap();
            assert_eq!((rules.selection, rules.randomesque), (Some(rule), 2));
            assert_eq!(rule.name(), name);
        }
    }

    #[test]
    fn an_unknown_selection_rule_is_refused_naming_the_rules() {
        let error = settings("selection = \"fisher\"").unwrap_err().to_string();
        assert!(error.contains("unknown variant `fisher`"), "{error}");
        assert!(error.contains("expected one of `max_info`, `posterior_weighted_info`, `kl`"), "{error}");
        let error = adaptive_rules(Some(&settings("randomesque = 11\nselection = \"kl\"").unwrap()), 20).unwrap_err();
        assert_eq!(error, "adaptive.randomesque 11 is out of range; allowed: 1-10");
    }
}
