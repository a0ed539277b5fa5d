//! Which words of someone's material are worth asking for: the terms the material is about.
//!
//! A blank asks for a term, never for filler. A word is filler when YAKE's English stopword
//! list has it (`yake-rust`: "mostly", "above", "almost") or it is a determiner, an adverb, a
//! comparative or superlative, or a direction word (lists below), or a word of the course's
//! own title (every question would give it away). Of the rest, a word is a term when the
//! material shows it is one: it recurs (in its unit or across the course), the material
//! defines it ("... is called the stroma", "photolysis is ..."), it is written as a name
//! (capitalized inside a sentence, or an acronym: NADPH, RuBisCO). YAKE's rank among the
//! unit's key phrases then orders the terms, with how much they say about their unit
//! (tf-idf); it does not make a word a term alone (it ranks "process" high in "the process by
//! which ...").
//!
//! Part-of-speech tagging would tell nouns from verbs more surely, but no maintained Rust
//! crate tags English offline without downloading a model at build or run time, so the
//! material's own signals stand in for it.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;
use yake_rust::{Config, StopWords};

/// YAKE's key phrases looked at per unit.
const YAKE_PHRASES: usize = 20;

static YAKE_STOPWORDS: LazyLock<StopWords> =
    LazyLock::new(|| StopWords::predefined("en").expect("yake-rust is built with its English stopwords"));

/// Determiners and quantifiers YAKE's list lacks.
const DETERMINERS: &[&str] = &[
    "whichever",
    "whatever",
    "whoever",
    "whenever",
    "wherever",
    "whose",
    "each",
    "every",
    "either",
    "neither",
    "another",
    "such",
    "several",
    "various",
    "certain",
    "enough",
    "plenty",
];
/// Comparatives and superlatives: they compare, they do not name.
const COMPARATIVES: &[&str] = &[
    "thickest",
    "thinnest",
    "largest",
    "smallest",
    "highest",
    "lowest",
    "biggest",
    "greatest",
    "strongest",
    "weakest",
    "fastest",
    "slowest",
    "longest",
    "shortest",
    "easiest",
    "hardest",
    "best",
    "worst",
    "least",
    "nearest",
    "closest",
    "earliest",
    "latest",
    "newest",
    "oldest",
    "simplest",
    "strongest",
    "larger",
    "smaller",
    "higher",
    "lower",
    "bigger",
    "greater",
    "stronger",
    "weaker",
    "faster",
    "slower",
    "longer",
    "shorter",
    "easier",
    "harder",
    "better",
    "worse",
    "thicker",
    "thinner",
    "closer",
    "nearer",
    "farther",
    "further",
    "earlier",
    "later",
    "newer",
    "older",
    "simpler",
    "deeper",
    "deepest",
    "wider",
    "widest",
    "heavier",
    "heaviest",
    "lighter",
    "lightest",
    "warmer",
    "warmest",
    "colder",
    "coldest",
    "hotter",
    "hottest",
];
/// Directions and positions.
const DIRECTIONS: &[&str] = &[
    "left",
    "right",
    "upper",
    "lower",
    "inner",
    "outer",
    "inside",
    "outside",
    "top",
    "bottom",
    "front",
    "back",
    "forward",
    "backward",
    "backwards",
    "upward",
    "upwards",
    "downward",
    "downwards",
    "north",
    "south",
    "east",
    "west",
    "beneath",
    "behind",
    "beside",
    "between",
    "across",
    "along",
    "toward",
    "towards",
    "middle",
    "centre",
    "center",
    "side",
    "sides",
    "near",
];
/// Verbs of any subject: they say what happens, not what it happens to.
const GENERAL_VERBS: &[&str] = &[
    "turn", "turns", "turned", "turning", "make", "makes", "making", "take", "takes", "taking", "taken", "give",
    "gives", "giving", "given", "keep", "keeps", "keeping", "become", "becomes", "becoming", "happen", "happens",
    "happened", "allow", "allows", "allowed", "seem", "seems", "tend", "tends", "help", "helps", "want", "wants",
    "start", "starts", "begin", "begins", "stay", "stays", "goes", "going", "comes", "coming", "gets", "getting",
    "puts", "putting", "lets", "sets", "setting", "leaving", "bring", "brings", "brought", "spread", "spreads", "rise",
    "rises", "rose", "fall", "falls", "fell", "passes", "pass", "reach", "reaches", "raise", "raises",
];
/// Words ending in "ly" that are nouns or verbs, not adverbs.
const LY_WORDS: &[&str] = &[
    "supply",
    "family",
    "assembly",
    "anomaly",
    "monopoly",
    "butterfly",
    "reply",
    "apply",
    "multiply",
    "comply",
    "rely",
    "ally",
    "rally",
    "italy",
    "july",
    "jelly",
    "belly",
    "lily",
    "polyly",
    "firefly",
    "dragonfly",
    "homily",
    "oligopoly",
];

