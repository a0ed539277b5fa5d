//! The one text analyzer used for indexing and for queries, so that a learner's words meet the
//! course's words in the same form: split on anything that is not a letter or digit, lowercased,
//! accents folded, function words dropped, English stems ("addresses" and "address" match).
//!
//! Queries are never parsed as query syntax: a message is only ever split into terms here, so
//! `a AND (b` or `title:` are words like any other.

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
    TokenStream,
};

/// The name the analyzer is registered under in every namespace's index.
pub(crate) const ANALYZER_NAME: &str = "pathwise_en";

/// At most this many distinct terms of a message are searched: a tutoring message is short, and
/// a pasted page should not turn one query into thousands of term lookups.
pub(crate) const MAX_QUERY_TERMS: usize = 64;

/// Longer tokens are noise (hashes, base64), not words.
const MAX_TOKEN_BYTES: usize = 40;

/// English function words and chat filler, separated by spaces. Lucene's list is too short for messages ("how do
/// I ..."); words that can carry a course's meaning ("between", "more", "first", "like") are
/// deliberately absent.
const STOP_WORDS: &str = "\
    a about again am an and any are as at be because been being but by can cant could d did do does \
    doing don dont get got had has have having he hello her here hers hey hi him his how i if im in into \
    is isn it its ive just let ll m maybe me might must my myself no not of ok okay on or our ours \
    please pls re really s shall she should so some something such t than thank thanks that the their \
    them then there these they this those to too us ve very was wasn we were what whats when where which \
    while who whom whose why will with won would you your yours";

/// The analyzer, to register in each index and to clone for each query (a clone is a few small
/// boxes; tokenizing needs a mutable analyzer).
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(STOP_WORDS.split_whitespace().map(str::to_string)))
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The distinct terms of `text` in order of first appearance, at most `limit`.
pub(crate) fn distinct_terms(analyzer: &mut TextAnalyzer, text: &str, limit: usize) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while terms.len() < limit && stream.advance() {
        let term = &stream.token().text;
        if !terms.iter().any(|t| t == term) {
            terms.push(term.clone());
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        distinct_terms(&mut analyzer(), text, MAX_QUERY_TERMS)
    }

    #[test]
    fn messages_become_stemmed_content_terms() {
        assert_eq!(terms("How do I find the Broadcast addresses of a /26?"), ["find", "broadcast", "address", "26"]);
        assert_eq!(terms("graphs GRAPH graphing"), ["graph"]);
        assert_eq!(terms("Café"), ["cafe"]);
    }

    #[test]
    fn query_syntax_is_just_text() {
        assert_eq!(terms("a AND (b"), ["b"]);
        assert_eq!(terms("title: \"mask\" OR -subnet*"), ["titl", "mask", "subnet"]);
        assert!(terms("what is this?").is_empty());
        assert!(terms("").is_empty());
    }

    #[test]
    fn terms_are_capped() {
        let long: String = (0..200).map(|i| format!("word{i} ")).collect();
        assert_eq!(terms(&long).len(), MAX_QUERY_TERMS);
    }
}
