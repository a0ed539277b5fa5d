//! Generating an item from a blueprint, and keeping a session's items unique.

use crate::answer::{AnswerForm, AnswerKey};
use crate::band::{Band, Target};
use crate::blueprint::Blueprint;
use crate::dice::Dice;
use crate::error::ItemError;
use crate::generators::{Answered, Domain, Generator, Question};
use crate::id::generated_id;
use crate::item::{round4, CodeTask, IrtParams, Item};
use crate::options;
use std::collections::HashSet;

/// Attempts at a new item before a blueprint's space counts as exhausted for a session.
pub const MAX_UNIQUE_ATTEMPTS: u32 = 500;

impl Blueprint {
    /// The item of this blueprint for `seed` and `target`: the same arguments always give
    /// the same item.
    pub fn generate(&self, seed: u64, target: Target) -> Result<Item, ItemError> {
        let target = target.normalized()?;
        let mut dice = Dice::new(seed, self.salt);
        let factor = self.choose_factor(target, &mut dice);
        match &self.generator {
            Generator::Arithmetic(g) => self.finish(g.make(factor.index, &mut dice), seed, target, &mut dice),
            Generator::Linear(g) => self.finish(g.make(factor.index, &mut dice), seed, target, &mut dice),
            Generator::Subnet(g) => self.finish(g.make(factor.index, &mut dice), seed, target, &mut dice),
            Generator::Fraction(g) => self.finish(g.make(factor.index, &mut dice), seed, target, &mut dice),
            Generator::NumberBase(g) => self.finish(g.make(factor.index, &mut dice), seed, target, &mut dice),
            Generator::Python(g) => {
                let question = g.make(factor.index, &mut dice);
                let stem = self.stem(&question, &mut dice);
                let mut item = self.item(
                    &question,
                    seed,
                    target,
                    stem,
                    AnswerKey {
                        choice: None,
                        answer: format!("all {} tests pass", question.tests.len()),
                        form: AnswerForm::Tests,
                        evaluation: self.evaluation.clone(),
                    },
                );
                item.code = Some(CodeTask {
                    language: "python".to_string(),
                    function_name: g.function_name().to_string(),
                    starter_code: self.starter_code.clone().unwrap_or_else(|| g.starter_code()),
                    tests: question.tests,
                    visible_tests: g.visible(),
                });
                Ok(item)
            }
        }
    }

