//! Answers and their checking: what a learner gives ([`Answer`]), what an item knows
//! ([`AnswerKey`]), how the two are compared ([`Evaluation`], [`AnswerForm`]) and the
//! outcome ([`Check`]).
//!
//! - `exact_match`: the text, trimmed, with runs of spaces read as one, and ignoring case
//!   unless `case_sensitive`.
//! - `numeric_tolerance`: any number (`3`, `-1.5`, `3/4`, `1 1/2`, `1,234`, `1.5e3`), correct
//!   within the tolerance.
//! - `equivalent_forms`: the same value in any of its forms: for numbers `x = 3`, `x=3`,
//!   `3`, `3.0`, and `-3/2` == `-1.5` == `-1 1/2` (a decimal counts only when exactly equal:
//!   `0.33` is not `1/3`); for addresses leading zeros are allowed; for masks
//!   `255.255.255.0` == `/24` == `24`; for binary numbers `101101` == `0b101101` ==
//!   `0010 1101` (leading zeros only where the key does not fix the width, as an octet's
//!   eight bits do); for places `hundreds` == `the hundred place`.
//! - `test_execution`: code, which the caller runs (see [`Check::from_tests`]).

pub(crate) mod parse;
pub(crate) mod value;

use parse::{parse_binary, parse_f64, parse_ipv4, parse_place, parse_prefix, parse_ratio, strip_variable};
use serde::{Deserialize, Serialize};

/// A learner's answer: the index of a choice (from 0) or typed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Choice(usize),
    Text(String),
}

/// The outcome of checking an answer. `expected` is the canonical correct answer, for
/// showing after scoring, never before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    pub correct: bool,
    /// 0..1; 0 or 1 except for code tasks scored by the share of tests passed.
    pub credit: f64,
    pub expected: String,
}

impl Check {
    pub(crate) fn graded(correct: bool, expected: &str) -> Check {
        Check { correct, credit: if correct { 1.0 } else { 0.0 }, expected: expected.to_string() }
    }

    /// Partial credit for a code task: the share of its tests that passed (more passed
    /// than run counts as all passed; no tests scores 0).
    pub fn from_tests(passed: usize, total: usize) -> Check {
        let passed = passed.min(total);
        let credit = if total == 0 { 0.0 } else { passed as f64 / total as f64 };
        Check { correct: total > 0 && passed == total, credit, expected: format!("all {total} tests pass") }
    }
}

/// How a typed answer is compared with the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum Evaluation {
    ExactMatch {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        case_sensitive: bool,
    },
    NumericTolerance {
        tolerance: f64,
    },
    EquivalentForms {},
    TestExecution {
        /// Passed on to whoever runs the code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_seconds: Option<u32>,
        /// Credit by the share of tests passed (the default), or all or nothing.
        #[serde(default = "yes")]
        partial_credit: bool,
    },
}

fn yes() -> bool {
    true
}

impl Evaluation {
    pub fn name(&self) -> &'static str {
        match self {
            Evaluation::ExactMatch { .. } => "exact_match",
            Evaluation::NumericTolerance { .. } => "numeric_tolerance",
            Evaluation::EquivalentForms {} => "equivalent_forms",
            Evaluation::TestExecution { .. } => "test_execution",
        }
    }
}

/// What kind of value the key is, which decides what counts as an equivalent form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum AnswerForm {
    /// An integer or a fraction; `variable` is the unknown a learner may name (`x = 3`).
    Number {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        variable: Option<String>,
    },
    Ipv4Address,
    /// A mask, written dotted or as a prefix length.
    SubnetMask,
    /// A number written in binary. With `fixed_width`, an answer must have as many bits as
    /// the key (an octet's eight, leading zeros included); otherwise leading zeros do not
    /// change the number. The width is the key's, not a fixed count, so that a wrong answer
    /// of another width can still be matched against a distractor.
    Binary {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fixed_width: bool,
    },
    /// The name of a decimal place (`hundreds`).
    PlaceName,
    Text,
    /// Code, checked by running tests.
    Tests,
}

/// What an item knows about its correct answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerKey {
    /// The index of the correct option, for multiple choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<usize>,
    /// The canonical correct answer (for code tasks, a description of success).
    pub answer: String,
    #[serde(flatten)]
    pub form: AnswerForm,
    pub evaluation: Evaluation,
}

