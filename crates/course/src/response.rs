//! The model's turn (`LlmTutorResponse`) and its validation against the policy and the
//! context it was given (policy-tutor.md PF-3.6.5 and PF-3.7). A reply that breaks any rule
//! is not repaired and not retried: the caller falls back (see [`crate::fallback`]).

use crate::card::{TutorCard, WorkedExample};
use crate::course::Course;
use crate::pack::Tier;
use crate::policy::{Action, ExamStatus, QuestionStatus, TutorPolicy};
use crate::snapshot::{MappedUnit, TurnAnalysis};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use thiserror::Error;

/// Longest tutor text accepted, in characters.
pub const MAX_TUTOR_TEXT: usize = 1_500;
pub use crate::pack::MAX_DRILL_CHARS;
pub const MAX_KEY_IDEAS: usize = 3;

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmTutorResponse {
    #[serde(default)]
    pub mapped_units: Vec<LlmMappedUnit>,
    pub action: String,
    pub target_unit_id: String,
    pub tutor_text: String,
    #[serde(default)]
    pub turn_analysis: Option<LlmTurnAnalysis>,
    #[serde(default)]
    pub concept_card: Option<LlmConceptCard>,
    #[serde(default)]
    pub drill_card: Option<LlmDrillCard>,
    #[serde(default)]
    pub exam_suggestion: Option<LlmExamSuggestion>,
    /// The `passageId`s of `CONTEXT.unitContentChunks` the reply draws on.
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmMappedUnit {
    pub unit_id: String,
    pub confidence: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmTurnAnalysis {
    #[serde(default)]
    pub student_intent: Option<String>,
    #[serde(default)]
    pub understanding_signal: Option<String>,
    #[serde(default)]
    pub suggested_prereq_units: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmConceptCard {
    pub key_ideas: Vec<String>,
    #[serde(default)]
    pub worked_example: Option<LlmWorkedExample>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmWorkedExample {
    pub problem_latex: String,
    pub final_answer_latex: String,
    #[serde(default)]
    pub steps_latex: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmDrillCard {
    pub prompt: String,
    pub question_latex: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct LlmExamSuggestion {
    pub question_id: String,
    #[serde(rename = "difficultyTier", alias = "difficulty_tier")]
    pub difficulty_tier: String,
}

/// Why a model's turn was refused; the turn log keeps [`Violation::code`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Violation {
    #[error("the model's reply is not the required JSON: {0}")]
    Malformed(String),
    #[error("the model produced confusion tags ({0}); only drill grading may")]
    ConfusionTags(String),
    #[error("action '{0}' is not one of SOCRATIC_QUESTION, CONCEPT_CARD, DRILL_CARD, EXAM_BLOCK")]
    UnknownAction(String),
    #[error("action {action} is not allowed by the policy (allowed: {allowed})")]
    ActionNotAllowed { action: &'static str, allowed: String },
    #[error("target unit '{target}' is not in scope (scoped: {scoped})")]
    TargetNotInScope { target: String, scoped: String },
    #[error("tutor_text is empty")]
    EmptyText,
    #[error("tutor_text has {0} characters; at most {MAX_TUTOR_TEXT} allowed")]
    TextTooLong(usize),
    #[error("{action} must not include {card}")]
    UnexpectedCard { action: &'static str, card: &'static str },
    #[error("{action} must include {card}")]
    MissingCard { action: &'static str, card: &'static str },
    #[error("a concept card is only allowed when the learner is stuck")]
    ConceptNotStuck,
    #[error("concept_card has {0} key ideas; 1-{MAX_KEY_IDEAS} allowed")]
    KeyIdeas(usize),
    #[error("concept_card has {words} words; at most {max} allowed")]
    ConceptTooLong { words: usize, max: u32 },
    #[error("drill_card is empty or longer than {MAX_DRILL_CHARS} characters ({0})")]
    DrillSize(usize),
    #[error("exam question '{0}' is not among the exam candidates")]
    ExamNotCandidate(String),
    #[error("exam question tier '{given}' is not the desired tier {desired}")]
    ExamWrongTier { given: String, desired: Tier },
    #[error("exam question '{question}' is locked until {until}")]
    ExamLocked { question: String, until: String },
    #[error("sources names '{0}', which is not a passageId of CONTEXT.unitContentChunks")]
    SourceNotOffered(String),
    #[error("the reply cites none of the passages it was given; this course's replies must cite their sources")]
    Uncited,
    #[error(
        "only {grounded} of the reply's {words} words are in the material it was given; this course's replies \
         keep to its material"
    )]
    Ungrounded { grounded: usize, words: usize },
    #[error("tutor_text is not a sentence (at least {MIN_WORDS} words, mostly letters)")]
    NotASentence,
}

impl Violation {
    /// A short stable name, for the turn log and the tests.
    pub fn code(&self) -> &'static str {
        match self {
            Violation::Malformed(_) => "malformed",
            Violation::ConfusionTags(_) => "confusion_tags",
            Violation::UnknownAction(_) => "unknown_action",
            Violation::ActionNotAllowed { .. } => "action_not_allowed",
            Violation::TargetNotInScope { .. } => "target_not_in_scope",
            Violation::EmptyText => "empty_text",
            Violation::TextTooLong(_) => "text_too_long",
            Violation::UnexpectedCard { .. } => "unexpected_card",
            Violation::MissingCard { .. } => "missing_card",
            Violation::ConceptNotStuck => "concept_not_stuck",
            Violation::KeyIdeas(_) => "key_ideas",
            Violation::ConceptTooLong { .. } => "concept_too_long",
            Violation::DrillSize(_) => "drill_size",
            Violation::ExamNotCandidate(_) => "exam_not_candidate",
            Violation::ExamWrongTier { .. } => "exam_wrong_tier",
            Violation::ExamLocked { .. } => "exam_locked",
            Violation::SourceNotOffered(_) => "source_not_offered",
            Violation::Uncited => "uncited",
            Violation::Ungrounded { .. } | Violation::NotASentence => "ungrounded",
        }
    }
}

/// What the turn's prompt offered the model to choose from.
#[derive(Debug, Clone, Copy)]
pub struct OfferedContext<'a> {
    /// `CONTEXT.examCandidates`' question ids.
    pub exam_candidates: &'a [String],
    /// The exam service's statuses of those questions.
    pub exam_statuses: &'a HashMap<String, ExamStatus>,
    /// `CONTEXT.unitContentChunks`' passage ids, which a reply cites.
    pub passages: &'a [String],
    /// What the model was shown (the policy, CONTEXT and the learner's words): on a course
    /// drafted from someone's material, the words a reply may use.
    pub shown: &'a str,
    pub now: DateTime<Utc>,
}

/// A model turn that keeps every rule, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidTurn {
    pub action: Action,
    pub target_unit_id: String,
    pub tutor_text: String,
    /// Concept and drill cards; an exam block's card is built from the bank by the caller.
    pub card: Option<TutorCard>,
    pub exam_question_id: Option<String>,
    pub analysis: TurnAnalysis,
    /// The passages the reply cites, each one offered.
    pub sources: Vec<String>,
}

/// Checks a model's reply (already read as JSON) against the policy and the context.
pub fn validate(
    reply: &Value,
    policy: &TutorPolicy,
    offered: OfferedContext<'_>,
    course: &Course,
) -> Result<ValidTurn, Violation> {
    if let Some(key) = confusion_key(reply) {
        return Err(Violation::ConfusionTags(key));
    }
    let r: LlmTutorResponse = LlmTutorResponse::deserialize(reply).map_err(|e| Violation::Malformed(e.to_string()))?;
    let action = Action::parse(&r.action).ok_or_else(|| Violation::UnknownAction(r.action.clone()))?;
    if !policy.allows(action) {
        let allowed = policy.allowed_actions.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
        return Err(Violation::ActionNotAllowed { action: action.name(), allowed });
    }
    if !policy.in_scope(&r.target_unit_id) {
        return Err(Violation::TargetNotInScope {
            target: r.target_unit_id.clone(),
            scoped: policy.scoped_unit_ids.join(", "),
        });
    }
    let text = r.tutor_text.trim();
    if text.is_empty() {
        return Err(Violation::EmptyText);
    }
    let chars = text.chars().count();
    if chars > MAX_TUTOR_TEXT {
        return Err(Violation::TextTooLong(chars));
    }
    check_cards(&r, action)?;
    let sources = sources(&r, offered, course)?;
    if course.grounded() {
        grounded(text, offered.shown)?;
    }
    let unit = r.target_unit_id.clone();
    let (card, exam_question_id) = match action {
        Action::SocraticQuestion => (None, None),
        Action::ConceptCard => (Some(concept_card(&r, policy, unit, &sources, course)?), None),
        Action::DrillCard => (Some(drill_card(&r, unit)?), None),
        Action::ExamBlock => (None, Some(exam_question(&r, policy, offered)?)),
    };
    Ok(ValidTurn {
        action,
        target_unit_id: r.target_unit_id.clone(),
        tutor_text: text.to_string(),
        card,
        exam_question_id,
        analysis: analysis(&r, course),
        sources,
    })
}

/// The passages a reply cites: each must be one it was given, and on a course drafted
/// from someone's material (its passages have ids) a reply given passages cites one.
fn sources(r: &LlmTutorResponse, offered: OfferedContext<'_>, course: &Course) -> Result<Vec<String>, Violation> {
    let mut cited: Vec<String> = Vec::new();
    for source in &r.sources {
        let source = source.trim();
        if !offered.passages.iter().any(|p| p == source) {
            return Err(Violation::SourceNotOffered(source.to_string()));
        }
        if !cited.iter().any(|c| c == source) {
            cited.push(source.to_string());
        }
    }
    if cited.is_empty() && course.grounded() && !offered.passages.is_empty() {
        return Err(Violation::Uncited);
    }
    Ok(cited)
}

/// The share of a reply's words that must be in what the model was shown, on a course drafted
/// from someone's material. A small model given its passages still wrote "Premise:
/// 1.0,2.69,3.85,..." or "This is a test of your ability to solve logical puzzles" and cited a
/// passage; the course's own tutor answers from the material instead. Paraphrase passes: half
/// the words may be the model's own.
const GROUNDED_SHARE: f64 = 0.5;
/// Replies with fewer of those words than this are not judged by them ("Which part is
/// unclear?", "Here is what we will do next.").
const JUDGED_WORDS: usize = 4;
/// A reply is a sentence: it has at least this many words, mostly letters.
const MIN_WORDS: usize = 3;

/// Whether `text` keeps to the material it was `shown`: its words (numbers, and words of four
/// letters or more that are not filler), each found in what was shown by its first six
/// letters, so that another form of a word ("fixation", "fixes") counts.
fn grounded(text: &str, shown: &str) -> Result<(), Violation> {
    let shown = shown.to_lowercase();
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()) || (w.chars().count() >= 4 && !crate::keyterms::is_filler(w)))
        .collect();
    // Not a sentence at all: a key ("the-calvin-cycle"), a brace, a run of digits and letters.
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let printed = text.chars().filter(|c| !c.is_whitespace()).count();
    if text.split_whitespace().count() < MIN_WORDS || letters * 2 < printed {
        return Err(Violation::NotASentence);
    }
    if words.len() < JUDGED_WORDS {
        return Ok(());
    }
    let found = words
        .iter()
        .filter(|w| {
            let stem: String = w.chars().take(6).collect();
            shown.contains(&stem)
        })
        .count();
    if (found as f64) < GROUNDED_SHARE * words.len() as f64 {
        return Err(Violation::Ungrounded { grounded: found, words: words.len() });
    }
    Ok(())
}

