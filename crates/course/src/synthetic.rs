//! Generated courses of any size, for benchmarks and load tests, and courses made of a
//! learner's notes as a draft would make them, for tests that need real text.
//!
//! The text is made of words from a small domain vocabulary so that retrieval sees realistic
//! term statistics: each unit is about two or three topic words out of a few hundred, so a
//! topic word is shared by a handful of units while the filler words are everywhere. Everything
//! follows from the seed (a splitmix64 stream), so two runs build the same course.

use crate::course::Course;
use crate::pack::{ChunkSpec, ChunkType, CoursePack, ExamQuestionSpec, Tier, UnitSpec};
use pathwise_items::Library;
use std::collections::HashSet;
use std::sync::LazyLock;

/// A checked course of `units` units, `questions` exam questions and `chunks` content chunks.
///
/// With `questions >= 3 * units` every unit has at least one question of each tier.
///
/// # Panics
/// When `units` is 0 (a course needs a unit), or if the generator made a pack the course's
/// validation refuses, which would be a bug here.
pub fn generated_course(units: usize, questions: usize, chunks: usize, seed: u64) -> Course {
    match Course::from_pack(generated_pack(units, questions, chunks, seed), &Library::new()) {
        Ok(course) => course,
        Err(e) => panic!("generated course is invalid: {e}"),
    }
}

/// A course made of Markdown notes the way a draft is made of them: a unit per `## ` section
/// (the title section first), each the prerequisite of the next, its anchor the section's
/// first paragraph, and each paragraph a passage with an id of its own, citing `file`.
///
/// # Panics
/// When the notes make no valid course (a test's fixture at fault).
pub fn notes_course(file: &str, title: &str, markdown: &str) -> Course {
    let mut units = Vec::new();
    let mut content = Vec::new();
    for (i, section) in markdown.split("\n## ").enumerate() {
        let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
        let heading = heading.trim_start_matches('#').trim();
        let id = format!("U{i}");
        let paragraphs: Vec<&str> = body.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
        units.push(UnitSpec {
            id: id.clone(),
            title: heading.to_string(),
            prerequisites: if i == 0 { Vec::new() } else { vec![format!("U{}", i - 1)] },
            tags: Vec::new(),
            misconceptions: Vec::new(),
            anchor: paragraphs.first().map_or_else(String::new, |p| p.to_string()),
            blueprints: Vec::new(),
            drills: Vec::new(),
            effort_minutes: None,
        });
        let section = if i == 0 { title.to_string() } else { format!("{title} > {heading}") };
        content.extend(paragraphs.iter().enumerate().map(|(j, p)| ChunkSpec {
            id: Some(format!("p{i}-{j}")),
            unit: id.clone(),
            chunk_type: ChunkType::Document,
            source_id: file.to_string(),
            section: Some(section.clone()),
            text: p.to_string(),
        }));
    }
    let pack = CoursePack {
        course_id: "NOTES".into(),
        title: title.into(),
        description: None,
        entry_unit: "U0".into(),
        confusion_tags: vec!["misread".into()],
        units,
        content,
        exam_questions: Vec::new(),
        skills: Vec::new(),
    };
    match Course::from_pack(pack, &Library::builtin()) {
        Ok(course) => course,
        Err(e) => panic!("the notes make no course: {e}"),
    }
}

/// The pack [`generated_course`] checks, for callers that want to store or serialize it.
pub fn generated_pack(units: usize, questions: usize, chunks: usize, seed: u64) -> CoursePack {
    assert!(units > 0, "a course needs at least one unit");
    let mut rng = SplitMix64(seed);
    let (unit_specs, topics) = generate_units(units, &mut rng);
    let content = (0..chunks).map(|i| generate_chunk(i, &unit_specs, &topics, &mut rng)).collect();
    let exam_questions = (0..questions).map(|i| generate_question(i, &unit_specs, &topics, &mut rng)).collect();
    CoursePack {
        course_id: format!("SYNTH-{seed}"),
        title: format!("Generated course ({units} units)"),
        description: Some("Generated for benchmarks; the text is word salad with realistic statistics.".into()),
        entry_unit: unit_specs[0].id.clone(),
        confusion_tags: CONFUSION_TAGS.iter().map(|t| t.to_string()).collect(),
        units: unit_specs,
        content,
        exam_questions,
        skills: Vec::new(),
    }
}

