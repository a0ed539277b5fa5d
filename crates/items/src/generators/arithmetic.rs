//! Arithmetic on whole numbers: add, subtract, multiply, divide (exact, or asking for the
//! remainder). Difficulty comes from the paper method's hard steps: carries in addition and
//! multiplication, borrows in subtraction, and for division whether the quotient is a times
//! table fact and whether the long division regroups.

use super::columns::{self, digit_range};
use super::{factor, nearby_integer, push_both_ways, Answered, Domain, FactorInfo, Question, SpecError};
use crate::answer::value::Value;
use crate::answer::AnswerForm;
use crate::dice::Dice;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// `kind = "arithmetic"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArithmeticSpec {
    pub operation: Operation,
    /// Digits of the first and second operand (dividend and divisor for division), 1-9
    /// each; 1-digit operands are 1-9.
    pub digits: [u32; 2],
    /// For division: the quotient of an exact division (the default) or the remainder.
    #[serde(default, skip_serializing_if = "DivisionAsk::is_quotient")]
    pub ask: DivisionAsk,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    #[serde(alias = "addition")]
    Add,
    #[serde(alias = "subtraction")]
    Subtract,
    #[serde(alias = "multiplication")]
    Multiply,
    #[serde(alias = "division")]
    Divide,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::Add => "add",
            Operation::Subtract => "subtract",
            Operation::Multiply => "multiply",
            Operation::Divide => "divide",
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Operation::Add => "+",
            Operation::Subtract => "-",
            Operation::Multiply => "×",
            Operation::Divide => "÷",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DivisionAsk {
    #[default]
    Quotient,
    Remainder,
}

impl DivisionAsk {
    fn is_quotient(&self) -> bool {
        *self == DivisionAsk::Quotient
    }
}

const PLACEHOLDERS: &[&str] = &["op1", "op2", "symbol"];

// Factor lists are in order of the count they stand for (carries, borrows), which `make`
// relies on.
const ADD_FACTORS: &[FactorInfo] = &[
    factor("no_carry", 0.3),
    factor("single_carry", 0.5),
    factor("double_carry", 0.7),
    factor("multiple_carries", 0.8),
];
const SUB_FACTORS: &[FactorInfo] = &[
    factor("no_borrow", 0.3),
    factor("single_borrow", 0.5),
    factor("double_borrow", 0.7),
    factor("multiple_borrows", 0.8),
];
const MUL_FACTORS: &[FactorInfo] =
    &[factor("no_carry", 0.3), factor("single_carry", 0.5), factor("multiple_carries", 0.7)];
const DIV_FACTORS: &[FactorInfo] =
    &[factor("basic_fact", 0.3), factor("no_regrouping", 0.5), factor("regrouping", 0.7)];

const ADD_STRATEGIES: &[&str] =
    &["off_by_1", "off_by_10", "off_by_100", "wrong_operation", "ignored_carry", "reversed_digits"];
const SUB_STRATEGIES: &[&str] =
    &["off_by_1", "off_by_10", "off_by_100", "wrong_operation", "smaller_from_larger", "reversed_digits"];
const MUL_STRATEGIES: &[&str] =
    &["off_by_1", "off_by_10", "off_by_100", "wrong_operation", "ignored_carry", "reversed_digits"];
const DIV_STRATEGIES: &[&str] = &["off_by_1", "off_by_10", "wrong_operation", "reversed_digits"];
const REMAINDER_STRATEGIES: &[&str] = &["off_by_1", "quotient_instead", "divisor_minus_remainder"];

/// Sampling attempts for the factors that are found by trying rather than built.
const TRIES: u32 = 256;

#[derive(Debug, Clone)]
pub(crate) struct Arithmetic {
    op: Operation,
    d1: u32,
    d2: u32,
    ask: DivisionAsk,
}

