//! Wording of the sentences Pathwise writes for learners (feedback, summaries, reminders):
//! the indefinite article a phrase takes, counted nouns, lists, and tags read as words.
//! English only, by the sound of the first word rather than its first letter, so that
//! "an off by 1 slip", "a unit", "an 8 bit value" and "an SQL query" come out right.

/// Words that start with a vowel letter but a consonant sound ("a unit", "a one-off").
const CONSONANT_SOUND_PREFIXES: [&str; 13] =
    ["uni", "use", "usa", "usu", "uti", "ure", "uri", "uro", "eu", "ewe", "one", "once", "ubiq"];
/// ... except these, which are "un-" + a vowel-initial word ("an unimportant detail").
const VOWEL_SOUND_OVERRIDES: [&str; 3] = ["unim", "unin", "unid"];
/// Words that start with a silent h ("an hour").
const SILENT_H_PREFIXES: [&str; 5] = ["hour", "honest", "honor", "honour", "heir"];
/// Letters whose names start with a vowel sound, for initialisms ("an SQL query", "an F").
const VOWEL_SOUND_LETTERS: &str = "AEFHILMNORSX";

/// `"a"` or `"an"`, whichever `phrase` takes by the sound of its first word.
pub fn article(phrase: &str) -> &'static str {
    let word: &str = phrase
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .next()
        .unwrap_or("");
    if vowel_sound(word) {
        "an"
    } else {
        "a"
    }
}

fn vowel_sound(word: &str) -> bool {
    let Some(first) = word.chars().next() else { return false };
    if first.is_ascii_digit() {
        return number_vowel_sound(word);
    }
    let letters: String = word.chars().take_while(|c| c.is_alphabetic()).collect();
    if is_initialism(&letters) {
        return VOWEL_SOUND_LETTERS.contains(first.to_ascii_uppercase());
    }
    let lower = letters.to_lowercase();
    if SILENT_H_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    if VOWEL_SOUND_OVERRIDES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    if CONSONANT_SOUND_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return false;
    }
    matches!(lower.chars().next(), Some('a' | 'e' | 'i' | 'o' | 'u'))
}

/// A single letter ("an x"), or capitals only ("SQL", "HTTP"): read letter by letter.
fn is_initialism(letters: &str) -> bool {
    let mut chars = letters.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => c.is_alphabetic(),
        (Some(_), Some(_)) => letters.chars().all(|c| c.is_ascii_uppercase()) && letters.len() <= 5,
        _ => false,
    }
}

/// Whether a number as read aloud starts with a vowel: eight, eighty, eight hundred,
/// eleven, eighteen (and eleven thousand, eighteen million, ...).
fn number_vowel_sound(word: &str) -> bool {
    let digits: String = word.chars().take_while(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return false; // "a 0"
    }
    // The leading group of thousands is what is said first.
    let lead = match digits.len() % 3 {
        0 => &digits[..3],
        n => &digits[..n],
    };
    lead.starts_with('8') || lead == "11" || lead == "18"
}

/// `phrase` with its indefinite article: `with_article("off by 1 slip")` is
/// "an off by 1 slip".
pub fn with_article(phrase: &str) -> String {
    format!("{} {phrase}", article(phrase))
}

/// The regular English plural of a noun, or of a phrase ending in one ("new concept").
pub fn plural(noun: &str) -> String {
    const IRREGULAR: [(&str, &str); 4] =
        [("person", "people"), ("child", "children"), ("quiz", "quizzes"), ("is", "are")];
    let (head, last) = match noun.rfind(' ') {
        Some(i) => noun.split_at(i + 1),
        None => ("", noun),
    };
    let lower = last.to_lowercase();
    if let Some((_, many)) = IRREGULAR.iter().find(|(one, _)| *one == lower) {
        return format!("{head}{many}");
    }
    let ends = |s: &str| lower.ends_with(s);
    let plural = if ends("s") || ends("x") || ends("z") || ends("ch") || ends("sh") {
        format!("{last}es")
    } else if ends("y") && !lower[..lower.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']) {
        format!("{}ies", &last[..last.len() - 1])
    } else {
        format!("{last}s")
    };
    format!("{head}{plural}")
}