const CONFUSION_TAGS: [&str; 4] = ["sign_error", "off_by_one", "unit_mismatch", "misread_question"];

fn unit_id(i: usize) -> String {
    format!("U{i:04}")
}

/// The units, and the topic words of each (which are also its tags).
fn generate_units(count: usize, rng: &mut SplitMix64) -> (Vec<UnitSpec>, Vec<Vec<&'static str>>) {
    let mut titles = HashSet::with_capacity(count);
    let mut units = Vec::with_capacity(count);
    let mut all_topics = Vec::with_capacity(count);
    for i in 0..count {
        let (topics, title) = unique_title(rng, &mut titles, i);
        let prerequisites = prerequisites_of(i, rng);
        let anchor = sentence_of(rng, &topics, 20, 40);
        let misconceptions = vec![format!(
            "Confusing {} with {} when {} {}",
            topics[0],
            rng.pick(&TOPICS),
            rng.pick(&FILLER),
            rng.pick(&FILLER)
        )];
        units.push(UnitSpec {
            id: unit_id(i),
            title,
            prerequisites,
            tags: topics.iter().map(|t| t.to_string()).collect(),
            misconceptions,
            anchor,
            blueprints: Vec::new(),
            drills: Vec::new(),
            effort_minutes: Some(10 + rng.below(30) as u32),
        });
        all_topics.push(topics);
    }
    (units, all_topics)
}

/// Two or three distinct topic words and the title they make, a title no earlier unit has
/// (the course requires unique titles). Should the combinations ever run out, the unit's
/// number makes the title unique.
fn unique_title(rng: &mut SplitMix64, taken: &mut HashSet<String>, index: usize) -> (Vec<&'static str>, String) {
    let mut topics = Vec::new();
    for _ in 0..32 {
        topics = random_topics(rng);
        let title = title_of(&topics);
        if taken.insert(title.to_lowercase()) {
            return (topics, title);
        }
    }
    let title = format!("{} {}", title_of(&topics), index + 1);
    taken.insert(title.to_lowercase());
    (topics, title)
}

fn random_topics(rng: &mut SplitMix64) -> Vec<&'static str> {
    let wanted = 2 + rng.below(2);
    let mut topics: Vec<&'static str> = Vec::with_capacity(wanted);
    while topics.len() < wanted {
        let word = rng.pick(&TOPICS);
        if !topics.contains(&word) {
            topics.push(word);
        }
    }
    topics
}

