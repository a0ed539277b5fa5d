//! Computable content in an author's material: worked computations a passage states and
//! that check out (a sum, a fraction sum, a linear equation with its solution, a binary
//! number beside its decimal value, an IPv4 address with its prefix or mask), each matched
//! to the item library's skill blueprint that generates drills like it. A blueprint's drills
//! are computed and graded exactly, with a fresh question each time, where a recall drill can
//! only ask for a word of the passage.
//!
//! Only what the generators can make is looked for, and a computation counts only when its
//! numbers agree (`12 + 7 = 19`, not `12 + 7 = 20`), so that prose with numbers in it (years,
//! page numbers, version strings) is not mistaken for a rule.

use pathwise_domain::number::Ratio;
use pathwise_items::{
    Blueprint, DivisionAsk, FractionOperation, GeneratorSpec, ItemType, Library, NumberBaseQuestion, Operation,
    SubnetQuestion,
};
use regex::Regex;
use std::sync::LazyLock;

/// A computation found in a passage, and the blueprint that makes drills like it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundBlueprint {
    pub skill_id: String,
    /// The index of the passage it was found in, among those given.
    pub passage: usize,
    /// The computation as the passage states it (`192.168.4.0/26`, `3/4 + 1/8 = 7/8`).
    pub example: String,
}

/// What kind of computation a passage works, as precisely as the blueprints tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Computation {
    Arithmetic { operation: Operation, digits: [u32; 2], remainder: bool },
    Fraction(FractionOperation),
    Linear(LinearForm),
    Subnet(SubnetQuestion),
    Binary(NumberBaseQuestion),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LinearForm {
    OneStep,
    TwoStep,
    Rational,
}

/// The blueprints of `library` that make drills like the computations of `passages`, at
/// most `limit`, in the order the passages state them; one per blueprint.
pub fn computable_blueprints(passages: &[&str], library: &Library, limit: usize) -> Vec<FoundBlueprint> {
    let mut found: Vec<FoundBlueprint> = Vec::new();
    for (index, text) in passages.iter().enumerate() {
        for (computation, example) in computations(text) {
            if found.len() >= limit {
                return found;
            }
            let Some(skill) = best_skill(library, computation) else { continue };
            if !found.iter().any(|f| f.skill_id == skill.id()) {
                found.push(FoundBlueprint { skill_id: skill.id().to_string(), passage: index, example });
            }
        }
    }
    found
}

/// The computations `text` states, each with its words, in the order they appear.
fn computations(text: &str) -> Vec<(Computation, String)> {
    let mut found: Vec<(usize, Computation, String)> = Vec::new();
    fractions(text, &mut found);
    arithmetic(text, &mut found);
    linear(text, &mut found);
    binary(text, &mut found);
    subnets(text, &mut found);
    found.sort_by_key(|(at, _, _)| *at);
    found.into_iter().map(|(_, c, e)| (c, e)).collect()
}

const OPERATOR: &str = r"[-+−–×x*·÷/:]";

fn operation(symbol: &str) -> Option<Operation> {
    match symbol {
        "+" => Some(Operation::Add),
        "-" | "−" | "–" => Some(Operation::Subtract),
        "×" | "x" | "*" | "·" => Some(Operation::Multiply),
        "÷" | "/" | ":" => Some(Operation::Divide),
        _ => None,
    }
}

/// Whether the match `start..end` stands alone: no digit, point or slash runs into it (so
/// that `2.5 + 1` or a fraction's `1/2` is not read as whole numbers).
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let mut after = text[end..].chars();
    let clear_before = !before.is_some_and(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | ','));
    let clear_after = match after.next() {
        Some(c) if c.is_ascii_digit() || c == '/' => false,
        // A sentence may end right after it; a decimal point may not follow.
        Some('.' | ',') => !after.next().is_some_and(|c| c.is_ascii_digit()),
        _ => true,
    };
    clear_before && clear_after
}

fn number(s: &str) -> Option<i64> {
    s.parse().ok()
}

fn digit_count(n: i64) -> u32 {
    n.unsigned_abs().to_string().len() as u32
}

