//! What the tutor asks the language model for, and the checks its answers go through:
//! a diagnostic's concept inventory, questions (with their computed keys), grades of
//! free-text answers, explanations. The model proposes; these checks and the domain's
//! rules decide. A reply that fails them is a 502 that says what was wrong.

use crate::{AppError, AppResult, ErrorKind};
use pathwise_domain::edit::{MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS};
use pathwise_domain::flow::InventoryConcept;
use pathwise_domain::question::{Question, QuestionKind, MAX_CHOICES, MIN_CHOICES};
use pathwise_domain::DomainError;
use pathwise_llm::{prompts, Message, OutputSchema, Request, Session};
use serde::Deserialize;
use serde_json::{json, Value};

/// A diagnostic inventory spans the topic in this many concepts (D4: 10-15; fewer are
/// accepted for narrow topics, as long as a search has room to move).
pub const MIN_INVENTORY: usize = 5;
pub const MAX_INVENTORY: usize = 15;
/// Explanations stay short: one concept per session.
const MAX_EXPLANATION_WORDS: usize = 350;
/// Upper bounds on what the model may write, so a runaway reply cannot bloat the state.
const MAX_TEXT_CHARS: usize = 4_000;

/// A model's reply that parsed but broke the rules; logged for the operator like a failed
/// call, with the reason code `invalid_reply`.
pub(crate) fn invalid_reply(message: impl Into<String>) -> AppError {
    let message = message.into();
    tracing::warn!(reason = "invalid_reply", %message, "a language model's reply broke the rules");
    AppError::new(ErrorKind::Upstream, "llm_invalid_reply", message).with_details(json!({ "reason": "invalid_reply" }))
}

fn structured_request(prompt: String, ask: &str, name: &str, schema: Value) -> Request {
    Request {
        output: Some(OutputSchema { name: name.into(), schema }),
        temperature: Some(0.2),
        ..Request::new(vec![Message::system(prompt), Message::user(ask)])
    }
}

#[derive(Deserialize)]
struct InventoryReply {
    concepts: Vec<InventoryConcept>,
}

/// The concept inventory of `topic`, easiest first.
pub(crate) async fn inventory(session: &Session, topic: &str, goal: Option<&str>) -> AppResult<Vec<InventoryConcept>> {
    let prompt = prompts::render(
        "diagnostic_inventory",
        json!({ "topic": topic, "goal": goal, "min": MIN_INVENTORY, "max": MAX_INVENTORY }),
    );
    let schema = json!({ "type": "object", "properties": { "concepts": { "type": "array", "items": {
        "type": "object", "properties": { "label": { "type": "string" }, "description": { "type": "string" } },
        "required": ["label", "description"], "additionalProperties": false } } },
        "required": ["concepts"], "additionalProperties": false });
    // For a server that decodes by grammar: the inventory's bounds in the schema itself.
    let decoding = json!({ "type": "object", "properties": { "concepts": { "type": "array",
        // Room for repeats, which are dropped: a small model names some concepts twice.
        "minItems": MIN_INVENTORY + 3, "maxItems": MAX_INVENTORY, "items": {
        "type": "object", "properties": {
            "label": { "type": "string", "minLength": 1, "maxLength": MAX_LABEL_CHARS },
            "description": { "type": "string", "maxLength": 200 } },
        "required": ["label", "description"], "additionalProperties": false } } },
        "required": ["concepts"], "additionalProperties": false });
    let mut request = Request {
        decoding_schema: Some(decoding),
        ..structured_request(prompt, "List the concept inventory now.", "concept_inventory", schema)
    };
    // One correction, as for a concept graph: the problem is explained and the whole
    // inventory asked for again.
    for attempt in 0..2 {
        let (reply, said): (InventoryReply, _) = session.structured(&request).await?;
        // A small model repeats itself; a concept named again adds nothing, so the repeat is
        // dropped (a caller's inventory with a repeat is refused instead: it is a mistake to fix).
        let mut seen = std::collections::HashSet::new();
        let concepts = reply.concepts.into_iter().filter(|c| seen.insert(c.label.trim().to_lowercase())).collect();
        match checked_inventory(concepts) {
            Ok(concepts) => return Ok(concepts),
            Err(problem) if attempt == 0 => {
                request.messages.push(Message::assistant(&said));
                request.messages.push(Message::user(format!(
                    "Once repeats are left out, the inventory {problem}. Reply with the whole inventory again: \
                     {MIN_INVENTORY} to {MAX_INVENTORY} different concepts of the topic, each named once."
                )));
            }
            Err(problem) => {
                return Err(invalid_reply(format!(
                    "the language model's concept inventory {problem}, and again after one correction"
                )))
            }
        }
    }
    unreachable!("the second attempt returns")
}

