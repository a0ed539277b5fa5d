//! What a learner asks for when creating a session (`POST /session/`), per session type,
//! checked before anything is written.

use crate::{AppError, AppResult};
use pathwise_domain::session::survey::SurveyDefinition;
use pathwise_domain::{MindMapId, SessionId, SessionType};
use pathwise_items::InlineItem;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub const MAX_ITEMS_LIMIT: u32 = 200;
pub const MAX_TIME_LIMIT_MINUTES: u32 = 24 * 60;
pub const MAX_INLINE_ITEMS: usize = 200;
const MAX_TITLE_CHARS: usize = 200;

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// `thought`, `learning`, `evaluation` or `survey`.
    pub session_type: SessionType,
    #[serde(default)]
    #[schema(max_length = 200)]
    pub title: Option<String>,
    /// Per type: see [`EvaluationConfig`], [`SurveyConfig`], [`LearningConfig`], [`ThoughtConfig`].
    #[serde(default)]
    #[schema(value_type = Object)]
    pub config: Value,
}

/// An evaluation: an assessment blueprint from the item library (D4 option B), inline
/// items (option A), or what was missed in an earlier evaluation.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvaluationConfig {
    /// An assessment blueprint of the item library, e.g. `MATH-ARITH-QUIZ-10`.
    #[serde(default)]
    pub blueprint_id: Option<String>,
    /// The item bank the blueprint draws on; Pathwise generates items from the library's
    /// skill blueprints, so this may only name `library` (or be left out).
    #[serde(default)]
    pub item_bank_id: Option<String>,
    /// Items given inline, presented in this order.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub items: Option<Vec<InlineItem>>,
    /// "Practise what you missed": the id of a finished evaluation of yours. Each item it
    /// scored wrong or partly right comes back, as a fresh item of the same skill and about
    /// the same difficulty (an inline item as it was). Instead of `blueprint_id` or `items`.
    #[serde(default)]
    pub missed_in: Option<SessionId>,
    /// Stop after this many items (default: the blueprint's count, or every inline or
    /// missed item).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 200)]
    pub max_items: Option<u32>,
    /// Enforced by the server from the first stream (default: the blueprint's limit; none
    /// for inline or missed items).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1440)]
    pub time_limit_minutes: Option<u32>,
    /// Fixes the generated form (for reproducing a session); random otherwise.
    #[serde(default)]
    pub seed: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurveyConfig {
    pub survey: SurveyDefinition,
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1440)]
    pub time_limit_minutes: Option<u32>,
}

/// A learning session over a mind map: the backend picks the concept from mastery and an
/// item template (a skill blueprint) for it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearningConfig {
    pub map_id: MindMapId,
    /// Concept (node label or id) to the skill blueprints that practise it.
    pub item_templates: BTreeMap<String, Vec<String>>,
    /// Stop after this many items (default 10).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 200)]
    pub max_items: Option<u32>,
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1440)]
    pub time_limit_minutes: Option<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThoughtConfig {
    /// What the conversation is about, if anything.
    #[serde(default)]
    pub topic: Option<String>,
    /// Turns kept word for word; older ones are summarized (default 10).
    #[serde(default)]
    #[schema(minimum = 2, maximum = 50)]
    pub window_turns: Option<u32>,
    /// End after this many learner turns (default: no limit).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 200)]
    pub max_turns: Option<u32>,
}

/// A session's configuration, parsed for its type.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "session_type", rename_all = "snake_case")]
pub enum SessionConfig {
    Thought(ThoughtConfig),
    Learning(LearningConfig),
    Evaluation(EvaluationConfig),
    Survey(SurveyConfig),
}

impl SessionConfig {
    pub fn parse(session_type: SessionType, config: &Value) -> AppResult<SessionConfig> {
        let config = if config.is_null() { Value::Object(Default::default()) } else { config.clone() };
        fn typed<T: serde::de::DeserializeOwned>(value: Value) -> AppResult<T> {
            serde_path_to_error::deserialize(value.clone())
                .or_else(|e| {
                    // A whole float where an integer goes (`10.0`) is that integer, as in
                    // every other body (`parse_json`).
                    if e.inner().is_data() {
                        crate::maps::curriculum::parse_with_whole_floats(value).ok_or(e)
                    } else {
                        Err(e)
                    }
                })
                .map_err(|e| {
                    let path = e.path().to_string();
                    let field = if path == "." { "config".to_string() } else { format!("config.{path}") };
                    AppError::invalid(&field, e.inner())
                })
        }
        let parsed = match session_type {
            SessionType::Thought => SessionConfig::Thought(typed(config)?),
            SessionType::Learning => SessionConfig::Learning(typed(config)?),
            SessionType::Evaluation => SessionConfig::Evaluation(typed(config)?),
            SessionType::Survey => SessionConfig::Survey(typed(config)?),
        };
        parsed.validate()?;
        Ok(parsed)
    }

