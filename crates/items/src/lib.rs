//! Skill and assessment blueprints, and the items generated from them with computed answers.
//!
//! A skill blueprint ([`SkillBlueprint`], session-flow.md 13.5) names a generator and its
//! parameters, the difficulty factors with their weights, how items are presented and how
//! answers are checked. [`Blueprint::generate`] turns it, a seed and a target difficulty
//! into an [`Item`]: the stem, the options (the key among distractors made by named
//! strategies, shuffled), the key, the difficulty computed from what was generated and IRT
//! parameters derived from it. The same blueprint, seed and target always give the same
//! item, so an item id (`MATH.ARITH.ADD.2DIGIT~s=1234~d=0.50`) is enough to get it back
//! ([`Library::regenerate`]).
//!
//! Assessment blueprints ([`AssessmentBlueprint`], sections 10 and 13.4) draw forms from
//! skills and inline pools ([`plan_form`]) or candidates for adaptive selection
//! ([`adaptive_candidates`]). Item packs ([`Pack`]) bring both, in TOML or JSON;
//! [`Library::builtin`] holds the packs in `packs/`.
//!
//! Everything here is pure: no I/O, no clock, and randomness only from the seeds given.

mod answer;
mod assessment;
mod band;
mod blueprint;
mod dice;
mod error;
mod generate;
mod generators;
mod id;
mod inline;
mod item;
mod library;
mod options;
mod pack;
mod stable_hash;
pub use stable_hash::Fnv64;
mod template;

pub use answer::{Answer, AnswerForm, AnswerKey, Check, Evaluation};
pub use assessment::{
    adaptive_candidates, plan_form, AdaptiveRules, AdaptiveSelection, AdaptiveSettings, Assessment,
    AssessmentBlueprint, DifficultyDistribution, SectionSpec, Selection,
};
pub use band::{Band, Target};
pub use blueprint::{
    Blueprint, CognitiveLevel, DifficultyFactor, DistractorStrategy, PerformanceBenchmark, Presentation,
    SkillBlueprint, Skills,
};
pub use error::{
    AssessmentError, BlueprintError, BlueprintProblem, InlineError, InlineItemsError, ItemError, PackError,
};
pub use generate::{generate_unique, SessionItems, MAX_UNIQUE_ATTEMPTS};
pub use generators::{
    ArithmeticSpec, DivisionAsk, FractionOperation, FractionSpec, GeneratorSpec, LinearSpec, NumberBaseQuestion,
    NumberBaseSpec, Operation, PythonSpec, PythonTask, SubnetQuestion, SubnetSpec,
};
pub use inline::{inline_items, InlineItem, INLINE_BLUEPRINT_ID};
pub use item::{CodeTask, IrtParams, Item, ItemType, PresentedCode, PresentedItem, TestCase};
pub use library::{Library, PackSummary};
pub use pack::{Pack, PackFormat};