/// `12 + 7 = 19`, `84 ÷ 7 = 12`, `47 ÷ 5 = 9 r 2`, checked.
fn arithmetic(text: &str, found: &mut Vec<(usize, Computation, String)>) {
    static SUM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(\d{{1,6}})\s*({OPERATOR})\s*(\d{{1,6}})\s*=\s*(\d{{1,12}})(?:\s*(?:r|R|remainder)\s*(\d{{1,6}}))?"
        ))
        .expect("a valid pattern")
    });
    for caps in SUM.captures_iter(text) {
        let whole = caps.get(0).expect("the match");
        if !stands_alone(text, whole.start(), whole.end()) {
            continue;
        }
        let (Some(a), Some(b), Some(c)) = (number(&caps[1]), number(&caps[3]), number(&caps[4])) else { continue };
        let Some(operation) = operation(&caps[2]) else { continue };
        let remainder = caps.get(5).and_then(|r| number(r.as_str()));
        let holds = match (operation, remainder) {
            (Operation::Add, None) => a + b == c,
            (Operation::Subtract, None) => a - b == c,
            (Operation::Multiply, None) => a * b == c,
            (Operation::Divide, None) => b != 0 && a == b * c,
            (Operation::Divide, Some(r)) => b != 0 && r > 0 && r < b && a == b * c + r,
            (_, Some(_)) => false,
        };
        if holds {
            let computation = Computation::Arithmetic {
                operation,
                digits: [digit_count(a), digit_count(b)],
                remainder: remainder.is_some(),
            };
            found.push((whole.start(), computation, whole.as_str().to_string()));
        }
    }
}

/// `3/4 + 1/8 = 7/8`, checked (a whole-number result too: `1/2 + 1/2 = 1`).
fn fractions(text: &str, found: &mut Vec<(usize, Computation, String)>) {
    static FRACTION_SUM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(\d{1,3})\s*/\s*(\d{1,3})\s*([-+−–×x*·])\s*(\d{1,3})\s*/\s*(\d{1,3})\s*=\s*(\d{1,5})(?:\s*/\s*(\d{1,5}))?")
            .expect("a valid pattern")
    });
    for caps in FRACTION_SUM.captures_iter(text) {
        let whole = caps.get(0).expect("the match");
        let n = |i: usize| caps.get(i).and_then(|m| number(m.as_str()));
        let (Some(a), Some(b), Some(c), Some(d), Some(e)) = (n(1), n(2), n(4), n(5), n(6)) else { continue };
        let f = n(7).unwrap_or(1);
        let (Some(left), Some(right), Some(result)) = (Ratio::new(a, b), Ratio::new(c, d), Ratio::new(e, f)) else {
            continue;
        };
        let (operation, value) = match &caps[3] {
            "+" => (FractionOperation::Add, left.checked_add(right)),
            "-" | "−" | "–" => (FractionOperation::Subtract, left.checked_sub(right)),
            _ => (FractionOperation::Multiply, left.checked_mul(right)),
        };
        if value == Some(result) {
            found.push((whole.start(), Computation::Fraction(operation), whole.as_str().to_string()));
        }
    }
}

/// `3x + 4 = 19` with `x = 5` stated in the same passage, checked.
fn linear(text: &str, found: &mut Vec<(usize, Computation, String)>) {
    static EQUATION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(\d{0,2})\s*([a-z])\s*(?:([-+−–])\s*(\d{1,3}))?\s*=\s*(-?\d{1,4})\b").expect("a valid pattern")
    });
    static SOLUTION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\b([a-z])\s*=\s*(-?\d{1,4})(?:\s*/\s*(\d{1,4}))?").expect("a valid pattern"));
    let solutions: Vec<(char, Ratio)> = SOLUTION
        .captures_iter(text)
        .filter_map(|caps| {
            let variable = caps[1].chars().next()?;
            let denominator = caps.get(3).map_or(Some(1), |d| number(d.as_str()))?;
            Some((variable, Ratio::new(number(&caps[2])?, denominator)?))
        })
        .collect();
    for caps in EQUATION.captures_iter(text) {
        let whole = caps.get(0).expect("the match");
        let coefficient = if caps[1].is_empty() { 1 } else { number(&caps[1]).unwrap_or(0) };
        let constant = match (caps.get(3), caps.get(4)) {
            (Some(sign), Some(n)) => {
                let n = number(n.as_str()).unwrap_or(0);
                if sign.as_str() == "+" {
                    n
                } else {
                    -n
                }
            }
            _ => 0,
        };
        // `x = 5` alone is a solution, not an equation to solve.
        if coefficient == 0 || (coefficient == 1 && constant == 0) {
            continue;
        }
        let Some(right) = number(&caps[5]) else { continue };
        let variable = caps[2].chars().next().unwrap_or('x');
        let Some(expected) = Ratio::new(right - constant, coefficient) else { continue };
        if !solutions.iter().any(|(v, s)| *v == variable && *s == expected) {
            continue;
        }
        let form = if !expected.is_integer() {
            LinearForm::Rational
        } else if coefficient == 1 || constant == 0 {
            LinearForm::OneStep
        } else {
            LinearForm::TwoStep
        };
        found.push((whole.start(), Computation::Linear(form), whole.as_str().trim().to_string()));
    }
}

