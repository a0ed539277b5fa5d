//! Number bases and place value: writing a whole number in binary and reading one back, an
//! octet as exactly eight bits and back, and the value and the name of a digit's place in a
//! decimal number. Difficulty follows how much there is to convert (the bits of a binary
//! number, the ones of an octet, the digits of a decimal number) and whether a zero holds a
//! place, where place-value mistakes happen.
//!
//! Distractor strategies, each a mistake learners make, which `Blueprint::diagnose` also
//! names in a typed answer:
//! - `reversed_bit_order`: the bits in reverse order, as when the remainders of repeated
//!   halving are written down in the order found, or place values are read from the left.
//! - `off_by_power`: every bit one place too high or too low, so the number doubled or
//!   halved (an octet written in binary keeps its eight bits, losing the bit shifted out).
//! - `dropped_bit`: a place value of the number left out (a 1 bit written as 0).
//! - `extra_bit`: a place value that is not in the number added (a 0 bit written as 1).
//! - `missing_zero_placeholder`: a zero that holds a place left out: `11101` for `101101`;
//!   in a decimal number, the digit's place counted without the zeros below it (the 4 in
//!   40,306 taken for 4,000).
//! - `missing_leading_zeros`: an octet written without its leading zeros (`101101`).
//! - `off_by_1`: one more or one less, as when eight ones are read as 256.
//! - `digit_only`: the digit's face value (3 for the 3 in 4,372, which is worth 300).
//! - `counted_from_left`: the place counted from the left end of the number (the 3 in
//!   4,372 taken for the tens).
//! - `wrong_place`: the place next to the right one, higher or lower (3,000 or 30).

use super::{factor, push_both_ways, Answered, Domain, FactorInfo, Question, SpecError};
use crate::answer::value::{bit_length, Value, PLACE_NAMES};
use crate::answer::AnswerForm;
use crate::dice::Dice;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fmt::Write;

/// `kind = "number_base"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumberBaseSpec {
    pub question: NumberBaseQuestion,
    /// `to_binary` and `from_binary` only: the most bits a number may have, 4-16 (default
    /// 16, numbers up to 65,535). An octet is always eight bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bits: Option<u32>,
    /// `digit_value` and `place_name` only: the fewest and most digits of the number, 2-9
    /// (default [3, 6]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digits: Option<[u32; 2]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NumberBaseQuestion {
    /// A decimal number in binary: 45 is `101101` (leading zeros do not change it).
    ToBinary,
    /// The decimal value of a binary number: `101101` is 45.
    FromBinary,
    /// An octet (1-255) as exactly eight bits: 45 is `00101101`.
    OctetToBinary,
    /// The decimal value of an octet written as eight bits: `00101101` is 45.
    OctetToDecimal,
    /// The value of a digit in its place: the 3 in 4,372 is worth 300.
    DigitValue,
    /// The name of a digit's place: the 3 in 4,372 is in the hundreds.
    PlaceName,
}

/// What a question's number is: any binary number, an octet, or a decimal number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Binary,
    Octet,
    Decimal,
}

impl NumberBaseQuestion {
    pub fn name(self) -> &'static str {
        match self {
            NumberBaseQuestion::ToBinary => "to_binary",
            NumberBaseQuestion::FromBinary => "from_binary",
            NumberBaseQuestion::OctetToBinary => "octet_to_binary",
            NumberBaseQuestion::OctetToDecimal => "octet_to_decimal",
            NumberBaseQuestion::DigitValue => "digit_value",
            NumberBaseQuestion::PlaceName => "place_name",
        }
    }

    fn kind(self) -> Kind {
        match self {
            NumberBaseQuestion::ToBinary | NumberBaseQuestion::FromBinary => Kind::Binary,
            NumberBaseQuestion::OctetToBinary | NumberBaseQuestion::OctetToDecimal => Kind::Octet,
            NumberBaseQuestion::DigitValue | NumberBaseQuestion::PlaceName => Kind::Decimal,
        }
    }

    /// Only the placeholders that do not give the answer away: a question asking for the
    /// binary form does not offer `{binary}`, nor one asking for the place `{place}`.
    fn placeholders(self) -> &'static [&'static str] {
        match self {
            NumberBaseQuestion::ToBinary | NumberBaseQuestion::OctetToBinary => &["number"],
            NumberBaseQuestion::FromBinary | NumberBaseQuestion::OctetToDecimal => &["binary"],
            NumberBaseQuestion::DigitValue => &["number", "digit", "place"],
            NumberBaseQuestion::PlaceName => &["number", "digit"],
        }
    }
}

