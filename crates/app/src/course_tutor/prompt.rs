//! The prompt bundle of a turn (policy-tutor.md PF-3.6): the system rules, the POLICY, the
//! CONTEXT the backend retrieved (the model never retrieves), and the student's input with
//! the JSON contract.

use super::catalog::LoadedCourse;
use super::request::TurnRequest;
use pathwise_course::lite::{snapshot_lite_for_llm, RevisitLite, SnapshotLiteForLlm};
use pathwise_course::response::{LlmTutorResponse, MAX_DRILL_CHARS, MAX_KEY_IDEAS, MAX_TUTOR_TEXT};
use pathwise_course::{Action, ClientEvent, ExamAvailability, StudentSnapshot, Tier, TutorPolicy};
use pathwise_llm::{prompts, schema, Message, OutputSchema, Request};
use pathwise_retrieval::{AnchorHit, ChunkHit, Query, SupportHit};
use serde::Serialize;
use serde_json::{json, Value};

/// `CONTEXT`: what the model may draw on this turn.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TurnContext {
    pub unit_anchors: Vec<AnchorHit>,
    pub unit_content_chunks: Vec<ChunkHit>,
    /// Attemptable questions of the focus unit at the desired tier: metadata only.
    pub exam_candidates: Vec<ExamCandidate>,
    /// Memos of questions the learner has already passed (an open question's memo would
    /// give its answer away).
    pub exam_support_chunks: Vec<SupportHit>,
    #[serde(rename = "snapshotLiteForLLM")]
    pub snapshot_lite_for_llm: SnapshotLiteForLlm,
    pub client_event: ClientEvent,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExamCandidate {
    pub course_id: String,
    pub question_id: String,
    pub unit_ids: Vec<String>,
    pub difficulty_tier: Tier,
    pub tags: Vec<String>,
}

impl TurnContext {
    /// `hit` first among the content chunks (moved there if it was retrieved already), at
    /// most `k` of them.
    pub(crate) fn lead_with(&mut self, hit: ChunkHit, k: usize) {
        self.unit_content_chunks.retain(|c| !(c.passage_id == hit.passage_id && c.text == hit.text));
        self.unit_content_chunks.insert(0, hit);
        self.unit_content_chunks.truncate(k.max(1));
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn retrieve(
        loaded: &LoadedCourse,
        policy: &TutorPolicy,
        query: &Query<'_>,
        exam: &ExamAvailability,
        snapshot: &StudentSnapshot,
        revisit: &RevisitLite,
        event: &ClientEvent,
        support_k: usize,
        anchors_k: usize,
        chunks_k: usize,
    ) -> TurnContext {
        let course = &loaded.course;
        let scoped = &policy.scoped_unit_ids;
        let exam_candidates = exam
            .candidate_ids
            .iter()
            .filter_map(|id| course.question(id))
            .map(|q| ExamCandidate {
                course_id: course.id().to_string(),
                question_id: q.id.clone(),
                unit_ids: q.units.clone(),
                difficulty_tier: q.tier,
                tags: q.tags.clone(),
            })
            .collect();
        let passed: Vec<String> = snapshot
            .exam_touched
            .keys()
            .filter(|q| !snapshot.revisit_queue.contains_key(*q))
            .filter(|q| course.question(q).is_some_and(|q| q.units.iter().any(|u| scoped.contains(u))))
            .cloned()
            .collect();
        let exam_support_chunks =
            if passed.is_empty() { Vec::new() } else { loaded.index.exam_support_chunks(query, &passed, support_k) };
        TurnContext {
            unit_anchors: loaded.index.unit_anchors(query, scoped, anchors_k),
            unit_content_chunks: loaded.index.unit_content_chunks(query, scoped, chunks_k),
            exam_candidates,
            exam_support_chunks,
            snapshot_lite_for_llm: snapshot_lite_for_llm(snapshot, &policy.focus_unit_id, revisit),
            client_event: event.clone(),
        }
    }
}

/// About this many characters make a token of English text and JSON (the usual estimate;
/// exact counts depend on the model's tokenizer, which Pathwise does not have).
pub(crate) const CHARS_PER_TOKEN: usize = 4;

/// The prompt of [`build_prompt`], with the context cut down until the estimated tokens
/// of its messages fit `budget`: content chunks first (last ranked first), then passed
/// questions' memos, then anchors beyond the best one. What the policy and the schema need
/// (the policy, the exam candidates, the snapshot) is never cut.
pub(crate) fn build_prompt_within(
    tutor_name: &str,
    policy: &TutorPolicy,
    context: &TurnContext,
    request: &TurnRequest,
    budget: Option<usize>,
) -> Request {
    let mut prompt = build_prompt(tutor_name, policy, context, request);
    let Some(budget) = budget else { return prompt };
    // Only CONTEXT changes as it is cut; the rest (and the schemas, which read only the
    // policy and the exam candidates) is built once.
    let others: usize = prompt
        .messages
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != CONTEXT_MESSAGE)
        .map(|(_, m)| m.content.chars().count())
        .sum();
    let chunks = context.unit_content_chunks.len();
    let mut context = context.clone();
    loop {
        let chars = others + prompt.messages[CONTEXT_MESSAGE].content.chars().count();
        if chars / CHARS_PER_TOKEN <= budget {
            break;
        }
        // The best content chunk goes last, and on a course from someone's material never:
        // it is what a reply there must cite.
        let grounded = context.unit_content_chunks.first().is_some_and(|c| c.passage_id.is_some());
        let cut_one = (context.unit_content_chunks.len() > 1 && context.unit_content_chunks.pop().is_some())
            || context.exam_support_chunks.pop().is_some()
            || (context.unit_anchors.len() > 1 && context.unit_anchors.pop().is_some())
            || (!grounded && context.unit_content_chunks.pop().is_some());
        if !cut_one {
            break;
        }
        prompt.messages[CONTEXT_MESSAGE].content = context_message(&context);
    }
    if context.unit_content_chunks.len() < chunks {
        // The reply may cite only the passages the cut CONTEXT still has: a schema offering
        // the others let a model that decodes by it cite a passage it was never shown.
        let schema = response_schema(policy, &context);
        prompt.decoding_schema = Some(decoding_schema(policy, &schema));
        prompt.output = Some(OutputSchema { name: "tutor_turn".into(), schema });
    }
    prompt
}

