//! Questions the tutor asks (diagnostic probes, quiz questions, reviews) and how an answer
//! to a choice question is graded: exactly, by comparing it with the computed key. Free-text
//! answers are graded by the language model against the question's rubric.

use crate::choice::{allowed_answers, read_typed_choice};
use crate::evidence::{Evidence, Form, Outcome};
use crate::DomainError;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const MIN_CHOICES: usize = 2;
pub const MAX_CHOICES: usize = 6;
/// The most characters a question's text, a choice or a rubric may have, whoever wrote
/// it: a runaway question cannot bloat the state it is kept in.
pub const MAX_QUESTION_TEXT_CHARS: usize = 4_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuestionKind {
    /// Pick one of `choices`; `correct` is the index of the right one (never sent to the
    /// learner before they answer).
    Choice {
        choices: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        correct: Option<usize>,
    },
    /// Answer in words; the rubric says what a full answer contains.
    FreeText {
        #[serde(skip_serializing_if = "Option::is_none", default)]
        rubric: Option<String>,
    },
}

/// One question as it is kept while it waits for an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Question {
    /// The concept asked about (a node label, or an inventory concept in a diagnostic).
    pub concept: String,
    pub text: String,
    #[serde(flatten)]
    pub kind: QuestionKind,
}

impl Question {
    /// Check a question before it is asked, whoever wrote it: a text, 2-6 distinct choices
    /// with a key in range, or a rubric for free text; no text longer than
    /// [`MAX_QUESTION_TEXT_CHARS`].
    pub fn validate(&self) -> Result<(), DomainError> {
        self.check_shape()?;
        let texts: Vec<(&str, &str)> = match &self.kind {
            QuestionKind::Choice { choices, .. } => choices.iter().map(|c| ("question.choices", c.as_str())).collect(),
            QuestionKind::FreeText { rubric } => rubric.iter().map(|r| ("question.rubric", r.as_str())).collect(),
        };
        let too_long = std::iter::once(("question.text", self.text.as_str()))
            .chain(texts)
            .find(|(_, text)| text.chars().count() > MAX_QUESTION_TEXT_CHARS);
        match too_long {
            Some((field, _)) => {
                Err(DomainError::invalid(field, format!("must be at most {MAX_QUESTION_TEXT_CHARS} characters")))
            }
            None => Ok(()),
        }
    }

    fn check_shape(&self) -> Result<(), DomainError> {
        if self.text.trim().is_empty() {
            return Err(DomainError::invalid("question.text", "is empty; a question needs a text"));
        }
        match &self.kind {
            QuestionKind::Choice { choices, correct } => {
                if !(MIN_CHOICES..=MAX_CHOICES).contains(&choices.len()) {
                    return Err(DomainError::invalid(
                        "question.choices",
                        format!("has {} choices; a choice question has {MIN_CHOICES} to {MAX_CHOICES}", choices.len()),
                    ));
                }
                if choices.iter().any(|c| c.trim().is_empty()) {
                    return Err(DomainError::invalid("question.choices", "contains an empty choice"));
                }
                let mut normalized: Vec<String> = choices.iter().map(|c| normalize(c)).collect();
                normalized.sort();
                normalized.dedup();
                if normalized.len() != choices.len() {
                    return Err(DomainError::invalid("question.choices", "contains the same choice twice"));
                }
                match correct {
                    Some(index) if *index < choices.len() => Ok(()),
                    Some(index) => Err(DomainError::invalid(
                        "question.correct",
                        format!("{index} is not a choice; it is an index from 0 to {}", choices.len() - 1),
                    )),
                    None => {
                        Err(DomainError::invalid("question.correct", "is missing; a choice question needs its key"))
                    }
                }
            }
            QuestionKind::FreeText { rubric } => match rubric {
                Some(r) if !r.trim().is_empty() => Ok(()),
                _ => Err(DomainError::invalid("question.rubric", "is missing; a free-text question needs a rubric")),
            },
        }
    }