/// Whether a word (lowercase) is filler: it says nothing about the material.
pub fn is_filler(word: &str) -> bool {
    YAKE_STOPWORDS.contains(word)
        || DETERMINERS.contains(&word)
        || COMPARATIVES.contains(&word)
        || DIRECTIONS.contains(&word)
        || GENERAL_VERBS.contains(&word)
        || (word.len() >= 5 && word.ends_with("ly") && !LY_WORDS.contains(&word))
}

/// The terms of each unit's material and how telling each is.
#[derive(Debug, Default)]
pub struct KeyTerms {
    /// The course title's words (lowercase).
    title: HashSet<String>,
    /// How often each word (lowercase, singular) occurs in the whole material.
    course_counts: HashMap<String, u32>,
    /// Words the material defines.
    defined: HashSet<String>,
    /// Words written as names: capitalized inside a sentence, or acronyms.
    names: HashSet<String>,
    /// Per unit, the rank of each word among YAKE's key phrases (0 the best).
    yake: Vec<HashMap<String, usize>>,
}

impl KeyTerms {
    /// `units[u]` is unit `u`'s material, passage by passage.
    pub fn of(course_title: &str, units: &[Vec<&str>]) -> KeyTerms {
        let mut terms = KeyTerms {
            title: course_title.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase).collect(),
            yake: Vec::with_capacity(units.len()),
            ..KeyTerms::default()
        };
        let config = Config { ngrams: 2, ..Config::default() };
        for passages in units {
            for text in passages {
                terms.read(text);
            }
            let text = passages.join("\n\n");
            let mut ranks: HashMap<String, usize> = HashMap::new();
            if !text.trim().is_empty() {
                for (rank, phrase) in
                    yake_rust::get_n_best(YAKE_PHRASES, &text, &YAKE_STOPWORDS, &config).iter().enumerate()
                {
                    for word in phrase.keyword.split_whitespace() {
                        ranks.entry(word.to_string()).or_insert(rank);
                    }
                }
            }
            terms.yake.push(ranks);
        }
        terms
    }

    fn read(&mut self, text: &str) {
        for sentence in crate::answer::sentences(text) {
            let words: Vec<&str> = sentence.split_whitespace().collect();
            for (i, raw) in words.iter().enumerate() {
                let word = trim(raw);
                if word.is_empty() {
                    continue;
                }
                let lower = word.to_lowercase();
                *self.course_counts.entry(singular(&lower)).or_default() += 1;
                let caps = word.chars().filter(|c| c.is_uppercase()).count();
                let acronym = caps >= 2 && word.chars().count() <= 10;
                if acronym || (i > 0 && caps >= 1) {
                    self.names.insert(lower.clone());
                }
                // "... called X", "... known as X", "... termed X".
                let before = |n: usize| i.checked_sub(n).and_then(|j| words.get(j)).map(|w| trim(w).to_lowercase());
                let after_the = before(1).is_some_and(|w| matches!(w.as_str(), "the" | "a" | "an"));
                let cue = if after_the { before(2) } else { before(1) };
                if cue.as_deref().is_some_and(|c| matches!(c, "called" | "termed" | "named"))
                    || (cue.as_deref() == Some("as")
                        && before(if after_the { 3 } else { 2 }).as_deref() == Some("known"))
                {
                    self.defined.insert(lower.clone());
                }
            }
            // "X is ...", "X are ..." opening a sentence: X is what it defines.
            let first = words.first().map(|w| trim(w).to_lowercase());
            if words.get(1).is_some_and(|w| matches!(*w, "is" | "are" | "means")) {
                if let Some(first) = first.filter(|f| !is_filler(f)) {
                    self.defined.insert(first);
                }
            }
        }
    }

    /// Whether `word` (lowercase) is one of the course title's words, which no blank asks for.
    pub fn in_course_title(&self, word: &str) -> bool {
        self.title.contains(word)
    }

    /// Whether `word` (lowercase) is a term the material is about; `in_unit` is how often its
    /// unit's material has it.
    pub fn is_key(&self, word: &str, in_unit: u32) -> bool {
        if is_filler(word) || self.title.contains(word) {
            return false;
        }
        let numeric = word.chars().any(|c| c.is_ascii_digit());
        numeric
            || in_unit >= 2
            || self.course_counts.get(&singular(word)).is_some_and(|&n| n >= 2)
            || self.defined.contains(word)
            || self.names.contains(word)
    }

    /// How much more than its tf-idf a key term is worth: defined terms and names most, then
    /// by YAKE's rank.
    pub fn bonus(&self, unit: usize, word: &str) -> f64 {
        let yake = self.yake.get(unit).and_then(|r| r.get(word)).map_or(0.0, |&rank| 2.0 / (1.0 + rank as f64));
        yake + if self.defined.contains(word) { 2.0 } else { 0.0 } + if self.names.contains(word) { 1.0 } else { 0.0 }
    }
}

