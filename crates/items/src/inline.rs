//! Inline items (session-flow.md D4, option A): questions written out in a session's
//! request or an assessment's pool rather than generated. Their id is a hash of their
//! content, so the same question always has the same id.

use crate::answer::parse::parse_ratio;
use crate::answer::{AnswerForm, AnswerKey, Evaluation};
use crate::error::{InlineError, InlineItemsError};
use crate::id::INLINE_PREFIX;
use crate::item::{round4, IrtParams, Item, ItemType};
use crate::stable_hash::Fnv64;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub const INLINE_BLUEPRINT_ID: &str = "inline";

/// `{"stem": "What is 2+2?", "options": ["3", "4"], "correct": 1}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InlineItem {
    pub stem: String,
    /// 2-6 choices; without them the item takes a typed answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// With options: the correct one's index (from 0) or its exact text. Without: the
    /// answer, text or a number (a number, or text that reads as one, also accepts its
    /// equivalent forms: `0.5` for `1/2`).
    pub correct: Value,
    /// 0-1 (default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<f64>,
    /// IRT discrimination (default 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_seconds: Option<u32>,
    /// How a typed answer is checked, instead of the default above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<Evaluation>,
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the text '{s}'"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

impl InlineItem {
    pub fn to_item(&self) -> Result<Item, InlineError> {
        let stem = self.stem.trim();
        if stem.is_empty() {
            return Err(InlineError::EmptyStem);
        }
        let difficulty = self.difficulty.unwrap_or(0.5);
        if !(0.0..=1.0).contains(&difficulty) {
            return Err(InlineError::Difficulty { value: difficulty });
        }
        let difficulty = round4(difficulty);
        let a = self.a.unwrap_or(1.0);
        if !(a > 0.0 && a <= 4.0) {
            return Err(InlineError::Discrimination { value: a });
        }
        if let Some(t) = self.time_limit_seconds.filter(|t| !(1..=86_400).contains(t)) {
            return Err(InlineError::TimeLimit { value: t });
        }
        let (item_type, options, key) = match &self.options {
            Some(options) => self.choice_key(options)?,
            None => (ItemType::FreeText, Vec::new(), self.text_key()?),
        };
        let mut hash = Fnv64::new();
        hash.field(stem);
        for o in &options {
            hash.field(o);
        }
        hash.field(&key.answer);
        let hex = format!("{:016x}", hash.finish());
        let option_count = options.len();
        Ok(Item {
            id: format!("{INLINE_PREFIX}{hex}"),
            blueprint_id: INLINE_BLUEPRINT_ID.to_string(),
            domain: self.skill_domain.clone().unwrap_or_else(|| INLINE_BLUEPRINT_ID.to_string()),
            seed: 0,
            item_type,
            stem: stem.to_string(),
            options,
            code: None,
            key,
            difficulty,
            irt: IrtParams::from_difficulty(difficulty, a, option_count),
            generation_params: json!({ "source": "inline" }),
            time_limit_seconds: self.time_limit_seconds,
            content_key: format!("inline:{hex}"),
        })
    }

