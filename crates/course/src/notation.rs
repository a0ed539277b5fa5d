//! The learner's own words, read before retrieval: arithmetic written with symbols ("7+8",
//! "3/4", "2x = 10") names its operation in the words the courses' anchors use, so that BM25,
//! which drops numbers and symbols, still finds the unit. (Requests in words are read by
//! [`crate::intent`].) What they write also narrows the units they can be about
//! ([`narrow_by_notation`]).

use crate::course::Course;
use crate::snapshot::MappedUnit;

/// Words for the operations written in `text` with symbols between numbers, to search with
/// alongside the text. Empty when the text writes none. Words a course never uses are ignored
/// by its retrieval, so "fraction" for `192.168.0.0/24` costs a networking course nothing.
pub fn operation_words(text: &str) -> Vec<&'static str> {
    let chars: Vec<char> = text.chars().collect();
    let mut words: Vec<&'static str> = Vec::new();
    let mut add = |new: &[&'static str]| {
        for w in new {
            if !words.contains(w) {
                words.push(w);
            }
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let before = previous_non_space(&chars, i);
        let after = next_non_space(&chars, i);
        let between_numbers = before.is_some_and(is_operand_end) && after.is_some_and(is_operand_start);
        match c {
            '+' if between_numbers => add(&["addition", "add", "sum"]),
            '-' | '−' | '–' if between_numbers => add(&["subtraction", "subtract", "difference"]),
            '-' | '−' if after.is_some_and(|a| a.is_ascii_digit()) && !before.is_some_and(is_operand_end) => {
                add(&["negative"])
            }
            '*' | '×' | '·' if between_numbers => add(&["multiplication", "multiply", "times", "product"]),
            '÷' if between_numbers => add(&["division", "divide", "quotient"]),
            '/' if between_numbers => add(&["fraction", "fractions", "division"]),
            '=' if chars.iter().any(|c| c.is_ascii_alphabetic() && is_variable(&chars, c)) => {
                add(&["equation", "solve"])
            }
            _ => {}
        }
        // A number times a letter ("2x", "3y"): an algebraic term (of an expression; with an
        // equals sign it is an equation, named above).
        if c.is_ascii_digit()
            && !chars.contains(&'=')
            && chars.get(i + 1).is_some_and(|n| matches!(n, 'x' | 'y' | 'n' | 'a' | 'b'))
            && !chars.get(i + 2).is_some_and(|n| n.is_ascii_alphanumeric())
        {
            add(&["variable", "expression"]);
        }
    }
    words
}

/// The four operations of arithmetic, by the stems a unit's title or anchor names them with.
const OPERATIONS: [(&[char], &[&str]); 4] = [
    (&['+'], &["add", "sum", "plus"]),
    (&['-', '−', '–'], &["subtract", "minus", "difference", "borrow"]),
    (&['*', '×', '·'], &["multipl", "times", "product"]),
    (&['÷'], &["divid", "divis", "quotient"]),
];

/// The mapping of `text` narrowed by the arithmetic it writes with symbols. A unit that speaks
/// of operations (in its title or anchor), none of them one the text writes, is not meant: a
/// sum of fractions ("2/3 + 1/6") is not "Multiplying fractions"; an equation is not narrowed
/// so. A fraction written ("3/4")
/// is about a unit that speaks of fractions. Each narrowing applies only when some mapped unit
/// passes it, so the mapping is never emptied by it.
pub fn narrow_by_notation(course: &Course, text: &str, mapped: &[MappedUnit]) -> Vec<MappedUnit> {
    let chars: Vec<char> = text.chars().collect();
    let written = |symbols: &[char]| {
        chars.iter().enumerate().any(|(i, c)| {
            symbols.contains(c)
                && previous_non_space(&chars, i).is_some_and(is_operand_end)
                && next_non_space(&chars, i).is_some_and(is_operand_start)
        })
    };
    let words =
        |unit: &str| course.unit(unit).map(|u| format!("{} {}", u.title, u.anchor).to_lowercase()).unwrap_or_default();
    let speaks = |unit: &str, stems: &[&str]| {
        let words = words(unit);
        stems.iter().any(|s| words.contains(s))
    };
    let keep = |mapped: Vec<MappedUnit>, pass: &dyn Fn(&str) -> bool| {
        if mapped.iter().any(|m| pass(&m.unit_id)) {
            mapped.into_iter().filter(|m| pass(&m.unit_id)).collect()
        } else {
            mapped
        }
    };
    let mut mapped = mapped.to_vec();
    let ops: Vec<&[&str]> =
        OPERATIONS.iter().filter(|(symbols, _)| written(symbols)).map(|(_, stems)| *stems).collect();
    // An equation ("2x + 3 = 11") is about solving it, whatever operations it is written with.
    if !ops.is_empty() && !written(&['=']) {
        mapped = keep(mapped, &|unit| {
            let named: Vec<&&[&str]> = OPERATIONS.iter().map(|(_, stems)| stems).filter(|s| speaks(unit, s)).collect();
            named.is_empty() || ops.iter().any(|op| speaks(unit, op))
        });
    }
    if written(&['/']) {
        mapped = keep(mapped, &|unit| speaks(unit, &["fraction"]));
    }
    mapped
}

