//! Questions on someone's own material, written without a model: a sentence of a passage
//! with one of its key terms blanked. The term is one the material is about (see
//! [`crate::keyterms`]: never filler or the course's title word) and, of those, the one that
//! says most about the unit (it recurs in the unit and is rare in the others, ranked by YAKE),
//! so the blank asks for what the passage teaches; each term is asked once per unit. The
//! answer is the passage's own word, so a question's key is supported by the passage it
//! cites by construction.
//!
//! Drills ask for the term typed; exam questions offer it among other terms of the material:
//! bronze among terms of other units (easy to rule out), silver among a mix, gold among the
//! unit's own terms (each plausible).

use crate::keyterms::{is_filler, KeyTerms};
use crate::pack::Tier;
use std::collections::{HashMap, HashSet};

/// What a blank is written as.
pub const BLANK: &str = "_____";
/// A sentence a question is made of has this many words, no fewer and no more.
const SENTENCE_WORDS: std::ops::RangeInclusive<usize> = 6..=40;
/// An exam question offers the key and up to this many other terms.
const DISTRACTORS: usize = 3;
/// What being one of the material's terms ([`KeyTerms::is_key`]) adds to a word's score:
/// more than tf-idf and YAKE's rank give any other word.
const KEY_TERM: f64 = 10.0;
/// The blanks a sentence is tried with, its most telling terms first.
const BLANKS_PER_SENTENCE: usize = 3;

/// Words that never make a blank: they say nothing about the material.
const STOPWORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "against",
    "also",
    "although",
    "always",
    "among",
    "another",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "cannot",
    "could",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "else",
    "enough",
    "even",
    "ever",
    "every",
    "example",
    "first",
    "from",
    "further",
    "have",
    "having",
    "here",
    "however",
    "into",
    "itself",
    "just",
    "least",
    "less",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "more",
    "most",
    "much",
    "must",
    "never",
    "next",
    "none",
    "only",
    "other",
    "others",
    "otherwise",
    "over",
    "own",
    "same",
    "second",
    "should",
    "since",
    "some",
    "such",
    "than",
    "that",
    "their",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "though",
    "through",
    "thus",
    "together",
    "under",
    "until",
    "upon",
    "used",
    "uses",
    "using",
    "very",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "whose",
    "will",
    "with",
    "within",
    "without",
    "would",
    "your",
    "yours",
    "called",
    "means",
    "mean",
    "thing",
    "things",
    "usually",
    "often",
    "sometimes",
    "different",
    "several",
    "various",
    "given",
    "gives",
    "take",
    "takes",
    "want",
    "need",
    "needs",
    "know",
    "known",
    "shown",
    "show",
    "shows",
    "part",
    "parts",
    "keep",
    "keeps",
    "kept",
];

/// A passage of a unit, as questions are written from it.
#[derive(Debug, Clone, Copy)]
pub struct RecallPassage<'a> {
    pub unit: usize,
    pub text: &'a str,
}

/// A sentence with a term to blank, and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Cloze {
    /// The passage's position in what was handed in.
    pub passage: usize,
    /// The sentence as the passage has it.
    pub sentence: String,
    /// The sentence with the term blanked.
    pub blanked: String,
    /// The term, as the sentence writes it.
    pub term: String,
    score: f64,
}

/// An exam question made of a [`Cloze`]: the key among other terms.
#[derive(Debug, Clone, PartialEq)]
pub struct ClozeQuestion {
    pub tier: Tier,
    pub cloze: Cloze,
    pub options: Vec<String>,
    pub correct: usize,
}

/// What a unit's passages make: its drills and its exam questions (bronze to gold, as many
/// tiers as it has sentences and other terms for).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UnitRecall {
    pub questions: Vec<ClozeQuestion>,
    pub drills: Vec<Cloze>,
}