impl Arithmetic {
    pub fn compile(spec: &ArithmeticSpec) -> Result<Arithmetic, SpecError> {
        let [d1, d2] = spec.digits;
        if !(1..=9).contains(&d1) || !(1..=9).contains(&d2) {
            return Err(SpecError::new("digits", format!("[{d1}, {d2}] is out of range; allowed: 1-9 digits each")));
        }
        match spec.operation {
            Operation::Subtract if d1 < d2 => {
                return Err(SpecError::new(
                    "digits",
                    format!("[{d1}, {d2}]: the first operand needs at least as many digits as the second, so the difference is not negative"),
                ))
            }
            Operation::Divide if d1 < d2 => {
                return Err(SpecError::new(
                    "digits",
                    format!("[{d1}, {d2}]: the dividend needs at least as many digits as the divisor"),
                ))
            }
            _ => {}
        }
        if spec.ask == DivisionAsk::Remainder && spec.operation != Operation::Divide {
            return Err(SpecError::new("ask", "asking for the remainder needs operation = \"divide\""));
        }
        Ok(Arithmetic { op: spec.operation, d1, d2, ask: spec.ask })
    }

    fn divisor_range(&self) -> (u64, u64) {
        let (lo, hi) = digit_range(self.d2);
        // Dividing by 1 is not a division item.
        (lo.max(2), hi)
    }

    /// The quotient range of a factor: times-table facts 2-9, long division from 10.
    fn quotient_range(index: usize) -> (u64, u64) {
        if index == 0 {
            (2, 9)
        } else {
            (10, u64::MAX / 100)
        }
    }

    fn make_division(&self, index: usize, dice: &mut Dice) -> ArithQuestion {
        let (lo_a, hi_a) = digit_range(self.d1);
        let (lo_b, hi_b) = self.divisor_range();
        let (q_min, q_max) = Self::quotient_range(index);
        let remainder = self.ask == DivisionAsk::Remainder;
        let mut fallback = None;
        for _ in 0..TRIES {
            let b = dice.int(lo_b as i64, hi_b as i64) as u64;
            let r = if remainder { dice.int(1, b as i64 - 1) as u64 } else { 0 };
            let q_lo = lo_a.saturating_sub(r).div_ceil(b).max(q_min).max(2);
            let q_hi = (hi_a.saturating_sub(r) / b).min(q_max);
            if q_lo > q_hi {
                continue;
            }
            let q = dice.int(q_lo as i64, q_hi as i64) as u64;
            let question = self.division(b * q + r, b, q, r);
            if question.factor == index {
                return question;
            }
            fallback.get_or_insert(question);
        }
        fallback.unwrap_or_else(|| self.smallest_division())
    }

    /// A valid division when sampling found none (only for parameters validation lets
    /// through but sampling keeps missing).
    fn smallest_division(&self) -> ArithQuestion {
        let (lo_a, _) = digit_range(self.d1);
        let (b, _) = self.divisor_range();
        let r = if self.ask == DivisionAsk::Remainder { 1 } else { 0 };
        let q = lo_a.saturating_sub(r).div_ceil(b).max(2);
        self.division(b * q + r, b, q, r)
    }

    fn division(&self, a: u64, b: u64, q: u64, r: u64) -> ArithQuestion {
        let regroups = columns::mul_carries(q, b) > 0;
        let factor = if q <= 9 {
            0
        } else if regroups {
            2
        } else {
            1
        };
        let answer = if self.ask == DivisionAsk::Remainder { r } else { q };
        ArithQuestion {
            op: self.op,
            ask: self.ask,
            a,
            b,
            q,
            r,
            answer,
            events: u32::from(regroups),
            factor,
            digits: [self.d1, self.d2],
        }
    }

    /// A 1-digit factor is 2-9: multiplying by 1 is not a multiplication item.
    fn factor_range(digits: u32) -> (u64, u64) {
        let (lo, hi) = digit_range(digits);
        (if digits == 1 { 2 } else { lo }, hi)
    }

