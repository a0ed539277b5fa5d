//! Linear equations in one variable, `a x + b = c` or `a x + b = d x + e`, built from their
//! solution so that it is an integer (or, when the blueprint opts in, a fraction).

use super::{factor, nearby_integer, opt_in_factor, push_both_ways, Answered, Domain, FactorInfo, Question, SpecError};
use crate::answer::value::Value;
use crate::answer::AnswerForm;
use crate::dice::Dice;
use pathwise_domain::number::Ratio;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt::Write;

/// `kind = "linear_equation"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearSpec {
    /// One letter.
    #[serde(default = "default_variable")]
    pub variable: String,
    /// Largest coefficient of the variable, 2-99.
    #[serde(default = "default_max_coefficient")]
    pub max_coefficient: i64,
    /// Largest constant term, 1-999.
    #[serde(default = "default_max_constant")]
    pub max_constant: i64,
    /// Largest solution (in absolute value), 1-999.
    #[serde(default = "default_max_solution")]
    pub max_solution: i64,
}

fn default_variable() -> String {
    "x".to_string()
}
fn default_max_coefficient() -> i64 {
    9
}
fn default_max_constant() -> i64 {
    20
}
fn default_max_solution() -> i64 {
    10
}

const PLACEHOLDERS: &[&str] = &["equation", "variable"];
const ONE_STEP: usize = 0;
const TWO_STEP: usize = 1;
const NEGATIVE: usize = 2;
const BOTH_SIDES: usize = 3;
const RATIONAL: usize = 4;
const FACTORS: &[FactorInfo] = &[
    factor("one_step", 0.2),
    factor("two_step", 0.4),
    factor("negative_numbers", 0.55),
    factor("both_sides", 0.7),
    opt_in_factor("rational_solution", 0.85),
];
const STRATEGIES: &[&str] = &["sign_error", "forgot_divide", "multiplied_instead", "reciprocal", "negated", "off_by_1"];

#[derive(Debug, Clone)]
pub(crate) struct Linear {
    variable: String,
    max_coefficient: i64,
    max_constant: i64,
    max_solution: i64,
}

impl Linear {
    pub fn compile(spec: &LinearSpec) -> Result<Linear, SpecError> {
        let v = &spec.variable;
        if v.len() != 1 || !v.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(SpecError::new("variable", format!("'{v}' is not allowed; allowed: one letter a-z or A-Z")));
        }
        let check = |field: &'static str, value: i64, lo: i64, hi: i64| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(SpecError::new(field, format!("{value} is out of range; allowed: {lo}-{hi}")))
            }
        };
        check("max_coefficient", spec.max_coefficient, 2, 99)?;
        check("max_constant", spec.max_constant, 1, 999)?;
        check("max_solution", spec.max_solution, 1, 999)?;
        Ok(Linear {
            variable: spec.variable.clone(),
            max_coefficient: spec.max_coefficient,
            max_constant: spec.max_constant,
            max_solution: spec.max_solution,
        })
    }

    fn constant(&self, dice: &mut Dice) -> i64 {
        dice.int(1, self.max_constant) * dice.sign()
    }
}

impl Domain for Linear {
    type Question = LinearQuestion;

    fn describe(&self) -> String {
        "linear_equation".to_string()
    }