    /// A model's question with each repeated choice dropped (the first kept; compared as
    /// `validate` compares them), the key moved with its choice, or onto the first of its
    /// repeats. Small models write the same choice twice; a person's question with a repeat
    /// is refused by `validate` instead.
    pub fn without_repeated_choices(mut self) -> Question {
        if let QuestionKind::Choice { choices, correct } = &mut self.kind {
            let mut kept: Vec<String> = Vec::with_capacity(choices.len());
            let mut moved_key = *correct;
            for (index, choice) in choices.drain(..).enumerate() {
                match kept.iter().position(|k| normalize(k) == normalize(&choice)) {
                    Some(first) if *correct == Some(index) => moved_key = Some(first),
                    Some(_) => {}
                    None => {
                        if *correct == Some(index) {
                            moved_key = Some(kept.len());
                        }
                        kept.push(choice);
                    }
                }
            }
            *choices = kept;
            *correct = moved_key;
        }
        self
    }

    /// The question as the learner sees it: without the key.
    pub fn for_learner(&self) -> Question {
        let kind = match &self.kind {
            QuestionKind::Choice { choices, .. } => QuestionKind::Choice { choices: choices.clone(), correct: None },
            QuestionKind::FreeText { .. } => QuestionKind::FreeText { rubric: None },
        };
        Question { concept: self.concept.clone(), text: self.text.clone(), kind }
    }

    pub fn is_choice(&self) -> bool {
        matches!(self.kind, QuestionKind::Choice { .. })
    }
}