    fn make_product(&self, index: usize, dice: &mut Dice) -> ArithQuestion {
        let (lo_a, hi_a) = Self::factor_range(self.d1);
        let (lo_b, hi_b) = Self::factor_range(self.d2);
        let mut best: Option<ArithQuestion> = None;
        for _ in 0..TRIES {
            let b = dice.int(lo_b as i64, hi_b as i64) as u64;
            let a = if index == 0 {
                // No digit product may reach 10: every digit of `a` at most 9 / (largest
                // digit of b).
                // digit of b). When the top digit cannot fit (2 × a large digit), the product
                // carries and the loop tries another b.
                let top = (9 / columns::max_digit(b).max(1)) as u32;
                let mut a = 0u64;
                for col in 0..self.d1 {
                    let lo = match (col + 1 == self.d1, self.d1) {
                        (false, _) => 0,
                        (true, 1) => 2,
                        (true, _) => 1,
                    };
                    a += u64::from(dice.digit(lo, top)) * 10u64.pow(col);
                }
                a
            } else {
                dice.int(lo_a as i64, hi_a as i64) as u64
            };
            let question = self.product(a, b);
            if question.factor == index {
                return question;
            }
            if best.as_ref().is_none_or(|q| q.factor.abs_diff(index) > question.factor.abs_diff(index)) {
                best = Some(question);
            }
        }
        best.unwrap_or_else(|| self.product(lo_a, lo_b))
    }

    fn product(&self, a: u64, b: u64) -> ArithQuestion {
        let carries = columns::mul_carries(a, b);
        let factor = (carries as usize).min(2);
        ArithQuestion {
            op: self.op,
            ask: self.ask,
            a,
            b,
            q: 0,
            r: 0,
            answer: a * b,
            events: carries,
            factor,
            digits: [self.d1, self.d2],
        }
    }

    /// Columns that may carry (addition) or borrow (subtraction).
    fn event_columns(&self) -> u32 {
        match self.op {
            Operation::Add => self.d1.min(self.d2),
            // The top column of equal-length operands cannot borrow, or `b > a`.
            Operation::Subtract if self.d1 == self.d2 => self.d2 - 1,
            Operation::Subtract => self.d2,
            _ => 0,
        }
    }
}

impl Domain for Arithmetic {
    type Question = ArithQuestion;

    fn describe(&self) -> String {
        format!("arithmetic ({})", self.op.name())
    }

