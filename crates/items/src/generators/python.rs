//! Python function tasks (`PROG.PYTHON.*`): the item carries the function's name, starter
//! code and test cases whose expected values are computed here; running the learner's code
//! against them is the sandbox's job. Difficulty comes from the edge cases the tests
//! include (empty input, spaces, non-ASCII text, negative numbers, ...).

use super::python_cases as cases;
use super::{factor, Domain, FactorInfo, Question, SpecError};
use crate::answer::AnswerForm;
use crate::dice::Dice;
use crate::item::TestCase;
use crate::stable_hash::Fnv64;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value as Json};

/// `kind = "python"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonSpec {
    pub task: PythonTask,
    /// The function to write (default: the task's name, e.g. `count_chars`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_name: Option<String>,
    /// How many tests, 3-20.
    #[serde(default = "default_test_count")]
    pub test_count: usize,
    /// How many of the tests (the first, all plain cases) are shown to the learner as
    /// examples; the others stay hidden.
    #[serde(default = "default_visible")]
    pub visible_examples: usize,
}

fn default_test_count() -> usize {
    5
}
fn default_visible() -> usize {
    1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PythonTask {
    CountChars,
    ReverseString,
    CountVowels,
    SumList,
    MaxOfList,
    Fizzbuzz,
}

impl PythonTask {
    pub fn name(self) -> &'static str {
        match self {
            PythonTask::CountChars => "count_chars",
            PythonTask::ReverseString => "reverse_string",
            PythonTask::CountVowels => "count_vowels",
            PythonTask::SumList => "sum_list",
            PythonTask::MaxOfList => "max_of_list",
            PythonTask::Fizzbuzz => "fizzbuzz",
        }
    }

    fn signature(self) -> (&'static str, &'static str) {
        match self {
            PythonTask::CountChars | PythonTask::CountVowels => ("s: str", "int"),
            PythonTask::ReverseString => ("s: str", "str"),
            PythonTask::SumList | PythonTask::MaxOfList => ("numbers: list[int]", "int"),
            PythonTask::Fizzbuzz => ("n: int", "str"),
        }
    }

    /// Factors in order of difficulty: a test set has the last one whose case it includes.
    fn factors(self) -> &'static [FactorInfo] {
        match self {
            PythonTask::CountChars | PythonTask::ReverseString => TEXT_FACTORS,
            PythonTask::CountVowels => VOWEL_FACTORS,
            PythonTask::SumList => SUM_FACTORS,
            PythonTask::MaxOfList => MAX_FACTORS,
            PythonTask::Fizzbuzz => FIZZBUZZ_FACTORS,
        }
    }
}

const TEXT_FACTORS: &[FactorInfo] =
    &[factor("basic", 0.3), factor("empty_edge", 0.4), factor("with_spaces", 0.5), factor("unicode", 0.7)];
const VOWEL_FACTORS: &[FactorInfo] = &[
    factor("basic", 0.3),
    factor("empty_edge", 0.4),
    factor("no_vowels", 0.45),
    factor("mixed_case", 0.5),
    factor("with_punctuation", 0.6),
];
const SUM_FACTORS: &[FactorInfo] =
    &[factor("basic", 0.3), factor("empty_edge", 0.4), factor("negative_numbers", 0.5), factor("large_values", 0.6)];
const MAX_FACTORS: &[FactorInfo] =
    &[factor("basic", 0.3), factor("single_element", 0.4), factor("duplicates", 0.5), factor("negative_numbers", 0.65)];
const FIZZBUZZ_FACTORS: &[FactorInfo] =
    &[factor("basic", 0.3), factor("multiples_of_15", 0.5), factor("large_values", 0.6)];

const PLACEHOLDERS: &[&str] = &["function_name"];

#[derive(Debug, Clone)]
pub(crate) struct Python {
    task: PythonTask,
    function_name: String,
    test_count: usize,
    visible: usize,
}

pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Python {
    pub fn compile(spec: &PythonSpec) -> Result<Python, SpecError> {
        let function_name = spec.function_name.clone().unwrap_or_else(|| spec.task.name().to_string());
        if !is_identifier(&function_name) {
            return Err(SpecError::new(
                "function_name",
                format!("'{function_name}' is not a Python identifier; allowed: letters, digits and _, not starting with a digit"),
            ));
        }
        if !(3..=20).contains(&spec.test_count) {
            return Err(SpecError::new("test_count", format!("{} is out of range; allowed: 3-20", spec.test_count)));
        }
        if spec.visible_examples >= spec.test_count {
            return Err(SpecError::new(
                "visible_examples",
                format!(
                    "{} of {} tests leaves none hidden; allowed: 0-{}",
                    spec.visible_examples,
                    spec.test_count,
                    spec.test_count - 1
                ),
            ));
        }
        Ok(Python { task: spec.task, function_name, test_count: spec.test_count, visible: spec.visible_examples })
    }

    pub fn function_name(&self) -> &str {
        &self.function_name
    }

    pub fn visible(&self) -> usize {
        self.visible
    }

    pub fn starter_code(&self) -> String {
        let (params, returns) = self.task.signature();
        format!("def {}({params}) -> {returns}:\n    # Your code here\n    pass\n", self.function_name)
    }

    /// A plain input of the task (never an edge case). `turn` varies the kind of plain
    /// case where a task has several (fizzbuzz: Fizz, Buzz, a number).
    fn basic_input(&self, dice: &mut Dice, turn: usize) -> Json {
        match self.task {
            PythonTask::CountChars | PythonTask::ReverseString | PythonTask::CountVowels => json!(cases::word(dice)),
            PythonTask::SumList => {
                let len = dice.int(2, 6) as usize;
                json!((0..len).map(|_| dice.int(1, 99)).collect::<Vec<_>>())
            }
            PythonTask::MaxOfList => {
                let len = dice.int(2, 6) as usize;
                json!(cases::distinct_numbers(dice, len, 1, 99))
            }
            PythonTask::Fizzbuzz => {
                let (step, count) = match turn % 3 {
                    0 => (3, 33),
                    1 => (5, 20),
                    _ => (1, 100),
                };
                loop {
                    let n = step * dice.int(1, count);
                    let fizz_or_buzz = n % 3 == 0 || n % 5 == 0;
                    // Multiples of 15 are the next factor up; plain numbers are neither.
                    if n % 15 != 0 && (step != 1 || !fizz_or_buzz) {
                        break json!(n);
                    }
                }
            }
        }
    }

    /// An input that is the edge case of factor `index`.
    fn edge_input(&self, index: usize, dice: &mut Dice) -> Json {
        let name = self.task.factors()[index].name;
        match (self.task, name) {
            (_, "empty_edge") if self.task == PythonTask::SumList => json!([]),
            (_, "empty_edge") => json!(""),
            (_, "with_spaces") => json!(cases::phrase(dice)),
            (_, "unicode") => {
                let mut s = cases::unicode_word(dice);
                if dice.coin() {
                    s = format!("{} {s}", cases::word(dice));
                }
                json!(s)
            }
            (_, "no_vowels") => json!(cases::no_vowel_word(dice)),
            (_, "mixed_case") => {
                let w = cases::word(dice);
                json!(cases::mixed_case(dice, &w))
            }
            (_, "with_punctuation") => json!(cases::punctuated(dice)),
            (PythonTask::SumList, "negative_numbers") => {
                let len = dice.int(2, 6) as usize;
                let mut v: Vec<i64> = (0..len).map(|_| dice.int(-99, 99)).collect();
                v[dice.index(len)] = -dice.int(1, 99);
                json!(v)
            }
            (_, "negative_numbers") => {
                // All negative: a running maximum started at 0 gets this wrong.
                let len = dice.int(2, 6) as usize;
                json!(cases::distinct_numbers(dice, len, -99, -1))
            }
            (_, "large_values") if self.task == PythonTask::Fizzbuzz => json!(dice.int(1000, 100_000)),
            (_, "large_values") => {
                let len = dice.int(2, 5) as usize;
                json!((0..len).map(|_| dice.int(1_000_000, 1_000_000_000_000)).collect::<Vec<_>>())
            }
            (_, "single_element") => json!([dice.int(1, 99)]),
            (_, "duplicates") => {
                let len = dice.int(2, 5) as usize;
                let mut v = cases::distinct_numbers(dice, len, 1, 99);
                let max = v.iter().copied().max().unwrap_or(0);
                v.insert(dice.index(v.len() + 1), max);
                json!(v)
            }
            (_, "multiples_of_15") => json!(15 * dice.int(1, 6)),
            _ => self.basic_input(dice, 0),
        }
    }

    /// The features of one input, as factor indices it shows.
    fn features(&self, input: &Json) -> usize {
        let factors = self.task.factors();
        let has = |name: &str| factors.iter().position(|f| f.name == name).unwrap_or(0);
        let mut level = 0;
        let mut raise = |present: bool, name: &str| {
            if present {
                level = level.max(has(name));
            }
        };
        match input {
            Json::String(s) => {
                raise(s.is_empty(), "empty_edge");
                if self.task == PythonTask::CountVowels {
                    raise(!s.is_empty() && !s.chars().any(is_vowel), "no_vowels");
                    raise(s.chars().any(|c| c.is_ascii_uppercase()), "mixed_case");
                    raise(s.chars().any(|c| c.is_ascii_punctuation()), "with_punctuation");
                } else {
                    raise(s.contains(' '), "with_spaces");
                    raise(!s.is_ascii(), "unicode");
                }
            }
            Json::Array(items) => {
                let values: Vec<i64> = items.iter().filter_map(Json::as_i64).collect();
                let max = values.iter().copied().max();
                raise(values.is_empty(), "empty_edge");
                raise(values.len() == 1, "single_element");
                raise(values.iter().filter(|v| Some(**v) == max).count() > 1, "duplicates");
                if self.task == PythonTask::MaxOfList {
                    raise(!values.is_empty() && values.iter().all(|v| *v < 0), "negative_numbers");
                } else {
                    raise(values.iter().any(|v| *v < 0), "negative_numbers");
                }
                raise(values.iter().any(|v| v.abs() >= 1_000_000), "large_values");
            }
            Json::Number(n) => {
                let n = n.as_i64().unwrap_or(0);
                raise(n % 15 == 0, "multiples_of_15");
                raise(n >= 1000, "large_values");
            }
            _ => {}
        }
        level
    }

    fn expected(&self, input: &Json) -> Json {
        let text = input.as_str().unwrap_or_default();
        let numbers =
            || input.as_array().map(|a| a.iter().filter_map(Json::as_i64).collect::<Vec<_>>()).unwrap_or_default();
        match self.task {
            PythonTask::CountChars => json!(text.chars().count()),
            PythonTask::ReverseString => json!(text.chars().rev().collect::<String>()),
            PythonTask::CountVowels => json!(text.chars().filter(|c| is_vowel(*c)).count()),
            PythonTask::SumList => json!(numbers().iter().sum::<i64>()),
            PythonTask::MaxOfList => json!(numbers().into_iter().max()),
            PythonTask::Fizzbuzz => {
                let n = input.as_i64().unwrap_or(0);
                json!(match (n % 3 == 0, n % 5 == 0) {
                    (true, true) => "FizzBuzz".to_string(),
                    (true, false) => "Fizz".to_string(),
                    (false, true) => "Buzz".to_string(),
                    _ => n.to_string(),
                })
            }
        }
    }
}