    /// Which distractor strategy would give `answer` to the item of `seed` and `target`: the
    /// likely mistake behind a wrong answer (none for a right answer, an answer no strategy
    /// explains, or a code task). Every strategy of the generator is tried, not only the
    /// blueprint's, since a typed answer can show any of them.
    pub fn diagnose(&self, seed: u64, target: Target, answer: &str) -> Option<&'static str> {
        let target = target.normalized().ok()?;
        let mut dice = Dice::new(seed, self.salt);
        let factor = self.choose_factor(target, &mut dice);
        match &self.generator {
            Generator::Arithmetic(g) => self.diagnosis(g.strategies(), &g.make(factor.index, &mut dice), seed, answer),
            Generator::Linear(g) => self.diagnosis(g.strategies(), &g.make(factor.index, &mut dice), seed, answer),
            Generator::Subnet(g) => self.diagnosis(g.strategies(), &g.make(factor.index, &mut dice), seed, answer),
            Generator::Fraction(g) => self.diagnosis(g.strategies(), &g.make(factor.index, &mut dice), seed, answer),
            Generator::NumberBase(g) => self.diagnosis(g.strategies(), &g.make(factor.index, &mut dice), seed, answer),
            Generator::Python(_) => None,
        }
    }

    fn diagnosis<Q: Answered>(
        &self,
        strategies: &[&'static str],
        question: &Q,
        seed: u64,
        answer: &str,
    ) -> Option<&'static str> {
        let key = AnswerKey {
            choice: None,
            answer: question.key().to_string(),
            form: self.answer_form.clone(),
            evaluation: self.evaluation.clone(),
        };
        if key.accepts(answer) {
            return None;
        }
        let mut candidates = Vec::new();
        strategies.iter().copied().find(|strategy| {
            candidates.clear();
            question.distractors(strategy, &mut Dice::new(seed, self.salt), &mut candidates);
            candidates.iter().any(|v| AnswerKey { answer: v.to_string(), ..key.clone() }.accepts(answer))
        })
    }

    fn finish<Q: Answered>(&self, question: Q, seed: u64, target: Target, dice: &mut Dice) -> Result<Item, ItemError> {
        let stem = self.stem(&question, dice);
        let (options, choice) = if self.option_count > 0 {
            let (options, at) =
                options::build(&question, &self.strategies, self.option_count, dice).map_err(|made| {
                    ItemError::TooFewOptions { skill_id: self.id().to_string(), needed: self.option_count, made }
                })?;
            (options, Some(at))
        } else {
            (Vec::new(), None)
        };
        let key = AnswerKey {
            choice,
            answer: question.key().to_string(),
            form: self.answer_form.clone(),
            evaluation: self.evaluation.clone(),
        };
        let mut item = self.item(&question, seed, target, stem, key);
        item.options = options;
        Ok(item)
    }

    fn stem<Q: Question>(&self, question: &Q, dice: &mut Dice) -> (String, usize) {
        let index = dice.index(self.templates.len());
        let template = &self.templates[index];
        let mut stem = String::with_capacity(template.capacity_hint());
        template.render(&mut stem, |slot, out| question.fill(slot, out));
        (stem, index)
    }

    fn item<Q: Question>(
        &self,
        question: &Q,
        seed: u64,
        target: Target,
        stem: (String, usize),
        key: AnswerKey,
    ) -> Item {
        let index = question.factor();
        let weight = self.weight_of(index);
        // A small nudge within the factor (larger numbers are a little harder), never
        // leaving the factor's band.
        let band = Band::of(weight);
        let difficulty = band.clamp(round4(band.clamp(weight + 0.02 * question.refinement().clamp(-1.0, 1.0))));
        let mut params = serde_json::Map::new();
        question.params(&mut params);
        params.insert("factor".into(), self.generator.factors()[index].name.into());
        params.insert("template".into(), stem.1.into());
        Item {
            id: generated_id(self.id(), seed, target),
            blueprint_id: self.id().to_string(),
            domain: self.domain().to_string(),
            seed,
            item_type: self.item_type(),
            stem: stem.0,
            options: Vec::new(),
            code: None,
            key,
            difficulty,
            irt: IrtParams::from_difficulty(difficulty, self.discrimination, self.option_count),
            generation_params: serde_json::Value::Object(params),
            time_limit_seconds: self.spec().time_limit_seconds,
            content_key: question.content_key(),
        }
    }
}

/// An item whose content is not in `seen` (which it is then added to): the item for `seed`,
/// or if that one's content was already used, for `seed + 1`, `seed + 2`, ... The item's id
/// holds the seed that made it, so it regenerates.
pub fn generate_unique(
    blueprint: &Blueprint,
    seed: u64,
    target: Target,
    seen: &mut HashSet<String>,
) -> Result<Item, ItemError> {
    let mut s = seed;
    for _ in 0..MAX_UNIQUE_ATTEMPTS {
        let item = blueprint.generate(s, target)?;
        if !seen.contains(&item.content_key) {
            seen.insert(item.content_key.clone());
            return Ok(item);
        }
        s = s.wrapping_add(1);
    }
    Err(ItemError::SpaceExhausted {
        skill_id: blueprint.id().to_string(),
        target: target.to_string(),
        attempts: MAX_UNIQUE_ATTEMPTS,
    })
}

/// The items of one session so far, by content, so that none repeats.
#[derive(Debug, Clone, Default)]
pub struct SessionItems {
    seen: HashSet<String>,
}

impl SessionItems {
    pub fn new() -> SessionItems {
        SessionItems::default()
    }

    /// Resumes a session from the items it already has.
    pub fn from_items<'a>(items: impl IntoIterator<Item = &'a Item>) -> SessionItems {
        SessionItems { seen: items.into_iter().map(|i| i.content_key.clone()).collect() }
    }

    pub fn generate(&mut self, blueprint: &Blueprint, seed: u64, target: Target) -> Result<Item, ItemError> {
        generate_unique(blueprint, seed, target, &mut self.seen)
    }

    /// Records an item made elsewhere (an inline item); false when its content was seen.
    pub fn insert(&mut self, item: &Item) -> bool {
        self.seen.insert(item.content_key.clone())
    }

    pub fn contains(&self, item: &Item) -> bool {
        self.seen.contains(&item.content_key)
    }

    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}
