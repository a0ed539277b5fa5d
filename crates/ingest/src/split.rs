//! Cutting one over-long paragraph into pieces that each fit a chunk, at the most natural
//! boundary available: lines for line-structured text, else sentences, else words, and
//! characters only for a single "word" longer than a chunk (a URL, a base64 blob).

pub(crate) fn char_len(text: &str) -> usize {
    text.chars().count()
}

/// Pieces of `text`, each at most `max_chars` characters, that read in order give back the
/// text (separators between pieces excepted).
pub(crate) fn split_to_fit(text: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(1);
    if char_len(text) <= max_chars {
        return vec![text.to_owned()];
    }
    if text.contains('\n') {
        let lines: Vec<&str> = text.split('\n').filter(|line| !line.trim().is_empty()).collect();
        return pack(lines.into_iter(), "\n", max_chars, split_sentences_to_fit);
    }
    split_sentences_to_fit(text, max_chars)
}

fn split_sentences_to_fit(text: &str, max_chars: usize) -> Vec<String> {
    pack(sentences(text).into_iter(), " ", max_chars, split_words_to_fit)
}

fn split_words_to_fit(text: &str, max_chars: usize) -> Vec<String> {
    pack(text.split_whitespace(), " ", max_chars, split_chars_to_fit)
}

fn split_chars_to_fit(text: &str, max_chars: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(max_chars).map(|piece| piece.iter().collect()).collect()
}

/// Greedy packing: units are joined with `separator` while they fit; a unit that alone is
/// too long is cut further by `split_unit`.
fn pack<'a>(
    units: impl Iterator<Item = &'a str>,
    separator: &str,
    max_chars: usize,
    split_unit: fn(&str, usize) -> Vec<String>,
) -> Vec<String> {
    let separator_len = char_len(separator);
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut current_len = 0;
    for unit in units {
        let unit = unit.trim_end();
        let unit_len = char_len(unit);
        if unit_len == 0 {
            continue;
        }
        if unit_len > max_chars {
            if !current.is_empty() {
                pieces.push(std::mem::take(&mut current));
                current_len = 0;
            }
            pieces.extend(split_unit(unit.trim_start(), max_chars));
            continue;
        }
        if !current.is_empty() && current_len + separator_len + unit_len > max_chars {
            pieces.push(std::mem::take(&mut current));
            current_len = 0;
        }
        if !current.is_empty() {
            current.push_str(separator);
            current_len += separator_len;
        }
        current.push_str(unit);
        current_len += unit_len;
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Sentences of running text. A boundary is sentence-ending punctuation (optionally closed
/// by quotes or brackets) followed by whitespace and a character that is not a lowercase
/// letter, which keeps "e.g. this" and "3.5 kg" together.
fn sentences(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    let mut after_terminal = false;
    while let Some((index, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？') {
            after_terminal = true;
            continue;
        }
        if after_terminal && matches!(c, '"' | '\'' | ')' | ']' | '’' | '”' | '»') {
            continue;
        }
        if after_terminal && c.is_whitespace() {
            let next_starts_sentence = chars.peek().is_some_and(|&(_, next)| !next.is_lowercase());
            if next_starts_sentence {
                sentences.push(&text[start..index]);
                start = index + c.len_utf8();
            }
        }
        after_terminal = false;
    }
    if start < text.len() {
        sentences.push(&text[start..]);
    }
    sentences.into_iter().map(str::trim).filter(|sentence| !sentence.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_respect_abbreviations_and_decimals() {
        let text = "A mask has 32 bits. It is written e.g. as 255.255.255.0 in dotted form! Why? \"Because.\" Done";
        assert_eq!(
            sentences(text),
            vec![
                "A mask has 32 bits.",
                "It is written e.g. as 255.255.255.0 in dotted form!",
                "Why?",
                "\"Because.\"",
                "Done"
            ]
        );
    }

    #[test]
    fn long_prose_is_cut_between_sentences() {
        let sentence = "Every subnet has a network address and a broadcast address.";
        let text = [sentence; 10].join(" ");
        let pieces = split_to_fit(&text, 130);
        assert_eq!(pieces.len(), 5);
        for piece in &pieces {
            assert!(char_len(piece) <= 130);
            assert_eq!(piece, &format!("{sentence} {sentence}"));
        }
    }

    #[test]
    fn a_sentence_longer_than_a_chunk_is_cut_between_words_then_characters() {
        let words = "alpha beta gamma delta epsilon";
        assert_eq!(split_to_fit(words, 11), vec!["alpha beta", "gamma delta", "epsilon"]);
        assert_eq!(split_to_fit("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
    }

    #[test]
    fn line_structured_text_is_cut_between_lines() {
        let code = "let a = 1;\nlet b = 2;\nlet c = 3;";
        assert_eq!(split_to_fit(code, 22), vec!["let a = 1;\nlet b = 2;", "let c = 3;"]);
    }

    #[test]
    fn multibyte_text_is_measured_in_characters() {
        let text = "ééééé ééééé";
        assert_eq!(split_to_fit(text, 11), vec![text]);
        assert_eq!(split_to_fit(text, 5), vec!["ééééé", "ééééé"]);
    }
}