    fn placeholders(&self) -> &'static [&'static str] {
        PLACEHOLDERS
    }

    fn factors(&self) -> &'static [FactorInfo] {
        match self.op {
            Operation::Add => ADD_FACTORS,
            Operation::Subtract => SUB_FACTORS,
            Operation::Multiply => MUL_FACTORS,
            Operation::Divide => DIV_FACTORS,
        }
    }

    fn strategies(&self) -> &'static [&'static str] {
        match (self.op, self.ask) {
            (Operation::Add, _) => ADD_STRATEGIES,
            (Operation::Subtract, _) => SUB_STRATEGIES,
            (Operation::Multiply, _) => MUL_STRATEGIES,
            (Operation::Divide, DivisionAsk::Quotient) => DIV_STRATEGIES,
            (Operation::Divide, DivisionAsk::Remainder) => REMAINDER_STRATEGIES,
        }
    }

    fn impossible(&self, index: usize) -> Option<String> {
        let (d1, d2) = (self.d1, self.d2);
        match self.op {
            Operation::Add | Operation::Subtract => {
                let needed = index.min(3) as u32;
                let columns = self.event_columns();
                (needed > columns).then(|| {
                    let what = if self.op == Operation::Add { "carry" } else { "borrow" };
                    format!("digits [{d1}, {d2}] give at most {columns} columns that can {what}; this factor needs {needed}")
                })
            }
            Operation::Multiply => (index == 2 && d1 * d2 < 2)
                .then(|| format!("digits [{d1}, {d2}] make a single digit product, which carries at most once")),

            Operation::Divide => {
                let (lo_a, hi_a) = digit_range(d1);
                let (lo_b, hi_b) = self.divisor_range();
                let (q_min, q_max) = Self::quotient_range(index);
                // Some divisor times some quotient of the factor must land among the
                // dividend's values.
                let reachable = lo_b.saturating_mul(q_min) <= hi_a && hi_b.saturating_mul(q_max.min(hi_a)) >= lo_a;
                (!reachable).then(|| {
                    if index == 0 {
                        format!("digits [{d1}, {d2}]: no {d1}-digit dividend is a {d2}-digit divisor times 2-9")
                    } else {
                        format!("digits [{d1}, {d2}]: the quotient cannot reach 10; give the dividend more digits")
                    }
                })
            }
        }
    }

    fn answer_form(&self) -> AnswerForm {
        AnswerForm::Number { variable: None }
    }

    fn make(&self, index: usize, dice: &mut Dice) -> ArithQuestion {
        match self.op {
            Operation::Add | Operation::Subtract => {
                let columns = self.event_columns();
                let count = match index {
                    0..=2 => index as u32,
                    _ => dice.digit(3.min(columns), columns),
                }
                .min(columns);
                let mask = columns::pick_columns(dice, columns, count);
                let (a, b) = if self.op == Operation::Add {
                    columns::build_sum(dice, self.d1, self.d2, mask)
                } else {
                    columns::build_difference(dice, self.d1, self.d2, mask)
                };
                let (answer, events) = if self.op == Operation::Add {
                    (a + b, columns::add_carries(a, b))
                } else {
                    (a - b, columns::sub_borrows(a, b))
                };
                let factor = (events as usize).min(3);
                ArithQuestion {
                    op: self.op,
                    ask: self.ask,
                    a,
                    b,
                    q: 0,
                    r: 0,
                    answer,
                    events,
                    factor,
                    digits: [self.d1, self.d2],
                }
            }
            Operation::Multiply => self.make_product(index, dice),
            Operation::Divide => self.make_division(index, dice),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ArithQuestion {
    op: Operation,
    ask: DivisionAsk,
    a: u64,
    b: u64,
    /// Quotient and remainder, for division.
    q: u64,
    r: u64,
    answer: u64,
    /// Carries, borrows, or for division 1 when the long division regroups.
    events: u32,
    factor: usize,
    digits: [u32; 2],
}

impl Question for ArithQuestion {
    fn fill(&self, slot: usize, out: &mut String) {
        use std::fmt::Write;
        let _ = match slot {
            0 => write!(out, "{}", self.a),
            1 => write!(out, "{}", self.b),
            _ => write!(out, "{}", self.op.symbol()),
        };
    }

    fn factor(&self) -> usize {
        self.factor
    }

    fn refinement(&self) -> f64 {
        // Larger operands within their ranges are a little harder.
        let position = |n: u64, digits: u32| {
            let (lo, hi) =
                if self.op == Operation::Multiply { Arithmetic::factor_range(digits) } else { digit_range(digits) };
            (n.clamp(lo, hi) - lo) as f64 / (hi - lo).max(1) as f64
        };
        position(self.a, self.digits[0]) + position(self.b, self.digits[1]) - 1.0
    }

    fn params(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("operation".into(), json!(self.op.name()));
        out.insert("op1".into(), json!(self.a));
        out.insert("op2".into(), json!(self.b));
        let events = match self.op {
            Operation::Add | Operation::Multiply => "carries",
            Operation::Subtract => "borrows",
            Operation::Divide => "regrouping",
        };
        out.insert(events.into(), json!(self.events));
        if self.op == Operation::Divide {
            out.insert("quotient".into(), json!(self.q));
            out.insert("remainder".into(), json!(self.r));
        }
    }

    fn content_key(&self) -> String {
        // 38 + 47 is the same question as 47 + 38.
        let (x, y) = match self.op {
            Operation::Add | Operation::Multiply => (self.a.min(self.b), self.a.max(self.b)),
            _ => (self.a, self.b),
        };
        let op = match (self.op, self.ask) {
            (Operation::Divide, DivisionAsk::Remainder) => "mod",
            (op, _) => op.name(),
        };
        format!("arith:{op}:{x}:{y}")
    }
}

impl Answered for ArithQuestion {
    fn key(&self) -> Value {
        Value::int(self.answer as i64)
    }

    fn distractors(&self, strategy: &str, dice: &mut Dice, out: &mut Vec<Value>) {
        let (a, b, key) = (self.a, self.b, self.answer as i64);
        let push = |out: &mut Vec<Value>, v: u64| out.push(Value::int(v as i64));
        match strategy {
            "off_by_1" => push_both_ways(dice, key, 1, true, out),
            "off_by_10" => push_both_ways(dice, key, 10, true, out),
            "off_by_100" => push_both_ways(dice, key, 100, true, out),
            "wrong_operation" => match self.op {
                Operation::Add => push(out, a.abs_diff(b)),
                Operation::Subtract | Operation::Multiply => push(out, a + b),
                Operation::Divide => push(out, a - b),
            },
            "ignored_carry" if self.op == Operation::Add => push(out, columns::sum_ignoring_carries(a, b)),
            "ignored_carry" => push(out, columns::product_ignoring_carries(a, b)),
            "smaller_from_larger" => push(out, columns::smaller_from_larger(a, b)),
            "reversed_digits" => push(out, columns::reversed_digits(self.answer)),
            "quotient_instead" => push(out, self.q),
            "divisor_minus_remainder" => push(out, b - self.r),
            _ => {}
        }
    }

    fn fallback(&self, k: u32) -> Option<Value> {
        nearby_integer(self.answer as i64, k, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(op: Operation, digits: [u32; 2], ask: DivisionAsk) -> Arithmetic {
        Arithmetic::compile(&ArithmeticSpec { operation: op, digits, ask }).unwrap()
    }

    #[test]
    fn every_possible_factor_is_produced() {
        let cases = [
            (Operation::Add, [1, 1]),
            (Operation::Add, [2, 2]),
            (Operation::Add, [3, 3]),
            (Operation::Subtract, [2, 1]),
            (Operation::Subtract, [3, 3]),
            (Operation::Subtract, [4, 3]),
            (Operation::Multiply, [1, 1]),
            (Operation::Multiply, [2, 1]),
            (Operation::Multiply, [3, 2]),
            (Operation::Divide, [2, 1]),
            (Operation::Divide, [3, 1]),
            (Operation::Divide, [4, 2]),
        ];
        let mut dice = Dice::new(1, 1);
        for (op, digits) in cases {
            for ask in [DivisionAsk::Quotient, DivisionAsk::Remainder].into_iter().take(if op == Operation::Divide {
                2
            } else {
                1
            }) {
                let g = gen(op, digits, ask);
                for index in 0..g.factors().len() {
                    if g.impossible(index).is_some() {
                        continue;
                    }
                    for _ in 0..100 {
                        let q = g.make(index, &mut dice);
                        assert_eq!(q.factor, index, "{op:?} {digits:?} {ask:?}: {} {} -> {}", q.a, q.b, q.answer);
                    }
                }
            }
        }
    }

    #[test]
    fn impossible_factors_say_why() {
        let g = gen(Operation::Add, [1, 2], DivisionAsk::Quotient);
        assert!(g.impossible(1).is_none());
        assert!(g.impossible(2).unwrap().contains("at most 1 columns that can carry"));
        let g = gen(Operation::Subtract, [2, 2], DivisionAsk::Quotient);
        assert!(g.impossible(2).is_some());
        let g = gen(Operation::Divide, [1, 1], DivisionAsk::Quotient);
        assert!(g.impossible(0).is_none());
        assert!(g.impossible(1).unwrap().contains("cannot reach 10"));
        let g = gen(Operation::Multiply, [1, 1], DivisionAsk::Quotient);
        assert!(g.impossible(2).is_some());
    }

    #[test]
    fn bad_parameters_are_refused() {
        let bad =
            |op, digits, ask| Arithmetic::compile(&ArithmeticSpec { operation: op, digits, ask }).unwrap_err().message;
        assert!(bad(Operation::Add, [0, 2], DivisionAsk::Quotient).contains("allowed: 1-9"));
        assert!(bad(Operation::Add, [10, 2], DivisionAsk::Quotient).contains("allowed: 1-9"));
        assert!(bad(Operation::Subtract, [1, 2], DivisionAsk::Quotient).contains("not negative"));
        assert!(bad(Operation::Divide, [1, 2], DivisionAsk::Quotient).contains("dividend"));
        assert!(bad(Operation::Add, [2, 2], DivisionAsk::Remainder).contains("divide"));
    }
}