/// Any key naming confusion tags, anywhere in the reply.
fn confusion_key(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.to_ascii_lowercase().replace('_', "").contains("confusiontag") {
                Some(k.clone())
            } else {
                confusion_key(v)
            }
        }),
        Value::Array(items) => items.iter().find_map(confusion_key),
        _ => None,
    }
}

fn check_cards(r: &LlmTutorResponse, action: Action) -> Result<(), Violation> {
    let present = [
        ("concept_card", r.concept_card.is_some(), Action::ConceptCard),
        ("drill_card", r.drill_card.is_some(), Action::DrillCard),
        ("exam_suggestion", r.exam_suggestion.is_some(), Action::ExamBlock),
    ];
    for (card, is_present, belongs_to) in present {
        if is_present && belongs_to != action {
            return Err(Violation::UnexpectedCard { action: action.name(), card });
        }
        if !is_present && belongs_to == action {
            return Err(Violation::MissingCard { action: action.name(), card });
        }
    }
    Ok(())
}

fn concept_card(
    r: &LlmTutorResponse,
    policy: &TutorPolicy,
    unit_id: String,
    sources: &[String],
    course: &Course,
) -> Result<TutorCard, Violation> {
    let card =
        r.concept_card.as_ref().ok_or(Violation::MissingCard { action: "CONCEPT_CARD", card: "concept_card" })?;
    if !policy.stuck {
        return Err(Violation::ConceptNotStuck);
    }
    let ideas: Vec<String> = card.key_ideas.iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect();
    if ideas.is_empty() || ideas.len() > MAX_KEY_IDEAS {
        return Err(Violation::KeyIdeas(ideas.len()));
    }
    let words: usize = ideas.iter().map(|i| i.split_whitespace().count()).sum();
    let max = policy.constraints.max_concept_words;
    if words > max as usize {
        return Err(Violation::ConceptTooLong { words, max });
    }
    let worked_example = card.worked_example.as_ref().map(|w| WorkedExample {
        problem_latex: w.problem_latex.clone(),
        final_answer_latex: w.final_answer_latex.clone(),
        steps_latex: w.steps_latex.clone(),
    });
    let sources = sources.iter().filter_map(|id| course.source(id)).collect();
    Ok(TutorCard::Concept { unit_id, key_ideas: ideas, worked_example, sources })
}