/// "Slope and intercept", "Vector basis and span".
fn title_of(topics: &[&str]) -> String {
    let (last, rest) = topics.split_last().map_or(("", &[][..]), |(last, rest)| (*last, rest));
    format!("{} and {last}", capitalized(&rest.join(" ")))
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// 0-3 distinct prerequisites among earlier units, mostly recent ones (a DAG by
/// construction: edges only point backwards). Unit 0, the entry unit, has none.
fn prerequisites_of(index: usize, rng: &mut SplitMix64) -> Vec<String> {
    if index == 0 {
        return Vec::new();
    }
    let wanted = rng.below(4).min(index);
    let window = index.min(50);
    let mut chosen: Vec<usize> = Vec::with_capacity(wanted);
    while chosen.len() < wanted {
        let candidate = index - 1 - rng.below(window);
        if !chosen.contains(&candidate) {
            chosen.push(candidate);
        }
    }
    chosen.into_iter().map(unit_id).collect()
}

/// Between `min_words` and `max_words` words: the topic words come back often, filler fills
/// the rest, and a random topic word now and then gives other units' words a background
/// frequency.
fn sentence_of(rng: &mut SplitMix64, topics: &[&str], min_words: usize, max_words: usize) -> String {
    let words = min_words + rng.below(max_words - min_words + 1);
    let mut text = String::with_capacity(words * 9);
    for i in 0..words {
        let roll = rng.below(100);
        let word = if roll < 25 {
            topics[rng.below(topics.len())]
        } else if roll < 30 {
            rng.pick(&TOPICS)
        } else {
            rng.pick(&FILLER)
        };
        if i > 0 {
            text.push_str(if rng.below(12) == 0 { ", " } else { " " });
        }
        text.push_str(word);
    }
    text.push('.');
    text
}

fn generate_chunk(index: usize, units: &[UnitSpec], topics: &[Vec<&str>], rng: &mut SplitMix64) -> ChunkSpec {
    let unit = rng.below(units.len());
    let chunk_type = if index.is_multiple_of(2) { ChunkType::Transcript } else { ChunkType::Document };
    let source_id = match chunk_type {
        ChunkType::Transcript => format!("lesson-{}", units[unit].id),
        ChunkType::Document => format!("notes-{}", units[unit].id),
    };
    let section = (chunk_type == ChunkType::Document || index.is_multiple_of(4))
        .then(|| format!("{} {}", capitalized(topics[unit][rng.below(topics[unit].len())]), rng.pick(SECTION_WORDS)));
    let text = sentence_of(rng, &topics[unit], 60, 150);
    ChunkSpec { id: None, unit: units[unit].id.clone(), chunk_type, source_id, section, text }
}

/// Question `index` examines unit `(index / 3) % units` at tier `index % 3`, so the first
/// `3 * units` questions give every unit one question per tier; one in ten also examines a
/// prerequisite of its unit.
fn generate_question(index: usize, units: &[UnitSpec], topics: &[Vec<&str>], rng: &mut SplitMix64) -> ExamQuestionSpec {
    let unit = (index / 3) % units.len();
    let tier = Tier::ALL[index % 3];
    let mut unit_ids = vec![units[unit].id.clone()];
    if rng.below(10) == 0 {
        if let Some(prerequisite) = units[unit].prerequisites.first() {
            unit_ids.push(prerequisite.clone());
        }
    }
    let words = &topics[unit];
    let stem = format!("Which {} {}? {}", rng.pick(&FILLER), words[0], sentence_of(rng, words, 12, 31));
    let options: Vec<String> =
        (0..4).map(|k| format!("{} {} ({})", rng.pick(&FILLER), words[k % words.len()], k + 1)).collect();
    let memo = sentence_of(rng, words, 40, 99);
    let with_video = index.is_multiple_of(4);
    let id = format!("Q{index:05}");
    ExamQuestionSpec {
        video: with_video.then(|| format!("https://videos.example.org/{id}")),
        video_transcript: with_video.then(|| sentence_of(rng, words, 50, 129)),
        id,
        units: unit_ids,
        tier,
        tags: words.iter().map(|w| w.to_string()).collect(),
        stem,
        options,
        correct: rng.below(4),
        memo,
        passage: None,
    }
}

/// splitmix64: a tiny, well mixed generator; plenty for test data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`); the modulo bias is irrelevant for test data.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const SECTION_WORDS: &[&str] =
    &["basics", "examples", "in practice", "pitfalls", "worked problems", "summary", "proofs"];

/// The word lists, split once.
static TOPICS: LazyLock<Vec<&'static str>> = LazyLock::new(|| TOPIC_WORDS.split_whitespace().collect());
static FILLER: LazyLock<Vec<&'static str>> = LazyLock::new(|| FILLER_WORDS.split_whitespace().collect());

/// Words any lesson uses, whatever its topic, separated by spaces.
const FILLER_WORDS: &str = "\
    value values method rule rules example examples step steps result results case cases number numbers \
    form forms part parts way ways problem problems answer answers question idea ideas check checks \
    compute computes compare compares apply applies find finds write writes show shows use uses give \
    gives take takes first second next last each every both other same different simple general small \
    large exact careful quick common usual whole half total final given known unknown left right side \
    sides top bottom start end order size count table list line lines point points term terms sign signs \
    change changes test tests model models choice choices pattern patterns reason because so then when \
    while after before with without from into of the a an and or is are we you it this that to in on for \
    by as at not only always never";

/// The topic vocabulary, separated by spaces: each unit is about two or three of these.
const TOPIC_WORDS: &str = "\
    algebra equation inequality polynomial factor fraction decimal percent ratio proportion exponent \
    logarithm radical root quadratic linear slope intercept graph function domain range inverse \
    composition sequence series limit derivative integral tangent secant sine cosine angle triangle \
    circle radius diameter chord arc sector polygon perimeter area volume surface prism cylinder cone \
    sphere vector matrix determinant eigenvalue eigenvector basis span kernel rank transpose probability \
    event outcome sample variance deviation mean median mode histogram distribution binomial normal \
    poisson hypothesis regression correlation estimate confidence interval permutation combination \
    factorial set subset union intersection complement relation mapping proof induction contradiction \
    lemma theorem axiom prime divisor multiple modulus congruence gcd lcm integer rational irrational \
    complex imaginary conjugate magnitude phase frequency amplitude period wave signal filter sampling \
    aliasing fourier spectrum voltage current resistance capacitor inductor circuit transistor diode \
    amplifier impedance force mass acceleration velocity momentum energy power work torque friction \
    gravity orbit pressure density temperature heat entropy enthalpy molecule atom electron proton \
    neutron isotope ion bond reaction catalyst acid base buffer solution solvent solute mole titration \
    oxidation reduction enzyme protein cell membrane gene allele mutation chromosome mitosis meiosis \
    photosynthesis respiration ecosystem population species evolution selection address subnet mask \
    prefix broadcast gateway router switch packet frame protocol port socket handshake latency bandwidth \
    throughput congestion routing dns dhcp vlan firewall encryption hash certificate key cipher \
    signature token session cookie cache buffering queue stack heap tree trie array pointer recursion \
    iteration loop variable constant type class object interface module package compiler interpreter \
    parser lexer grammar automaton regex thread process scheduler deadlock mutex semaphore memory paging \
    segment disk file index query join transaction schema normalization replication partition shard \
    consensus leader quorum clock timestamp snapshot log checkpoint sorting searching bisection greedy \
    dynamic backtracking heuristic complexity graphs vertex edge path cycle spanning flow matching \
    coloring planarity network neuron gradient descent loss activation layer embedding attention dropout \
    overfitting validation accuracy precision recall cluster centroid classifier feature label dataset \
    bias weight optimizer scheduling sparsity batch epoch tensor margin";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_small_generated_course_validates_with_the_requested_counts() {
        let course = generated_course(50, 300, 500, 7);
        assert_eq!((course.units().len(), course.questions().len(), course.chunks().len()), (50, 300, 500));
        assert_eq!(course.entry_unit(), "U0000");
        assert!(course.prerequisites("U0000").is_empty());
        assert_eq!(course.learning_order().len(), 50, "prerequisites form a DAG");
        for unit in course.units() {
            assert!(unit.prerequisites.len() <= 3);
            for tier in Tier::ALL {
                assert!(course.questions_for(&unit.id, tier).next().is_some(), "{} has no {tier} question", unit.id);
            }
        }
    }

    #[test]
    fn texts_have_the_advertised_lengths_and_topics_are_shared() {
        let pack = generated_pack(200, 600, 400, 3);
        let words = |text: &str| text.split_whitespace().count();
        assert!(pack.units.iter().all(|u| (20..=40).contains(&words(&u.anchor))));
        assert!(pack.content.iter().all(|c| (60..=150).contains(&words(&c.text))));
        assert!(pack.exam_questions.iter().all(|q| q.options.len() == 4 && !q.memo.is_empty()));
        let mut units_per_topic: HashMap<&str, usize> = HashMap::new();
        for unit in &pack.units {
            assert!((2..=3).contains(&unit.tags.len()));
            for tag in &unit.tags {
                *units_per_topic.entry(tag).or_default() += 1;
            }
        }
        assert!(units_per_topic.values().any(|&n| n > 1), "topic words are shared between units");
    }

    #[test]
    fn topic_words_are_distinct_single_words() {
        let distinct: HashSet<&str> = TOPICS.iter().copied().collect();
        assert_eq!(distinct.len(), TOPICS.len());
        assert!(TOPICS.len() >= 300);
        assert!(TOPICS.iter().all(|w| w.bytes().all(|b| b.is_ascii_lowercase())), "one token each");
    }

    #[test]
    fn the_same_seed_gives_the_same_course() {
        assert_eq!(generated_pack(30, 90, 60, 11), generated_pack(30, 90, 60, 11));
        assert_ne!(generated_pack(30, 90, 60, 11), generated_pack(30, 90, 60, 12));
    }
}