// Binary numbers: small ones (2-15) have 2-4 bits, a byte's 5-8, large ones 9 up to
// `max_bits`.
const SMALL: usize = 0;
const BYTE: usize = 1;
const LARGE: usize = 2;
const SMALL_BITS: (u32, u32) = (2, 4);
const BYTE_BITS: (u32, u32) = (5, 8);
const LARGE_BITS: (u32, u32) = (9, MAX_BITS);
const MAX_BITS: u32 = 16;
const BINARY_FACTORS: &[FactorInfo] = &[factor("small", 0.3), factor("byte", 0.5), factor("large", 0.7)];

// Octets, by their ones: each is a place value to find or to add up.
const FEW_ONES: usize = 0;
const MANY_ONES: usize = 1;
const FEW_ONES_RANGE: (u32, u32) = (1, 3);
const MANY_ONES_RANGE: (u32, u32) = (4, 8);
const OCTET_FACTORS: &[FactorInfo] = &[factor("few_ones", 0.3), factor("many_ones", 0.5)];

// Decimal numbers: a zero holding a place is the hardest whatever the length; without one,
// up to four digits are few.
const FEW_DIGITS: usize = 0;
const MANY_DIGITS: usize = 1;
const ZERO_PLACEHOLDER: usize = 2;
const FEW_DIGITS_MAX: u32 = 4;
/// As many digits as there are place names (up to the hundred millions).
const MAX_DIGITS: u32 = PLACE_NAMES.len() as u32;
const DEFAULT_DIGITS: [u32; 2] = [3, 6];
const DECIMAL_FACTORS: &[FactorInfo] =
    &[factor("few_digits", 0.3), factor("many_digits", 0.5), factor("zero_placeholder", 0.7)];

const TO_BINARY_STRATEGIES: &[&str] =
    &["reversed_bit_order", "missing_zero_placeholder", "off_by_power", "dropped_bit", "extra_bit"];
const FROM_BINARY_STRATEGIES: &[&str] = &["reversed_bit_order", "off_by_power", "dropped_bit", "extra_bit", "off_by_1"];
const OCTET_TO_BINARY_STRATEGIES: &[&str] =
    &["missing_leading_zeros", "reversed_bit_order", "off_by_power", "dropped_bit", "extra_bit"];
const DIGIT_VALUE_STRATEGIES: &[&str] = &["digit_only", "missing_zero_placeholder", "counted_from_left", "wrong_place"];
const PLACE_NAME_STRATEGIES: &[&str] = &["missing_zero_placeholder", "counted_from_left", "wrong_place"];

#[derive(Debug, Clone)]
pub(crate) struct NumberBase {
    question: NumberBaseQuestion,
    /// Binary questions: the most bits a number has.
    max_bits: u32,
    /// Decimal questions: the fewest and most digits of the number.
    digits: (u32, u32),
}

impl NumberBase {
    pub fn compile(spec: &NumberBaseSpec) -> Result<NumberBase, SpecError> {
        let question = spec.question;
        let name = question.name();
        let kind = question.kind();
        if spec.max_bits.is_some() && kind != Kind::Binary {
            let why = if kind == Kind::Octet { "an octet is always 8 bits" } else { "use digits for a decimal number" };
            return Err(SpecError::new(
                "max_bits",
                format!("does not apply to {name} ({why}); allowed for to_binary and from_binary"),
            ));
        }
        if spec.digits.is_some() && kind != Kind::Decimal {
            let why =
                if kind == Kind::Octet { "an octet is always 8 bits" } else { "use max_bits for a binary number" };
            return Err(SpecError::new(
                "digits",
                format!("does not apply to {name} ({why}); allowed for digit_value and place_name"),
            ));
        }
        let max_bits = spec.max_bits.unwrap_or(MAX_BITS);
        if !(SMALL_BITS.1..=MAX_BITS).contains(&max_bits) {
            return Err(SpecError::new(
                "max_bits",
                format!("{max_bits} is out of range; allowed: {}-{MAX_BITS}", SMALL_BITS.1),
            ));
        }
        let [min, max] = spec.digits.unwrap_or(DEFAULT_DIGITS);
        if min < 2 || max > MAX_DIGITS || min > max {
            return Err(SpecError::new(
                "digits",
                format!(
                    "[{min}, {max}] is not allowed; allowed: 2 <= min <= max <= {MAX_DIGITS} (the digit asked about \
                     is never in the ones place, and places are named up to the hundred millions)"
                ),
            ));
        }
        Ok(NumberBase { question, max_bits, digits: (min, max) })
    }