fn drill_card(r: &LlmTutorResponse, unit_id: String) -> Result<TutorCard, Violation> {
    let card = r.drill_card.as_ref().ok_or(Violation::MissingCard { action: "DRILL_CARD", card: "drill_card" })?;
    let size = card.prompt.trim().chars().count() + card.question_latex.trim().chars().count();
    if size == 0 || size > MAX_DRILL_CHARS {
        return Err(Violation::DrillSize(size));
    }
    Ok(TutorCard::Drill {
        unit_id,
        prompt: card.prompt.trim().to_string(),
        question_latex: card.question_latex.trim().to_string(),
        drill_id: None,
        options: Vec::new(),
    })
}

fn exam_question(r: &LlmTutorResponse, policy: &TutorPolicy, offered: OfferedContext<'_>) -> Result<String, Violation> {
    let s =
        r.exam_suggestion.as_ref().ok_or(Violation::MissingCard { action: "EXAM_BLOCK", card: "exam_suggestion" })?;
    if !offered.exam_candidates.contains(&s.question_id) {
        return Err(Violation::ExamNotCandidate(s.question_id.clone()));
    }
    if Tier::parse(&s.difficulty_tier) != Some(policy.desired_exam_tier) {
        return Err(Violation::ExamWrongTier { given: s.difficulty_tier.clone(), desired: policy.desired_exam_tier });
    }
    if let Some(status) = offered.exam_statuses.get(&s.question_id) {
        let locked = status.status == QuestionStatus::Locked && status.locked_until.is_none_or(|t| t > offered.now);
        if locked {
            let until = status.locked_until.map_or("further notice".to_string(), |t| t.to_rfc3339());
            return Err(Violation::ExamLocked { question: s.question_id.clone(), until });
        }
    }
    Ok(s.question_id.clone())
}

