//! Generators: each turns a seed and a difficulty factor into a question whose answer and
//! difficulty it computes. A blueprint names one in its `[generator]` table by `kind`, with
//! that generator's parameters.

pub(crate) mod arithmetic;
pub(crate) mod columns;
pub(crate) mod fraction;
pub(crate) mod linear;
pub(crate) mod number_base;
pub(crate) mod python;
mod python_cases;
pub(crate) mod subnet;

use crate::answer::value::Value;
use crate::answer::AnswerForm;
use crate::dice::Dice;
use serde::{Deserialize, Serialize};

pub use arithmetic::{ArithmeticSpec, DivisionAsk, Operation};
pub use fraction::{FractionOperation, FractionSpec};
pub use linear::LinearSpec;
pub use number_base::{NumberBaseQuestion, NumberBaseSpec};
pub use python::{PythonSpec, PythonTask};
pub use subnet::{SubnetQuestion, SubnetSpec};

/// A blueprint's `[generator]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GeneratorSpec {
    Arithmetic(ArithmeticSpec),
    LinearEquation(LinearSpec),
    Ipv4Subnet(SubnetSpec),
    Fraction(FractionSpec),
    NumberBase(NumberBaseSpec),
    Python(PythonSpec),
}

/// A parameter of a generator that cannot be used, and why.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpecError {
    pub field: &'static str,
    pub message: String,
}

impl SpecError {
    pub fn new(field: &'static str, message: impl Into<String>) -> SpecError {
        SpecError { field, message: message.into() }
    }
}

/// A difficulty factor a generator knows, with the weight it gets when a blueprint lists no
/// factors of its own (`by_default`: whether it is then used at all).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FactorInfo {
    pub name: &'static str,
    pub default_weight: f64,
    pub by_default: bool,
}

pub(crate) const fn factor(name: &'static str, default_weight: f64) -> FactorInfo {
    FactorInfo { name, default_weight, by_default: true }
}

/// A factor used only when a blueprint lists it.
pub(crate) const fn opt_in_factor(name: &'static str, default_weight: f64) -> FactorInfo {
    FactorInfo { name, default_weight, by_default: false }
}

/// A generator checked and ready: what it offers (for validating blueprints) and how it
/// makes a question.
pub(crate) trait Domain {
    type Question: Question;
    /// How the generator is named in messages, e.g. `arithmetic (add)`.
    fn describe(&self) -> String;
    fn placeholders(&self) -> &'static [&'static str];
    fn factors(&self) -> &'static [FactorInfo];
    fn strategies(&self) -> &'static [&'static str];
    /// Why factor `index` can never occur with these parameters, if it cannot.
    fn impossible(&self, index: usize) -> Option<String>;
    fn answer_form(&self) -> AnswerForm;
    /// A question aiming at factor `index`; its `factor()` says which factor it has.
    fn make(&self, index: usize, dice: &mut Dice) -> Self::Question;
}

/// A generated question.
pub(crate) trait Question {
    /// Writes placeholder `slot` (an index into the generator's placeholders).
    fn fill(&self, slot: usize, out: &mut String);
    /// The index of the difficulty factor the question actually has.
    fn factor(&self) -> usize;
    /// Where the question sits within its factor, -1 (easiest) to 1, for a small
    /// adjustment of the factor's weight.
    fn refinement(&self) -> f64 {
        0.0
    }
    fn params(&self, out: &mut serde_json::Map<String, serde_json::Value>);
    /// What identifies the question's content, whatever the wording.
    fn content_key(&self) -> String;
}

/// A question whose answer is a value (every kind but code).
pub(crate) trait Answered: Question {
    fn key(&self) -> Value;
    /// Candidate wrong answers of a distractor strategy, best first (the caller skips any
    /// equal to the key or already taken).
    fn distractors(&self, strategy: &str, dice: &mut Dice, out: &mut Vec<Value>);
    /// The `k`-th of an endless run of plausible wrong answers, for when the strategies do
    /// not give enough distinct ones.
    fn fallback(&self, k: u32) -> Option<Value>;
}