/// Questions and drills for every unit `0..units` of the course titled `course_title`, from
/// `passages`. Deterministic: the same material always gives the same questions.
pub fn recall(
    course_title: &str,
    units: usize,
    titles: &[&str],
    passages: &[RecallPassage<'_>],
    drills_per_unit: usize,
) -> Vec<UnitRecall> {
    let terms = TermStats::of(course_title, units, passages);
    let mut out = vec![UnitRecall::default(); units];
    for (unit, recall) in out.iter_mut().enumerate() {
        let title = titles.get(unit).map(|t| words(t)).unwrap_or_default();
        // Each sentence's few best blanks, best first; the sort is stable, so equal scores
        // keep the material's order.
        let mut clozes: Vec<Cloze> = passages
            .iter()
            .enumerate()
            .filter(|(_, p)| p.unit == unit)
            .flat_map(|(i, p)| sentences(p.text).into_iter().map(move |s| (i, s)))
            .flat_map(|(i, sentence)| terms.clozes(unit, i, &sentence, &title))
            .collect();
        clozes.sort_by(|a, b| b.score.total_cmp(&a.score));
        // A question per tier, each from a sentence of its own: the best blank that has
        // other terms of its kind to offer beside it.
        let mut used_sentences = HashSet::new();
        let mut used_terms: HashSet<String> = HashSet::new();
        for tier in Tier::ALL {
            let question = clozes
                .iter()
                .filter(|c| !used_sentences.contains(&c.sentence) && !used_terms.contains(&stem(&c.term)))
                .find_map(|c| terms.question(unit, tier, c));
            let Some(question) = question else { break };
            used_sentences.insert(question.cloze.sentence.clone());
            used_terms.insert(stem(&question.cloze.term));
            recall.questions.push(question);
        }
        // Drills: each sentence's best blank whose term no question or other drill of the
        // unit asks, sentences the questions do not use first.
        let mut asked: HashSet<String> = recall.questions.iter().map(|q| stem(&q.cloze.term)).collect();
        let mut drilled = HashSet::new();
        let mut best: Vec<&Cloze> = Vec::new();
        for c in clozes.iter().filter(|c| !used_sentences.contains(&c.sentence)) {
            if !drilled.contains(&c.sentence) && asked.insert(stem(&c.term)) {
                drilled.insert(c.sentence.clone());
                best.push(c);
            }
        }
        for c in clozes.iter().filter(|c| used_sentences.contains(&c.sentence)) {
            if !drilled.contains(&c.sentence) && asked.insert(stem(&c.term)) {
                drilled.insert(c.sentence.clone());
                best.push(c);
            }
        }
        recall.drills = best.into_iter().take(drills_per_unit).cloned().collect();
    }
    out
}

/// How often each term occurs in each unit, and in how many units.
struct TermStats {
    units: usize,
    keys: KeyTerms,
    /// term (lowercase) -> occurrences per unit.
    counts: HashMap<String, Vec<u32>>,
    /// Each unit's terms as written, best first, for distractors.
    ranked: Vec<Vec<String>>,
}

impl TermStats {
    fn of(course_title: &str, units: usize, passages: &[RecallPassage<'_>]) -> TermStats {
        let mut counts: HashMap<String, Vec<u32>> = HashMap::new();
        let mut written: HashMap<String, String> = HashMap::new();
        for p in passages.iter().filter(|p| p.unit < units) {
            for word in p.text.split_whitespace().map(trim_term).filter(|w| is_term(w)) {
                let lower = word.to_lowercase();
                counts.entry(lower.clone()).or_insert_with(|| vec![0; units])[p.unit] += 1;
                written.entry(lower).or_insert_with(|| word.to_string());
            }
        }
        let mut material: Vec<Vec<&str>> = vec![Vec::new(); units];
        for p in passages.iter().filter(|p| p.unit < units) {
            material[p.unit].push(p.text);
        }
        let keys = KeyTerms::of(course_title, &material);
        let mut stats = TermStats { units, keys, counts, ranked: vec![Vec::new(); units] };
        for unit in 0..units {
            let mut terms: Vec<(&String, f64)> = stats
                .counts
                .iter()
                .filter(|(_, c)| c[unit] > 0)
                .map(|(term, _)| (term, stats.weight(unit, term)))
                .collect();
            terms.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            stats.ranked[unit] = terms.into_iter().map(|(t, _)| written[t].clone()).collect();
        }
        stats
    }

    /// How much a term says about a unit: how often it occurs there, by how rare it is in
    /// the others (tf-idf).
    fn weight(&self, unit: usize, term: &str) -> f64 {
        let Some(counts) = self.counts.get(&term.to_lowercase()) else { return 0.0 };
        let in_units = counts.iter().filter(|&&c| c > 0).count().max(1);
        f64::from(counts[unit]) * (1.0 + (self.units as f64 / in_units as f64).ln())
    }

    /// The sentence with each of its best few terms blanked, best first.
    fn clozes(&self, unit: usize, passage: usize, sentence: &str, title: &[String]) -> Vec<Cloze> {
        let tokens: Vec<&str> = sentence.split_whitespace().collect();
        if !SENTENCE_WORDS.contains(&tokens.len()) || sentence.ends_with(['?', ':']) {
            return Vec::new();
        }
        let lower: Vec<String> = tokens.iter().map(|t| trim_term(t).to_lowercase()).collect();
        // Where the sentence names the unit by its whole title ("The Calvin cycle takes place
        // ..."), a word of it blanked is given away by the rest, which the learner sees as the
        // unit's name.
        let title_terms: Vec<&String> = title.iter().filter(|w| is_term(w)).collect();
        let names_unit = title_terms.len() >= 2 && title_terms.iter().all(|w| lower.contains(w));
        // How often the unit has the word, in either number.
        let in_unit = |word: &str| {
            let one = crate::keyterms::singular(word);
            self.counts.iter().filter(|(w, _)| crate::keyterms::singular(w) == one).map(|(_, c)| c[unit]).sum::<u32>()
        };
        let mut scored: Vec<(usize, f64)> = tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| is_term(trim_term(t)))
            .filter(|(i, _)| lower.iter().filter(|w| **w == lower[*i]).count() == 1)
            .filter(|(i, _)| !self.keys.in_course_title(&lower[*i]))
            .filter(|(i, _)| !(names_unit && title.contains(&lower[*i])))
            .map(|(i, t)| {
                let in_title = title.contains(&lower[i]);
                let numeric = trim_term(t).chars().any(|c| c.is_ascii_digit());
                // A term the material shows it is about comes before any other word; the
                // others make drills only where the material has too few terms.
                let key = if self.keys.is_key(&lower[i], in_unit(&lower[i])) { KEY_TERM } else { 0.0 };
                let bonus = key + self.keys.bonus(unit, &lower[i]);
                (
                    i,
                    self.weight(unit, &lower[i])
                        + bonus
                        + if in_title { 2.0 } else { 0.0 }
                        + if numeric { 1.0 } else { 0.0 },
                )
            })
            .collect();
        // Best first; of equal ones, the earlier word.
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(BLANKS_PER_SENTENCE)
            .map(|(position, score)| {
                let term = trim_term(tokens[position]).to_string();
                let blanked: Vec<String> = tokens
                    .iter()
                    .enumerate()
                    .map(|(i, t)| if i == position { t.replacen(term.as_str(), BLANK, 1) } else { t.to_string() })
                    .collect();
                Cloze { passage, sentence: sentence.to_string(), blanked: blanked.join(" "), term, score }
            })
            .collect()
    }

    /// The cloze as a question of `tier`, when there are other terms to offer beside its key.
    fn question(&self, unit: usize, tier: Tier, cloze: &Cloze) -> Option<ClozeQuestion> {
        let numeric = |t: &str| t.chars().any(|c| c.is_ascii_digit());
        // A word of the sentence, or another form of one (`absorb`, `absorbs`), gives itself away.
        let sentence: HashSet<String> = cloze.sentence.split_whitespace().map(|w| stem(trim_term(w))).collect();
        let fits = |t: &&String| numeric(t) == numeric(&cloze.term) && !sentence.contains(&stem(t));
        let own: Vec<&String> = self.ranked[unit].iter().filter(fits).collect();
        // Other units' best terms, nearest units first.
        let mut others: Vec<&String> = Vec::new();
        for distance in 1..self.units {
            for other in [unit.checked_sub(distance), Some(unit + distance)].into_iter().flatten() {
                if other < self.units {
                    others
                        .extend(self.ranked[other].iter().filter(fits).filter(|t| self.weight(unit, t) == 0.0).take(2));
                }
            }
        }
        let pool: Vec<&String> = match tier {
            Tier::Bronze => others.into_iter().chain(own).collect(),
            Tier::Silver => interleave(&own, &others),
            Tier::Gold => own.into_iter().chain(others).collect(),
        };
        let mut distractors: Vec<String> = Vec::new();
        for term in pool {
            if !distractors.iter().any(|d| stem(d) == stem(term)) {
                distractors.push(term.clone());
            }
            if distractors.len() == DISTRACTORS {
                break;
            }
        }
        if distractors.is_empty() {
            return None;
        }
        let mut options = distractors;
        options.push(cloze.term.clone());
        // The key's place is fixed by the sentence, not always last.
        let place = pathwise_items::Fnv64::new().write(cloze.sentence.as_bytes()).finish() as usize % options.len();
        let last = options.len() - 1;
        options.swap(place, last);
        Some(ClozeQuestion { tier, cloze: cloze.clone(), options, correct: place })
    }
}

fn interleave<'a>(a: &[&'a String], b: &[&'a String]) -> Vec<&'a String> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    for i in 0..a.len().max(b.len()) {
        out.extend(a.get(i));
        out.extend(b.get(i));
    }
    out
}