    fn make_decimal(&self, index: usize, dice: &mut Dice) -> NumberBaseItem {
        let (min, max) = self.digits;
        let (lo, hi) = match index {
            FEW_DIGITS => (min, max.min(FEW_DIGITS_MAX)),
            MANY_DIGITS => (min.max(FEW_DIGITS_MAX + 1), max),
            _ => (min, max),
        };
        let count = dice.digit(lo, hi).clamp(min, max);
        // Never the ones place, where a digit's value is the digit itself.
        let place = dice.digit(1, count - 1);
        let digit = dice.digit(1, 9);
        let zero = index == ZERO_PLACEHOLDER;
        // Every other digit differs from the one asked about, so that "the digit 3" names
        // one place; zeros only for the zero_placeholder factor, never leading.
        let mut digits: Vec<u32> = (0..count)
            .map(|p| {
                if p == place {
                    return digit;
                }
                let lowest = if zero && p + 1 < count { 0 } else { 1 };
                let d = dice.digit(lowest, 8);
                if d >= digit {
                    d + 1
                } else {
                    d
                }
            })
            .collect();
        if zero && !digits.contains(&0) {
            // Some place below the leading one other than the digit's (the ones always is).
            let free: Vec<u32> = (0..count - 1).filter(|p| *p != place).collect();
            digits[free[dice.index(free.len())] as usize] = 0;
        }
        let number = digits.iter().rev().fold(0, |n, d| n * 10 + d);
        NumberBaseItem { question: self.question, number, place }
    }
}

impl Domain for NumberBase {
    type Question = NumberBaseItem;

    fn describe(&self) -> String {
        format!("number_base ({})", self.question.name())
    }

