//! Answering a learner's question from the course's material, without a model: BM25 finds the
//! passages (over the whole course, their section headings counting more), then each of their
//! sentences is weighed by how much of the question it holds (each of the question's words
//! counting by how rare it is in the course, its IDF), by whether it says the kind of thing
//! the question asks for (a reason for "why", an origin for "where ... from"), and by whether
//! it is about the question's subject (the subject near its start). The best sentence answers
//! when it holds most of the question; otherwise it is the nearest the material comes.

use crate::analyzer::{distinct_terms, MAX_QUERY_TERMS};
use crate::build::UNIT;
use crate::index::CourseIndex;
use crate::ranking::by_score;
use pathwise_course::answer::{sentences, word_count, MaterialAnswer};
use pathwise_course::intent::QuestionKind;

/// Passages whose sentences are weighed.
const PASSAGES: usize = 6;
/// A sentence answers when it holds at least this share of the question's weight.
const ANSWERS: f64 = 0.6;
/// An answer longer than this many words is one sentence, not two.
const TWO_SENTENCES_WORDS: usize = 45;

/// Words of a question that ask rather than say what about ("explain", "define"): left out of
/// what an answer must hold. Stems, as the analyzer makes them.
const ASKING: &[&str] =
    &["explain", "defin", "describ", "tell", "teach", "mean", "learn", "understand", "know", "work", "happen"];

/// A candidate sentence and its weight.
struct Weighed {
    rank: usize,
    chunk: usize,
    position: usize,
    coverage: f64,
    score: f64,
}

impl CourseIndex {
    /// The sentences of the course's material that answer `question`, or come nearest; no
    /// sentences (and every word missing) when no passage holds any of its words; `None` when
    /// it has no words to search with.
    /// With `unit`, only that unit's passages are searched.
    pub fn answer(&self, question: &str, kind: QuestionKind, unit: Option<&str>) -> Option<MaterialAnswer> {
        let mut analyzer = self.analyzer.clone();
        let terms: Vec<String> = distinct_terms(&mut analyzer, question, MAX_QUERY_TERMS)
            .into_iter()
            .filter(|t| !ASKING.contains(&t.as_str()))
            .collect();
        if terms.is_empty() {
            return None;
        }
        let filter = unit.map(|u| self.chunks.namespace.keyword_is(UNIT, u));
        let mut found: Vec<_> =
            self.searched(&self.chunks.namespace, &terms, filter)?.into_iter().filter(|s| s.score > 0.0).collect();
        if found.is_empty() && unit.is_some() {
            return None;
        }
        if found.is_empty() {
            let absent: Vec<bool> = terms.iter().map(|t| self.unheard_of(t)).collect();
            return Some(MaterialAnswer {
                kind,
                unit_id: String::new(),
                chunk: None,
                sentences: Vec::new(),
                answers: false,
                missing: question_words(&mut analyzer, question, &terms, &absent),
            });
        }
        by_score(&mut found, |ordinal| ordinal as usize);
        found.truncate(PASSAGES);
        let total = self.chunks.hits.len() as f64;
        let frequencies: Vec<u64> = terms.iter().map(|t| self.chunks.namespace.doc_freq(t)).collect();
        let idf: Vec<f64> =
            frequencies.iter().map(|&df| (1.0 + (total - df as f64 + 0.5) / (df as f64 + 0.5)).ln()).collect();
        let weight: f64 = idf.iter().sum();
        // The question's subject: its rarest word in the course.
        let subject = (0..terms.len()).max_by(|&a, &b| idf[a].total_cmp(&idf[b]).then(b.cmp(&a)));
        let mut best: Option<Weighed> = None;
        let mut passages: Vec<(usize, Vec<String>)> = Vec::with_capacity(found.len());
        for (rank, hit) in found.iter().enumerate() {
            let chunk = hit.ordinal as usize;
            let said = sentences(&self.chunks.hits[chunk].text);
            for (position, sentence) in said.iter().enumerate() {
                let words = distinct_terms(&mut analyzer, sentence, usize::MAX);
                let holds: Vec<bool> = terms.iter().map(|t| words.contains(t)).collect();
                let mut coverage = 0.0;
                for (i, h) in holds.iter().enumerate() {
                    if *h {
                        coverage += idf[i];
                    }
                }
                coverage /= weight.max(f64::EPSILON);
                if coverage == 0.0 {
                    continue;
                }
                // A sentence about the question's subject names it first ("The Calvin cycle
                // takes place ..."), not in passing ("Temperature matters because the Calvin
                // cycle ...").
                let subject_at = subject.filter(|&s| holds[s]).and_then(|s| words.iter().position(|w| *w == terms[s]));
                let about_subject = match subject_at {
                    Some(0 | 1) => 0.15,
                    Some(2..=5) => 0.05,
                    _ => 0.0,
                };
                let score = coverage
                    + if says_kind(kind, sentence) { 0.25 } else { 0.0 }
                    + about_subject
                    + 0.1 / (rank + 1) as f64
                    // A sentence that merely names things (a heading's words) says little.
                    - if word_count(sentence) < 5 { 0.3 } else { 0.0 };
                if best.as_ref().is_none_or(|b| score > b.score) {
                    best = Some(Weighed { rank, chunk, position, coverage, score });
                }
            }
            passages.push((chunk, said));
        }
        let best = best?;
        let said = &passages[best.rank].1;
        let mut chosen = vec![said[best.position].clone()];
        if let Some(next) = said.get(best.position + 1) {
            let explains = matches!(kind, QuestionKind::Definition | QuestionKind::Process | QuestionKind::Function);
            let follows = next.split_whitespace().next().is_some_and(|w| {
                matches!(w, "It" | "Its" | "This" | "These" | "They" | "That" | "Those" | "So" | "Then")
            });
            if (explains || follows) && word_count(&chosen[0]) + word_count(next) <= TWO_SENTENCES_WORDS {
                chosen.push(next.clone());
            }
        }
        let absent: Vec<bool> = terms.iter().zip(&frequencies).map(|(t, &df)| df == 0 && self.unheard_of(t)).collect();
        let missing = question_words(&mut analyzer, question, &terms, &absent);
        Some(MaterialAnswer {
            kind,
            unit_id: self.chunks.hits[best.chunk].unit_id.clone(),
            chunk: Some(best.chunk),
            sentences: chosen,
            answers: best.coverage >= ANSWERS,
            missing,
        })
    }
}

