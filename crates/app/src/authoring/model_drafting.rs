//! A draft written with the configured language model. The outline: the headings' sections
//! shown under short keys, grouped into units and ordered by the model. The units: one call
//! per unit with its passages under short keys. Every proposal is checked
//! (`pathwise_course::proposal`), a refused one explained to the model once, and what is
//! refused twice is drafted without the model instead (the headings' outline, the unit's
//! questions from its material). What drafting units costs is estimated beforehand, from
//! the prompts themselves.

use crate::course_tutor::prompt::CHARS_PER_TOKEN;
use crate::StoreHandle;
use crate::{App, AppResult};
use pathwise_course::draft::{CourseDraft, DraftUnit, Passage};
use pathwise_course::proposal::{
    checked_outline, checked_proposal, passage_key, section_key, OutlineProposal, UnitProposal,
};
use pathwise_domain::{LearnerId, SourceChunkId};
use pathwise_llm::{prompts, schema, Message, Request, Session};
use pathwise_store::{MapStore, UsageStore};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The longest reply a unit's proposal may be: three questions and three drills.
const MAX_REPLY_TOKENS: u32 = 1_200;

/// What drafting units with the model will take: a call per unit, a second for each unit
/// whose first proposal is refused.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct ModelEstimate {
    /// The units it drafts: those without questions or drills yet.
    pub units: usize,
    /// Calls if every first proposal is kept; at most twice as many.
    pub calls: usize,
    pub prompt_tokens: usize,
    /// The most the replies can take.
    pub max_completion_tokens: usize,
}

/// How the outline was drafted.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct OutlineDrafted {
    /// `model`, or `headings` (the model's proposals were refused).
    pub by: String,
    /// Why the model's proposal was not kept, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// The most sections the model is asked to outline in one call.
const MAX_OUTLINE_SECTIONS: usize = 200;

/// How one unit was drafted.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct UnitDrafted {
    pub unit_id: String,
    /// `model`, or `material` (without a model, or after the model's proposals were refused).
    pub by: String,
    /// Why the model's proposal was not kept, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// The unit's prompt: its passages under their keys.
fn unit_prompt(course_title: &str, unit: &DraftUnit, passages: &[&Passage]) -> String {
    let shown: Vec<_> = passages
        .iter()
        .enumerate()
        .map(|(i, p)| json!({ "key": passage_key(i), "citation": p.citation(), "text": p.text }))
        .collect();
    prompts::render("author_unit", json!({ "course_title": course_title, "unit_title": unit.title, "passages": shown }))
}

fn unit_passages<'a>(unit: &DraftUnit, passages: &'a HashMap<SourceChunkId, Passage>) -> Vec<&'a Passage> {
    unit.chunks.iter().filter_map(|c| passages.get(c)).collect()
}

/// The estimate for drafting `chosen` units of `draft` (those with material).
pub(crate) fn estimate(
    draft: &CourseDraft,
    passages: &HashMap<SourceChunkId, Passage>,
    chosen: impl Fn(&DraftUnit) -> bool,
) -> ModelEstimate {
    let schema_chars = serde_json::to_string(&schema::strict_schema::<UnitProposal>()).map_or(0, |s| s.len());
    let mut estimate = ModelEstimate { units: 0, calls: 0, prompt_tokens: 0, max_completion_tokens: 0 };
    for unit in draft.units.iter().filter(|u| chosen(u)) {
        let shown = unit_passages(unit, passages);
        if shown.is_empty() {
            continue;
        }
        estimate.units += 1;
        estimate.calls += 1;
        estimate.prompt_tokens +=
            (unit_prompt(&draft.title, unit, &shown).chars().count() + schema_chars) / CHARS_PER_TOKEN;
        estimate.max_completion_tokens += MAX_REPLY_TOKENS as usize;
    }
    estimate
}