/// A word lowercased without the common English endings, so that two forms of one word
/// compare equal (`absorbs`, `absorbed`, `absorbing`: `absorb`).
fn stem(word: &str) -> String {
    let word = word.to_lowercase();
    for ending in ["ing", "ed", "es", "s"] {
        if let Some(root) = word.strip_suffix(ending) {
            if root.chars().count() >= 3 {
                return root.to_string();
            }
        }
    }
    word
}

/// Whether the answer's words are in the passage: every word that says something (or,
/// for an answer of filler words only, every word), compared without case or punctuation.
pub fn supported_by(answer: &str, passage: &str) -> bool {
    let have: HashSet<String> = words(passage).into_iter().collect();
    let wanted = words(answer);
    let telling: Vec<&String> = wanted.iter().filter(|w| is_term(w)).collect();
    let check: Vec<&String> = if telling.is_empty() { wanted.iter().collect() } else { telling };
    !check.is_empty() && check.iter().all(|w| have.contains(*w))
}

/// Lowercase words, punctuation around them dropped.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(trim_term).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// A word without the punctuation around it (a number keeps its `/`, `.` and `,` inside).
fn trim_term(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '/').trim_end_matches(|c: char| !c.is_alphanumeric())
}

/// A word worth asking for: a number, or a word of at least four letters that is not filler.
fn is_term(word: &str) -> bool {
    if word.is_empty() || word.chars().count() > 40 {
        return false;
    }
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '/' | '%'));
    }
    let lower = word.to_lowercase();
    word.chars().count() >= 4
        && word.chars().all(|c| c.is_alphabetic() || c == '-' || c == '\'')
        && !STOPWORDS.contains(&lower.as_str())
        && !is_filler(&lower)
}

