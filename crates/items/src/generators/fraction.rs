//! Fractions: add, subtract and multiply proper fractions. Difficulty follows the
//! denominators (same, one a multiple of the other, unrelated) for sums and differences, and
//! whether the product needs simplifying for products. Answers are compared as values, so
//! `2/4`, `1/2` and `0.5` are the same answer under `equivalent_forms`.

use super::{factor, Answered, Domain, FactorInfo, Question, SpecError};
use crate::answer::value::Value;
use crate::answer::AnswerForm;
use crate::dice::Dice;
use pathwise_domain::number::{gcd, Ratio};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt::Write;

/// `kind = "fraction"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FractionSpec {
    pub operation: FractionOperation,
    /// Largest denominator of an operand, 3-100.
    #[serde(default = "default_max_denominator")]
    pub max_denominator: i64,
}

fn default_max_denominator() -> i64 {
    12
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FractionOperation {
    #[serde(alias = "addition")]
    Add,
    #[serde(alias = "subtraction")]
    Subtract,
    #[serde(alias = "multiplication")]
    Multiply,
}

impl FractionOperation {
    fn name(self) -> &'static str {
        match self {
            FractionOperation::Add => "add",
            FractionOperation::Subtract => "subtract",
            FractionOperation::Multiply => "multiply",
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            FractionOperation::Add => "+",
            FractionOperation::Subtract => "-",
            FractionOperation::Multiply => "×",
        }
    }
}

const PLACEHOLDERS: &[&str] = &["f1", "f2", "symbol"];
const SAME: usize = 0;
const RELATED: usize = 1;
const UNRELATED: usize = 2;
const SUM_FACTORS: &[FactorInfo] =
    &[factor("same_denominator", 0.3), factor("related_denominators", 0.5), factor("unrelated_denominators", 0.7)];
const PRODUCT_FACTORS: &[FactorInfo] = &[factor("no_simplification", 0.4), factor("needs_simplification", 0.6)];
const SUM_STRATEGIES: &[&str] = &["add_across", "wrong_operation", "kept_denominator", "inverted", "off_by_1"];
const PRODUCT_STRATEGIES: &[&str] = &["wrong_operation", "kept_denominator", "divided_instead", "inverted", "off_by_1"];
const TRIES: u32 = 64;

#[derive(Debug, Clone)]
pub(crate) struct Fractions {
    op: FractionOperation,
    max_den: i64,
}

impl Fractions {
    pub fn compile(spec: &FractionSpec) -> Result<Fractions, SpecError> {
        if !(3..=100).contains(&spec.max_denominator) {
            return Err(SpecError::new(
                "max_denominator",
                format!("{} is out of range; allowed: 3-100", spec.max_denominator),
            ));
        }
        Ok(Fractions { op: spec.operation, max_den: spec.max_denominator })
    }

    /// A numerator for a proper fraction over `den` in lowest terms.
    fn numerator(dice: &mut Dice, den: i64) -> i64 {
        for _ in 0..16 {
            let n = dice.int(1, den - 1);
            if gcd(n, den) == 1 {
                return n;
            }
        }
        1
    }

    fn denominators(&self, index: usize, dice: &mut Dice) -> (i64, i64) {
        let max = self.max_den;
        match index {
            SAME => {
                let d = dice.int(if self.op == FractionOperation::Subtract { 3 } else { 2 }, max);
                (d, d)
            }
            RELATED => {
                let small = dice.int(2, max / 2);
                let big = small * dice.int(2, max / small);
                if dice.coin() {
                    (small, big)
                } else {
                    (big, small)
                }
            }
            _ => {
                for _ in 0..TRIES {
                    let (a, b) = (dice.int(2, max), dice.int(2, max));
                    if a % b != 0 && b % a != 0 {
                        return (a, b);
                    }
                }
                (2, 3)
            }
        }
    }