/// `text` with the words for its operations appended: what retrieval searches.
pub fn searchable(text: &str) -> String {
    let words = operation_words(text);
    if words.is_empty() {
        text.to_string()
    } else {
        format!("{text} {}", words.join(" "))
    }
}

fn previous_non_space(chars: &[char], i: usize) -> Option<char> {
    chars[..i].iter().rev().copied().find(|c| !c.is_whitespace())
}

fn next_non_space(chars: &[char], i: usize) -> Option<char> {
    chars.get(i + 1..)?.iter().copied().find(|c| !c.is_whitespace())
}

fn is_operand_end(c: char) -> bool {
    c.is_ascii_digit() || c == ')' || matches!(c, 'x' | 'y' | 'n')
}

fn is_operand_start(c: char) -> bool {
    c.is_ascii_digit() || c == '(' || matches!(c, 'x' | 'y' | 'n')
}

/// A single letter standing alone or after a digit: a variable, not part of a word.
fn is_variable(chars: &[char], letter: &char) -> bool {
    chars.iter().enumerate().any(|(i, c)| {
        c == letter
            && !chars.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic())
            && !(i > 0 && chars[i - 1].is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_written_with_symbols_names_its_operation() {
        assert_eq!(operation_words("what is 7+8?"), ["addition", "add", "sum"]);
        assert_eq!(operation_words("what is 12 - 5"), ["subtraction", "subtract", "difference"]);
        assert_eq!(operation_words("6 × 7"), ["multiplication", "multiply", "times", "product"]);
        assert_eq!(operation_words("6*7=?"), ["multiplication", "multiply", "times", "product"]);
        assert_eq!(operation_words("56 ÷ 8"), ["division", "divide", "quotient"]);
        assert!(operation_words("the difference between 3/4 and 4/3").contains(&"fraction"));
        assert_eq!(operation_words("what is -3 take 5"), ["negative"]);
        assert!(operation_words("solve 2x + 3 = 11").contains(&"equation"));
        assert!(!operation_words("solve 2x + 3 = 11").contains(&"variable"));
        assert!(operation_words("simplify 3x + 2x").contains(&"variable"));
    }

    #[test]
    fn words_without_symbols_are_left_alone() {
        assert!(operation_words("explain fractions to me please").is_empty());
        assert!(operation_words("a well-known fact").is_empty());
        assert!(operation_words("x-ray").is_empty());
        assert_eq!(searchable("hello"), "hello");
        assert_eq!(searchable("7+8"), "7+8 addition add sum");
    }

    #[test]
    fn a_sum_of_fractions_is_not_about_multiplying_them() {
        let library = pathwise_items::Library::builtin();
        let courses = crate::builtin_courses(&library);
        let math = courses.iter().find(|c| c.id() == "MATH-FOUNDATIONS").expect("the math course");
        let mapped = |units: &[&str]| -> Vec<MappedUnit> {
            units.iter().map(|u| MappedUnit { unit_id: u.to_string(), confidence: 0.5 }).collect()
        };
        let ids = |m: Vec<MappedUnit>| m.into_iter().map(|m| m.unit_id).collect::<Vec<_>>();
        let fractions = mapped(&["MATH-FADD", "MATH-FMUL", "MATH-FRAC"]);
        assert_eq!(ids(narrow_by_notation(math, "2/3 + 1/6", &fractions)), ["MATH-FADD"]);
        assert_eq!(ids(narrow_by_notation(math, "2/3 - 1/6", &fractions)), ["MATH-FADD"]);
        assert_eq!(ids(narrow_by_notation(math, "2/3 × 3/4", &fractions)), ["MATH-FADD", "MATH-FMUL", "MATH-FRAC"]);
        // A fraction alone is about the units that speak of fractions.
        let mixed = mapped(&["MATH-PV", "MATH-FRAC"]);
        assert_eq!(ids(narrow_by_notation(math, "what is 3/4?", &mixed)), ["MATH-FRAC"]);
        // Words without symbols, or symbols no unit agrees with, leave the mapping as it is.
        assert_eq!(ids(narrow_by_notation(math, "fractions please", &fractions)).len(), 3);
        let none = mapped(&["MATH-PV"]);
        assert_eq!(ids(narrow_by_notation(math, "7 × 8", &none)), ["MATH-PV"]);
    }
}