impl CourseIndex {
    /// Whether no unit's title, tags or anchor has the term either: the course never uses it.
    fn unheard_of(&self, term: &str) -> bool {
        self.anchors.namespace.doc_freq(term) == 0
    }
}

/// Whether `sentence` says the kind of thing the question asks for.
fn says_kind(kind: QuestionKind, sentence: &str) -> bool {
    let lower = format!(" {} ", sentence.to_lowercase());
    let any = |cues: &[&str]| cues.iter().any(|c| lower.contains(c));
    match kind {
        QuestionKind::Reason => {
            any(&[" because ", " so that ", " due to ", " since ", " as a result", " therefore ", " reason ", " why "])
        }
        QuestionKind::Origin => {
            any(&[" comes from ", " come from ", " from the ", " produced ", " released ", " made from ", " source "])
        }
        QuestionKind::Place => {
            any(&[" in the ", " inside ", " takes place ", " happens ", " found ", " located ", " occurs "])
        }
        QuestionKind::Process => {
            any(&[" by ", " through ", " using ", " uses ", " first ", " then ", " steps ", " turns "])
        }
        QuestionKind::Time => {
            any(&[" when ", " after ", " before ", " during ", " until ", " once ", " above ", " below "])
        }
        QuestionKind::Definition => {
            any(&[" is a ", " is an ", " is the ", " are ", " called ", " means ", " refers to ", " is defined"])
        }
        QuestionKind::Function => any(&[
            " fixes ",
            " makes ",
            " turns ",
            " converts ",
            " produces ",
            " joins ",
            " does ",
            " lets ",
            " allows ",
            " helps ",
        ]),
        QuestionKind::Agent | QuestionKind::Other => false,
    }
}

/// The question's words, as the learner wrote them, whose terms are `absent` from the course.
fn question_words(
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
    question: &str,
    terms: &[String],
    absent: &[bool],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in question.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let Some(term) = distinct_terms(analyzer, word, 1).pop() else { continue };
        let missing = terms.iter().zip(absent).any(|(t, a)| *t == term && *a);
        if missing && !out.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            out.push(word.to_string());
        }
    }
    out
}