    fn placeholders(&self) -> &'static [&'static str] {
        PLACEHOLDERS
    }

    fn factors(&self) -> &'static [FactorInfo] {
        FACTORS
    }

    fn strategies(&self) -> &'static [&'static str] {
        STRATEGIES
    }

    fn impossible(&self, _index: usize) -> Option<String> {
        None
    }

    fn answer_form(&self) -> AnswerForm {
        AnswerForm::Number { variable: Some(self.variable.clone()) }
    }

    fn make(&self, index: usize, dice: &mut Dice) -> LinearQuestion {
        let (max_a, max_x) = (self.max_coefficient, self.max_solution);
        let (a, b, d, x) = match index {
            ONE_STEP => {
                let x = dice.int(1, max_x);
                if dice.coin() {
                    (1, dice.int(1, self.max_constant), 0, Ratio::int(x))
                } else {
                    (dice.int(2, max_a), 0, 0, Ratio::int(x))
                }
            }
            NEGATIVE => {
                let (a, x) = match dice.index(3) {
                    0 => (-dice.int(2, max_a), dice.int(1, max_x)),
                    1 => (dice.int(2, max_a), -dice.int(1, max_x)),
                    _ => (-dice.int(2, max_a), -dice.int(1, max_x)),
                };
                (a, self.constant(dice), 0, Ratio::int(x))
            }
            BOTH_SIDES => {
                let a = dice.int(1, max_a);
                let mut d = dice.int(1, max_a - 1);
                if d >= a {
                    d += 1;
                }
                let x = dice.int(1, max_x) * dice.sign();
                (a, self.constant(dice), d, Ratio::int(x))
            }
            RATIONAL => {
                let a = dice.int(2, max_a);
                let mut n = dice.int(1, a * max_x - 1);
                if n % a == 0 {
                    n += 1;
                }
                let x = Ratio::new(n * dice.sign(), a).unwrap_or(Ratio::int(1));
                (a, self.constant(dice), 0, x)
            }
            _ => {
                let (a, x) = (dice.int(2, max_a), dice.int(1, max_x));
                let b = self.constant(dice);
                // Keep the right-hand side positive: negatives are the next factor up.
                let b = if a * x + b < 1 { b.abs() } else { b };
                (a, b, 0, Ratio::int(x))
            }
        };
        // e = (a - d) x + b: an integer, since x's denominator divides a - d by construction.
        let e = Ratio::int(a - d).checked_mul(x).and_then(|ax| ax.checked_add(Ratio::int(b))).map_or(0, |r| r.num());
        LinearQuestion { variable: self.variable.clone(), a, b, d, e, x }
    }
}

/// `a x + b = d x + e` (`d` is 0 for the one-sided form), with solution `x`.
#[derive(Debug, Clone)]
pub(crate) struct LinearQuestion {
    variable: String,
    a: i64,
    b: i64,
    d: i64,
    e: i64,
    x: Ratio,
}

impl LinearQuestion {
    fn write_side(&self, out: &mut String, coefficient: i64, constant: i64) {
        let v = &self.variable;
        match coefficient {
            0 => {
                let _ = write!(out, "{constant}");
                return;
            }
            1 => out.push_str(v),
            -1 => {
                out.push('-');
                out.push_str(v);
            }
            c => {
                let _ = write!(out, "{c}{v}");
            }
        }
        match constant {
            0 => {}
            c if c > 0 => {
                let _ = write!(out, " + {c}");
            }
            c => {
                let _ = write!(out, " - {}", -c);
            }
        }
    }

    fn ratio(&self, num: i64, den: i64) -> Option<Value> {
        Ratio::new(num, den).map(Value::Number)
    }
}

impl Question for LinearQuestion {
    fn fill(&self, slot: usize, out: &mut String) {
        if slot == 0 {
            self.write_side(out, self.a, self.b);
            out.push_str(" = ");
            self.write_side(out, self.d, self.e);
        } else {
            out.push_str(&self.variable);
        }
    }

    fn factor(&self) -> usize {
        if self.d != 0 {
            BOTH_SIDES
        } else if !self.x.is_integer() {
            RATIONAL
        } else if self.a < 0 || self.x.num() < 0 || self.e < 0 {
            NEGATIVE
        } else if self.a == 1 || self.b == 0 {
            ONE_STEP
        } else {
            TWO_STEP
        }
    }

    fn params(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("a".into(), json!(self.a));
        out.insert("b".into(), json!(self.b));
        out.insert("d".into(), json!(self.d));
        out.insert("e".into(), json!(self.e));
        out.insert("solution".into(), json!(self.x.to_string()));
    }