    fn make_sum(&self, index: usize, dice: &mut Dice) -> FractionQuestion {
        let (d1, d2) = self.denominators(index, dice);
        let (mut n1, mut n2) = if d1 == d2 {
            (dice.int(1, d1 - 1), dice.int(1, d2 - 1))
        } else {
            (Self::numerator(dice, d1), Self::numerator(dice, d2))
        };
        let (mut d1, mut d2) = (d1, d2);
        if self.op == FractionOperation::Subtract {
            if d1 == d2 && n1 == n2 {
                // Distinct numerators, so the difference is not 0.
                n2 = if n1 > 1 { n1 - 1 } else { n1 + 1 };
            }
            if n1 * d2 < n2 * d1 {
                (n1, d1, n2, d2) = (n2, d2, n1, d1);
            }
        }
        FractionQuestion { op: self.op, n1, d1, n2, d2 }
    }

    fn make_product(&self, index: usize, dice: &mut Dice) -> FractionQuestion {
        let mut last = None;
        for _ in 0..TRIES {
            let (d1, d2) = (dice.int(2, self.max_den), dice.int(2, self.max_den));
            let (n1, n2) = (Self::numerator(dice, d1), Self::numerator(dice, d2));
            let question = FractionQuestion { op: self.op, n1, d1, n2, d2 };
            if question.factor() == index {
                return question;
            }
            last = Some(question);
        }
        last.unwrap_or(FractionQuestion { op: self.op, n1: 1, d1: 2, n2: 1, d2: 3 })
    }
}

impl Domain for Fractions {
    type Question = FractionQuestion;

    fn describe(&self) -> String {
        format!("fraction ({})", self.op.name())
    }