    fn choice_key(&self, options: &[String]) -> Result<(ItemType, Vec<String>, AnswerKey), InlineError> {
        if !(2..=6).contains(&options.len()) {
            return Err(InlineError::OptionCount { count: options.len() });
        }
        let options: Vec<String> = options.iter().map(|o| o.trim().to_string()).collect();
        for (i, o) in options.iter().enumerate() {
            if o.is_empty() {
                return Err(InlineError::EmptyOption { index: i });
            }
            if let Some(first) = options[..i].iter().position(|p| p == o) {
                return Err(InlineError::DuplicateOption { first, second: i, text: o.clone() });
            }
        }
        let index = match &self.correct {
            Value::Number(n) => {
                // A whole number written as a float (`1.0`) is that index.
                let whole = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 1e15).map(|f| f as i64);
                let i = n.as_i64().or(whole).ok_or_else(|| InlineError::CorrectType {
                    expected: "an option's index or text",
                    found: describe(&self.correct),
                })?;
                usize::try_from(i)
                    .ok()
                    .filter(|i| *i < options.len())
                    .ok_or(InlineError::CorrectOutOfRange { index: i, options: options.len() })?
            }
            Value::String(text) => options
                .iter()
                .position(|o| o == text.trim())
                .ok_or_else(|| InlineError::CorrectNotAnOption { text: text.clone(), options: options.len() })?,
            other => {
                return Err(InlineError::CorrectType { expected: "an option's index or text", found: describe(other) })
            }
        };
        let key = AnswerKey {
            choice: Some(index),
            answer: options[index].clone(),
            form: AnswerForm::Text,
            evaluation: self.evaluation.clone().unwrap_or(Evaluation::ExactMatch { case_sensitive: false }),
        };
        Ok((ItemType::MultipleChoice, options, key))
    }

    fn text_key(&self) -> Result<AnswerKey, InlineError> {
        let answer = match &self.correct {
            Value::String(s) if s.trim().is_empty() => return Err(InlineError::EmptyCorrect),
            Value::String(s) => s.trim().to_string(),
            Value::Number(n) => n.to_string(),
            other => {
                return Err(InlineError::CorrectType {
                    expected: "the answer, as text or a number",
                    found: describe(other),
                })
            }
        };
        let numeric = parse_ratio(&answer).is_some() || matches!(self.correct, Value::Number(_));
        let (form, default) = if numeric {
            (AnswerForm::Number { variable: None }, Evaluation::EquivalentForms {})
        } else {
            (AnswerForm::Text, Evaluation::ExactMatch { case_sensitive: false })
        };
        let evaluation = self.evaluation.clone().unwrap_or(default);
        if matches!(evaluation, Evaluation::TestExecution { .. }) {
            return Err(InlineError::CorrectType {
                expected: "an evaluation other than test_execution",
                found: "test_execution".into(),
            });
        }
        Ok(AnswerKey { choice: None, answer, form, evaluation })
    }
}