/// An inventory as a diagnostic can use it, whoever wrote it: labels trimmed, present and
/// distinct, and enough concepts for the search to move. The error completes "the
/// inventory ...".
pub(crate) fn checked_inventory(mut concepts: Vec<InventoryConcept>) -> Result<Vec<InventoryConcept>, String> {
    for concept in &mut concepts {
        concept.label = concept.label.trim().to_string();
    }
    if !(MIN_INVENTORY..=MAX_INVENTORY).contains(&concepts.len()) {
        return Err(format!(
            "has {} concepts; a diagnostic needs {MIN_INVENTORY} to {MAX_INVENTORY}, easiest first",
            concepts.len()
        ));
    }
    let mut labels: Vec<String> = concepts.iter().map(|c| c.label.to_lowercase()).collect();
    if labels.iter().any(|l| l.is_empty()) {
        return Err("has a concept without a label".into());
    }
    // Bounded like a node's: they stay in the flow's state and are matched to the plan's labels.
    if let Some(long) = concepts.iter().find(|c| c.label.chars().count() > MAX_LABEL_CHARS) {
        return Err(format!("has a label longer than {MAX_LABEL_CHARS} characters: '{}...'", short(&long.label)));
    }
    if concepts.iter().any(|c| c.description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS)) {
        return Err(format!("has a description longer than {MAX_DESCRIPTION_CHARS} characters"));
    }
    labels.sort();
    labels.dedup();
    if labels.len() != concepts.len() {
        return Err("names a concept twice (labels are compared without case)".into());
    }
    Ok(concepts)
}

