//! An answer from the course's own material: the sentences of a passage that answer the
//! learner's question, found by retrieval (`pathwise_retrieval::CourseIndex::answer`), and how
//! the tutor words them when no model is at hand: quoted, cited, and honest when the material
//! does not say.

use crate::course::Course;
use crate::intent::QuestionKind;
use crate::shown::squeeze;

/// The sentences of the material that answer a question (or come nearest to it).
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialAnswer {
    pub kind: QuestionKind,
    /// The unit whose passage holds them.
    pub unit_id: String,
    /// The passage's position in the course's content ([`crate::Course::chunks`]); none for
    /// a unit's own statement (its anchor) that no passage holds.
    pub chunk: Option<usize>,
    /// The sentences, in the passage's order.
    pub sentences: Vec<String>,
    /// Whether they hold what the question asks about; otherwise they are only the nearest
    /// the material comes.
    pub answers: bool,
    /// The question's words the course never uses (in no passage, title or anchor), as the
    /// learner wrote them. With no sentences, no passage holds any of the question's words.
    pub missing: Vec<String>,
}

/// What a request to be taught a unit is answered with: the first sentences of the unit's
/// material (its anchor, then its passages), two at most.
pub fn unit_answer(course: &Course, unit: &str, kind: QuestionKind) -> Option<MaterialAnswer> {
    let material = unit_material(course, unit);
    let first = material.first()?;
    let mut chosen = vec![first];
    if let Some(next) = material.get(1).filter(|n| n.chunk == first.chunk && word_count(&first.text) < 30) {
        chosen.push(next);
    }
    Some(MaterialAnswer {
        kind,
        unit_id: unit.to_string(),
        chunk: first.chunk,
        sentences: chosen.iter().map(|s| s.text.clone()).collect(),
        answers: true,
        missing: Vec::new(),
    })
}

/// A sentence of a unit's material and the passage it is from (none for an anchor that no
/// passage holds).
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub text: String,
    pub chunk: Option<usize>,
}

/// A unit's material sentence by sentence: its anchor's, then its passages', each once, of
/// four words at least.
pub fn unit_material(course: &Course, unit: &str) -> Vec<Said> {
    let Some(spec) = course.unit(unit) else { return Vec::new() };
    let chunks: Vec<(usize, &str)> =
        course.chunks().iter().enumerate().filter(|(_, c)| c.unit == unit).map(|(i, c)| (i, c.text.as_str())).collect();
    let holder = |sentence: &str| {
        let squeezed = squeeze(sentence);
        chunks.iter().find(|(_, text)| squeeze(text).contains(&squeezed)).map(|(i, _)| *i)
    };
    let mut out: Vec<Said> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // An anchor cut short (drafted from a long passage) is the passage's own start.
    let anchor_text = if spec.anchor.ends_with('\u{2026}') { "" } else { spec.anchor.as_str() };
    let anchor = sentences(anchor_text).into_iter().map(|s| (holder(&s), s));
    let passages = chunks.iter().flat_map(|(i, text)| sentences(text).into_iter().map(move |s| (Some(*i), s)));
    for (chunk, text) in anchor.chain(passages) {
        if word_count(&text) >= 4 && seen.insert(squeeze(&text)) {
            out.push(Said { text, chunk });
        }
    }
    out
}

/// The sentences of `text`, each with its stop: a stop followed by a space and a capital
/// letter, digit or quote ends one ("e.g. the" and "3.5" do not), and so does a line break
/// between lines that are items or headings of their own.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let line = line.trim_start_matches(['-', '*', '•']).trim();
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut start = 0;
        for (k, &(i, c)) in chars.iter().enumerate() {
            if !matches!(c, '.' | '?' | '!') {
                continue;
            }
            let next = chars.get(k + 1).map(|&(_, n)| n);
            let after = chars.get(k + 2).map(|&(_, n)| n);
            let ends = next.is_some_and(char::is_whitespace)
                && after.is_some_and(|a| a.is_uppercase() || a.is_ascii_digit() || matches!(a, '"' | '\u{201c}' | '('));
            if ends {
                push_sentence(&mut out, &line[start..=i]);
                start = i + c.len_utf8();
            }
        }
        push_sentence(&mut out, &line[start..]);
    }
    out
}

fn push_sentence(out: &mut Vec<String>, text: &str) {
    let text = text.trim();
    if !text.is_empty() {
        out.push(text.to_string());
    }
}

/// The sentence of the material that holds `key` (a drill's answer, as words), with its
/// passage's position: from `unit`'s passages first, then the course's. None for a key with
/// no letters (a computed number is no sentence's).
pub fn sentence_holding(course: &Course, unit: &str, key: &str) -> Option<(String, usize)> {
    if !key.chars().any(char::is_alphabetic) {
        return None;
    }
    let key = format!(" {} ", squeeze(key));
    let holds = |sentence: &String| format!(" {} ", squeeze(sentence)).contains(&key);
    let chunks = course.chunks().iter().enumerate();
    let own = chunks.clone().filter(|(_, c)| c.unit == unit);
    let others = chunks.filter(|(_, c)| c.unit != unit);
    own.chain(others).find_map(|(i, c)| sentences(&c.text).into_iter().find(holds).map(|s| (s, i)))
}

/// How many words `text` has.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The sentences as one quotation.
pub fn quoted(sentences: &[String]) -> String {
    format!("\u{201c}{}\u{201d}", sentences.join(" "))
}

/// The learner's words listed as the reply names them: `"a"`, `"a" and "b"`, `"a", "b" and "c"`.
pub fn listed(words: &[String]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("\u{201c}{w}\u{201d}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_at_stops_before_a_new_sentence() {
        assert_eq!(
            sentences(
                "Leaves look green. They reflect green light, e.g. from the sun. It is 3.5 times more! Why? Because."
            ),
            [
                "Leaves look green.",
                "They reflect green light, e.g. from the sun.",
                "It is 3.5 times more!",
                "Why?",
                "Because."
            ]
        );
        assert_eq!(sentences("- first item\n- second item\n\nA line"), ["first item", "second item", "A line"]);
        assert!(sentences("  \n ").is_empty());
    }

    #[test]
    fn words_are_listed_as_a_reader_would() {
        assert_eq!(listed(&["a".into()]), "\u{201c}a\u{201d}");
        assert_eq!(
            listed(&["a".into(), "b".into(), "c".into()]),
            "\u{201c}a\u{201d}, \u{201c}b\u{201d} and \u{201c}c\u{201d}"
        );
    }
}