    /// The configuration as stored with the session: the type's own fields, untagged.
    pub fn to_stored(&self) -> AppResult<Value> {
        let mut value = serde_json::to_value(self).map_err(|e| AppError::internal(e.to_string()))?;
        if let Some(object) = value.as_object_mut() {
            object.remove("session_type");
        }
        Ok(value)
    }

    fn validate(&self) -> AppResult<()> {
        let (max_items, minutes) = match self {
            SessionConfig::Thought(c) => (c.max_turns, None),
            SessionConfig::Learning(c) => (c.max_items, c.time_limit_minutes),
            SessionConfig::Evaluation(c) => (c.max_items, c.time_limit_minutes),
            SessionConfig::Survey(c) => (None, c.time_limit_minutes),
        };
        if let Some(n) = max_items.filter(|n| !(1..=MAX_ITEMS_LIMIT).contains(n)) {
            return Err(AppError::invalid(
                "config.max_items",
                format!("{n} is out of range; allowed: 1-{MAX_ITEMS_LIMIT}"),
            ));
        }
        if let Some(m) = minutes.filter(|m| !(1..=MAX_TIME_LIMIT_MINUTES).contains(m)) {
            return Err(AppError::invalid(
                "config.time_limit_minutes",
                format!("{m} is out of range; allowed: 1-{MAX_TIME_LIMIT_MINUTES}"),
            ));
        }
        match self {
            SessionConfig::Evaluation(c) => {
                match (&c.blueprint_id, &c.items, &c.missed_in) {
                    (None, None, None) => {
                        return Err(AppError::invalid(
                            "config",
                            "an evaluation needs blueprint_id (an assessment of the item library), inline items, \
                             or missed_in (an earlier evaluation whose missed items to practise)",
                        ))
                    }
                    (Some(_), Some(_), _) | (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
                        return Err(AppError::invalid(
                            "config",
                            "give one of blueprint_id, items and missed_in, not several",
                        ))
                    }
                    (None, Some(items), None) if items.is_empty() || items.len() > MAX_INLINE_ITEMS => {
                        return Err(AppError::invalid(
                            "config.items",
                            format!("{} items given; allowed: 1-{MAX_INLINE_ITEMS}", items.len()),
                        ))
                    }
                    _ => {}
                }
                if let Some(bank) = c.item_bank_id.as_deref().filter(|b| *b != "library") {
                    return Err(AppError::invalid(
                        "config.item_bank_id",
                        format!("'{bank}' is not an item bank; items are generated from the item library ('library')"),
                    ));
                }
                Ok(())
            }
            SessionConfig::Survey(c) => Ok(c.survey.validate()?),
            SessionConfig::Learning(c) => {
                if c.item_templates.is_empty() {
                    return Err(AppError::invalid(
                        "config.item_templates",
                        "name at least one concept with the skill blueprints that practise it",
                    ));
                }
                Ok(())
            }
            SessionConfig::Thought(c) => {
                if let Some(w) = c.window_turns.filter(|w| !(2..=50).contains(w)) {
                    return Err(AppError::invalid(
                        "config.window_turns",
                        format!("{w} is out of range; allowed: 2-50"),
                    ));
                }
                Ok(())
            }
        }
    }
}

/// A title of at most 200 characters; the type's name when none is given.
pub fn title(given: Option<&str>, session_type: SessionType) -> AppResult<String> {
    match given.map(str::trim) {
        None | Some("") => Ok(format!("{} session", session_type)),
        Some(t) if t.chars().count() > MAX_TITLE_CHARS => {
            Err(AppError::invalid("title", format!("is longer than {MAX_TITLE_CHARS} characters")))
        }
        Some(t) => Ok(t.to_string()),
    }
}