/// A binary number beside its decimal value (`101101 is 45`, `45 = 101101₂`): which of the
/// two the passage gives first says which way it converts.
fn binary(text: &str, found: &mut Vec<(usize, Computation, String)>) {
    static BITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b([01]{4,16})(?:₂|\b)").expect("a valid pattern"));
    static DECIMAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d{1,5})\b").expect("a valid pattern"));
    for bits in BITS.captures_iter(text) {
        let at = bits.get(1).expect("the digits");
        let Ok(value) = i64::from_str_radix(at.as_str(), 2) else { continue };
        if value < 2 {
            continue;
        }
        // The decimal value in the same sentence.
        let sentence_start = text[..at.start()].rfind(['.', '\n']).map_or(0, |i| i + 1);
        let sentence_end = text[at.end()..].find(['.', '\n']).map_or(text.len(), |i| at.end() + i);
        let decimal = DECIMAL.find_iter(&text[sentence_start..sentence_end]).find(|m| {
            let start = sentence_start + m.start();
            start != at.start() && number(m.as_str()) == Some(value)
        });
        let Some(decimal) = decimal else { continue };
        let bits_first = at.start() < sentence_start + decimal.start();
        let octet = at.as_str().len() == 8;
        let question = match (bits_first, octet) {
            (true, true) => NumberBaseQuestion::OctetToDecimal,
            (true, false) => NumberBaseQuestion::FromBinary,
            (false, true) => NumberBaseQuestion::OctetToBinary,
            (false, false) => NumberBaseQuestion::ToBinary,
        };
        let example = if bits_first {
            format!("{} = {}", at.as_str(), decimal.as_str())
        } else {
            format!("{} = {}", decimal.as_str(), at.as_str())
        };
        found.push((at.start(), Computation::Binary(question), example));
    }
}

/// An IPv4 address with a prefix length (`192.168.4.0/26`) or a subnet mask beside it; what
/// is asked of it follows the passage's words (broadcast, first or last host, how many
/// hosts, the mask or the prefix), the network address when it names none.
fn subnets(text: &str, found: &mut Vec<(usize, Computation, String)>) {
    static ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\s*/\s*(\d{1,2}))?\b").expect("a valid pattern")
    });
    let mut addresses = Vec::new();
    let mut mask = false;
    for caps in ADDRESS.captures_iter(text) {
        let octets: Vec<u32> = (1..=4).filter_map(|i| caps[i].parse().ok()).filter(|o| *o <= 255).collect();
        if octets.len() != 4 {
            continue;
        }
        let value = octets.iter().fold(0u32, |v, o| (v << 8) | o);
        let prefix = caps.get(5).and_then(|p| p.as_str().parse::<u32>().ok());
        if prefix.is_some_and(|p| p > 32) {
            continue;
        }
        let is_mask = octets[0] == 255 && value.leading_ones() + value.trailing_zeros() == 32;
        mask |= is_mask;
        if !is_mask {
            addresses.push((caps.get(0).expect("the match"), prefix.is_some()));
        }
    }
    let Some((first, _)) = addresses.iter().find(|(_, prefixed)| *prefixed || mask) else { return };
    let words = text.to_lowercase();
    let mut questions: Vec<SubnetQuestion> = [
        ("broadcast", SubnetQuestion::BroadcastAddress),
        ("network address", SubnetQuestion::NetworkAddress),
        ("first usable", SubnetQuestion::FirstHost),
        ("first host", SubnetQuestion::FirstHost),
        ("last usable", SubnetQuestion::LastHost),
        ("last host", SubnetQuestion::LastHost),
        ("hosts", SubnetQuestion::HostCount),
    ]
    .into_iter()
    .filter(|(cue, _)| words.contains(cue))
    .map(|(_, q)| q)
    .collect();
    if mask && addresses.iter().any(|(_, prefixed)| *prefixed) {
        questions.push(SubnetQuestion::MaskFromPrefix);
    }
    if questions.is_empty() {
        questions.push(SubnetQuestion::NetworkAddress);
    }
    questions.dedup();
    for question in questions {
        found.push((first.start(), Computation::Subnet(question), first.as_str().to_string()));
    }
}

/// The library's blueprint that makes drills most like `computation`: of the blueprints of
/// its kind, the one closest in size (for sums, the operands' digits), typed answers before
/// choices, then by id.
fn best_skill(library: &Library, computation: Computation) -> Option<&Blueprint> {
    library
        .skills()
        .filter_map(|skill| distance(skill, computation).map(|d| (d, skill)))
        .min_by_key(|(d, skill)| (*d, skill.item_type() != ItemType::FreeText, skill.id().to_string()))
        .map(|(_, skill)| skill)
}