    fn placeholders(&self) -> &'static [&'static str] {
        PLACEHOLDERS
    }

    fn factors(&self) -> &'static [FactorInfo] {
        if self.op == FractionOperation::Multiply {
            PRODUCT_FACTORS
        } else {
            SUM_FACTORS
        }
    }

    fn strategies(&self) -> &'static [&'static str] {
        if self.op == FractionOperation::Multiply {
            PRODUCT_STRATEGIES
        } else {
            SUM_STRATEGIES
        }
    }

    fn impossible(&self, index: usize) -> Option<String> {
        (self.op != FractionOperation::Multiply && index == RELATED && self.max_den < 4).then(|| {
            format!(
                "max_denominator {} leaves no denominator that is a multiple of another; allowed: 4 or more",
                self.max_den
            )
        })
    }

    fn answer_form(&self) -> AnswerForm {
        AnswerForm::Number { variable: None }
    }

    fn make(&self, index: usize, dice: &mut Dice) -> FractionQuestion {
        if self.op == FractionOperation::Multiply {
            self.make_product(index, dice)
        } else {
            self.make_sum(index, dice)
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FractionQuestion {
    op: FractionOperation,
    n1: i64,
    d1: i64,
    n2: i64,
    d2: i64,
}

impl FractionQuestion {
    fn operands(&self) -> (Ratio, Ratio) {
        // Denominators are 2 or more by construction.
        let r = |n, d| Ratio::new(n, d).unwrap_or(Ratio::int(0));
        (r(self.n1, self.d1), r(self.n2, self.d2))
    }

    fn answer(&self) -> Ratio {
        let (a, b) = self.operands();
        let result = match self.op {
            FractionOperation::Add => a.checked_add(b),
            FractionOperation::Subtract => a.checked_sub(b),
            FractionOperation::Multiply => a.checked_mul(b),
        };
        result.unwrap_or(Ratio::int(0))
    }
}

/// A positive fraction as a wrong answer; fraction items have positive answers only.
fn positive(num: i64, den: i64) -> Option<Value> {
    Ratio::new(num, den).filter(|r| r.num() > 0).map(Value::Number)
}

impl Question for FractionQuestion {
    fn fill(&self, slot: usize, out: &mut String) {
        let _ = match slot {
            0 => write!(out, "{}/{}", self.n1, self.d1),
            1 => write!(out, "{}/{}", self.n2, self.d2),
            _ => write!(out, "{}", self.op.symbol()),
        };
    }

    fn factor(&self) -> usize {
        if self.op == FractionOperation::Multiply {
            usize::from(gcd(self.n1 * self.n2, self.d1 * self.d2) != 1)
        } else if self.d1 == self.d2 {
            SAME
        } else if self.d1 % self.d2 == 0 || self.d2 % self.d1 == 0 {
            RELATED
        } else {
            UNRELATED
        }
    }

    fn params(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("operation".into(), json!(self.op.name()));
        out.insert("f1".into(), json!([self.n1, self.d1]));
        out.insert("f2".into(), json!([self.n2, self.d2]));
    }

    fn content_key(&self) -> String {
        let (mut x, mut y) = ((self.n1, self.d1), (self.n2, self.d2));
        if self.op != FractionOperation::Subtract && x > y {
            (x, y) = (y, x);
        }
        format!("frac:{}:{}/{}:{}/{}", self.op.name(), x.0, x.1, y.0, y.1)
    }
}

impl Answered for FractionQuestion {
    fn key(&self) -> Value {
        Value::Number(self.answer())
    }

    fn distractors(&self, strategy: &str, dice: &mut Dice, out: &mut Vec<Value>) {
        let (n1, d1, n2, d2) = (self.n1, self.d1, self.n2, self.d2);
        let (a, b) = self.operands();
        let key = self.answer();
        let sub = self.op == FractionOperation::Subtract;
        let mut push = |v: Option<Value>| out.extend(v);
        match strategy {
            "add_across" if sub => push(positive(n1 - n2, d1 - d2)),
            "add_across" => push(positive(n1 + n2, d1 + d2)),
            "wrong_operation" => match self.op {
                FractionOperation::Add => push(a.checked_sub(b).and_then(|r| positive(r.num().abs(), r.den()))),
                _ => push(a.checked_add(b).map(Value::Number)),
            },
            "kept_denominator" => match self.op {
                FractionOperation::Add => push(positive(n1 + n2, d1)),
                FractionOperation::Subtract => push(positive(n1 - n2, d1)),
                FractionOperation::Multiply => push(positive(n1 * n2, d1)),
            },
            "divided_instead" => push(a.checked_div(b).map(Value::Number)),
            "inverted" => push(key.recip().map(Value::Number)),
            "off_by_1" => {
                let sign = dice.sign();
                push(positive(key.num() + sign, key.den()));
                push(positive(key.num() - sign, key.den()));
            }
            _ => {}
        }
    }

    fn fallback(&self, k: u32) -> Option<Value> {
        let key = self.answer();
        let step = i64::from(k / 2) + 2;
        let num = if k.is_multiple_of(2) { key.num() + step } else { key.num() - step };
        positive(num, key.den())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_factor_is_built_and_results_are_positive() {
        let mut dice = Dice::new(8, 8);
        for op in [FractionOperation::Add, FractionOperation::Subtract, FractionOperation::Multiply] {
            let g = Fractions::compile(&FractionSpec { operation: op, max_denominator: 12 }).unwrap();
            for index in 0..g.factors().len() {
                for _ in 0..300 {
                    let q = g.make(index, &mut dice);
                    assert_eq!(q.factor(), index, "{op:?} {}/{} {}/{}", q.n1, q.d1, q.n2, q.d2);
                    assert!(q.answer().num() > 0);
                    assert!(q.n1 < q.d1 && q.n2 < q.d2 && q.d1 <= 12 && q.d2 <= 12);
                }
            }
        }
    }

    #[test]
    fn small_denominator_limits_are_explained() {
        let g = Fractions::compile(&FractionSpec { operation: FractionOperation::Add, max_denominator: 3 }).unwrap();
        assert!(g.impossible(RELATED).unwrap().contains("allowed: 4 or more"));
        assert!(Fractions::compile(&FractionSpec { operation: FractionOperation::Add, max_denominator: 2 }).is_err());
    }
}
