//! Skill blueprints (session-flow.md 13.5) as authors write them, in TOML or JSON, and
//! [`Blueprint`], one checked and ready to generate from.

mod compile;
mod forms;

pub(crate) use compile::valid_id;
pub use compile::Blueprint;
pub use forms::{DifficultyFactor, DistractorStrategy};

/// Where skill blueprints are found by id: what an assessment is checked against and
/// planned from (a [`crate::Library`]).
pub trait Skills {
    fn skill(&self, skill_id: &str) -> Option<&Blueprint>;
}

use crate::answer::Evaluation;
use crate::generators::GeneratorSpec;
use crate::item::ItemType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillBlueprint {
    /// Letters, digits, `.`, `_` and `-`, e.g. `MATH.ARITH.ADD.2DIGIT`.
    pub skill_id: String,
    /// e.g. `Mathematics > Arithmetic > Addition`.
    pub domain: String,
    pub skill_statement: String,
    pub cognitive_level: CognitiveLevel,
    pub generator: GeneratorSpec,
    /// Factor name to weight (0-1); when left out, the generator's own factors and weights.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub difficulty_factors: BTreeMap<String, DifficultyFactor>,
    pub presentation: Presentation,
    /// How answers are checked; `exact_match` when left out (`test_execution` for code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<Evaluation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_seconds: Option<u32>,
    /// The IRT discrimination `a` of its items (default 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discrimination: Option<f64>,
    /// Level name (`novice`, `competent`, `expert`, ...) to what that level achieves.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub performance_benchmarks: BTreeMap<String, PerformanceBenchmark>,
}

/// Bloom's taxonomy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CognitiveLevel {
    #[serde(alias = "Remember")]
    Remember,
    #[serde(alias = "Understand")]
    Understand,
    #[serde(alias = "Apply")]
    Apply,
    #[serde(alias = "Analyze", alias = "analyse", alias = "Analyse")]
    Analyze,
    #[serde(alias = "Evaluate")]
    Evaluate,
    #[serde(alias = "Create")]
    Create,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Presentation {
    pub item_type: ItemType,
    /// Multiple choice only: 2-6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_count: Option<u32>,
    /// Multiple choice only: how wrong options are made, in order of preference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distractor_strategies: Vec<DistractorStrategy>,
    /// One is picked per item; `{placeholders}` are the generator's.
    pub stem_templates: Vec<String>,
    /// Code only: the language (`python`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Code only: replaces the generated starter code; must define the function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starter_code: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerformanceBenchmark {
    /// Share of items answered correctly, 0-1.
    pub accuracy: f64,
    /// Typical seconds per item.
    pub time_seconds: f64,
}
