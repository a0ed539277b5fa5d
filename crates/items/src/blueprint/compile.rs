//! Checking a skill blueprint once, when it is loaded, and keeping what generation needs in
//! a ready form (parsed templates, resolved factors and strategies).

use super::SkillBlueprint;
use crate::answer::{AnswerForm, Evaluation};
use crate::band::{Band, Target};
use crate::dice::Dice;
use crate::error::{BlueprintError, BlueprintProblem};
use crate::generators::{canonical_factor_name, Generator};
use crate::item::ItemType;
use crate::stable_hash::fnv1a64;
use crate::template::StemTemplate;

/// Trial generations per factor when a blueprint is loaded: a factor none of them produces
/// is refused rather than silently never generated.
const FACTOR_TRIALS: u32 = 32;
const MAX_TIME_LIMIT_SECONDS: u32 = 86_400;
const MAX_ID_CHARS: usize = 100;

/// A skill blueprint that passed validation, ready to generate items.
#[derive(Debug, Clone)]
pub struct Blueprint {
    spec: SkillBlueprint,
    pub(crate) generator: Generator,
    pub(crate) templates: Vec<StemTemplate>,
    /// The factors items are generated for, by increasing weight.
    pub(crate) factors: Vec<Factor>,
    pub(crate) strategies: Vec<&'static str>,
    pub(crate) evaluation: Evaluation,
    pub(crate) answer_form: AnswerForm,
    /// 0 unless multiple choice.
    pub(crate) option_count: usize,
    /// Mixed into every seed, so that blueprints given the same seed differ.
    pub(crate) salt: u64,
    pub(crate) discrimination: f64,
    pub(crate) starter_code: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Factor {
    /// Index in the generator's factor list.
    pub index: usize,
    pub name: &'static str,
    pub weight: f64,
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> BlueprintProblem {
    BlueprintProblem::Invalid { field: field.into(), message: message.into() }
}

pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= MAX_ID_CHARS
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

impl Blueprint {
    pub fn new(spec: SkillBlueprint) -> Result<Blueprint, BlueprintError> {
        let skill_id = spec.skill_id.clone();
        Blueprint::check(spec).map_err(|problem| BlueprintError { skill_id, problem })
    }

    fn check(spec: SkillBlueprint) -> Result<Blueprint, BlueprintProblem> {
        if !valid_id(&spec.skill_id) {
            return Err(invalid(
                "skill_id",
                format!(
                    "'{}' is not allowed; allowed: 1-{MAX_ID_CHARS} letters, digits, '.', '_' and '-'",
                    spec.skill_id
                ),
            ));
        }
        for (field, value) in [("domain", &spec.domain), ("skill_statement", &spec.skill_statement)] {
            if value.trim().is_empty() {
                return Err(invalid(field, "is empty"));
            }
        }
        let generator =
            Generator::compile(&spec.generator).map_err(|e| invalid(format!("generator.{}", e.field), e.message))?;
        let describe = generator.describe();
        let presentation = &spec.presentation;
        let item_type = presentation.item_type;

        let code = generator.is_code();
        if code != (item_type == ItemType::CodeEditor) {
            let message = if code {
                format!("{describe} makes code tasks; allowed: code_editor")
            } else {
                format!("code_editor needs a python generator; allowed for {describe}: multiple_choice, free_text")
            };
            return Err(invalid("presentation.item_type", message));
        }

        let evaluation = spec.evaluation.clone().unwrap_or(if code {
            Evaluation::TestExecution { timeout_seconds: None, partial_credit: true }
        } else {
            Evaluation::ExactMatch { case_sensitive: false }
        });
        let answer_form = generator.answer_form();
        check_evaluation(&evaluation, code, &answer_form, &describe)?;

        let option_count = check_choices(&spec, &generator, &describe)?;
        let strategies = resolve_strategies(&spec, &generator, &describe)?;

        if spec.presentation.stem_templates.is_empty() {
            return Err(BlueprintProblem::NoTemplates);
        }
        let placeholders = generator.placeholders();
        let templates = presentation
            .stem_templates
            .iter()
            .enumerate()
            .map(|(index, text)| {
                StemTemplate::parse(text, placeholders).map_err(|e| BlueprintProblem::Template {
                    index,
                    problem: e.to_string(),
                    generator: describe.clone(),
                    available: placeholders.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join(", "),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let starter_code = check_code_fields(&spec, &generator)?;
        let factors = resolve_factors(&spec, &generator, &describe)?;
        check_numbers(&spec)?;
        let salt = fnv1a64(spec.skill_id.as_bytes());
        let discrimination = spec.discrimination.unwrap_or(1.0);

        Ok(Blueprint {
            spec,
            generator,
            templates,
            factors,
            strategies,
            evaluation,
            answer_form,
            option_count,
            salt,
            discrimination,
            starter_code,
        })
    }

    pub fn id(&self) -> &str {
        &self.spec.skill_id
    }

    pub fn domain(&self) -> &str {
        &self.spec.domain
    }

    pub fn spec(&self) -> &SkillBlueprint {
        &self.spec
    }

    pub fn item_type(&self) -> ItemType {
        self.spec.presentation.item_type
    }

    /// The difficulty factors items are generated for, with their weights, easiest first.
    pub fn factors(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        self.factors.iter().map(|f| (f.name, f.weight))
    }

    /// Whether some factor's weight lies in `band`, so that items of that band can be made.
    pub fn can_produce(&self, band: Band) -> bool {
        self.factors.iter().any(|f| band.contains(f.weight))
    }

    /// The weight of factor `index` of the generator: the blueprint's, or the generator's
    /// default for a factor the blueprint does not list (an item aiming at a listed factor
    /// can land on another when sampling misses).
    pub(crate) fn weight_of(&self, index: usize) -> f64 {
        self.factors
            .iter()
            .find(|f| f.index == index)
            .map_or_else(|| self.generator.factors()[index].default_weight, |f| f.weight)
    }

    /// The factor to aim at: for a value, the factor of the nearest weight (ties broken by
    /// the dice); for a band, one of the band's factors at random, or the factor nearest the
    /// band's centre when none is in it.
    pub(crate) fn choose_factor(&self, target: Target, dice: &mut Dice) -> Factor {
        let nearest = |goal: f64, dice: &mut Dice| {
            let best = self.factors.iter().map(|f| (f.weight - goal).abs()).fold(f64::INFINITY, f64::min);
            let tied: Vec<&Factor> = self.factors.iter().filter(|f| (f.weight - goal).abs() <= best + 1e-9).collect();
            *tied[dice.index(tied.len())]
        };
        match target {
            Target::Difficulty(goal) => nearest(goal, dice),
            Target::Band(band) => {
                let inside: Vec<&Factor> = self.factors.iter().filter(|f| band.contains(f.weight)).collect();
                if inside.is_empty() {
                    nearest(band.centre(), dice)
                } else {
                    *inside[dice.index(inside.len())]
                }
            }
        }
    }
}

fn check_evaluation(
    evaluation: &Evaluation,
    code: bool,
    form: &AnswerForm,
    describe: &str,
) -> Result<(), BlueprintProblem> {
    let method = evaluation.name();
    match evaluation {
        Evaluation::TestExecution { timeout_seconds, .. } => {
            if !code {
                return Err(invalid(
                    "evaluation.method",
                    format!("test_execution needs code items; allowed for {describe}: exact_match, numeric_tolerance, equivalent_forms"),
                ));
            }
            if let Some(t) = timeout_seconds.filter(|t| !(1..=300).contains(t)) {
                return Err(invalid("evaluation.timeout_seconds", format!("{t} is out of range; allowed: 1-300")));
            }
        }
        _ if code => {
            return Err(invalid("evaluation.method", format!("{method} cannot check code; allowed: test_execution")))
        }
        Evaluation::NumericTolerance { tolerance } => {
            if !matches!(form, AnswerForm::Number { .. }) {
                return Err(invalid(
                    "evaluation.method",
                    format!("numeric_tolerance needs a numeric answer, and {describe} answers are not numbers; allowed: exact_match, equivalent_forms"),
                ));
            }
            if !tolerance.is_finite() || *tolerance < 0.0 {
                return Err(invalid("evaluation.tolerance", format!("{tolerance} is not allowed; allowed: 0 or more")));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The option count of a multiple-choice blueprint (0 for others), after checking the
/// fields that only multiple choice takes.
fn check_choices(spec: &SkillBlueprint, generator: &Generator, describe: &str) -> Result<usize, BlueprintProblem> {
    let p = &spec.presentation;
    let item_type = p.item_type.name();
    if p.item_type != ItemType::MultipleChoice {
        if p.option_count.is_some() {
            return Err(BlueprintProblem::NotApplicable {
                field: "option_count",
                applies_to: "multiple_choice",
                item_type,
            });
        }
        if !p.distractor_strategies.is_empty() {
            return Err(BlueprintProblem::NotApplicable {
                field: "distractor_strategies",
                applies_to: "multiple_choice",
                item_type,
            });
        }
        return Ok(0);
    }
    let count = p.option_count.ok_or(BlueprintProblem::MissingOptionCount)?;
    if !(2..=6).contains(&count) {
        return Err(BlueprintProblem::OptionCount { value: count });
    }
    if p.distractor_strategies.is_empty() {
        return Err(BlueprintProblem::NoStrategies {
            generator: describe.to_string(),
            allowed: generator.strategies().join(", "),
        });
    }
    Ok(count as usize)
}

fn resolve_strategies(
    spec: &SkillBlueprint,
    generator: &Generator,
    describe: &str,
) -> Result<Vec<&'static str>, BlueprintProblem> {
    let known = generator.strategies();
    spec.presentation
        .distractor_strategies
        .iter()
        .map(|s| {
            known.iter().copied().find(|k| *k == s.name).ok_or_else(|| BlueprintProblem::UnknownStrategy {
                name: s.name.clone(),
                generator: describe.to_string(),
                allowed: known.join(", "),
            })
        })
        .collect()
}

/// The starter code of a code blueprint (generated unless given), after checking the fields
/// only code takes.
fn check_code_fields(spec: &SkillBlueprint, generator: &Generator) -> Result<Option<String>, BlueprintProblem> {
    let p = &spec.presentation;
    let Generator::Python(python) = generator else {
        let item_type = p.item_type.name();
        if p.language.is_some() {
            return Err(BlueprintProblem::NotApplicable { field: "language", applies_to: "code_editor", item_type });
        }
        if p.starter_code.is_some() {
            return Err(BlueprintProblem::NotApplicable {
                field: "starter_code",
                applies_to: "code_editor",
                item_type,
            });
        }
        return Ok(None);
    };
    if let Some(language) = p.language.as_deref().filter(|l| *l != "python") {
        return Err(invalid("presentation.language", format!("'{language}' is not supported; allowed: python")));
    }
    match &p.starter_code {
        Some(code) if !code.contains(&format!("def {}(", python.function_name())) => Err(invalid(
            "presentation.starter_code",
            format!("does not define {}(); it must contain 'def {}('", python.function_name(), python.function_name()),
        )),
        Some(code) => Ok(Some(code.clone())),
        None => Ok(Some(python.starter_code())),
    }
}

fn resolve_factors(
    spec: &SkillBlueprint,
    generator: &Generator,
    describe: &str,
) -> Result<Vec<Factor>, BlueprintProblem> {
    let known = generator.factors();
    let mut factors = Vec::new();
    if spec.difficulty_factors.is_empty() {
        for (index, info) in known.iter().enumerate() {
            if info.by_default && generator.impossible(index).is_none() {
                factors.push(Factor { index, name: info.name, weight: info.default_weight });
            }
        }
        if factors.is_empty() {
            return Err(BlueprintProblem::NoFactors { generator: describe.to_string() });
        }
    } else {
        for (name, factor) in &spec.difficulty_factors {
            let canonical = canonical_factor_name(name);
            let index =
                known.iter().position(|f| f.name == canonical).ok_or_else(|| BlueprintProblem::UnknownFactor {
                    name: name.clone(),
                    generator: describe.to_string(),
                    allowed: known.iter().map(|f| f.name).collect::<Vec<_>>().join(", "),
                })?;
            if !(0.0..=1.0).contains(&factor.weight) {
                return Err(BlueprintProblem::FactorWeight { name: name.clone(), weight: factor.weight });
            }
            if let Some(reason) = generator.impossible(index) {
                return Err(BlueprintProblem::ImpossibleFactor { name: name.clone(), reason });
            }
            if factors.iter().any(|f: &Factor| f.index == index) {
                return Err(invalid(
                    format!("difficulty_factors.{name}"),
                    "names a factor already listed under another name",
                ));
            }
            factors.push(Factor { index, name: known[index].name, weight: factor.weight });
        }
    }
    let salt = fnv1a64(spec.skill_id.as_bytes());
    for f in &factors {
        let produced = (0..FACTOR_TRIALS).any(|trial| {
            let mut dice = Dice::new(u64::from(trial), salt);
            generator.trial_factor(f.index, &mut dice) == f.index
        });
        if !produced {
            return Err(BlueprintProblem::RareFactor { name: f.name.to_string(), trials: FACTOR_TRIALS });
        }
    }
    factors.sort_by(|a, b| a.weight.total_cmp(&b.weight).then(a.index.cmp(&b.index)));
    Ok(factors)
}

fn check_numbers(spec: &SkillBlueprint) -> Result<(), BlueprintProblem> {
    if let Some(t) = spec.time_limit_seconds.filter(|t| !(1..=MAX_TIME_LIMIT_SECONDS).contains(t)) {
        return Err(invalid("time_limit_seconds", format!("{t} is out of range; allowed: 1-{MAX_TIME_LIMIT_SECONDS}")));
    }
    if let Some(a) = spec.discrimination.filter(|a| !(*a > 0.0 && *a <= 4.0)) {
        return Err(invalid("discrimination", format!("{a} is out of range; allowed: above 0, at most 4")));
    }
    for (level, b) in &spec.performance_benchmarks {
        if !(0.0..=1.0).contains(&b.accuracy) {
            return Err(invalid(
                format!("performance_benchmarks.{level}.accuracy"),
                format!("{} is out of range; allowed: 0-1", b.accuracy),
            ));
        }
        if !(b.time_seconds.is_finite() && b.time_seconds > 0.0) {
            return Err(invalid(
                format!("performance_benchmarks.{level}.time_seconds"),
                format!("{} is not allowed; allowed: above 0", b.time_seconds),
            ));
        }
    }
    Ok(())
}
