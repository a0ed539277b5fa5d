//! The item library as a learner chooses from it: the assessments an evaluation can take
//! (`blueprint_id`) and the skills whose blueprints a learning session practises
//! (`item_templates`). Read-only; answer keys and generators stay on the server.

use crate::App;
use crate::StoreHandle;
use pathwise_store::MapStore;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use utoipa::ToSchema;

/// An assessment of the item library, for `config.blueprint_id` of an evaluation.
#[derive(Debug, Clone, Serialize, ToSchema, JsonSchema)]
pub struct AssessmentSummary {
    /// e.g. `MATH-ARITH-QUIZ-10`.
    pub blueprint_id: String,
    pub title: String,
    /// How many items a session presents (for an adaptive assessment, at most this many).
    pub item_count: usize,
    /// The limit a session gets unless its config sets another.
    pub time_limit_minutes: u32,
    /// `fixed`, `random_from_pool` or `adaptive`.
    pub selection: String,
    /// The skill domains its sections cover, in section order, each once.
    pub domains: Vec<String>,
    /// The widgets its items use: `multiple_choice`, `free_text`, `code_editor`.
    pub item_kinds: Vec<String>,
    pub sections: Vec<SectionSummary>,
}

#[derive(Debug, Clone, Serialize, ToSchema, JsonSchema)]
pub struct SectionSummary {
    pub section_id: String,
    pub skill_domain: String,
    pub item_count: usize,
}

/// A skill blueprint of the item library, for a learning session's `item_templates`.
#[derive(Debug, Clone, Serialize, ToSchema, JsonSchema)]
pub struct SkillSummary {
    /// e.g. `MATH.ARITH.ADD.2DIGIT`.
    pub skill_id: String,
    /// What the learner can do once the skill is mastered.
    pub title: String,
    /// e.g. `Mathematics > Arithmetic > Addition`.
    pub domain: String,
    /// The widgets its items use: `multiple_choice`, `free_text` or `code_editor`.
    pub item_kinds: Vec<String>,
    /// Bloom's level: `remember` ... `create`.
    pub cognitive_level: String,
    /// For code items: the language.
    pub language: Option<String>,
}

/// A serde enum's name as written in JSON (`"multiple_choice"`).
fn name_of(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

impl<S: StoreHandle + MapStore> App<S> {
    /// The assessments an evaluation can take, by id.
    pub fn library_assessments(&self) -> Vec<AssessmentSummary> {
        let library = self.library();
        library
            .assessments()
            .map(|a| {
                let spec = a.spec();
                let mut domains: Vec<String> = Vec::new();
                let mut kinds = BTreeSet::new();
                for section in &spec.sections {
                    if !domains.contains(&section.skill_domain) {
                        domains.push(section.skill_domain.clone());
                    }
                    for skill in section.skill_blueprints.iter().filter_map(|id| library.skill(id)) {
                        kinds.insert(name_of(skill.item_type()));
                    }
                }
                kinds.extend(a.pool_items().map(|item| name_of(item.item_type)));
                AssessmentSummary {
                    blueprint_id: a.id().to_string(),
                    title: a.title().to_string(),
                    item_count: a.adaptive().map_or_else(|| a.total_items(), |rules| rules.max_items),
                    time_limit_minutes: a.time_limit_minutes(),
                    selection: name_of(a.selection()),
                    domains,
                    item_kinds: kinds.into_iter().collect(),
                    sections: spec
                        .sections
                        .iter()
                        .map(|section| SectionSummary {
                            section_id: section.section_id.clone(),
                            skill_domain: section.skill_domain.clone(),
                            item_count: section.item_count,
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// The skill blueprints a learning session can practise, by id.
    pub fn library_skills(&self) -> Vec<SkillSummary> {
        self.library()
            .skills()
            .map(|skill| {
                let spec = skill.spec();
                let kind = name_of(skill.item_type());
                // Code items are Python unless the blueprint names the language.
                let language = (kind == "code_editor")
                    .then(|| spec.presentation.language.clone().unwrap_or_else(|| "python".to_string()));
                SkillSummary {
                    skill_id: skill.id().to_string(),
                    title: spec.skill_statement.clone(),
                    domain: skill.domain().to_string(),
                    item_kinds: vec![kind],
                    cognitive_level: name_of(spec.cognitive_level),
                    language,
                }
            })
            .collect()
    }
}