fn is_vowel(c: char) -> bool {
    matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u')
}

impl Domain for Python {
    type Question = CodeQuestion;

    fn describe(&self) -> String {
        format!("python ({})", self.task.name())
    }

    fn placeholders(&self) -> &'static [&'static str] {
        PLACEHOLDERS
    }

    fn factors(&self) -> &'static [FactorInfo] {
        self.task.factors()
    }

    fn strategies(&self) -> &'static [&'static str] {
        &[]
    }

    fn impossible(&self, _index: usize) -> Option<String> {
        None
    }

    fn answer_form(&self) -> AnswerForm {
        AnswerForm::Tests
    }

    fn make(&self, index: usize, dice: &mut Dice) -> CodeQuestion {
        let mut inputs: Vec<Json> = Vec::with_capacity(self.test_count);
        // Plain cases first: the visible examples come from them.
        let plain = if index == 0 { self.test_count } else { self.test_count - 1 };
        let first_turn = dice.index(3);
        let mut tries = 0;
        while inputs.len() < plain {
            let input = self.basic_input(dice, first_turn + inputs.len());
            tries += 1;
            // Distinct inputs while the task has enough of them (it always has, for 20 tests).
            if tries > 1000 || !inputs.contains(&input) {
                inputs.push(input);
            }
        }
        if index > 0 {
            let edge = self.edge_input(index, dice);
            let at = self.visible + dice.index(self.test_count - self.visible);
            inputs.insert(at.min(inputs.len()), edge);
        }
        let factor = inputs.iter().map(|i| self.features(i)).max().unwrap_or(0);
        let tests =
            inputs.into_iter().map(|input| TestCase { expected: self.expected(&input), input: vec![input] }).collect();
        CodeQuestion { task: self.task, function_name: self.function_name.clone(), tests, factor }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct CodeQuestion {
    task: PythonTask,
    function_name: String,
    pub tests: Vec<TestCase>,
    factor: usize,
}

impl Question for CodeQuestion {
    fn fill(&self, _slot: usize, out: &mut String) {
        out.push_str(&self.function_name);
    }

    fn factor(&self) -> usize {
        self.factor
    }

    fn params(&self, out: &mut serde_json::Map<String, Json>) {
        out.insert("task".into(), json!(self.task.name()));
        out.insert("test_count".into(), json!(self.tests.len()));
    }

    fn content_key(&self) -> String {
        let mut h = Fnv64::new();
        for t in &self.tests {
            for arg in &t.input {
                h.field(&arg.to_string());
            }
        }
        format!("py:{}:{:016x}", self.task.name(), h.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python(task: PythonTask) -> Python {
        Python::compile(&PythonSpec { task, function_name: None, test_count: 5, visible_examples: 1 }).unwrap()
    }

    const TASKS: [PythonTask; 6] = [
        PythonTask::CountChars,
        PythonTask::ReverseString,
        PythonTask::CountVowels,
        PythonTask::SumList,
        PythonTask::MaxOfList,
        PythonTask::Fizzbuzz,
    ];

    #[test]
    fn each_factor_puts_its_edge_case_among_the_hidden_tests() {
        let mut dice = Dice::new(7, 7);
        for task in TASKS {
            let g = python(task);
            for index in 0..task.factors().len() {
                for _ in 0..100 {
                    let q = g.make(index, &mut dice);
                    assert_eq!(q.tests.len(), 5);
                    assert_eq!(q.factor, index, "{task:?} {:?}", q.tests);
                    assert_eq!(g.features(&q.tests[0].input[0]), 0, "the visible example is plain");
                }
            }
        }
    }

    #[test]
    fn fizzbuzz_tests_cover_fizz_and_buzz() {
        let mut dice = Dice::new(3, 1);
        let g = python(PythonTask::Fizzbuzz);
        for _ in 0..200 {
            let q = g.make(0, &mut dice);
            let outputs: Vec<&str> = q.tests.iter().filter_map(|t| t.expected.as_str()).collect();
            assert!(outputs.contains(&"Fizz") && outputs.contains(&"Buzz"), "{outputs:?}");
        }
    }

    #[test]
    fn starter_code_has_the_signature() {
        let g = Python::compile(&PythonSpec {
            task: PythonTask::SumList,
            function_name: Some("total".into()),
            test_count: 3,
            visible_examples: 0,
        })
        .unwrap();
        assert_eq!(g.starter_code(), "def total(numbers: list[int]) -> int:\n    # Your code here\n    pass\n");
    }

    #[test]
    fn bad_parameters_are_refused() {
        let spec = |name: Option<&str>, count, visible| PythonSpec {
            task: PythonTask::CountChars,
            function_name: name.map(str::to_string),
            test_count: count,
            visible_examples: visible,
        };
        assert!(Python::compile(&spec(Some("2fast"), 5, 1)).unwrap_err().message.contains("identifier"));
        assert!(Python::compile(&spec(None, 2, 1)).unwrap_err().message.contains("allowed: 3-20"));
        assert!(Python::compile(&spec(None, 5, 5)).unwrap_err().message.contains("allowed: 0-4"));
    }
}