fn short(text: &str) -> String {
    text.chars().take(40).collect()
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum QuestionReply {
    Choice { question: String, choices: Vec<String>, correct_index: usize },
    FreeText { question: String, rubric: String },
}

fn question_schema() -> Value {
    json!({ "type": "object", "properties": {
        "kind": { "type": "string", "enum": ["choice", "free_text"] },
        "question": { "type": "string" },
        "choices": { "type": "array", "items": { "type": "string" } },
        "correct_index": { "type": "integer", "minimum": 0 },
        "rubric": { "type": "string" } },
        "required": ["kind", "question"] })
}

/// For a server that decodes by grammar: one form per kind of question, with its bounds.
fn question_decoding_schema() -> Value {
    let text = |most: usize| json!({ "type": "string", "minLength": 1, "maxLength": most });
    json!({ "anyOf": [
        { "type": "object", "properties": {
            "kind": { "const": "choice" }, "question": text(500),
            "choices": { "type": "array", "items": text(200), "minItems": MIN_CHOICES, "maxItems": MAX_CHOICES },
            "correct_index": { "type": "integer", "minimum": 0, "maximum": MAX_CHOICES - 1 } },
          "required": ["kind", "question", "choices", "correct_index"], "additionalProperties": false },
        { "type": "object", "properties": {
            "kind": { "const": "free_text" }, "question": text(500), "rubric": text(500) },
          "required": ["kind", "question", "rubric"], "additionalProperties": false },
    ] })
}

/// One question on `concept` from the named prompt, checked before it is asked.
pub(crate) async fn question(
    session: &Session,
    prompt_name: &str,
    concept: &str,
    context: Value,
) -> AppResult<Question> {
    let prompt = prompts::render(prompt_name, context);
    let request = Request {
        decoding_schema: Some(question_decoding_schema()),
        ..structured_request(prompt, "Write the question now.", "question", question_schema())
    };
    let (reply, _): (QuestionReply, _) = session.structured(&request).await?;
    let (text, kind) = match reply {
        QuestionReply::Choice { question, choices, correct_index } => (
            question,
            QuestionKind::Choice {
                choices: choices.into_iter().map(|c| c.trim().to_string()).collect(),
                correct: Some(correct_index),
            },
        ),
        QuestionReply::FreeText { question, rubric } => (question, QuestionKind::FreeText { rubric: Some(rubric) }),
    };
    let question =
        Question { concept: concept.to_string(), text: text.trim().to_string(), kind }.without_repeated_choices();
    check_question(&question).map_err(|e| invalid_reply(format!("the language model's question is unusable: {e}")))?;
    Ok(question)
}

/// Whether a question may be asked, whoever wrote it: the domain's checks, and bounds on
/// its texts so that a runaway question cannot bloat the flow's state.
pub(crate) fn check_question(question: &Question) -> Result<(), DomainError> {
    question.validate()?;
    let texts: Vec<(&str, &str)> = match &question.kind {
        QuestionKind::Choice { choices, .. } => choices.iter().map(|c| ("question.choices", c.as_str())).collect(),
        QuestionKind::FreeText { rubric } => rubric.iter().map(|r| ("question.rubric", r.as_str())).collect(),
    };
    let too_long = std::iter::once(("question.text", question.text.as_str()))
        .chain(texts)
        .find(|(_, text)| text.chars().count() > MAX_TEXT_CHARS);
    match too_long {
        Some((field, _)) => Err(DomainError::invalid(field, format!("must be at most {MAX_TEXT_CHARS} characters"))),
        None => Ok(()),
    }
}

/// A grade of a free-text answer: SM-2 quality and feedback for the learner.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Graded {
    pub quality: i64,
    pub feedback: String,
}

pub(crate) async fn grade(session: &Session, question: &Question, answer: &str) -> AppResult<Graded> {
    let rubric = match &question.kind {
        QuestionKind::FreeText { rubric } => rubric.clone().unwrap_or_default(),
        QuestionKind::Choice { .. } => String::new(),
    };
    let prompt = prompts::render(
        "grading",
        json!({ "concept": question.concept, "question": question.text, "rubric": rubric, "answer": answer }),
    );
    let schema = json!({ "type": "object", "properties": {
        "quality": { "type": "integer", "minimum": 0, "maximum": 5 }, "feedback": { "type": "string" } },
        "required": ["quality", "feedback"], "additionalProperties": false });
    let (graded, _): (Graded, _) =
        session.structured(&structured_request(prompt, "Grade the answer now.", "grade", schema)).await?;
    if !(0..=5).contains(&graded.quality) {
        return Err(invalid_reply(format!(
            "the language model graded the answer {}; a quality is an integer from 0 to 5",
            graded.quality
        )));
    }
    Ok(graded)
}

/// An explanation of one concept, as plain text.
pub(crate) async fn explain(session: &Session, concept: &str, context: &str) -> AppResult<String> {
    let prompt = prompts::render(
        "teaching",
        json!({ "concept": concept, "context": context, "max_words": MAX_EXPLANATION_WORDS }),
    );
    let request = Request {
        temperature: Some(0.4),
        ..Request::new(vec![Message::system(prompt), Message::user(format!("Teach \"{concept}\" now."))])
    };
    let reply = session.chat(&request).await?;
    let text = reply.content.unwrap_or_default().trim().to_string();
    if text.is_empty() {
        return Err(invalid_reply("the language model's explanation is empty"));
    }
    Ok(text.chars().take(MAX_TEXT_CHARS * 2).collect())
}