    fn content_key(&self) -> String {
        format!("linear:{}:{}:{}:{}:{}", self.variable, self.a, self.b, self.d, self.e)
    }
}

impl Answered for LinearQuestion {
    fn key(&self) -> Value {
        Value::Number(self.x)
    }

    fn distractors(&self, strategy: &str, dice: &mut Dice, out: &mut Vec<Value>) {
        let (a, b, d, e) = (self.a, self.b, self.d, self.e);
        let (big_a, big_c) = (a - d, e - b);
        let mut push = |v: Option<Value>| out.extend(v);
        match strategy {
            "sign_error" => {
                push(self.ratio(e + b, big_a));
                if d != 0 {
                    push(self.ratio(big_c, a + d));
                }
            }
            "forgot_divide" => push(Some(Value::int(big_c))),
            "multiplied_instead" => push(Some(Value::int(big_c * big_a))),
            "reciprocal" => push(self.ratio(big_a, big_c)),
            "negated" => push(self.x.checked_neg().map(Value::Number)),
            "off_by_1" if self.x.is_integer() => push_both_ways(dice, self.x.num(), 1, false, out),
            "off_by_1" => {
                let (n, q) = (self.x.num(), self.x.den());
                let sign = dice.sign();
                push(self.ratio(n + sign * q, q));
                push(self.ratio(n - sign * q, q));
            }
            _ => {}
        }
    }

    fn fallback(&self, k: u32) -> Option<Value> {
        if self.x.is_integer() {
            return nearby_integer(self.x.num(), k, false);
        }
        let step = i64::from(k / 2) + 1;
        let n = if k.is_multiple_of(2) { self.x.num() + step } else { self.x.num() - step };
        Ratio::new(n, self.x.den()).map(Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear() -> Linear {
        Linear::compile(&LinearSpec { variable: "x".into(), max_coefficient: 9, max_constant: 20, max_solution: 10 })
            .unwrap()
    }

    fn equation(q: &LinearQuestion) -> String {
        let mut s = String::new();
        q.fill(0, &mut s);
        s
    }

    #[test]
    fn each_factor_is_built_and_the_solution_satisfies_the_equation() {
        let g = linear();
        let mut dice = Dice::new(2, 2);
        for index in 0..FACTORS.len() {
            for _ in 0..300 {
                let q = g.make(index, &mut dice);
                assert_eq!(q.factor(), index, "{}", equation(&q));
                let lhs = Ratio::int(q.a).checked_mul(q.x).unwrap().checked_add(Ratio::int(q.b)).unwrap();
                let rhs = Ratio::int(q.d).checked_mul(q.x).unwrap().checked_add(Ratio::int(q.e)).unwrap();
                assert_eq!(lhs, rhs, "{} with x = {}", equation(&q), q.x);
                assert_eq!(q.x.is_integer(), index != RATIONAL);
            }
        }
    }

    #[test]
    fn equations_read_naturally() {
        let q = |a, b, d, e| LinearQuestion { variable: "x".into(), a, b, d, e, x: Ratio::int(0) };
        assert_eq!(equation(&q(3, 5, 0, 14)), "3x + 5 = 14");
        assert_eq!(equation(&q(-1, -7, 0, -2)), "-x - 7 = -2");
        assert_eq!(equation(&q(1, 0, 0, 4)), "x = 4");
        assert_eq!(equation(&q(5, -3, 2, 0)), "5x - 3 = 2x");
    }

    #[test]
    fn bad_parameters_are_refused() {
        let spec = |variable: &str, c| LinearSpec {
            variable: variable.into(),
            max_coefficient: c,
            max_constant: 5,
            max_solution: 5,
        };
        assert!(Linear::compile(&spec("xy", 5)).unwrap_err().message.contains("one letter"));
        assert!(Linear::compile(&spec("1", 5)).is_err());
        assert!(Linear::compile(&spec("y", 1)).unwrap_err().message.contains("allowed: 2-99"));
    }
}
