//! Where a session's items come from: the item library's blueprints (generated, with
//! computed answers), or items given inline; how an item is shown (never its key), scored
//! (`scoring.rs`: exactly, or by running code in the sandbox) and, for adaptive
//! evaluations, selected (`adaptive.rs`).

use super::config::EvaluationConfig;
use crate::{AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::session::widgets::ClientAction;
use pathwise_items::{InlineItem, Item, ItemType, Library, Selection};

fn assessment_ids(lib: &Library) -> String {
    lib.assessments().map(|a| a.id().to_string()).collect::<Vec<_>>().join(", ")
}

fn skill_ids(lib: &Library) -> String {
    lib.skills().map(|s| s.id().to_string()).collect::<Vec<_>>().join(", ")
}
use serde_json::Value;
use std::sync::{Arc, LazyLock};

pub(crate) type BankItem = Item;

/// An answer scored.
pub(crate) struct Scored {
    pub correct: bool,
    pub credit: f64,
    pub expected: String,
    pub detail: Value,
}

/// The library shipped with Pathwise, parsed once per process.
static BUILTIN: LazyLock<Arc<Library>> = LazyLock::new(|| Arc::new(Library::builtin()));

pub(crate) fn builtin_library() -> Arc<Library> {
    BUILTIN.clone()
}

/// Candidates generated per skill blueprint for an adaptive evaluation.
const CANDIDATES_PER_BLUEPRINT: usize = 24;
const INLINE_PREFIX: &str = "inline-";

pub(crate) struct Plan {
    pub form: Vec<String>,
    pub candidates: Vec<String>,
    pub max_items: u32,
}

fn items_error(field: &str, error: impl std::fmt::Display) -> AppError {
    AppError::invalid(field, error)
}

pub(crate) fn plan_evaluation(lib: &Library, config: &EvaluationConfig, seed: u64) -> AppResult<Plan> {
    if let Some(items) = &config.items {
        for (i, inline) in items.iter().enumerate() {
            inline.to_item().map_err(|e| items_error(&format!("config.items[{i}]"), e))?;
        }
        let form: Vec<String> = (0..items.len()).map(inline_id).collect();
        let max_items = form.len() as u32;
        return Ok(Plan { form, candidates: Vec::new(), max_items });
    }
    let id = config.blueprint_id.as_deref().unwrap_or_default();
    let assessment = lib.assessment(id).ok_or_else(|| {
        AppError::absent(
            "config.blueprint_id",
            format!("'{id}' is not an assessment of the item library; known: {}", assessment_ids(lib)),
        )
    })?;
    let total = assessment.total_items() as u32;
    match assessment.selection() {
        Selection::Adaptive => {
            let candidates = lib
                .adaptive_candidates(id, seed, CANDIDATES_PER_BLUEPRINT)
                .map_err(|e| items_error("config.blueprint_id", e))?;
            let max_items = assessment.adaptive().map(|a| a.max_items as u32).unwrap_or(total);
            Ok(Plan { form: Vec::new(), candidates: candidates.iter().map(|i| i.id.clone()).collect(), max_items })
        }
        _ => {
            let form = lib.plan_form(id, seed).map_err(|e| items_error("config.blueprint_id", e))?;
            Ok(Plan { form: form.iter().map(|i| i.id.clone()).collect(), candidates: Vec::new(), max_items: total })
        }
    }
}

/// The id of an evaluation's inline item by its place in the configuration, and back.
pub(crate) fn inline_id(index: usize) -> String {
    format!("{INLINE_PREFIX}{index}")
}

pub(crate) fn inline_index(id: &str) -> Option<usize> {
    id.strip_prefix(INLINE_PREFIX)?.parse().ok()
}

pub(crate) fn blueprint_time_limit(lib: &Library, config: &EvaluationConfig) -> Option<u32> {
    let assessment = lib.assessment(config.blueprint_id.as_deref()?)?;
    Some(assessment.time_limit_minutes()).filter(|m| *m > 0)
}

pub(crate) fn check_skill(lib: &Library, skill: &str) -> AppResult<()> {
    if lib.skill(skill).is_some() {
        Ok(())
    } else {
        Err(AppError::invalid(
            "skill",
            format!("'{skill}' is not a skill blueprint of the item library; known: {}", skill_ids(lib)),
        ))
    }
}

/// An item of this evaluation by id: inline ones from the configuration, generated ones
/// regenerated from their id (which holds blueprint, seed and difficulty).
pub(crate) fn resolve(lib: &Library, config: &EvaluationConfig, id: &str) -> AppResult<BankItem> {
    if let Some(index) = inline_index(id) {
        let inline: &InlineItem = config
            .items
            .as_ref()
            .and_then(|items| items.get(index))
            .ok_or_else(|| AppError::internal(format!("inline item {id} is missing")))?;
        let mut item = inline.to_item().map_err(|e| AppError::internal(e.to_string()))?;
        item.id = id.to_string();
        return Ok(item);
    }
    regenerate(lib, id)
}

pub(crate) fn regenerate(lib: &Library, id: &str) -> AppResult<BankItem> {
    lib.regenerate(id).map_err(|e| AppError::internal(format!("item {id} cannot be regenerated: {e}")))
}

pub(crate) fn generate_unique(
    lib: &Library,
    skill: &str,
    seed: u64,
    salt: u64,
    difficulty: f64,
    seen: &[String],
) -> AppResult<BankItem> {
    let blueprint = lib.skill(skill).ok_or_else(|| AppError::internal(format!("skill {skill} vanished")))?;
    let mut taken: std::collections::HashSet<String> = seen.iter().cloned().collect();
    let seed = seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let target = pathwise_items::Target::difficulty(difficulty).map_err(|e| AppError::internal(e.to_string()))?;
    pathwise_items::generate_unique(blueprint, seed, target, &mut taken)
        .map_err(|e| AppError::new(ErrorKind::Conflict, ErrorCode::ItemsExhausted, e.to_string()))
}

/// What the learner (and any presenter) sees of an item: no key, no expected outputs, and
/// the opaque id it is shown under rather than its own.
pub(crate) fn presented(item: &BankItem, shown_id: &str) -> Value {
    let mut presented = item.presented();
    presented.item_id = shown_id.to_string();
    serde_json::to_value(presented).unwrap_or(Value::Null)
}

pub(crate) fn stem(item: &BankItem) -> String {
    item.stem.clone()
}

pub(crate) fn content_key(item: &BankItem) -> String {
    item.content_key.clone()
}

/// The widget that presents an item verbatim.
pub(crate) fn action(item: &BankItem) -> AppResult<ClientAction> {
    let action = match item.item_type {
        ItemType::MultipleChoice => {
            ClientAction::PresentChoices { prompt: item.stem.clone(), options: item.options.clone(), optional: false }
        }
        ItemType::FreeText => {
            ClientAction::RequestFreeText { prompt: item.stem.clone(), placeholder: None, optional: false }
        }
        ItemType::CodeEditor => {
            let task =
                item.code.as_ref().ok_or_else(|| AppError::internal(format!("code item {} has no task", item.id)))?;
            ClientAction::PresentCodeEditor {
                prompt: item.stem.clone(),
                language: task.language.clone(),
                starter_code: task.starter_code.clone(),
            }
        }
    };
    action.validate()?;
    Ok(action)
}