/// `n` and the noun, singular for exactly one: "0 questions", "1 question", "2 questions".
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {}", plural(noun))
    }
}

/// `n` and whichever of two wordings agrees with it, for phrases whose noun is not last:
/// `count_as(2, "concept mastered", "concepts mastered")`.
pub fn count_as(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "a", "a and b", "a, b and c".
pub fn join_and<S: AsRef<str>>(items: &[S]) -> String {
    join(items, "and")
}

/// "a", "a or b", "a, b or c".
pub fn join_or<S: AsRef<str>>(items: &[S]) -> String {
    join(items, "or")
}

fn join<S: AsRef<str>>(items: &[S], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} {word} {}", rest.join(", "), last.as_ref())
        }
    }
}

/// A machine tag (`off_by_1`, `sign-error`) as words: "off by 1", "sign error".
pub fn tag_words(tag: &str) -> String {
    tag.split(['_', '-']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_sound_of_the_first_word() {
        for (phrase, want) in [
            ("off by 1 slip", "an"),
            ("sign error", "a"),
            ("item", "an"),
            ("unit", "a"),
            ("unimportant detail", "an"),
            ("user", "a"),
            ("European course", "a"),
            ("one-off", "a"),
            ("hour", "an"),
            ("honest mistake", "an"),
            ("history", "a"),
            ("SQL query", "an"),
            ("URL", "a"),
            ("HTTP error", "an"),
            ("F", "an"),
            ("B", "a"),
            ("x slip", "an"),
            ("y", "a"),
            ("8 bit value", "an"),
            ("80", "an"),
            ("800", "an"),
            ("11", "an"),
            ("18", "an"),
            ("11000", "an"),
            ("110", "a"),
            ("1", "a"),
            ("100", "a"),
            ("0", "a"),
            ("\"apple\"", "an"),
            ("", "a"),
            ("Exponent rules", "an"),
        ] {
            assert_eq!(article(phrase), want, "{phrase}");
        }
        assert_eq!(with_article("off by 1 slip"), "an off by 1 slip");
    }

    #[test]
    fn counts_agree_with_their_number() {
        assert_eq!(count(0, "question"), "0 questions");
        assert_eq!(count(1, "question"), "1 question");
        assert_eq!(count(2, "item"), "2 items");
        assert_eq!(count(3, "quiz"), "3 quizzes");
        assert_eq!(count(2, "box"), "2 boxes");
        assert_eq!(count(2, "match"), "2 matches");
        assert_eq!(count(2, "study"), "2 studies");
        assert_eq!(count(2, "day"), "2 days");
        assert_eq!(count(2, "new concept"), "2 new concepts");
        assert_eq!(count(2, "person"), "2 people");
        assert_eq!(count_as(1, "concept mastered", "concepts mastered"), "1 concept mastered");
        assert_eq!(count_as(5, "concept mastered", "concepts mastered"), "5 concepts mastered");
    }

    #[test]
    fn lists_read_as_sentences() {
        assert_eq!(join_and::<&str>(&[]), "");
        assert_eq!(join_and(&["a"]), "a");
        assert_eq!(join_and(&["a", "b"]), "a and b");
        assert_eq!(join_and(&["a", "b", "c"]), "a, b and c");
        assert_eq!(join_or(&["a", "b", "c"]), "a, b or c");
    }

    #[test]
    fn tags_read_as_words() {
        assert_eq!(tag_words("off_by_1"), "off by 1");
        assert_eq!(tag_words("sign-error"), "sign error");
        assert_eq!(tag_words("__x__y"), "x y");
    }
}
