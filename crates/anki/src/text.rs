//! A note's fields as a learner reads them: HTML to plain text, sounds and images dropped,
//! clozes either shown or hidden the way the card asks.

use regex::Regex;
use std::sync::LazyLock;

static BREAKS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)<br\s*/?>|</(div|p|li|tr|h[1-6])>|<(div|p|li|tr)\b[^>]*>").expect("breaks"));
static SOUNDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[sound:[^\]]*\]").expect("sounds"));
/// `{{c1::answer}}` or `{{c1::answer::hint}}`: the number, the answer, the hint.
static CLOZES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}").expect("clozes"));

/// A field's text: tags removed (line-ending ones as spaces), entities decoded, sound
/// references dropped, whitespace collapsed.
pub fn plain(html: &str) -> String {
    let spaced = BREAKS.replace_all(html, " ");
    let without_sounds = SOUNDS.replace_all(&spaced, " ");
    let fragment = scraper::Html::parse_fragment(&without_sounds);
    let text: String = fragment.root_element().text().collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a field has cloze deletions.
pub fn has_clozes(text: &str) -> bool {
    CLOZES.is_match(text)
}

/// The text with every cloze shown (its answer in place).
pub fn clozes_shown(text: &str) -> String {
    CLOZES.replace_all(text, "$2").into_owned()
}

/// The text as cloze `number`'s card asks it: that cloze hidden (`[...]`, or `[hint]`),
/// the others shown.
pub fn cloze_asked(text: &str, number: i64) -> String {
    CLOZES
        .replace_all(text, |c: &regex::Captures<'_>| {
            if c[1].parse::<i64>().ok() == Some(number) {
                match c.get(3).map(|h| h.as_str().trim()).filter(|h| !h.is_empty()) {
                    Some(hint) => format!("[{hint}]"),
                    None => "[...]".to_string(),
                }
            } else {
                c[2].to_string()
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_the_text_a_learner_reads() {
        assert_eq!(plain("<b>bonjour</b>&nbsp;&amp; <i>salut</i>"), "bonjour & salut");
        assert_eq!(plain("line one<br>line two<div>three</div>"), "line one line two three");
        assert_eq!(plain("chat [sound:chat.mp3]<img src=\"cat.jpg\">"), "chat");
        assert_eq!(plain("1 &lt; 2"), "1 < 2");
        assert_eq!(plain("   "), "");
    }

    #[test]
    fn a_cloze_card_hides_its_own_cloze_and_shows_the_others() {
        let text = "{{c1::Paris}} is the capital of {{c2::France::country}}";
        assert!(has_clozes(text));
        assert_eq!(cloze_asked(text, 1), "[...] is the capital of France");
        assert_eq!(cloze_asked(text, 2), "Paris is the capital of [country]");
        assert_eq!(clozes_shown(text), "Paris is the capital of France");
        assert!(!has_clozes("no clozes {{here}}"));
    }
}