/// The passage ids of the content chunks the prompt kept (cutting it to the budget may
/// have dropped some): what the reply may cite.
pub(crate) fn offered_passages(context: &TurnContext, prompt: &Request) -> Vec<String> {
    let sent = &prompt.messages[CONTEXT_MESSAGE].content;
    context
        .unit_content_chunks
        .iter()
        .filter_map(|c| c.passage_id.as_ref())
        .filter(|id| sent.contains(&format!("\"passageId\":\"{id}\"")))
        .cloned()
        .collect()
}

/// Where CONTEXT stands among a turn's messages (system rules, POLICY, CONTEXT, student).
const CONTEXT_MESSAGE: usize = 2;

fn context_message(context: &TurnContext) -> String {
    format!("CONTEXT: {}", serde_json::to_string(context).unwrap_or_default())
}

/// The four messages of a turn and the JSON Schema its reply must follow.
pub(crate) fn build_prompt(
    tutor_name: &str,
    policy: &TutorPolicy,
    context: &TurnContext,
    request: &TurnRequest,
) -> Request {
    let system = prompts::render("tutor_system", json!({ "tutor_name": tutor_name }));
    // Compact: pretty printing spent a fifth of a turn's prompt on whitespace, which a small
    // local model pays for in seconds.
    let policy_json = serde_json::to_string(policy).unwrap_or_default();
    let student = prompts::render(
        "tutor_student",
        json!({
            "message_text": request.message_text.as_deref().map(str::trim).filter(|s| !s.is_empty()),
            "message_latex": request.message_latex.as_deref().map(str::trim).filter(|s| !s.is_empty()),
            "voice_transcript": request.voice_transcript.as_deref().map(str::trim).filter(|s| !s.is_empty()),
        }),
    );
    let schema = response_schema(policy, context);
    Request {
        decoding_schema: Some(decoding_schema(policy, &schema)),
        output: Some(OutputSchema { name: "tutor_turn".into(), schema }),
        temperature: Some(0.3),
        max_tokens: Some(TURN_MAX_TOKENS),
        ..Request::new(vec![
            Message::system(system),
            Message::system(format!("POLICY: {policy_json}")),
            Message::system(context_message(context)),
            Message::user(student),
        ])
    }
}

/// A turn's reply at most: the longest tutor text (1,500 characters, about 400 tokens) with
/// a card beside it.
pub(crate) const TURN_MAX_TOKENS: u32 = 900;

/// `LlmTutorResponse`'s strict schema, derived once; each turn shapes a copy.
static REPLY_SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(schema::strict_schema::<LlmTutorResponse>);

