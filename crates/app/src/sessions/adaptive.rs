//! Adaptive evaluations (13.6): after each answer the ability is estimated (EAP) from the
//! items answered so far, and the next item is the unused candidate the blueprint's
//! selection rule ranks best at that estimate (by default the IRT engine's default rule),
//! until the standard error or the length says stop. An item's IRT parameters come from
//! its generation (computed difficulty), not calibration.

use super::bank::{regenerate, BankItem};
use super::config::EvaluationConfig;
use super::state::EvaluationState;
use crate::{AppError, AppResult};
use pathwise_irt::{Cat, CatSettings, ItemBank, ItemParams, Selection, StopRules};
use pathwise_items::{AdaptiveSelection, Library};
use rand::SeedableRng;
use serde_json::{json, Value};

struct Adaptive {
    items: Vec<BankItem>,
    bank: ItemBank,
    settings: CatSettings,
    stop: StopRules,
}

fn load(lib: &Library, config: &EvaluationConfig, state: &EvaluationState) -> AppResult<Adaptive> {
    let items = state.candidates.iter().map(|id| regenerate(lib, id)).collect::<AppResult<Vec<_>>>()?;
    let params = items
        .iter()
        .map(|i| ItemParams::new(i.irt.a, i.irt.b, i.irt.c, i.irt.d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| AppError::internal(format!("a generated item has unusable IRT parameters: {e}")))?;
    let bank = ItemBank::new(params).map_err(|e| AppError::internal(e.to_string()))?;
    let adaptive = adaptive_settings(lib, config);
    let settings = CatSettings {
        randomesque: adaptive.randomesque.max(1),
        selection: adaptive.selection,
        ..CatSettings::default()
    };
    let stop =
        StopRules { se_target: adaptive.se_target, min_items: adaptive.min_items, max_items: Some(adaptive.max_items) };
    Ok(Adaptive { items, bank, settings, stop })
}

fn replay<'a>(adaptive: &'a Adaptive, state: &EvaluationState) -> AppResult<Cat<'a>> {
    let mut cat =
        Cat::new(&adaptive.bank, adaptive.settings, adaptive.stop).map_err(|e| AppError::internal(e.to_string()))?;
    for result in &state.results {
        let index = state
            .candidates
            .iter()
            .position(|id| *id == result.item_id)
            .ok_or_else(|| AppError::internal(format!("answered item {} is not a candidate", result.item_id)))?;
        cat.record(index, result.correct).map_err(|e| AppError::internal(e.to_string()))?;
    }
    Ok(cat)
}

pub(crate) fn next(
    lib: &Library,
    config: &EvaluationConfig,
    state: &EvaluationState,
    seed: u64,
) -> AppResult<Option<BankItem>> {
    let adaptive = load(lib, config, state)?;
    let cat = replay(&adaptive, state)?;
    if cat.should_stop().is_some() {
        return Ok(None);
    }
    // Randomesque exposure control draws from the session's seed, so a replayed step
    // picks the same item.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ (state.results.len() as u64).wrapping_mul(0x9E37_79B9));
    Ok(cat.next_item(&mut rng).map(|index| adaptive.items[index].clone()))
}

pub(crate) fn ability(lib: &Library, config: &EvaluationConfig, state: &EvaluationState) -> AppResult<Value> {
    let adaptive = load(lib, config, state)?;
    let cat = replay(&adaptive, state)?;
    let estimate = cat.estimate();
    Ok(json!({ "theta": estimate.theta, "se": estimate.se, "items": state.results.len(), "stop": cat.should_stop() }))
}

/// How an adaptive evaluation selects and stops.
pub(crate) struct AdaptiveRules {
    pub max_items: usize,
    pub min_items: usize,
    pub se_target: Option<f64>,
    pub randomesque: usize,
    pub selection: Selection,
}

pub(crate) fn adaptive_settings(lib: &Library, config: &EvaluationConfig) -> AdaptiveRules {
    let adaptive = config.blueprint_id.as_deref().and_then(|id| lib.assessment(id)).and_then(|a| a.adaptive());
    let mut rules = match adaptive {
        Some(a) => AdaptiveRules {
            max_items: a.max_items,
            min_items: a.min_items,
            se_target: Some(a.se_target),
            randomesque: a.randomesque,
            selection: a.selection.map_or_else(Selection::default, engine_rule),
        },
        None => AdaptiveRules {
            max_items: 30,
            min_items: 5,
            se_target: Some(0.3),
            randomesque: 1,
            selection: Selection::default(),
        },
    };
    if let Some(max) = config.max_items {
        rules.max_items = max as usize;
    }
    rules.min_items = rules.min_items.min(rules.max_items);
    rules
}

/// The engine's rule a blueprint names: one for one, so that a rule added to either side
/// fails to compile here until the other has it.
fn engine_rule(rule: AdaptiveSelection) -> Selection {
    match rule {
        AdaptiveSelection::MaxInfo => Selection::MaxInfo,
        AdaptiveSelection::PosteriorWeightedInfo => Selection::PosteriorWeightedInfo,
        AdaptiveSelection::Kl => Selection::Kl,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blueprint_names_every_selection_rule_of_the_engine() {
        for rule in Selection::ALL {
            let settings: pathwise_items::AdaptiveSettings =
                serde_json::from_value(json!({ "selection": rule.name() })).unwrap();
            let named = settings.selection.expect("the blueprint accepts the engine's rule name");
            assert_eq!(engine_rule(named), rule, "the same name means the same rule");
        }
    }
}