    fn placeholders(&self) -> &'static [&'static str] {
        self.question.placeholders()
    }

    fn factors(&self) -> &'static [FactorInfo] {
        match self.question.kind() {
            Kind::Binary => BINARY_FACTORS,
            Kind::Octet => OCTET_FACTORS,
            Kind::Decimal => DECIMAL_FACTORS,
        }
    }

    fn strategies(&self) -> &'static [&'static str] {
        match self.question {
            NumberBaseQuestion::ToBinary => TO_BINARY_STRATEGIES,
            NumberBaseQuestion::FromBinary | NumberBaseQuestion::OctetToDecimal => FROM_BINARY_STRATEGIES,
            NumberBaseQuestion::OctetToBinary => OCTET_TO_BINARY_STRATEGIES,
            NumberBaseQuestion::DigitValue => DIGIT_VALUE_STRATEGIES,
            NumberBaseQuestion::PlaceName => PLACE_NAME_STRATEGIES,
        }
    }

    fn impossible(&self, index: usize) -> Option<String> {
        let (max_bits, (min, max)) = (self.max_bits, self.digits);
        match (self.question.kind(), index) {
            (Kind::Binary, BYTE) if max_bits < BYTE_BITS.0 => {
                Some(format!("max_bits {max_bits} leaves no number of 5-8 bits (16-255); allowed: 5 or more"))
            }
            (Kind::Binary, LARGE) if max_bits < LARGE_BITS.0 => {
                Some(format!("max_bits {max_bits} leaves no number above 255; allowed: 9 or more"))
            }
            (Kind::Decimal, FEW_DIGITS) if min > FEW_DIGITS_MAX => {
                Some(format!("digits [{min}, {max}] leaves no number of {FEW_DIGITS_MAX} digits or fewer"))
            }
            (Kind::Decimal, MANY_DIGITS) if max <= FEW_DIGITS_MAX => {
                Some(format!("digits [{min}, {max}] leaves no number of {} digits or more", FEW_DIGITS_MAX + 1))
            }
            _ => None,
        }
    }

    fn answer_form(&self) -> AnswerForm {
        match self.question {
            NumberBaseQuestion::ToBinary => AnswerForm::Binary { fixed_width: false },
            NumberBaseQuestion::OctetToBinary => AnswerForm::Binary { fixed_width: true },
            NumberBaseQuestion::PlaceName => AnswerForm::PlaceName,
            _ => AnswerForm::Number { variable: None },
        }
    }

    fn make(&self, index: usize, dice: &mut Dice) -> NumberBaseItem {
        let number = match self.question.kind() {
            Kind::Decimal => return self.make_decimal(index, dice),
            Kind::Binary => {
                let (lo, hi) = match index {
                    SMALL => SMALL_BITS,
                    BYTE => BYTE_BITS,
                    _ => LARGE_BITS,
                };
                let bits = dice.digit(lo, hi.min(self.max_bits)).min(self.max_bits);
                let top = 1u32 << (bits - 1);
                top | dice.below(u64::from(top)) as u32
            }
            Kind::Octet => {
                let (lo, hi) = if index == FEW_ONES { FEW_ONES_RANGE } else { MANY_ONES_RANGE };
                let ones = dice.digit(lo, hi) as usize;
                let mut positions: Vec<u32> = (0..8).collect();
                dice.shuffle(&mut positions);
                positions[..ones].iter().fold(0, |n, p| n | (1 << p))
            }
        };
        NumberBaseItem { question: self.question, number, place: 0 }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct NumberBaseItem {
    question: NumberBaseQuestion,
    /// The number asked about, whatever base it is shown in.
    number: u32,
    /// Decimal questions: the power of ten of the digit asked about (1 the tens, 2 the
    /// hundreds, ...).
    place: u32,
}

impl NumberBaseItem {
    /// How many bits the number is written with: an octet's eight, others without leading
    /// zeros.
    fn width(&self) -> u32 {
        if self.question.kind() == Kind::Octet {
            8
        } else {
            bit_length(self.number)
        }
    }

    fn digit_count(&self) -> u32 {
        self.number.checked_ilog10().unwrap_or(0) + 1
    }

    fn digit_at(&self, place: u32) -> u32 {
        self.number / 10u32.pow(place) % 10
    }

    fn digit(&self) -> u32 {
        self.digit_at(self.place)
    }

    /// Zeros below `place`: the places a learner who skips zero placeholders leaves out.
    fn zeros_below(&self, place: u32) -> u32 {
        (0..place).filter(|p| self.digit_at(*p) == 0).count() as u32
    }

    /// A number as an answer to this question: in binary (an octet with all eight bits) or
    /// in decimal.
    fn answer_of(&self, n: u32) -> Value {
        match self.question {
            NumberBaseQuestion::ToBinary => Value::bits(n, 0),
            NumberBaseQuestion::OctetToBinary => Value::bits(n, 8),
            _ => Value::int(i64::from(n)),
        }
    }

    /// The answer to a decimal question with the digit taken to be in `place`.
    fn place_answer(&self, place: u32) -> Value {
        if self.question == NumberBaseQuestion::PlaceName {
            Value::Place(place as u8)
        } else {
            Value::int(i64::from(self.digit()) * 10i64.pow(place))
        }
    }

    /// Pushes the answer for `place`, when it is a place with a name.
    fn push_place(&self, place: u32, out: &mut Vec<Value>) {
        if place < MAX_DIGITS {
            out.push(self.place_answer(place));
        }
    }

    fn decimal_distractors(&self, strategy: &str, dice: &mut Dice, out: &mut Vec<Value>) {
        let p = self.place;
        match strategy {
            "digit_only" if self.question == NumberBaseQuestion::DigitValue => {
                out.push(Value::int(i64::from(self.digit())))
            }
            "missing_zero_placeholder" => match self.zeros_below(p) {
                0 => {}
                zeros => self.push_place(p - zeros, out),
            },
            "counted_from_left" => self.push_place(self.digit_count() - 1 - p, out),
            // The digit asked about is never in the ones place, so there is a place below.
            "wrong_place" if dice.coin() => [p + 1, p - 1].into_iter().for_each(|q| self.push_place(q, out)),
            "wrong_place" => [p - 1, p + 1].into_iter().for_each(|q| self.push_place(q, out)),
            _ => {}
        }
    }
}

/// `n` with thousands separators, as numbers are printed for learners (`45,372`).
fn write_grouped(out: &mut String, n: u32) {
    let digits = n.to_string();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
}

impl Question for NumberBaseItem {
    fn fill(&self, slot: usize, out: &mut String) {
        match self.question.placeholders()[slot] {
            "number" => write_grouped(out, self.number),
            "binary" => {
                let _ = write!(out, "{:0width$b}", self.number, width = self.width() as usize);
            }
            "digit" => {
                let _ = write!(out, "{}", self.digit());
            }
            _ => out.push_str(PLACE_NAMES[self.place as usize]),
        }
    }

    fn factor(&self) -> usize {
        match self.question.kind() {
            Kind::Binary => match bit_length(self.number) {
                bits if bits <= SMALL_BITS.1 => SMALL,
                bits if bits <= BYTE_BITS.1 => BYTE,
                _ => LARGE,
            },
            Kind::Octet if self.number.count_ones() <= FEW_ONES_RANGE.1 => FEW_ONES,
            Kind::Octet => MANY_ONES,
            Kind::Decimal if self.zeros_below(self.digit_count()) > 0 => ZERO_PLACEHOLDER,
            Kind::Decimal if self.digit_count() <= FEW_DIGITS_MAX => FEW_DIGITS,
            Kind::Decimal => MANY_DIGITS,
        }
    }

    fn refinement(&self) -> f64 {
        // More bits, ones or digits within the factor's range are a little harder.
        let (x, (lo, hi)) = match (self.question.kind(), self.factor()) {
            (Kind::Binary, SMALL) => (bit_length(self.number), SMALL_BITS),
            (Kind::Binary, BYTE) => (bit_length(self.number), BYTE_BITS),
            (Kind::Binary, _) => (bit_length(self.number), LARGE_BITS),
            (Kind::Octet, FEW_ONES) => (self.number.count_ones(), FEW_ONES_RANGE),
            (Kind::Octet, _) => (self.number.count_ones(), MANY_ONES_RANGE),
            (Kind::Decimal, FEW_DIGITS) => (self.digit_count(), (2, FEW_DIGITS_MAX)),
            (Kind::Decimal, MANY_DIGITS) => (self.digit_count(), (FEW_DIGITS_MAX + 1, MAX_DIGITS)),
            (Kind::Decimal, _) => (self.digit_count(), (2, MAX_DIGITS)),
        };
        2.0 * f64::from(x.clamp(lo, hi) - lo) / f64::from((hi - lo).max(1)) - 1.0
    }

    fn params(&self, out: &mut serde_json::Map<String, serde_json::Value>) {
        out.insert("question".into(), json!(self.question.name()));
        out.insert("number".into(), json!(self.number));
        if self.question.kind() == Kind::Decimal {
            out.insert("digit".into(), json!(self.digit()));
            out.insert("place".into(), json!(self.place));
            out.insert("digits".into(), json!(self.digit_count()));
        } else {
            out.insert("binary".into(), json!(format!("{:0width$b}", self.number, width = self.width() as usize)));
            out.insert("ones".into(), json!(self.number.count_ones()));
        }
    }

    fn content_key(&self) -> String {
        if self.question.kind() == Kind::Decimal {
            format!("base:{}:{}:{}", self.question.name(), self.number, self.place)
        } else {
            format!("base:{}:{}", self.question.name(), self.number)
        }
    }
}

impl Answered for NumberBaseItem {
    fn key(&self) -> Value {
        match self.question.kind() {
            Kind::Decimal => self.place_answer(self.place),
            _ => self.answer_of(self.number),
        }
    }

    fn distractors(&self, strategy: &str, dice: &mut Dice, out: &mut Vec<Value>) {
        if self.question.kind() == Kind::Decimal {
            return self.decimal_distractors(strategy, dice, out);
        }
        let (n, width) = (self.number, self.width());
        let (to_binary, to_octet) = (NumberBaseQuestion::ToBinary, NumberBaseQuestion::OctetToBinary);
        let bits_where = |set: bool| (0..width).filter(move |i| (n >> i & 1 == 1) == set);
        let mut wrong: Vec<u32> = Vec::new();
        match strategy {
            "reversed_bit_order" => wrong.push(n.reverse_bits() >> (u32::BITS - width)),
            "off_by_power" => {
                // Bits written one place off stay in the octet's eight, losing the top one.
                let up = if self.question == to_octet { (n << 1) & 0xFF } else { n << 1 };
                wrong.extend(if dice.coin() { [up, n >> 1] } else { [n >> 1, up] });
            }
            "dropped_bit" => {
                wrong.extend(bits_where(true).map(|i| n & !(1 << i)));
                dice.shuffle(&mut wrong);
            }
            "extra_bit" => {
                wrong.extend(bits_where(false).map(|i| n | (1 << i)));
                dice.shuffle(&mut wrong);
            }
            // A 0 with a 1 below it holds a place; leaving out a trailing 0 is halving,
            // which off_by_power makes.
            "missing_zero_placeholder" if self.question == to_binary => wrong.extend(
                bits_where(false)
                    .filter(|i| *i > n.trailing_zeros())
                    .map(|i| ((n >> (i + 1)) << i) | (n & ((1 << i) - 1))),
            ),
            "missing_leading_zeros" if self.question == to_octet && n < 0x80 => out.push(Value::bits(n, 0)),
            "off_by_1" if self.question != to_binary && self.question != to_octet => {
                push_both_ways(dice, i64::from(n), 1, true, out)
            }
            _ => {}
        }
        // Every number asked about is 1 or more, and a wrong answer of 0 is no real slip.
        out.extend(wrong.into_iter().filter(|v| *v != 0).map(|v| self.answer_of(v)));
    }

    fn fallback(&self, k: u32) -> Option<Value> {
        if self.question.kind() == Kind::Decimal {
            // Other places, nearest first and those within the number before those beyond
            // it; then, for values, other digits in the right place.
            let (p, count) = (self.place, self.digit_count());
            let mut places: Vec<u32> = (0..MAX_DIGITS).filter(|q| *q != p).collect();
            places.sort_by_key(|q| (*q >= count, q.abs_diff(p)));
            if let Some(q) = places.get(k as usize) {
                return Some(self.place_answer(*q));
            }
            if self.question == NumberBaseQuestion::PlaceName {
                return None;
            }
            let others: Vec<u32> = (1..=9).filter(|d| *d != self.digit()).collect();
            let d = others.get(k as usize - places.len())?;
            return Some(Value::int(i64::from(*d) * 10i64.pow(p)));
        }
        // key+2, key-2, key+3, ... (`+1`/`-1` are left to off_by_1 and the ones bit).
        let step = k / 2 + 2;
        let v = if k.is_multiple_of(2) { self.number.checked_add(step) } else { self.number.checked_sub(step) }?;
        let most = if self.question.kind() == Kind::Octet { 0xFF } else { u32::MAX };
        (1..=most).contains(&v).then(|| self.answer_of(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [NumberBaseQuestion; 6] = [
        NumberBaseQuestion::ToBinary,
        NumberBaseQuestion::FromBinary,
        NumberBaseQuestion::OctetToBinary,
        NumberBaseQuestion::OctetToDecimal,
        NumberBaseQuestion::DigitValue,
        NumberBaseQuestion::PlaceName,
    ];

    fn spec(question: NumberBaseQuestion, max_bits: Option<u32>, digits: Option<[u32; 2]>) -> NumberBaseSpec {
        NumberBaseSpec { question, max_bits, digits }
    }

    fn gen(question: NumberBaseQuestion) -> NumberBase {
        NumberBase::compile(&spec(question, None, None)).unwrap()
    }

    fn item(question: NumberBaseQuestion, number: u32, place: u32) -> NumberBaseItem {
        NumberBaseItem { question, number, place }
    }

    fn candidates(q: &NumberBaseItem, strategy: &str) -> Vec<String> {
        let mut out = Vec::new();
        q.distractors(strategy, &mut Dice::new(1, 1), &mut out);
        let mut text: Vec<String> = out.iter().map(Value::to_string).collect();
        text.sort();
        text.dedup();
        text
    }

    #[test]
    fn every_factor_is_built_as_a_property_of_the_number() {
        let mut dice = Dice::new(5, 5);
        for question in ALL {
            let g = gen(question);
            for index in 0..g.factors().len() {
                for _ in 0..300 {
                    let q = g.make(index, &mut dice);
                    assert_eq!(q.factor(), index, "{question:?}: {} place {}", q.number, q.place);
                    match question.kind() {
                        Kind::Binary => assert!((2..=0xFFFF).contains(&q.number), "{}", q.number),
                        Kind::Octet => assert!((1..=0xFF).contains(&q.number), "{}", q.number),
                        Kind::Decimal => {
                            assert!((3..=6).contains(&q.digit_count()), "{}", q.number);
                            assert!(q.place >= 1 && q.place < q.digit_count(), "{} place {}", q.number, q.place);
                            let same = (0..q.digit_count()).filter(|p| q.digit_at(*p) == q.digit()).count();
                            assert_eq!(same, 1, "the digit {} of {} names one place", q.digit(), q.number);
                            assert_ne!(q.digit(), 0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn ranges_bound_the_numbers() {
        let mut dice = Dice::new(6, 6);
        let g = NumberBase::compile(&spec(NumberBaseQuestion::ToBinary, Some(10), None)).unwrap();
        let g2 = NumberBase::compile(&spec(NumberBaseQuestion::DigitValue, None, Some([2, 2]))).unwrap();
        for _ in 0..500 {
            assert!(g.make(LARGE, &mut dice).number < 1 << 10);
            let q = g2.make(ZERO_PLACEHOLDER, &mut dice);
            assert!((10..=90).contains(&q.number) && q.number.is_multiple_of(10) && q.place == 1, "{}", q.number);
        }
    }

    #[test]
    fn impossible_factors_say_why() {
        let g = NumberBase::compile(&spec(NumberBaseQuestion::FromBinary, Some(4), None)).unwrap();
        assert!(g.impossible(SMALL).is_none());
        assert!(g.impossible(BYTE).unwrap().contains("allowed: 5 or more"));
        assert!(g.impossible(LARGE).unwrap().contains("no number above 255"));
        let g = NumberBase::compile(&spec(NumberBaseQuestion::ToBinary, Some(8), None)).unwrap();
        assert!(g.impossible(BYTE).is_none() && g.impossible(LARGE).is_some());
        let g = NumberBase::compile(&spec(NumberBaseQuestion::PlaceName, None, Some([5, 9]))).unwrap();
        assert!(g.impossible(FEW_DIGITS).unwrap().contains("digits [5, 9] leaves no number of 4 digits or fewer"));
        assert!(g.impossible(MANY_DIGITS).is_none() && g.impossible(ZERO_PLACEHOLDER).is_none());
        let g = NumberBase::compile(&spec(NumberBaseQuestion::DigitValue, None, Some([2, 4]))).unwrap();
        assert!(g.impossible(MANY_DIGITS).unwrap().contains("5 digits or more"));
        assert!((0..2).all(|i| gen(NumberBaseQuestion::OctetToBinary).impossible(i).is_none()));
    }

    #[test]
    fn bad_parameters_are_refused() {
        let bad = |question, max_bits, digits| NumberBase::compile(&spec(question, max_bits, digits)).unwrap_err();
        let e = bad(NumberBaseQuestion::ToBinary, Some(17), None);
        assert_eq!((e.field, e.message.as_str()), ("max_bits", "17 is out of range; allowed: 4-16"));
        assert!(bad(NumberBaseQuestion::FromBinary, Some(3), None).message.contains("allowed: 4-16"));
        let e = bad(NumberBaseQuestion::OctetToBinary, Some(8), None);
        assert_eq!(e.field, "max_bits");
        assert!(e.message.contains("an octet is always 8 bits") && e.message.contains("to_binary and from_binary"));
        assert!(bad(NumberBaseQuestion::DigitValue, Some(8), None).message.contains("use digits"));
        let e = bad(NumberBaseQuestion::ToBinary, None, Some([2, 4]));
        assert_eq!(e.field, "digits");
        assert!(e.message.contains("use max_bits") && e.message.contains("digit_value and place_name"));
        assert!(bad(NumberBaseQuestion::OctetToDecimal, None, Some([2, 4])).message.contains("always 8 bits"));
        for digits in [[1, 4], [3, 10], [5, 4]] {
            let e = bad(NumberBaseQuestion::PlaceName, None, Some(digits));
            assert!(e.message.contains("allowed: 2 <= min <= max <= 9"), "{digits:?}: {}", e.message);
        }
    }

    #[test]
    fn stems_show_the_number_in_its_base() {
        let fill = |q: &NumberBaseItem, slot| {
            let mut s = String::new();
            q.fill(slot, &mut s);
            s
        };
        assert_eq!(fill(&item(NumberBaseQuestion::ToBinary, 45_372, 0), 0), "45,372");
        assert_eq!(fill(&item(NumberBaseQuestion::FromBinary, 45, 0), 0), "101101");
        assert_eq!(fill(&item(NumberBaseQuestion::OctetToDecimal, 45, 0), 0), "00101101");
        let q = item(NumberBaseQuestion::DigitValue, 4_372, 2);
        assert_eq!([fill(&q, 0), fill(&q, 1), fill(&q, 2)], ["4,372", "3", "hundreds"]);
        assert_eq!(fill(&item(NumberBaseQuestion::PlaceName, 123_456_789, 8), 0), "123,456,789");
        assert_eq!(fill(&item(NumberBaseQuestion::PlaceName, 100, 2), 0), "100");
    }

    #[test]
    fn strategies_make_the_mistakes_they_name() {
        let q = item(NumberBaseQuestion::ToBinary, 0b101100, 0);
        assert_eq!(q.key().to_string(), "101100");
        assert_eq!(candidates(&q, "reversed_bit_order"), ["1101"]);
        assert_eq!(candidates(&q, "missing_zero_placeholder"), ["11100"]);
        assert_eq!(candidates(&q, "off_by_power"), ["10110", "1011000"]);
        assert_eq!(candidates(&q, "dropped_bit"), ["100100", "101000", "1100"]);
        assert_eq!(candidates(&q, "extra_bit"), ["101101", "101110", "111100"]);

        let q = item(NumberBaseQuestion::OctetToBinary, 45, 0);
        assert_eq!(q.key().to_string(), "00101101");
        assert_eq!(candidates(&q, "missing_leading_zeros"), ["101101"]);
        assert_eq!(candidates(&q, "reversed_bit_order"), ["10110100"]);
        assert_eq!(candidates(&q, "off_by_power"), ["00010110", "01011010"]);
        assert!(candidates(&item(NumberBaseQuestion::OctetToBinary, 192, 0), "missing_leading_zeros").is_empty());
        assert_eq!(candidates(&item(NumberBaseQuestion::OctetToBinary, 0x80, 0), "off_by_power"), ["01000000"]);

        let q = item(NumberBaseQuestion::FromBinary, 0b101100, 0);
        assert_eq!(candidates(&q, "reversed_bit_order"), ["13"]);
        assert_eq!(candidates(&q, "off_by_power"), ["22", "88"]);
        assert_eq!(candidates(&q, "dropped_bit"), ["12", "36", "40"]);
        assert_eq!(candidates(&q, "extra_bit"), ["45", "46", "60"]);
        assert_eq!(candidates(&q, "off_by_1"), ["43", "45"]);
        // A palindrome reads the same both ways: the options skip a candidate equal to the key.
        assert_eq!(candidates(&item(NumberBaseQuestion::FromBinary, 0b101101, 0), "reversed_bit_order"), ["45"]);
        assert_eq!(candidates(&item(NumberBaseQuestion::OctetToDecimal, 45, 0), "reversed_bit_order"), ["180"]);
        assert_eq!(candidates(&item(NumberBaseQuestion::OctetToDecimal, 255, 0), "off_by_1"), ["254", "256"]);
        // Place values 256 down to 2 give more than an octet holds, a mistake of its own.
        assert_eq!(candidates(&item(NumberBaseQuestion::OctetToDecimal, 200, 0), "off_by_power"), ["100", "400"]);

        let q = item(NumberBaseQuestion::DigitValue, 40_306, 4);
        assert_eq!(q.key().to_string(), "40000");
        assert_eq!(candidates(&q, "digit_only"), ["4"]);
        assert_eq!(candidates(&q, "missing_zero_placeholder"), ["400"]);
        assert_eq!(candidates(&q, "counted_from_left"), ["4"]);
        assert_eq!(candidates(&q, "wrong_place"), ["4000", "400000"]);
        let q = item(NumberBaseQuestion::PlaceName, 4_372, 2);
        assert_eq!(q.key().to_string(), "hundreds");
        assert!(candidates(&q, "missing_zero_placeholder").is_empty());
        assert_eq!(candidates(&q, "counted_from_left"), ["tens"]);
        assert_eq!(candidates(&q, "wrong_place"), ["tens", "thousands"]);
        assert!(candidates(&item(NumberBaseQuestion::PlaceName, 400_000_000, 8), "wrong_place") == ["ten millions"]);
    }

    #[test]
    fn fallbacks_stay_plausible() {
        let q = item(NumberBaseQuestion::OctetToBinary, 254, 0);
        let values: Vec<Value> = (0..20).filter_map(|k| q.fallback(k)).collect();
        assert!(values.len() >= 8 && values.iter().all(|v| matches!(v, Value::Bits { value: 1..=255, .. })));
        let q = item(NumberBaseQuestion::PlaceName, 4_372, 2);
        let names: Vec<String> = (0..8).filter_map(|k| q.fallback(k)).map(|v| v.to_string()).collect();
        assert_eq!(names[..3], ["tens", "thousands", "ones"]);
        assert_eq!(names.len(), 8);
        assert!(q.fallback(8).is_none());
        let q = item(NumberBaseQuestion::DigitValue, 4_372, 2);
        assert_eq!(q.fallback(0).unwrap().to_string(), "30");
        assert_eq!(q.fallback(8).unwrap().to_string(), "100");
        assert_eq!(q.fallback(9).unwrap().to_string(), "200");
    }
}