/// `LlmTutorResponse` as a strict JSON Schema (derived from the type), shaped by this turn's policy: the actions it
/// allows and the units in scope are the only values allowed, a card the policy does not
/// allow can only be null, and an exam suggestion can only name a candidate at the desired
/// tier. A server that constrains decoding to the schema (llama.cpp, llama-cpp-python, vLLM,
/// OpenAI) then cannot produce a reply outside the policy, however small its model; the
/// validator still checks everything (cards that match the action, lengths, lockouts).
fn response_schema(policy: &TutorPolicy, context: &TurnContext) -> Value {
    let one_of = |values: Vec<&str>| json!({ "type": "string", "enum": values });
    let allows = |action: Action| policy.allowed_actions.contains(&action);
    let scoped: Vec<&str> = policy.scoped_unit_ids.iter().map(String::as_str).collect();
    let actions: Vec<&str> = policy.allowed_actions.iter().map(|a| a.name()).collect();
    let candidates: Vec<&str> = context.exam_candidates.iter().map(|c| c.question_id.as_str()).collect();
    let mut schema = REPLY_SCHEMA.clone();
    let p = &mut schema["properties"];
    p["mapped_units"]["items"]["properties"]["unit_id"] = one_of(scoped.clone());
    p["action"] = one_of(actions);
    p["target_unit_id"] = one_of(scoped);
    // The analysis is always written, in the words the validator knows.
    let mut analysis = p["turn_analysis"]["anyOf"][0].take();
    analysis["properties"]["student_intent"] = one_of(vec!["solve", "explain", "check", "stuck", "unknown"]);
    analysis["properties"]["understanding_signal"] = one_of(vec!["confident", "uncertain", "confused"]);
    p["turn_analysis"] = analysis;
    let null = json!({ "type": "null" });
    if !allows(Action::ConceptCard) {
        p["concept_card"] = null.clone();
    }
    if !allows(Action::DrillCard) {
        p["drill_card"] = null.clone();
    }
    // The passages it may cite are the content chunks it was given that have ids; on a
    // course drafted from someone's material (all of them have), it cites at least one.
    let passages: Vec<&str> = context.unit_content_chunks.iter().filter_map(|c| c.passage_id.as_deref()).collect();
    p["sources"] = if passages.is_empty() {
        json!({ "type": "array", "items": { "type": "string" }, "maxItems": 0 })
    } else {
        json!({ "type": "array", "items": one_of(passages), "minItems": 1, "maxItems": 3 })
    };
    if allows(Action::ExamBlock) && !candidates.is_empty() {
        let exam = &mut p["exam_suggestion"]["anyOf"][0]["properties"];
        exam["question_id"] = one_of(candidates);
        exam["difficultyTier"] = one_of(vec![policy.desired_exam_tier.name()]);
    } else {
        p["exam_suggestion"] = null;
    }
    schema
}

/// The reply's schema for a server that decodes by grammar: one alternative per allowed
/// action, each with exactly its own card (the others null), a tutor text of 1 to 600
/// characters (under [`MAX_TUTOR_TEXT`]: what bounds a small local model's turn in time is
/// the length it may write), 1 to [`MAX_KEY_IDEAS`] key ideas and a drill within
/// [`MAX_DRILL_CHARS`]. A model decoded by it can only break the rules the validator checks
/// against the learner's state (stuck, lockouts), not the reply's shape.
fn decoding_schema(policy: &TutorPolicy, flat: &Value) -> Value {
    let properties = &flat["properties"];
    let null = json!({ "type": "null" });
    let text = |max: usize| json!({ "type": "string", "minLength": 1, "maxLength": max });
    let alternatives: Vec<Value> = policy
        .allowed_actions
        .iter()
        .filter_map(|action| {
            let mut alternative = flat.clone();
            let p = &mut alternative["properties"];
            p["action"] = json!({ "const": action.name() });
            p["tutor_text"] = text(MAX_TUTOR_TEXT.min(600));
            for card in ["concept_card", "drill_card", "exam_suggestion"] {
                p[card] = null.clone();
            }
            match action {
                Action::SocraticQuestion => {}
                Action::ConceptCard => {
                    let mut card = properties["concept_card"]["anyOf"][0].clone();
                    card["properties"]["key_ideas"] =
                        json!({ "type": "array", "items": text(200), "minItems": 1, "maxItems": MAX_KEY_IDEAS });
                    p["concept_card"] = card;
                }
                Action::DrillCard => {
                    let mut card = properties["drill_card"]["anyOf"][0].clone();
                    card["properties"]["prompt"] = text(MAX_DRILL_CHARS / 2);
                    card["properties"]["question_latex"] =
                        json!({ "type": "string", "maxLength": MAX_DRILL_CHARS / 2 });
                    p["drill_card"] = card;
                }
                Action::ExamBlock => p["exam_suggestion"] = properties["exam_suggestion"]["anyOf"][0].clone(),
            }
            // An action whose card the flat schema could only leave null cannot be chosen.
            let card_possible = match action {
                Action::SocraticQuestion => true,
                Action::ConceptCard => properties["concept_card"].get("anyOf").is_some(),
                Action::DrillCard => properties["drill_card"].get("anyOf").is_some(),
                Action::ExamBlock => properties["exam_suggestion"].get("anyOf").is_some(),
            };
            card_possible.then_some(alternative)
        })
        .collect();
    json!({ "anyOf": alternatives })
}
