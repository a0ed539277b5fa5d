//! Items: one generated (or inline) question with its key, difficulty and IRT parameters;
//! the view of it that may be shown; and checking answers against it.

use crate::answer::{Answer, AnswerKey, Check, Evaluation};
use crate::band::Band;
use crate::error::ItemError;
use pathwise_domain::choice::read_typed_choice;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemType {
    MultipleChoice,
    FreeText,
    CodeEditor,
}

impl ItemType {
    pub fn name(self) -> &'static str {
        match self {
            ItemType::MultipleChoice => "multiple_choice",
            ItemType::FreeText => "free_text",
            ItemType::CodeEditor => "code_editor",
        }
    }

    /// The client tool that presents this kind of item.
    pub fn client_tool(self) -> &'static str {
        match self {
            ItemType::MultipleChoice => "present_choices",
            ItemType::FreeText => "request_free_text",
            ItemType::CodeEditor => "present_code_editor",
        }
    }
}

/// Four-parameter logistic item parameters: discrimination `a`, difficulty `b` (on the
/// ability scale), guessing floor `c`, ceiling `d`.
///
/// Generated items are not calibrated; their parameters come from the computed difficulty:
/// `b = 4 × (difficulty − 0.5)` (so difficulty 0..1 spans −2..2, where most abilities lie),
/// `a` from the blueprint's `discrimination` (default 1.0), `c = 1 / option_count` for
/// multiple choice (a blind guess) and 0 otherwise, `d = 1`. Values are rounded to four
/// decimals, so that an item read back from JSON equals the one generated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IrtParams {
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub d: f64,
}

impl IrtParams {
    pub fn from_difficulty(difficulty: f64, discrimination: f64, option_count: usize) -> IrtParams {
        let c = if option_count >= 2 { 1.0 / option_count as f64 } else { 0.0 };
        IrtParams { a: round4(discrimination), b: round4(4.0 * (difficulty - 0.5)), c: round4(c), d: 1.0 }
    }
}

/// One test of a code task: the function's arguments and the value it must return.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestCase {
    pub input: Vec<serde_json::Value>,
    pub expected: serde_json::Value,
}

/// What a code item asks for. The first `visible_tests` tests are shown as examples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeTask {
    pub language: String,
    pub function_name: String,
    pub starter_code: String,
    pub tests: Vec<TestCase>,
    pub visible_tests: usize,
}

/// An item with everything needed to present and score it. Reproducible: the library
/// regenerates the identical item from `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// `<skill_id>~s=<seed>~d=<target>` for generated items, `inline~<hash>` for inline ones.
    pub id: String,
    pub blueprint_id: String,
    pub domain: String,
    pub seed: u64,
    pub item_type: ItemType,
    pub stem: String,
    /// The choices, for multiple choice; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<CodeTask>,
    pub key: AnswerKey,
    /// Computed from the generated parameters, 0..1.
    pub difficulty: f64,
    pub irt: IrtParams,
    /// The generator's parameters (operands, factor, template, ...).
    pub generation_params: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_seconds: Option<u32>,
    /// Identifies the question's content whatever its wording, for uniqueness in a session.
    pub content_key: String,
}

/// An item as it may be shown: no key, no hidden tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PresentedItem {
    pub item_id: String,
    pub item_type: ItemType,
    /// The client tool to present it with.
    pub present_using: String,
    pub stem: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<PresentedCode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PresentedCode {
    pub language: String,
    pub function_name: String,
    pub starter_code: String,
    /// The tests the learner may see; the others are hidden.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<TestCase>,
}

