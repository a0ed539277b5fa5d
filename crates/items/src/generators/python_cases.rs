//! Inputs for the Python tasks' tests: words, sentences and lists of a chosen kind.

use crate::dice::Dice;

const WORDS: &[&str] = &[
    "hello", "python", "code", "river", "garden", "planet", "music", "window", "orange", "silver", "forest", "rocket",
    "pencil", "bridge", "yellow", "coffee", "spring", "castle", "dragon", "puzzle", "banana", "laptop", "mirror",
    "tunnel", "cactus", "meadow", "anchor", "lantern", "harbor", "violin",
];

/// Words with characters outside ASCII, each character one code point (no combining
/// marks), so that Python's `len` and a count of `char`s agree.
pub(crate) const UNICODE_WORDS: &[&str] = &[
    "café",
    "naïve",
    "über",
    "piñata",
    "jalapeño",
    "crème",
    "façade",
    "straße",
    "日本語",
    "привет",
    "αβγδ",
    "smile😀",
    "señor",
    "déjà",
    "ñandú",
    "zürich",
];

/// Words with no a, e, i, o or u.
const NO_VOWEL_WORDS: &[&str] = &["rhythm", "crypt", "lynx", "myth", "gym", "sky", "fly", "nth", "psst", "tsk"];

const PUNCTUATION: &[&str] = &[", ", "! ", "? ", "; ", ": ", ". ", " - "];

pub(crate) fn word(dice: &mut Dice) -> String {
    WORDS[dice.index(WORDS.len())].to_string()
}

pub(crate) fn unicode_word(dice: &mut Dice) -> String {
    UNICODE_WORDS[dice.index(UNICODE_WORDS.len())].to_string()
}

pub(crate) fn no_vowel_word(dice: &mut Dice) -> String {
    NO_VOWEL_WORDS[dice.index(NO_VOWEL_WORDS.len())].to_string()
}

/// Two to four words joined by single spaces.
pub(crate) fn phrase(dice: &mut Dice) -> String {
    let n = dice.int(2, 4) as usize;
    (0..n).map(|_| WORDS[dice.index(WORDS.len())]).collect::<Vec<_>>().join(" ")
}

/// Two or three words joined by punctuation, ending with `!` or `?`.
pub(crate) fn punctuated(dice: &mut Dice) -> String {
    let mut s = word(dice);
    for _ in 0..dice.int(1, 2) {
        s.push_str(PUNCTUATION[dice.index(PUNCTUATION.len())]);
        s.push_str(&word(dice));
    }
    s.push(if dice.coin() { '!' } else { '?' });
    s
}

/// Upper-cases some letters, and at least one.
pub(crate) fn mixed_case(dice: &mut Dice, text: &str) -> String {
    let mut out: Vec<char> = text.chars().collect();
    let first = dice.index(out.len());
    for (i, c) in out.iter_mut().enumerate() {
        if i == first || dice.index(3) == 0 {
            *c = c.to_ascii_uppercase();
        }
    }
    out.into_iter().collect()
}

/// `len` distinct numbers in `lo..=hi` (so the largest appears once).
pub(crate) fn distinct_numbers(dice: &mut Dice, len: usize, lo: i64, hi: i64) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::with_capacity(len);
    while out.len() < len {
        let v = dice.int(lo, hi);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_words_have_no_combining_marks_and_are_not_ascii() {
        for w in UNICODE_WORDS {
            assert!(!w.is_ascii(), "{w}");
            assert!(w.chars().all(|c| !('\u{300}'..='\u{36f}').contains(&c)), "{w}");
        }
        assert_eq!("café".chars().count(), 4);
    }

    #[test]
    fn vowel_free_words_have_no_vowels() {
        for w in NO_VOWEL_WORDS {
            assert!(!w.chars().any(|c| "aeiouAEIOU".contains(c)), "{w}");
        }
    }
}