impl AnswerKey {
    /// Whether typed text is the correct answer under the key's evaluation method.
    pub fn accepts(&self, given: &str) -> bool {
        let variable = match &self.form {
            AnswerForm::Number { variable } => variable.as_deref(),
            _ => None,
        };
        match &self.evaluation {
            Evaluation::ExactMatch { case_sensitive } => same_words(given, &self.answer, *case_sensitive),
            Evaluation::NumericTolerance { tolerance } => {
                match (parse_f64(strip_variable(given, variable)), parse_f64(&self.answer)) {
                    (Some(g), Some(k)) => (g - k).abs() <= tolerance + 1e-9 * k.abs().max(1.0),
                    _ => false,
                }
            }
            Evaluation::EquivalentForms {} => match &self.form {
                AnswerForm::Number { .. } => {
                    parse_ratio(strip_variable(given, variable)).is_some_and(|g| Some(g) == parse_ratio(&self.answer))
                }
                AnswerForm::Ipv4Address => parse_ipv4(given).is_some_and(|g| Some(g) == parse_ipv4(&self.answer)),
                AnswerForm::SubnetMask => parse_prefix(given).is_some_and(|g| Some(g) == parse_prefix(&self.answer)),
                AnswerForm::Binary { fixed_width } => match (parse_binary(given), parse_binary(&self.answer)) {
                    (Some((g, g_bits)), Some((k, k_bits))) => g == k && (!fixed_width || g_bits == k_bits),
                    _ => false,
                },
                AnswerForm::PlaceName => parse_place(given).is_some_and(|g| Some(g) == parse_place(&self.answer)),
                AnswerForm::Text => same_words(given, &self.answer, false),
                AnswerForm::Tests => false,
            },
            Evaluation::TestExecution { .. } => false,
        }
    }
}

/// Equal word for word, ignoring surrounding and repeated whitespace.
fn same_words(a: &str, b: &str, case_sensitive: bool) -> bool {
    if case_sensitive {
        a.split_whitespace().eq(b.split_whitespace())
    } else {
        lowercase_words(a).eq(lowercase_words(b))
    }
}