/// Inline items in order, each checked, none repeating another.
pub fn inline_items(items: &[InlineItem]) -> Result<Vec<Item>, InlineItemsError> {
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    for (index, inline) in items.iter().enumerate() {
        let item = inline.to_item().map_err(|source| InlineItemsError { index, source })?;
        if let Some(first) = out.iter().position(|i| i.content_key == item.content_key) {
            return Err(InlineItemsError { index, source: InlineError::Repeated { first } });
        }
        out.push(item);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;

    fn inline(value: Value) -> InlineItem {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_choice_item_from_an_index_or_the_option_text() {
        let by_index =
            inline(json!({"stem": "What is 2+2?", "options": ["3", "4", "5"], "correct": 1})).to_item().unwrap();
        let by_text =
            inline(json!({"stem": "What is 2+2?", "options": ["3", "4", "5"], "correct": "4"})).to_item().unwrap();
        assert_eq!(by_index, by_text);
        assert!(by_index.id.starts_with("inline~") && by_index.id.len() == 7 + 16);
        assert_eq!(by_index.item_type, ItemType::MultipleChoice);
        assert!(by_index.check(&Answer::Choice(1)).unwrap().correct);
        assert!(!by_index.check(&Answer::Choice(0)).unwrap().correct);
        assert!(by_index.check(&Answer::Text("4".into())).unwrap().correct);
        assert_eq!(by_index.irt.c, 0.3333);
        assert_eq!(by_index.difficulty, 0.5);
    }

    #[test]
    fn a_typed_number_under_numeric_options_is_graded_as_a_value_never_as_an_index() {
        let item = inline(json!({"stem": "What is 40 x 100?", "options": ["40", "4", "400", "4000"], "correct": 3}))
            .to_item()
            .unwrap();
        let typed = |text: &str| item.check(&Answer::Text(text.into())).unwrap().correct;
        assert!(!typed("0"), "0 is the number zero, not the first option");
        assert!(!typed("3"), "3 is the number three, not the right option's index");
        assert!(typed("4000") && typed("4,000") && typed(" 4000.0 "));
        assert!(item.check(&Answer::Choice(3)).unwrap().correct, "an index sent as an index is an index");
        let colours = inline(json!({"stem": "Which is warm?", "options": ["blue", "red", "green"], "correct": 1}))
            .to_item()
            .unwrap();
        let typed = |text: &str| colours.check(&Answer::Text(text.into())).unwrap().correct;
        assert!(typed("1") && typed(" RED "), "no option reads as a number, so 1 is an index");
        assert!(!typed("0") && !typed("7"));
    }

    #[test]
    fn the_id_is_stable_and_depends_on_the_content() {
        let a = inline(json!({"stem": "Capital of France?", "correct": "Paris"})).to_item().unwrap();
        let b = inline(json!({"stem": "Capital of France?", "correct": "Paris"})).to_item().unwrap();
        let c = inline(json!({"stem": "Capital of France?", "correct": "Lyon"})).to_item().unwrap();
        assert_eq!(a.id, b.id);
        assert_ne!(a.id, c.id);
        // Pinned: ids are stored with responses, so the hash must never change.
        assert_eq!(a.id, "inline~f37e6d85b26c4425");
    }

    #[test]
    fn free_text_answers_are_text_or_numbers() {
        let paris = inline(json!({"stem": "Capital of France?", "correct": "Paris"})).to_item().unwrap();
        assert!(paris.check(&Answer::Text(" paris ".into())).unwrap().correct);
        assert!(!paris.check(&Answer::Text("Lyon".into())).unwrap().correct);
        let half = inline(json!({"stem": "Half of one?", "correct": "1/2"})).to_item().unwrap();
        assert!(half.check(&Answer::Text("0.5".into())).unwrap().correct);
        let four = inline(json!({"stem": "2+2?", "correct": 4})).to_item().unwrap();
        assert!(four.check(&Answer::Text("4.0".into())).unwrap().correct);
        assert!(four.check(&Answer::Choice(0)).is_err());
    }

    #[test]
    fn bad_inline_items_say_what_is_allowed() {
        let err = |v: Value| inline(v).to_item().unwrap_err().to_string();
        assert_eq!(err(json!({"stem": " ", "correct": 1})), "stem is empty");
        assert_eq!(err(json!({"stem": "q", "options": ["a"], "correct": 0})), "1 options given; allowed: 2-6");
        assert_eq!(
            err(json!({"stem": "q", "options": ["a", "b", "c", "d"], "correct": 4})),
            "correct index 4 is out of range; allowed: 0-3"
        );
        assert_eq!(
            err(json!({"stem": "q", "options": ["a", "b"], "correct": -1})),
            "correct index -1 is out of range; allowed: 0-1"
        );
        assert!(err(json!({"stem": "q", "options": ["a", "b"], "correct": "c"})).contains("not one of the options"));
        assert!(err(json!({"stem": "q", "options": ["a", " a"], "correct": 0})).contains("are the same"));
        assert!(err(json!({"stem": "q", "options": ["a", ""], "correct": 0})).contains("options[1] is empty"));
        assert!(err(json!({"stem": "q", "options": ["a", "b"], "correct": true})).contains("not the boolean true"));
        assert!(err(json!({"stem": "q", "correct": 1, "difficulty": 1.5})).contains("allowed: 0-1"));
        assert!(err(json!({"stem": "q", "correct": 1, "a": 0})).contains("above 0"));
        let typo = serde_json::from_value::<InlineItem>(json!({"stem": "q", "corect": 1})).unwrap_err().to_string();
        assert!(typo.contains("corect"), "{typo}");
    }

    #[test]
    fn a_list_refuses_repeats_by_position() {
        let items = vec![
            inline(json!({"stem": "a?", "correct": "a"})),
            inline(json!({"stem": "b?", "correct": "b"})),
            inline(json!({"stem": "a?", "correct": "a"})),
        ];
        let err = inline_items(&items).unwrap_err().to_string();
        assert_eq!(err, "items[2]: repeats items[0]");
        assert_eq!(inline_items(&items[..2]).unwrap().len(), 2);
    }
}