/// `x` to four decimals: short decimals parse back to exactly the same `f64`.
pub(crate) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl Item {
    pub fn presented(&self) -> PresentedItem {
        PresentedItem {
            item_id: self.id.clone(),
            item_type: self.item_type,
            present_using: self.item_type.client_tool().to_string(),
            stem: self.stem.clone(),
            options: self.options.clone(),
            time_limit_seconds: self.time_limit_seconds,
            code: self.code.as_ref().map(|c| PresentedCode {
                language: c.language.clone(),
                function_name: c.function_name.clone(),
                starter_code: c.starter_code.clone(),
                examples: c.tests.iter().take(c.visible_tests).cloned().collect(),
            }),
        }
    }

    pub fn band(&self) -> Band {
        Band::of(self.difficulty)
    }

    /// The tests a code item's submission must pass (empty for other items).
    pub fn tests(&self) -> &[TestCase] {
        self.code.as_ref().map_or(&[], |c| &c.tests)
    }

    /// Scores an answer. A choice is checked against the key's index; text against the
    /// key under the blueprint's evaluation method (for multiple choice, text that picks an
    /// option by [`read_typed_choice`] counts as choosing it).
    pub fn check(&self, answer: &Answer) -> Result<Check, ItemError> {
        match (self.item_type, answer) {
            (ItemType::CodeEditor, _) => {
                Err(ItemError::NeedsExecution { item_id: self.id.clone(), tests: self.tests().len() })
            }
            (ItemType::MultipleChoice, Answer::Choice(i)) => {
                if *i >= self.options.len() {
                    return Err(ItemError::ChoiceOutOfRange { choice: *i, options: self.options.len() });
                }
                Ok(Check::graded(Some(*i) == self.key.choice, &self.key.answer))
            }
            (ItemType::FreeText, Answer::Choice(i)) => {
                Err(ItemError::ChoiceForTextItem { item_id: self.id.clone(), choice: *i })
            }
            // A typed answer picks an option by the domain's one rule for choices (by value,
            // or by index only when no option reads as a number); other text is compared
            // with the key in its own form.
            (ItemType::MultipleChoice, Answer::Text(text)) => match read_typed_choice(&self.options, text) {
                Some(i) => Ok(Check::graded(Some(i) == self.key.choice, &self.key.answer)),
                None => Ok(Check::graded(self.key.accepts(text), &self.key.answer)),
            },
            (_, Answer::Text(text)) => Ok(Check::graded(self.key.accepts(text), &self.key.answer)),
        }
    }

    /// Scores a code submission from how many of its tests passed (run by the caller):
    /// the share passed, or all or nothing when the blueprint turns partial credit off.
    pub fn check_tests(&self, passed: usize, total: usize) -> Result<Check, ItemError> {
        let expected = self.tests().len();
        if self.code.is_none() {
            return Err(ItemError::NotACodeItem { item_id: self.id.clone() });
        }
        if total != expected || passed > total {
            return Err(ItemError::TestCount { item_id: self.id.clone(), passed, total, expected });
        }
        let check = Check::from_tests(passed, total);
        let partial = !matches!(self.key.evaluation, Evaluation::TestExecution { partial_credit: false, .. });
        Ok(if partial { check } else { Check { credit: if check.correct { 1.0 } else { 0.0 }, ..check } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn irt_parameters_follow_the_documented_mapping() {
        let p = IrtParams::from_difficulty(0.5, 1.0, 4);
        assert_eq!(p, IrtParams { a: 1.0, b: 0.0, c: 0.25, d: 1.0 });
        let p = IrtParams::from_difficulty(1.0, 1.5, 0);
        assert_eq!(p, IrtParams { a: 1.5, b: 2.0, c: 0.0, d: 1.0 });
        assert_eq!(IrtParams::from_difficulty(0.0, 1.0, 2).b, -2.0);
        assert_eq!(IrtParams::from_difficulty(0.55764, 1.0, 3), IrtParams { a: 1.0, b: 0.2306, c: 0.3333, d: 1.0 });
    }

    #[test]
    fn client_tools_match_the_session_widgets() {
        assert_eq!(ItemType::MultipleChoice.client_tool(), "present_choices");
        assert_eq!(ItemType::FreeText.client_tool(), "request_free_text");
        assert_eq!(ItemType::CodeEditor.client_tool(), "present_code_editor");
    }
}