fn lowercase_words(s: &str) -> impl Iterator<Item = char> + '_ {
    s.split_whitespace().flat_map(|w| w.chars().flat_map(char::to_lowercase).chain([' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(answer: &str, form: AnswerForm, evaluation: Evaluation) -> AnswerKey {
        AnswerKey { choice: None, answer: answer.to_string(), form, evaluation }
    }

    fn number(variable: Option<&str>) -> AnswerForm {
        AnswerForm::Number { variable: variable.map(str::to_string) }
    }

    #[test]
    fn exact_match_ignores_spacing_and_case_only() {
        let k = key("Paris", AnswerForm::Text, Evaluation::ExactMatch { case_sensitive: false });
        assert!(k.accepts("  paris "));
        assert!(!k.accepts("Pariss"));
        let k = key("New  York", AnswerForm::Text, Evaluation::ExactMatch { case_sensitive: true });
        assert!(k.accepts("New York"));
        assert!(!k.accepts("new york"));
        let k = key("85", number(None), Evaluation::ExactMatch { case_sensitive: false });
        assert!(k.accepts(" 85"));
        assert!(!k.accepts("85.0"));
    }

    #[test]
    fn equivalent_numbers() {
        let k = key("3", number(Some("x")), Evaluation::EquivalentForms {});
        for ok in ["x = 3", "3", "x=3", "3.0", "X = 3.00", "6/2"] {
            assert!(k.accepts(ok), "{ok}");
        }
        for wrong in ["y = 3", "-3", "x = 4", "three", ""] {
            assert!(!k.accepts(wrong), "{wrong}");
        }
        let k = key("-3/2", number(Some("x")), Evaluation::EquivalentForms {});
        for ok in ["-1.5", "x = -3/2", "-6/4", "-1 1/2"] {
            assert!(k.accepts(ok), "{ok}");
        }
        let k = key("1/3", number(None), Evaluation::EquivalentForms {});
        assert!(k.accepts("2/6"));
        assert!(!k.accepts("0.33"));
    }

    #[test]
    fn numeric_tolerance() {
        let k = key("3.14", number(None), Evaluation::NumericTolerance { tolerance: 0.01 });
        assert!(k.accepts("3.15"));
        assert!(k.accepts("3.13"));
        assert!(!k.accepts("3.16"));
        assert!(!k.accepts("pi"));
        let k = key("1234", number(None), Evaluation::NumericTolerance { tolerance: 0.0 });
        assert!(k.accepts("1,234"));
        assert!(k.accepts("1.234e3"));
    }

    #[test]
    fn equivalent_addresses_and_masks() {
        let k = key("192.168.1.0", AnswerForm::Ipv4Address, Evaluation::EquivalentForms {});
        assert!(k.accepts("192.168.001.000"));
        assert!(!k.accepts("192.168.1.1"));
        let k = key("255.255.255.0", AnswerForm::SubnetMask, Evaluation::EquivalentForms {});
        for ok in ["/24", "24", "255.255.255.0", " / 24"] {
            assert!(k.accepts(ok), "{ok}");
        }
        assert!(!k.accepts("/23"));
        let k = key("/22", AnswerForm::SubnetMask, Evaluation::EquivalentForms {});
        assert!(k.accepts("255.255.252.0"));
    }

    #[test]
    fn equivalent_binary_numbers_keep_a_fixed_width() {
        let k = key("101101", AnswerForm::Binary { fixed_width: false }, Evaluation::EquivalentForms {});
        for ok in ["101101", "00101101", "0b101101", "10 1101", " 0010 1101 "] {
            assert!(k.accepts(ok), "{ok}");
        }
        for wrong in ["101100", "1011010", "45", "", "1O1101"] {
            assert!(!k.accepts(wrong), "{wrong}");
        }
        let k = key("00101101", AnswerForm::Binary { fixed_width: true }, Evaluation::EquivalentForms {});
        for ok in ["00101101", "0010 1101", "0b00101101"] {
            assert!(k.accepts(ok), "{ok}");
        }
        for wrong in ["101101", "000101101", "10110100"] {
            assert!(!k.accepts(wrong), "{wrong}");
        }
        let k =
            key("00101101", AnswerForm::Binary { fixed_width: true }, Evaluation::ExactMatch { case_sensitive: false });
        assert!(k.accepts(" 00101101"));
        assert!(!k.accepts("0010 1101"));
    }

    #[test]
    fn equivalent_place_names() {
        let k = key("ten thousands", AnswerForm::PlaceName, Evaluation::EquivalentForms {});
        for ok in ["ten thousands", "Ten-Thousands", "the ten thousand place", "ten thousands column"] {
            assert!(k.accepts(ok), "{ok}");
        }
        for wrong in ["thousands", "ten", "10000", "hundred thousands"] {
            assert!(!k.accepts(wrong), "{wrong}");
        }
    }

    #[test]
    fn answer_forms_keep_their_fields_through_json() {
        for form in
            [AnswerForm::Binary { fixed_width: true }, AnswerForm::Binary { fixed_width: false }, AnswerForm::PlaceName]
        {
            let k = key("1", form, Evaluation::EquivalentForms {});
            let again: AnswerKey = serde_json::from_str(&serde_json::to_string(&k).unwrap()).unwrap();
            assert_eq!(again, k);
        }
    }

    #[test]
    fn test_credit_is_the_share_passed() {
        assert_eq!(Check::from_tests(3, 4).credit, 0.75);
        assert!(!Check::from_tests(3, 4).correct);
        assert!(Check::from_tests(4, 4).correct);
        assert!(Check::from_tests(9, 4).correct);
        assert_eq!(Check::from_tests(0, 0).credit, 0.0);
        assert!(!Check::from_tests(0, 0).correct);
    }

    #[test]
    fn evaluation_reads_from_toml_and_refuses_unknown_fields() {
        let e: Evaluation = toml::from_str("method = \"numeric_tolerance\"\ntolerance = 0.5").unwrap();
        assert_eq!(e, Evaluation::NumericTolerance { tolerance: 0.5 });
        let e: Evaluation = toml::from_str("method = \"test_execution\"").unwrap();
        assert_eq!(e, Evaluation::TestExecution { timeout_seconds: None, partial_credit: true });
        let err = toml::from_str::<Evaluation>("method = \"exact_match\"\ntolerence = 1").unwrap_err().to_string();
        assert!(err.contains("tolerence"), "{err}");
        let err = toml::from_str::<Evaluation>("method = \"fuzzy\"").unwrap_err().to_string();
        assert!(err.contains("fuzzy") && err.contains("exact_match"), "{err}");
    }
}