/// A word without a plural ending (`routers`, `router`; `classes`, `class`), so that two
/// numbers of one noun count as one term; `-ed` and `-ing` are kept (`limited` is not
/// `limiting`).
pub fn singular(word: &str) -> String {
    for ending in ["sses", "ies", "es", "s"] {
        if let Some(root) = word.strip_suffix(ending) {
            if root.chars().count() >= 3 && !root.ends_with('s') {
                return match ending {
                    "sses" => format!("{root}ss"),
                    "ies" => format!("{root}y"),
                    _ => root.to_string(),
                };
            }
        }
    }
    word.to_string()
}

fn trim(word: &str) -> &str {
    word.trim_matches(|c: char| !c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filler_is_never_a_term() {
        for word in ["mostly", "whichever", "thickest", "left", "above", "quickly", "another", "larger"] {
            assert!(is_filler(word), "{word}");
        }
        for word in ["stroma", "supply", "chlorophyll", "energy", "nadph"] {
            assert!(!is_filler(word), "{word}");
        }
    }

    #[test]
    fn defined_words_names_and_recurring_words_are_terms_the_title_is_not() {
        let units = vec![
            vec![
                "Photosynthesis is the process by which plants make food. The fluid around them is called the stroma.",
            ],
            vec!["The enzyme RuBisCO fixes carbon. The stroma holds RuBisCO and NADPH."],
        ];
        let terms = KeyTerms::of("Photosynthesis", &units);
        assert!(terms.is_key("stroma", 1), "defined, and recurs in the course");
        assert!(terms.is_key("rubisco", 2) && terms.is_key("nadph", 1), "names");
        assert!(!terms.is_key("photosynthesis", 1), "the course's title word");
        assert!(!terms.is_key("process", 1), "once, and only said in passing");
        assert!(terms.bonus(0, "stroma") > terms.bonus(0, "food"));
    }
}