/// The model's mapping and intent, kept only where they name the course's units.
fn analysis(r: &LlmTutorResponse, course: &Course) -> TurnAnalysis {
    let mapped_units = r
        .mapped_units
        .iter()
        .filter(|m| course.has_unit(&m.unit_id) && m.confidence.is_finite())
        .map(|m| MappedUnit { unit_id: m.unit_id.clone(), confidence: m.confidence.clamp(0.0, 1.0) })
        .collect();
    let a = r.turn_analysis.as_ref();
    let pick = |value: Option<&String>, allowed: &[&str], default: &str| {
        value.map(|v| v.as_str()).filter(|v| allowed.contains(v)).unwrap_or(default).to_string()
    };
    TurnAnalysis {
        mapped_units,
        student_intent: pick(
            a.and_then(|a| a.student_intent.as_ref()),
            &["solve", "explain", "check", "stuck", "unknown"],
            "unknown",
        ),
        understanding_signal: pick(
            a.and_then(|a| a.understanding_signal.as_ref()),
            &["confident", "uncertain", "confused"],
            "uncertain",
        ),
        suggested_prereq_units: a
            .map(|a| a.suggested_prereq_units.iter().filter(|u| course.has_unit(u)).cloned().collect())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOWN: &str = r#"CONTEXT: {"unitContentChunks":[{"passageId":"p3","text":"The enzyme RuBisCO fixes carbon
        dioxide by joining it to a five-carbon sugar called RuBP. The products are reduced to G3P using ATP and
        NADPH."}]} The learner says: what does RuBisCO do"#;

    #[test]
    fn a_reply_that_keeps_to_the_material_passes_paraphrase_and_all() {
        let quoted = "RuBisCO fixes carbon dioxide: it joins it to RuBP, a five-carbon sugar.";
        assert_eq!(grounded(quoted, SHOWN), Ok(()));
        let paraphrased = "RuBisCO is the enzyme behind carbon fixation: it joins carbon dioxide to RuBP, which \
                           is then reduced to G3P.";
        assert_eq!(grounded(paraphrased, SHOWN), Ok(()));
        assert_eq!(grounded("Which part is unclear?", SHOWN), Ok(()), "too few words to judge by the material");
        assert_eq!(grounded("Here is what we will do next.", SHOWN), Ok(()));
    }

    #[test]
    fn a_few_words_that_ask_nothing_are_refused() {
        for thin in ["the-calvin-cycle", "{", "1234567890-A-B-C-D-E-F-G-H-I-J,K-L-M"] {
            assert_eq!(grounded(thin, SHOWN).map_err(|v| v.code()), Err("ungrounded"), "{thin}");
        }
    }

    #[test]
    fn a_reply_made_of_something_else_is_refused() {
        let numbers = "Premise: 1.0,2.69,3.85,4.78,5.02,6.02,7.02,8.02,9.02,10.02";
        assert_eq!(grounded(numbers, SHOWN), Err(Violation::NotASentence), "{numbers}");
        let counted = "Photosynthesis doubles every spring, growing 4.78 times faster in 2024 and 2025.";
        assert!(matches!(grounded(counted, SHOWN), Err(Violation::Ungrounded { .. })), "{counted}");
        let puzzle = "This is a test of your ability to solve logical puzzles and make sound decisions.";
        let refused = grounded(puzzle, SHOWN).unwrap_err();
        assert_eq!(refused.code(), "ungrounded");
        assert!(refused.to_string().contains("keep to its material"), "{refused}");
    }
}
