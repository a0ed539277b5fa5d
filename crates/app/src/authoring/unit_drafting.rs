//! A draft's units written by the configured language model: one call per unit with its
//! passages under short keys, the proposal checked (`pathwise_course::proposal`), a refused
//! proposal explained to the model once, and a unit whose second proposal is refused too
//! drafted from its material instead. What it will cost is estimated before it is asked
//! for, from the prompts themselves.

use crate::{App, AppResult};
use pathwise_course::draft::{CourseDraft, DraftUnit, Passage};
use pathwise_course::proposal::{checked_proposal, passage_key, UnitProposal};
use pathwise_domain::{LearnerId, SourceChunkId};
use pathwise_llm::{prompts, schema, Message, Request, Session};
use pathwise_store::Store;
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;

/// About this many characters make a token (the usual estimate for English and JSON).
const CHARS_PER_TOKEN: usize = 4;
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

impl<S: Store> App<S> {
    /// The model's questions and drills for each unit named by `chosen`, in place; a unit
    /// whose proposals are refused twice keeps `offline`'s.
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
            let by = if refused.is_none() { "model" } else { "material" };
            report.push(UnitDrafted { unit_id: unit.id.clone(), by: by.into(), refused });
        }
        self.record_llm_session(learner, "author_draft_units", &session).await?;
        Ok(report)
    }
}

/// The model's proposal for `unit`, checked; refused once with its problems, then given up.
async fn propose(session: &Session, title: &str, unit: &DraftUnit, shown: &[&Passage]) -> Result<DraftUnit, String> {
    let mut messages = vec![
        Message::system(unit_prompt(title, unit, shown)),
        Message::user("Write the unit's questions and drills now."),
    ];
    let mut last_problem = String::new();
    for attempt in 0..2 {
        let request = Request {
            output: Some(schema::output_schema::<UnitProposal>("unit_proposal")),
            decoding_schema: Some(schema::decoding_schema::<UnitProposal>()),
            temperature: Some(0.2),
            max_tokens: Some(MAX_REPLY_TOKENS),
            ..Request::new(messages.clone())
        };
        let problems = match session.structured::<UnitProposal>(&request).await {
            Ok((proposal, reply)) => match checked_proposal(unit, shown, &proposal) {
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
                "That proposal was refused: {last_problem}. Write the whole unit again, keeping every rule."
            )));
        }
    }
    Err(format!("the model's proposal was refused twice: {last_problem}"))
}
