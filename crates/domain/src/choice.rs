//! How a typed answer to a choice is read: the one rule every door grades choices by
//! (tutor drills, session items, teaching flows, MCP).
//!
//! A learner who types `0` under the options `40, 4, 400, 4000` means the number 0, not the
//! first option; one who types `2` under `red, green, blue` may well mean the third. So an
//! answer is first compared with each option as a value (text without case or extra
//! spaces; numbers by value, `4,000` = `4000`, `1/2` = `0.5`), and read as an option's index
//! (counting from 0) only when no option reads as a number. An index the client sends in a
//! field of its own (a session widget's `selected_index`, an exam answer's
//! `selectedIndex`) is an index whatever the options are; that is the door's business.

use crate::number::parse_ratio;

/// The option a typed answer picks, or `None` when it picks none.
pub fn read_typed_choice<S: AsRef<str>>(options: &[S], typed: &str) -> Option<usize> {
    if let Some(index) = options.iter().position(|o| same_words(o.as_ref(), typed)) {
        return Some(index);
    }
    // By value only when one option has it: options that differ only in how a number is
    // written (`01000110` and `1000110`, bit strings of two widths) are not told apart here.
    if let Some(value) = parse_ratio(typed) {
        let mut equal = options.iter().enumerate().filter(|(_, o)| parse_ratio(o.as_ref()) == Some(value));
        if let (Some((index, _)), None) = (equal.next(), equal.next()) {
            return Some(index);
        }
    }
    if options_read_as_numbers(options) {
        return None;
    }
    typed.trim().parse::<usize>().ok().filter(|&index| index < options.len())
}

/// Whether any option reads as a number, in which case a typed number is only ever a value.
pub fn options_read_as_numbers<S: AsRef<str>>(options: &[S]) -> bool {
    options.iter().any(|o| parse_ratio(o.as_ref()).is_some())
}

/// What a learner may type for these options, for a refusal that says what is allowed.
pub fn allowed_answers<S: AsRef<str>>(options: &[S]) -> String {
    let texts = options.iter().map(|o| o.as_ref().trim()).collect::<Vec<_>>().join(" | ");
    if options_read_as_numbers(options) || options.is_empty() {
        format!("one of: {texts}")
    } else {
        format!("an index from 0 to {} or one of: {texts}", options.len() - 1)
    }
}

fn same_words(a: &str, b: &str) -> bool {
    let words = |s: &str| s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
    words(a) == words(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NUMERIC: [&str; 4] = ["40", "4", "400", "4000"];
    const TEXTUAL: [&str; 3] = ["red", "Green", "light blue"];
    const MIXED: [&str; 3] = ["none of them", "12", "all of them"];

    #[test]
    fn a_number_typed_under_numeric_options_is_a_value_never_an_index() {
        assert_eq!(read_typed_choice(&NUMERIC, "0"), None);
        assert_eq!(read_typed_choice(&NUMERIC, "1"), None);
        assert_eq!(read_typed_choice(&NUMERIC, "4"), Some(1));
        assert_eq!(read_typed_choice(&NUMERIC, "4,000"), Some(3));
        assert_eq!(read_typed_choice(&NUMERIC, " 4000.0 "), Some(3));
        assert_eq!(read_typed_choice(&["1/2", "1/3"], "0.5"), Some(0));
        assert_eq!(read_typed_choice(&["1/2", "1/3"], "1"), None);
    }

    #[test]
    fn options_that_differ_only_in_how_a_number_is_written_are_told_apart_by_text() {
        let octets = ["01000110", "1000110", "01100100"];
        assert_eq!(read_typed_choice(&octets, "1000110"), Some(1));
        assert_eq!(read_typed_choice(&octets, "01000110"), Some(0));
        assert_eq!(read_typed_choice(&octets, "001000110"), None, "the same value twice: not picked by value");
    }

    #[test]
    fn textual_options_are_picked_by_text_or_by_index() {
        assert_eq!(read_typed_choice(&TEXTUAL, "  LIGHT   blue "), Some(2));
        assert_eq!(read_typed_choice(&TEXTUAL, "1"), Some(1));
        assert_eq!(read_typed_choice(&TEXTUAL, "3"), None);
        assert_eq!(read_typed_choice(&TEXTUAL, "purple"), None);
    }

    #[test]
    fn one_numeric_option_makes_every_typed_number_a_value() {
        assert_eq!(read_typed_choice(&MIXED, "12"), Some(1));
        assert_eq!(read_typed_choice(&MIXED, "0"), None);
        assert_eq!(read_typed_choice(&MIXED, "all of them"), Some(2));
    }

    #[test]
    fn the_allowed_answers_offer_an_index_only_where_one_is_read() {
        assert_eq!(allowed_answers(&NUMERIC), "one of: 40 | 4 | 400 | 4000");
        assert_eq!(allowed_answers(&TEXTUAL), "an index from 0 to 2 or one of: red | Green | light blue");
    }
}