/// The passage's sentences, whitespace squeezed.
fn sentences(text: &str) -> Vec<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let at_break = text[end..].starts_with(' ') || end == text.len();
        // A full stop after a digit inside a number (`2.5`) is not one; `e.g.` is rare
        // enough in teaching material to cost a sentence at worst.
        if matches!(c, '.' | '!' | '?') && at_break {
            out.push(text[start..end].trim().to_string());
            start = end;
        }
    }
    if start < text.len() && !text[start..].trim().is_empty() {
        out.push(text[start..].trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn material() -> Vec<RecallPassage<'static>> {
        vec![
            RecallPassage {
                unit: 0,
                text: "An address has a network part and a host part. The network part names the network \
                       and the host part names one machine on it.",
            },
            RecallPassage {
                unit: 1,
                text: "A subnet mask marks which bits of an address belong to the network. A mask of \
                       255.255.255.0 keeps the first 24 bits for the network. Writing the mask as a prefix \
                       length is shorter.",
            },
            RecallPassage {
                unit: 2,
                text: "Routers forward packets between networks using a routing table. Each routing entry maps a \
                       destination prefix to the next router on the path.",
            },
        ]
    }

    #[test]
    fn each_unit_gets_questions_whose_key_is_a_term_of_its_own_passage() {
        let passages = material();
        let recall = recall("Networking", 3, &["Addresses", "Masks", "Routing"], &passages, 3);
        assert_eq!(recall.len(), 3);
        for (unit, r) in recall.iter().enumerate() {
            assert!(!r.questions.is_empty(), "unit {unit} has questions");
            assert!(!r.drills.is_empty(), "unit {unit} has drills");
            for q in &r.questions {
                let passage = passages[q.cloze.passage];
                assert_eq!(passage.unit, unit);
                assert!(supported_by(&q.options[q.correct], passage.text), "{q:?}");
                assert!(q.cloze.blanked.contains(BLANK) && !q.cloze.blanked.contains(&q.cloze.term), "{q:?}");
                // No two forms of one word among the options.
                let distinct: HashSet<String> = q.options.iter().map(|o| stem(o)).collect();
                assert_eq!(distinct.len(), q.options.len(), "{q:?}");
            }
            // The tiers come in order, each from its own sentence.
            let tiers: Vec<Tier> = r.questions.iter().map(|q| q.tier).collect();
            assert_eq!(tiers, Tier::ALL[..tiers.len()].to_vec());
            let sentences: HashSet<&str> = r.questions.iter().map(|q| q.cloze.sentence.as_str()).collect();
            assert_eq!(sentences.len(), r.questions.len());
        }
        // The mask unit asks about masks: its best sentence blanks a word of its title or a number.
        let masks = &recall[1].questions[0];
        assert!(["mask", "255.255.255.0", "24"].contains(&masks.cloze.term.to_lowercase().as_str()), "{masks:?}");
        // A drill on a question's sentence blanks another word than the question does.
        for r in &recall {
            for d in &r.drills {
                assert!(!r.questions.iter().any(|q| q.cloze.sentence == d.sentence && q.cloze.term == d.term), "{r:?}");
            }
        }
        // The same material, the same questions.
        assert_eq!(recall, super::recall("Networking", 3, &["Addresses", "Masks", "Routing"], &passages, 3));
    }

    #[test]
    fn bronze_offers_other_units_terms_and_gold_the_units_own() {
        let passages = material();
        let recall = recall("Networking", 3, &["Addresses", "Masks", "Routing"], &passages, 3);
        let unit_words = |unit: usize| -> HashSet<String> {
            passages.iter().filter(|p| p.unit == unit).flat_map(|p| words(p.text)).collect()
        };
        let routing = &recall[2];
        let bronze = routing.questions.iter().find(|q| q.tier == Tier::Bronze).unwrap();
        let own = unit_words(2);
        let foreign =
            bronze.options.iter().enumerate().filter(|(i, o)| *i != bronze.correct && !own.contains(&o.to_lowercase()));
        assert!(foreign.count() >= 1, "{bronze:?}");
        if let Some(gold) = routing.questions.iter().find(|q| q.tier == Tier::Gold) {
            let first_distractor = gold.options.iter().enumerate().find(|(i, _)| *i != gold.correct).unwrap().1;
            assert!(own.contains(&first_distractor.to_lowercase()), "{gold:?}");
        }
    }

    #[test]
    fn an_answer_is_supported_only_by_a_passage_that_has_its_words() {
        assert!(supported_by("network", "The network part names the network."));
        assert!(supported_by("255.255.255.0", "A mask of 255.255.255.0 keeps 24 bits."));
        assert!(supported_by("the Host part", "the host part names one machine"));
        assert!(!supported_by("gateway", "The network part names the network."));
        assert!(!supported_by("", "anything"));
    }

    #[test]
    fn short_material_makes_fewer_questions_never_broken_ones() {
        let passages = [RecallPassage { unit: 0, text: "Too short." }];
        assert_eq!(recall("Tiny notes", 1, &["Tiny"], &passages, 3), vec![UnitRecall::default()]);
        // One unit alone has no other unit's terms; its own give the distractors.
        let passages = [RecallPassage {
            unit: 0,
            text: "Photosynthesis turns light into chemical energy inside chloroplasts. Chlorophyll absorbs light \
                   mostly in the blue and red wavelengths.",
        }];
        let r = &recall("Plants", 1, &["Plants"], &passages, 3)[0];
        assert!(!r.questions.is_empty());
        assert!(r.questions.iter().all(|q| q.options.len() >= 2));
    }
}