/// Grade an answer to a choice question, read by the one rule for choices
/// ([`crate::choice::read_typed_choice`]: a choice's text or value, or its index when no
/// choice reads as a number). `None` for free-text questions.
pub fn grade_choice(question: &Question, answer: &str) -> Option<Result<ChoiceGrade, DomainError>> {
    let QuestionKind::Choice { choices, correct } = &question.kind else {
        return None;
    };
    let picked = read_typed_choice(choices, answer).ok_or_else(|| {
        DomainError::invalid(
            "answer",
            format!("'{}' is none of the choices; answer with {}", answer.trim(), allowed_answers(choices)),
        )
    });
    Some(picked.map(|index| {
        let right = Some(index) == *correct;
        let outcome = if right { Outcome::Right } else { Outcome::Wrong };
        let earned = Evidence::Checked { form: Form::Recognised, outcome }.earned();
        ChoiceGrade { picked: index, correct: right, quality: earned.quality.value() }
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceGrade {
    pub picked: usize,
    pub correct: bool,
    pub quality: u8,
}

fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {

    #[test]
    fn repeated_choices_are_dropped_and_the_key_follows_its_choice() {
        let question = |choices: &[&str], correct: usize| Question {
            concept: "Halves".into(),
            text: "Which is a half?".into(),
            kind: QuestionKind::Choice {
                choices: choices.iter().map(|c| c.to_string()).collect(),
                correct: Some(correct),
            },
        };
        let mended = question(&["1/2", "1/3", " 1/3", "2/4", "1/2"], 3).without_repeated_choices();
        assert_eq!(mended, question(&["1/2", "1/3", "2/4"], 2));
        let onto_first = question(&["1/2", "1/3", "1/2 "], 2).without_repeated_choices();
        assert_eq!(onto_first, question(&["1/2", "1/3"], 0));
        let all_same = question(&["1/2", "1/2"], 1).without_repeated_choices();
        assert!(all_same.validate().is_err(), "one choice left is still refused: {all_same:?}");
    }
    use super::*;

    fn choice(correct: usize) -> Question {
        Question {
            concept: "Ownership".into(),
            text: "Which moves?".into(),
            kind: QuestionKind::Choice {
                choices: vec!["let b = a;".into(), "let b = &a;".into(), "let b = a.clone();".into()],
                correct: Some(correct),
            },
        }
    }

    #[test]
    fn a_choice_is_graded_by_index_or_by_text_exactly() {
        let q = choice(0);
        assert_eq!(grade_choice(&q, "0").unwrap().unwrap().quality, 4);
        assert_eq!(grade_choice(&q, "  LET B = A; ").unwrap().unwrap().picked, 0);
        let wrong = grade_choice(&q, "let b = &a;").unwrap().unwrap();
        assert_eq!((wrong.correct, wrong.quality), (false, 1));
    }

    #[test]
    fn an_answer_that_is_no_choice_names_the_allowed_answers() {
        let err = grade_choice(&choice(0), "7").unwrap().unwrap_err().to_string();
        assert!(err.contains("index from 0 to 2"), "{err}");
        let sums = Question {
            concept: "Place value".into(),
            text: "What is 40 x 100?".into(),
            kind: QuestionKind::Choice {
                choices: vec!["40".into(), "4".into(), "400".into(), "4000".into()],
                correct: Some(3),
            },
        };
        let err = grade_choice(&sums, "0").unwrap().unwrap_err().to_string();
        assert!(err.contains("one of: 40 | 4 | 400 | 4000") && !err.contains("index"), "{err}");
        assert!(grade_choice(&sums, "4,000").unwrap().unwrap().correct);
        let err = grade_choice(&choice(0), "maybe").unwrap().unwrap_err().to_string();
        assert!(err.contains("let b = &a;"), "{err}");
    }

    #[test]
    fn free_text_questions_are_not_graded_here() {
        let q = Question {
            concept: "x".into(),
            text: "Explain".into(),
            kind: QuestionKind::FreeText { rubric: Some("mentions moves".into()) },
        };
        assert!(grade_choice(&q, "anything").is_none());
        assert!(q.validate().is_ok());
    }

    #[test]
    fn a_model_written_question_is_checked_before_it_is_asked() {
        assert!(choice(2).validate().is_ok());
        assert!(choice(3).validate().unwrap_err().to_string().contains("index from 0 to 2"));
        let mut q = choice(0);
        q.kind = QuestionKind::Choice { choices: vec!["a".into(), "A ".into()], correct: Some(0) };
        assert!(q.validate().unwrap_err().to_string().contains("twice"));
        q.kind = QuestionKind::FreeText { rubric: None };
        assert!(q.validate().is_err());
    }

    #[test]
    fn no_text_of_a_question_runs_past_its_bound() {
        let long = "x".repeat(MAX_QUESTION_TEXT_CHARS + 1);
        let mut q = choice(0);
        q.text = long.clone();
        let refused = q.validate().unwrap_err();
        assert!(
            matches!(&refused, DomainError::Invalid { field, message } if field == "question.text" && message.contains("4000")),
            "{refused:?}"
        );
        let mut q = choice(0);
        q.kind = QuestionKind::Choice { choices: vec!["a".into(), long.clone()], correct: Some(0) };
        assert!(q.validate().unwrap_err().to_string().contains("question.choices"));
        q.kind = QuestionKind::FreeText { rubric: Some(long) };
        assert!(q.validate().unwrap_err().to_string().contains("question.rubric"));
        q.kind = QuestionKind::FreeText { rubric: Some("x".repeat(MAX_QUESTION_TEXT_CHARS)) };
        q.text = "Explain".into();
        assert!(q.validate().is_ok(), "the bound itself is allowed");
    }

    #[test]
    fn the_learner_never_sees_the_key() {
        let shown = serde_json::to_value(choice(1).for_learner()).unwrap();
        assert!(shown.get("correct").is_none(), "{shown}");
        assert_eq!(shown["kind"], "choice");
    }
}

/// How an answer was graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct AnswerGrade {
    /// SM-2 quality, 0-5; 3 or more is correct.
    pub quality: u8,
    pub correct: bool,
    pub feedback: String,
    pub graded_by: GradedBy,
}

/// Who graded an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GradedBy {
    /// A choice, checked exactly against its key.
    Exact,
    /// Free text, graded by Pathwise's model.
    Model,
    /// Free text, graded by the caller's `quality`.
    Caller,
}

impl AnswerGrade {
    /// What the graded answer shows: a choice checked exactly was recognised among its
    /// options; free text carries the model's or the caller's grade.
    pub fn shows(&self) -> Evidence {
        if self.graded_by == GradedBy::Exact {
            let outcome = if self.correct { Outcome::Right } else { Outcome::Wrong };
            return Evidence::Checked { form: Form::Recognised, outcome };
        }
        Evidence::Graded(crate::mastery::Quality::of(self.quality))
    }
}
