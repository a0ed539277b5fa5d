//! The library: skill blueprints and assessments by id, from the built-in packs and course
//! packs added to it.

use crate::assessment::{self, Assessment};
use crate::band::Target;
use crate::blueprint::{Blueprint, Skills};
use crate::error::{ItemError, PackError};
use crate::id::{parse_id, ParsedId};
use crate::item::Item;
use crate::pack::{Pack, PackFormat};
use std::collections::{BTreeMap, HashMap};

/// The packs shipped with Pathwise, added in this order.
const BUILTIN_PACKS: &[(&str, &str)] = &[
    ("arithmetic.toml", include_str!("../packs/arithmetic.toml")),
    ("algebra.toml", include_str!("../packs/algebra.toml")),
    ("fractions.toml", include_str!("../packs/fractions.toml")),
    ("networking.toml", include_str!("../packs/networking.toml")),
    ("number_bases.toml", include_str!("../packs/number_bases.toml")),
    ("python.toml", include_str!("../packs/python.toml")),
    ("assessments.toml", include_str!("../packs/assessments.toml")),
];

#[derive(Debug, Clone, Default)]
pub struct Library {
    skills: BTreeMap<String, Blueprint>,
    assessments: BTreeMap<String, Assessment>,
    /// Pool items of the assessments, by id, so that their ids resolve like generated ones.
    inline: HashMap<String, Item>,
}

/// What a pack added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackSummary {
    pub skills: usize,
    pub assessments: usize,
}

impl Library {
    pub fn new() -> Library {
        Library::default()
    }

    /// The built-in packs (arithmetic, algebra, fractions, subnetting, binary numbers and
    /// place value, Python, and their assessments). They are part of the source and checked by the tests, so loading them
    /// cannot fail at run time.
    pub fn builtin() -> Library {
        let mut library = Library::new();
        for (name, text) in BUILTIN_PACKS {
            if let Err(e) = library.add_pack(text, PackFormat::Toml) {
                panic!("built-in pack {name} is invalid: {e}");
            }
        }
        library
    }

    /// Adds an item pack. Ids must be new, and assessments may name skills of the library
    /// or of the same pack. Nothing is added when anything is wrong.
    pub fn add_pack(&mut self, text: &str, format: PackFormat) -> Result<PackSummary, PackError> {
        self.add(Pack::parse(text, format)?)
    }

    pub fn add(&mut self, pack: Pack) -> Result<PackSummary, PackError> {
        let mut staged = self.clone();
        let summary = PackSummary { skills: pack.skills.len(), assessments: pack.assessments.len() };
        for (index, spec) in pack.skills.into_iter().enumerate() {
            if staged.skills.contains_key(&spec.skill_id) {
                let in_pack = !self.skills.contains_key(&spec.skill_id);
                return Err(PackError::DuplicateSkill { index, skill_id: spec.skill_id, in_pack });
            }
            let blueprint = Blueprint::new(spec).map_err(|source| PackError::Skill { index, source })?;
            staged.skills.insert(blueprint.id().to_string(), blueprint);
        }
        for (index, spec) in pack.assessments.into_iter().enumerate() {
            if staged.assessments.contains_key(&spec.assessment_id) {
                let in_pack = !self.assessments.contains_key(&spec.assessment_id);
                return Err(PackError::DuplicateAssessment { index, assessment_id: spec.assessment_id, in_pack });
            }
            let assessment =
                Assessment::new(spec, &staged).map_err(|source| PackError::Assessment { index, source })?;
            for item in assessment.pool_items() {
                staged.inline.insert(item.id.clone(), item.clone());
            }
            staged.assessments.insert(assessment.id().to_string(), assessment);
        }
        *self = staged;
        Ok(summary)
    }

    /// Adds an item written out (a course's drill), so that its id resolves like a
    /// generated one's; the same item again changes nothing.
    pub fn add_inline(&mut self, item: Item) {
        self.inline.insert(item.id.clone(), item);
    }

    pub fn skill(&self, skill_id: &str) -> Option<&Blueprint> {
        self.skills.get(skill_id)
    }

    /// Skill blueprints by id.
    pub fn skills(&self) -> impl Iterator<Item = &Blueprint> {
        self.skills.values()
    }

    pub fn assessment(&self, assessment_id: &str) -> Option<&Assessment> {
        self.assessments.get(assessment_id)
    }

    /// Assessments by id.
    pub fn assessments(&self) -> impl Iterator<Item = &Assessment> {
        self.assessments.values()
    }

    fn require_skill(&self, skill_id: &str) -> Result<&Blueprint, ItemError> {
        self.skill(skill_id).ok_or_else(|| ItemError::UnknownSkill { skill_id: skill_id.to_string() })
    }

    fn require_assessment(&self, assessment_id: &str) -> Result<&Assessment, ItemError> {
        self.assessment(assessment_id)
            .ok_or_else(|| ItemError::UnknownAssessment { assessment_id: assessment_id.to_string() })
    }

    pub fn generate(&self, skill_id: &str, seed: u64, target: Target) -> Result<Item, ItemError> {
        self.require_skill(skill_id)?.generate(seed, target)
    }

    /// The item an id names, identical to when it was first made.
    pub fn regenerate(&self, item_id: &str) -> Result<Item, ItemError> {
        match parse_id(item_id)? {
            ParsedId::Generated { skill_id, seed, target } => self.generate(skill_id, seed, target),
            ParsedId::Inline => self
                .inline
                .get(item_id)
                .cloned()
                .ok_or_else(|| ItemError::UnknownInlineItem { id: item_id.to_string() }),
        }
    }

    /// The distractor strategy a wrong answer to a generated item matches, if any (see
    /// [`Blueprint::diagnose`]).
    pub fn diagnose(&self, item_id: &str, answer: &str) -> Option<&'static str> {
        match parse_id(item_id).ok()? {
            ParsedId::Generated { skill_id, seed, target } => self.skill(skill_id)?.diagnose(seed, target, answer),
            ParsedId::Inline => None,
        }
    }

    /// See [`assessment::plan_form`].
    pub fn plan_form(&self, assessment_id: &str, seed: u64) -> Result<Vec<Item>, ItemError> {
        assessment::plan_form(self.require_assessment(assessment_id)?, self, seed)
    }

    /// See [`assessment::adaptive_candidates`].
    pub fn adaptive_candidates(
        &self,
        assessment_id: &str,
        seed: u64,
        per_blueprint: usize,
    ) -> Result<Vec<Item>, ItemError> {
        assessment::adaptive_candidates(self.require_assessment(assessment_id)?, self, seed, per_blueprint)
    }
}

impl Skills for Library {
    fn skill(&self, skill_id: &str) -> Option<&Blueprint> {
        Library::skill(self, skill_id)
    }
}