impl<S: StoreHandle + MapStore + UsageStore> App<S> {
    /// The model's outline of `draft` (the headings' outline) in its place, when it keeps
    /// every rule within two tries.
    pub(crate) async fn outline_with_model(
        &self,
        learner: LearnerId,
        draft: &mut CourseDraft,
    ) -> AppResult<OutlineDrafted> {
        if draft.units.len() > MAX_OUTLINE_SECTIONS {
            return Err(crate::AppError::invalid(
                "use_model",
                format!(
                    "the documents have {} sections; a model outlines at most {MAX_OUTLINE_SECTIONS} at once: draft \
                     from the headings, or from fewer documents",
                    draft.units.len()
                ),
            ));
        }
        let session = self.llm.session("outlining a course with a model").await?;
        let sections: Vec<_> = draft
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| json!({ "key": section_key(i), "title": u.title, "anchor": u.anchor }))
            .collect();
        let prompt = prompts::render("author_outline", json!({ "course_title": draft.title, "sections": sections }));
        let headings = draft.clone();
        // Only the sections' keys, each unit at most once per section: a server that decodes
        // by grammar cannot write another key.
        let keys: Vec<String> = (0..draft.units.len()).map(section_key).collect();
        let shape = |schema: &mut Value| {
            restrict(schema, "sections", &|p| p["items"] = json!({ "type": "string", "enum": keys }));
            restrict(schema, "units", &|p| p["maxItems"] = json!(keys.len()));
        };
        let ask =
            // A small model spends many tokens on whitespace: room for about 60 a section.
            Ask { prompt, ask: "Outline the course now.", shape: &shape, max_tokens: (200 + 60 * keys.len() as u32).min(8_000) };
        let outcome = ask_twice::<OutlineProposal, CourseDraft>(&session, ask, |p| checked_outline(&headings, p)).await;
        self.record_llm_session(learner, "author_draft_outline", &session).await?;
        Ok(match outcome {
            Ok(outlined) => {
                *draft = outlined;
                OutlineDrafted { by: "model".into(), refused: None }
            }
            Err(why) => OutlineDrafted { by: "headings".into(), refused: Some(why) },
        })
    }

    /// The model's questions and drills for each unit named by `chosen`, in place; a unit
    /// whose proposals are refused twice keeps `offline`'s. Its blueprints are `offline`'s.
    pub(crate) async fn draft_units_with_model(
        &self,
        learner: LearnerId,
        draft: &mut CourseDraft,
        offline: &CourseDraft,
        passages: &HashMap<SourceChunkId, Passage>,
        chosen: &[String],
    ) -> AppResult<Vec<UnitDrafted>> {
        let session = self.llm.session("drafting a course's questions with a model").await?;
        let mut report = Vec::new();
        let title = draft.title.clone();
        for (unit, drafted_offline) in draft.units.iter_mut().zip(&offline.units) {
            if !chosen.contains(&unit.id) {
                continue;
            }
            let shown = unit_passages(unit, passages);
            let refused = if shown.is_empty() {
                Some("the unit has no material".to_string())
            } else {
                match propose(&session, &title, unit, &shown).await {
                    Ok(made) => {
                        *unit = made;
                        None
                    }
                    Err(why) => Some(why),
                }
            };
            if refused.is_some() {
                unit.questions = drafted_offline.questions.clone();
                unit.drills = drafted_offline.drills.clone();
            }
            // Blueprints are found by checking the material's computations, not written.
            unit.blueprints = drafted_offline.blueprints.clone();
            let by = if refused.is_none() { "model" } else { "material" };
            report.push(UnitDrafted { unit_id: unit.id.clone(), by: by.into(), refused });
        }
        self.record_llm_session(learner, "author_draft_units", &session).await?;
        Ok(report)
    }
}

/// The model's proposal for `unit`, checked; refused once with its problems, then given up.
async fn propose(session: &Session, title: &str, unit: &DraftUnit, shown: &[&Passage]) -> Result<DraftUnit, String> {
    let keys: Vec<String> = (0..shown.len()).map(passage_key).collect();
    let shape = |schema: &mut Value| {
        restrict(schema, "passage", &|p| *p = json!({ "type": "string", "enum": keys }));
        restrict(schema, "tier", &|p| *p = json!({ "type": "string", "enum": ["bronze", "silver", "gold"] }));
    };
    let ask = Ask {
        prompt: unit_prompt(title, unit, shown),
        ask: "Write the unit's questions and drills now.",
        shape: &shape,
        max_tokens: MAX_REPLY_TOKENS,
    };
    ask_twice::<UnitProposal, DraftUnit>(session, ask, |p| checked_proposal(unit, shown, p)).await
}

/// What to ask the model for: the prompt, the request that ends it, how this request's
/// schema narrows the type's (the keys it may use), and the longest reply.
struct Ask<'a> {
    prompt: String,
    ask: &'a str,
    shape: &'a (dyn Fn(&mut Value) + Sync),
    max_tokens: u32,
}

/// Every property named `name` anywhere in `schema`, changed by `change`.
fn restrict(schema: &mut Value, name: &str, change: &dyn Fn(&mut Value)) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                if let Some(property) = properties.get_mut(name) {
                    change(property);
                }
            }
            map.values_mut().for_each(|v| restrict(v, name, change));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| restrict(v, name, change)),
        _ => {}
    }
}

/// A proposal of type `P` that `check` accepts: asked for, and when refused (a reply that
/// is not the JSON asked for, or any problem `check` names) asked for once more with the
/// reasons. The reasons of the last refusal, when both are refused.
async fn ask_twice<P, T>(
    session: &Session,
    ask: Ask<'_>,
    check: impl Fn(&P) -> Result<T, Vec<String>>,
) -> Result<T, String>
where
    P: DeserializeOwned + schemars::JsonSchema,
{
    let mut output = schema::output_schema::<P>("proposal");
    (ask.shape)(&mut output.schema);
    let mut decoding = schema::decoding_schema::<P>();
    (ask.shape)(&mut decoding);
    let mut messages = vec![Message::system(ask.prompt), Message::user(ask.ask)];
    let mut last_problem = String::new();
    for attempt in 0..2 {
        let request = Request {
            output: Some(output.clone()),
            decoding_schema: Some(decoding.clone()),
            temperature: Some(0.2),
            max_tokens: Some(ask.max_tokens),
            ..Request::new(messages.clone())
        };
        let problems = match session.structured::<P>(&request).await {
            Ok((proposal, reply)) => match check(&proposal) {
                Ok(made) => return Ok(made),
                Err(problems) => {
                    messages.push(Message::assistant(&reply));
                    problems
                }
            },
            Err(e) => vec![e.to_string()],
        };
        last_problem = problems.join("; ");
        if attempt == 0 {
            messages.push(Message::user(format!(
                "That proposal was refused: {last_problem}. Write it again whole, keeping every rule."
            )));
        }
    }
    Err(format!("the model's proposal was refused twice: {last_problem}"))
}