/// A compiled generator of any kind.
#[derive(Debug, Clone)]
pub(crate) enum Generator {
    Arithmetic(arithmetic::Arithmetic),
    Linear(linear::Linear),
    Subnet(subnet::Subnet),
    Fraction(fraction::Fractions),
    NumberBase(number_base::NumberBase),
    Python(python::Python),
}

/// Calls `$body` with `$g` bound to the generator of whichever kind.
macro_rules! with_domain {
    ($gen:expr, $g:ident => $body:expr) => {
        match $gen {
            $crate::generators::Generator::Arithmetic($g) => $body,
            $crate::generators::Generator::Linear($g) => $body,
            $crate::generators::Generator::Subnet($g) => $body,
            $crate::generators::Generator::Fraction($g) => $body,
            $crate::generators::Generator::NumberBase($g) => $body,
            $crate::generators::Generator::Python($g) => $body,
        }
    };
}

impl Generator {
    pub fn compile(spec: &GeneratorSpec) -> Result<Generator, SpecError> {
        Ok(match spec {
            GeneratorSpec::Arithmetic(s) => Generator::Arithmetic(arithmetic::Arithmetic::compile(s)?),
            GeneratorSpec::LinearEquation(s) => Generator::Linear(linear::Linear::compile(s)?),
            GeneratorSpec::Ipv4Subnet(s) => Generator::Subnet(subnet::Subnet::compile(s)?),
            GeneratorSpec::Fraction(s) => Generator::Fraction(fraction::Fractions::compile(s)?),
            GeneratorSpec::NumberBase(s) => Generator::NumberBase(number_base::NumberBase::compile(s)?),
            GeneratorSpec::Python(s) => Generator::Python(python::Python::compile(s)?),
        })
    }

    pub fn describe(&self) -> String {
        with_domain!(self, g => g.describe())
    }

    pub fn placeholders(&self) -> &'static [&'static str] {
        with_domain!(self, g => g.placeholders())
    }

    pub fn factors(&self) -> &'static [FactorInfo] {
        with_domain!(self, g => g.factors())
    }

    pub fn strategies(&self) -> &'static [&'static str] {
        with_domain!(self, g => g.strategies())
    }

    pub fn impossible(&self, index: usize) -> Option<String> {
        with_domain!(self, g => g.impossible(index))
    }

    pub fn answer_form(&self) -> AnswerForm {
        with_domain!(self, g => g.answer_form())
    }

    pub fn is_code(&self) -> bool {
        matches!(self, Generator::Python(_))
    }

    /// The factor index a question made for factor `index` with this seed ends up with.
    pub fn trial_factor(&self, index: usize, dice: &mut Dice) -> usize {
        with_domain!(self, g => g.make(index, dice).factor())
    }
}

/// Other names a factor may be given by, as the document and common usage name them.
pub(crate) fn canonical_factor_name(name: &str) -> &str {
    match name {
        "byte_boundary" => "simple_cidr",
        "non_byte_boundary" => "complex_cidr",
        other => other,
    }
}

/// Numbers near `key`: key+2, key-2, key+3, key-3, ... (`+1`/`-1` are left to the
/// `off_by_1` strategy), skipping negatives when `non_negative`.
pub(crate) fn nearby_integer(key: i64, k: u32, non_negative: bool) -> Option<Value> {
    let step = i64::from(k / 2) + 2;
    let v = if k.is_multiple_of(2) { key.checked_add(step)? } else { key.checked_sub(step)? };
    (!non_negative || v >= 0).then_some(Value::int(v))
}

/// Pushes `key + delta` and `key - delta` in a random order, skipping negatives when
/// `non_negative`.
pub(crate) fn push_both_ways(dice: &mut Dice, key: i64, delta: i64, non_negative: bool, out: &mut Vec<Value>) {
    let first = delta * dice.sign();
    for d in [first, -first] {
        if let Some(v) = key.checked_add(d).filter(|v| !non_negative || *v >= 0) {
            out.push(Value::int(v));
        }
    }
}
