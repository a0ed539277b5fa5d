//! What a teaching flow asks the language model for, and the checks its answers go through:
//! a diagnostic's concept inventory, questions (with their computed keys), grades of
//! free-text answers, explanations. The model proposes; these checks and the domain's
//! rules decide. A reply that fails them is a 502 that says what was wrong.

use crate::{AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::edit::MAX_LABEL_CHARS;
use pathwise_domain::flow::{checked_inventory, InventoryConcept, MAX_INVENTORY, MIN_INVENTORY};
use pathwise_domain::question::{Question, QuestionKind, MAX_CHOICES, MAX_QUESTION_TEXT_CHARS, MIN_CHOICES};
use pathwise_llm::{prompts, schema, Message, Request, Session};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// Explanations stay short: one concept per session.
const MAX_EXPLANATION_WORDS: usize = 350;
/// An explanation is cut at twice a question's bound: a runaway reply cannot bloat the state.
const MAX_EXPLANATION_CHARS: usize = 2 * MAX_QUESTION_TEXT_CHARS;

/// A model's reply that parsed but broke the rules; logged for the operator like a failed
/// call, with the reason code `invalid_reply`.
pub(crate) fn invalid_reply(message: impl Into<String>) -> AppError {
    let message = message.into();
    tracing::warn!(reason = "invalid_reply", %message, "a language model's reply broke the rules");
    AppError::new(ErrorKind::Upstream, ErrorCode::LlmInvalidReply, message)
        .with_details(json!({ "reason": "invalid_reply" }))
}

/// A request for one reply of type `T`, described by `T`'s schema in both forms.
fn structured_request<T: JsonSchema>(prompt: String, ask: &str, name: &str) -> Request {
    Request {
        output: Some(schema::output_schema::<T>(name)),
        decoding_schema: Some(schema::decoding_schema::<T>()),
        temperature: Some(0.2),
        ..Request::new(vec![Message::system(prompt), Message::user(ask)])
    }
}

/// The inventory as the model writes it. Where decoding is held to the schema, the model
/// has room for repeats, which are dropped: a small model names some concepts twice.
#[derive(Deserialize, JsonSchema)]
struct InventoryReply {
    #[schemars(length(min = MIN_INVENTORY + 3, max = MAX_INVENTORY))]
    concepts: Vec<InventoryReplyConcept>,
}

#[derive(Deserialize, JsonSchema)]
struct InventoryReplyConcept {
    #[schemars(length(min = 1, max = MAX_LABEL_CHARS))]
    label: String,
    #[schemars(length(max = 200))]
    description: String,
}

/// The concept inventory of `topic`, easiest first.
pub(crate) async fn inventory(session: &Session, topic: &str, goal: Option<&str>) -> AppResult<Vec<InventoryConcept>> {
    let prompt = prompts::render(
        "diagnostic_inventory",
        json!({ "topic": topic, "goal": goal, "min": MIN_INVENTORY, "max": MAX_INVENTORY }),
    );
    let mut request =
        structured_request::<InventoryReply>(prompt, "List the concept inventory now.", "concept_inventory");
    // One correction, as for a concept graph: the problem is explained and the whole
    // inventory asked for again.
    for attempt in 0..2 {
        let (reply, said): (InventoryReply, _) = session.structured(&request).await?;
        // A small model repeats itself; a concept named again adds nothing, so the repeat is
        // dropped (a caller's inventory with a repeat is refused instead: it is a mistake to fix).
        let mut seen = std::collections::HashSet::new();
        let concepts = reply
            .concepts
            .into_iter()
            .filter(|c| seen.insert(c.label.trim().to_lowercase()))
            .map(|c| InventoryConcept { label: c.label, description: Some(c.description) })
            .collect();
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

/// A question as the model writes it, one form per kind, with the bounds a decoding
/// server holds it to.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum QuestionReply {
    Choice {
        #[schemars(length(min = 1, max = 500))]
        question: String,
        #[schemars(length(min = MIN_CHOICES, max = MAX_CHOICES), inner(length(min = 1, max = 200)))]
        choices: Vec<String>,
        #[schemars(range(max = MAX_CHOICES - 1))]
        correct_index: usize,
    },
    FreeText {
        #[schemars(length(min = 1, max = 500))]
        question: String,
        #[schemars(length(min = 1, max = 500))]
        rubric: String,
    },
}

/// [`QuestionReply`] in one object, for strict structured output (which takes no choice of
/// forms at the root): the fields of the other kind are null.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct QuestionReplyStrict {
    kind: QuestionKindName,
    question: String,
    choices: Option<Vec<String>>,
    correct_index: Option<usize>,
    rubric: Option<String>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum QuestionKindName {
    Choice,
    FreeText,
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
        output: Some(schema::output_schema::<QuestionReplyStrict>("question")),
        decoding_schema: Some(schema::decoding_schema::<QuestionReply>()),
        ..structured_request::<QuestionReply>(prompt, "Write the question now.", "question")
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
    question.validate().map_err(|e| invalid_reply(format!("the language model's question is unusable: {e}")))?;
    Ok(question)
}

/// A grade of a free-text answer: SM-2 quality and feedback for the learner.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct Graded {
    #[schemars(range(min = 0, max = 5))]
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
    let (graded, _): (Graded, _) =
        session.structured(&structured_request::<Graded>(prompt, "Grade the answer now.", "grade")).await?;
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
    Ok(text.chars().take(MAX_EXPLANATION_CHARS).collect())
}