/// How far `skill` is from making drills like `computation`; none when it makes another
/// kind.
fn distance(skill: &Blueprint, computation: Computation) -> Option<u32> {
    match (&skill.spec().generator, computation) {
        (GeneratorSpec::Arithmetic(spec), Computation::Arithmetic { operation, digits, remainder }) => {
            let asks_remainder = spec.ask == DivisionAsk::Remainder;
            (spec.operation == operation && asks_remainder == remainder)
                .then(|| spec.digits[0].abs_diff(digits[0]) + spec.digits[1].abs_diff(digits[1]))
        }
        (GeneratorSpec::Fraction(spec), Computation::Fraction(operation)) => (spec.operation == operation).then_some(0),
        (GeneratorSpec::LinearEquation(_), Computation::Linear(form)) => {
            let factor = match form {
                LinearForm::OneStep => "one_step",
                LinearForm::TwoStep => "two_step",
                LinearForm::Rational => "rational_solution",
            };
            let factors: Vec<&str> = skill.factors().map(|(name, _)| name).collect();
            factors.contains(&factor).then_some(factors.len() as u32)
        }
        (GeneratorSpec::Ipv4Subnet(spec), Computation::Subnet(question)) => (spec.question == question).then_some(0),
        (GeneratorSpec::NumberBase(spec), Computation::Binary(question)) => (spec.question == question).then_some(0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skills(text: &str) -> Vec<(String, String)> {
        computable_blueprints(&[text], &Library::builtin(), 5).into_iter().map(|f| (f.skill_id, f.example)).collect()
    }

    fn ids(text: &str) -> Vec<String> {
        skills(text).into_iter().map(|(id, _)| id).collect()
    }

    #[test]
    fn a_sum_that_checks_out_is_matched_to_the_blueprint_of_its_size() {
        assert_eq!(
            skills("Carry the one: 47 + 38 = 85."),
            [("MATH.ARITH.ADD.2DIGIT.TYPED".into(), "47 + 38 = 85".into())]
        );
        assert_eq!(ids("So 3 × 4 = 12 and 848 ÷ 4 = 212."), ["MATH.ARITH.MUL.1DIGIT", "MATH.ARITH.DIV.3DIGIT"]);
        assert_eq!(ids("47 ÷ 5 = 9 r 2"), ["MATH.ARITH.DIV.REMAINDER"]);
    }

    #[test]
    fn numbers_that_do_not_add_up_or_run_into_others_are_not_a_computation() {
        assert!(ids("In 2019 - 2020 = 1 year of notes, 12 + 7 = 20 is a slip.").is_empty());
        assert!(ids("Version 1.2 + 3 = 4.2 and pages 10-12.").is_empty());
        assert!(ids("Photosynthesis turns light into chemical energy.").is_empty());
    }

    #[test]
    fn fractions_equations_and_binary_numbers_are_recognised_when_they_agree() {
        assert_eq!(ids("Add over a common denominator: 3/4 + 1/8 = 7/8."), ["MATH.FRAC.ADD"]);
        assert!(ids("3/4 + 1/8 = 4/12 is the classic slip.").is_empty());
        assert_eq!(ids("Solve 3x + 4 = 19: subtract 4, divide by 3, so x = 5."), ["MATH.ALG.LINEAR.TWOSTEP"]);
        assert!(ids("Solve 3x + 4 = 19, so x = 6.").is_empty(), "a wrong solution is no rule");
        assert_eq!(ids("The number 101101 is 45 in decimal."), ["NET.BIN.FROMBINARY"]);
        assert_eq!(ids("Written in eight bits, 45 is 00101101."), ["NET.BIN.OCTET"]);
    }

    #[test]
    fn a_subnet_is_asked_about_what_the_passage_talks_about() {
        let text = "The subnet 192.168.4.64/26 has a broadcast address of 192.168.4.127 and 62 usable hosts.";
        assert_eq!(ids(text), ["NET.IP.SUBNET.BROADCAST", "NET.IP.SUBNET.HOSTCOUNT"]);
        assert_eq!(ids("A host at 10.0.0.7 with mask 255.255.255.0."), ["NET.IP.SUBNET.CALC"]);
        assert!(ids("The server is at 10.0.0.7.").is_empty(), "an address alone is not a subnet");
    }

    #[test]
    fn each_blueprint_is_found_once_and_the_limit_holds() {
        let text = "2 + 3 = 5. 4 + 1 = 5. 6 × 7 = 42. 9 - 4 = 5. 8 ÷ 2 = 4.";
        assert_eq!(
            ids(text),
            ["MATH.ARITH.ADD.1DIGIT", "MATH.ARITH.MUL.1DIGIT", "MATH.ARITH.SUB.1DIGIT", "MATH.ARITH.DIV.1DIGIT"]
        );
        assert_eq!(computable_blueprints(&[text], &Library::builtin(), 2).len(), 2);
    }
}
