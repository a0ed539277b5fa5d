//! A course drafted from an author's own material, before it is a course: units that each
//! cover passages (chunks) of the author's documents, which the author edits, checks and
//! finally writes out as a [`CoursePack`]. Pure: the passages are handed in.
//!
//! Offline, the outline comes from the documents' headings: a unit per section, in the
//! documents' order, each the prerequisite of the next, its anchor the section's first
//! sentence. A draft's problems are the pack's own (cycles, unknown prerequisites, texts
//! too long) plus what only a draft can get wrong: a unit with no material behind it, a
//! passage that is no longer there, a unit nothing leads to.

use crate::computable::computable_blueprints;
use crate::recall::{recall, supported_by, RecallPassage};
use crate::WrittenDrill;
use crate::{ChunkSpec, ChunkType, Course, CoursePack, ExamQuestionSpec, FieldPath, Problem, Segment, Tier, UnitSpec};
use pathwise_domain::{SourceChunkId, SourceDocumentId};
use pathwise_items::Library;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// The confusion tags a drafted course starts with; drill grading may tag a mistake only
/// with the course's own, and the author may change them.
pub const DEFAULT_CONFUSION_TAGS: [&str; 2] = ["misread_the_material", "incomplete_recall"];
/// An anchor drafted from a passage is cut at a sentence, at most this long.
const ANCHOR_CHARS: usize = 300;
/// How long a unit id drafted from a title may be (the pack allows 64).
const ID_CHARS: usize = 40;

/// One passage of the author's material, as a draft needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub id: SourceChunkId,
    pub document_id: SourceDocumentId,
    /// The document's name (a file name), which a citation starts with.
    pub document: String,
    pub heading_path: Vec<String>,
    pub page: Option<u32>,
    pub text: String,
}

/// A document's passages in order, with what names it.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftSource {
    pub id: SourceDocumentId,
    pub name: String,
    pub title: Option<String>,
    pub passages: Vec<Passage>,
}

/// A draft course: what the author reviews and edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CourseDraft {
    /// The id the course will have when published: letters, digits, `.`, `_` and `-`.
    pub course_id: String,
    #[schema(min_length = 1, max_length = 200)]
    #[schemars(length(min = 1, max = 200))]
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The documents it was drafted from.
    pub documents: Vec<SourceDocumentId>,
    /// The only tags drill grading may give a mistake (snake_case).
    pub confusion_tags: Vec<String>,
    /// In learning order: the first is where a learner starts. At most 500.
    #[schema(max_items = 500)]
    #[schemars(length(max = 500))]
    pub units: Vec<DraftUnit>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftUnit {
    pub id: String,
    pub title: String,
    /// Units that must be learned first.
    #[serde(default)]
    pub prerequisites: Vec<String>,
    /// The passages of the author's documents it teaches, in order.
    pub chunks: Vec<SourceChunkId>,
    /// The short canonical statement of what the unit is about.
    pub anchor: String,
    /// Mistakes learners commonly make here, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misconceptions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort_minutes: Option<u32>,
    /// Exam questions: passing them earns the unit's bronze, silver and gold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<DraftQuestion>,
    /// Drills the tutor asks to practise the unit, answered by typing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drills: Vec<DraftDrill>,
    /// Skill blueprints whose drills are computed like a computation of the unit's passages:
    /// a fresh question each time, graded exactly. The tutor's drills come from these and
    /// the written drills in turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blueprints: Vec<DraftBlueprint>,
}

/// A multiple-choice exam question whose answer comes from one of the unit's passages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftQuestion {
    /// Unique in the course: letters, digits, `.`, `_` and `-`.
    pub id: String,
    pub tier: Tier,
    pub stem: String,
    /// 2-6 distinct options.
    pub options: Vec<String>,
    /// The correct option's index, from 0 (at most 5: a question has at most six options).
    #[schema(maximum = 5)]
    #[schemars(range(max = 5))]
    pub correct: usize,
    /// The worked answer, shown on request.
    pub memo: String,
    /// The passage the answer comes from: one of the unit's.
    pub passage: SourceChunkId,
}

/// A drill answered by typing, whose answer comes from one of the unit's passages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftDrill {
    pub stem: String,
    pub answer: String,
    pub passage: SourceChunkId,
}

/// A skill blueprint of the item library that makes drills like a computation the unit's
/// material works.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftBlueprint {
    /// A built-in skill blueprint's id (`NET.IP.SUBNET.BROADCAST`).
    pub skill_id: String,
    /// The passage whose computation it was matched to: one of the unit's.
    pub passage: SourceChunkId,
    /// That computation as the passage states it (`192.168.4.64/26`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub example: String,
}

/// The outline of `sources` drafted from their headings, without a model.
///
/// A document's units are its top-level sections, or its second-level ones when a single
/// heading (the document's title) holds everything; passages before a document's first
/// heading open a unit named after the document. Units follow the documents' order, each
/// the prerequisite of the next.
pub fn outline_from_headings(title: &str, sources: &[DraftSource]) -> CourseDraft {
    let mut units: Vec<DraftUnit> = Vec::new();
    let mut ids = HashSet::new();
    let mut titles = HashSet::new();
    for source in sources {
        let level = section_level(&source.passages);
        let mut current: Option<(String, Vec<&Passage>)> = None;
        for passage in &source.passages {
            let heading = passage.heading_path.get(level).cloned();
            match (&mut current, heading) {
                (Some((open, members)), Some(heading)) if *open == heading => members.push(passage),
                (Some((_, members)), None) => members.push(passage),
                (_, heading) => {
                    if let Some((name, members)) = current.take() {
                        units.push(unit_of(&name, &members, &mut ids, &mut titles));
                    }
                    let name = heading.unwrap_or_else(|| document_label(source));
                    current = Some((name, vec![passage]));
                }
            }
        }
        if let Some((name, members)) = current.take() {
            units.push(unit_of(&name, &members, &mut ids, &mut titles));
        }
    }
    for i in 1..units.len() {
        units[i].prerequisites = vec![units[i - 1].id.clone()];
    }
    CourseDraft {
        course_id: course_id_of(title),
        title: title.trim().to_string(),
        description: None,
        documents: sources.iter().map(|s| s.id).collect(),
        confusion_tags: DEFAULT_CONFUSION_TAGS.iter().map(|t| t.to_string()).collect(),
        units,
    }
}

/// The heading level a document's units are cut at: 0, or 1 when one top heading holds
/// every headed passage and there is more than one section beneath it.
fn section_level(passages: &[Passage]) -> usize {
    let tops: HashSet<&str> = passages.iter().filter_map(|p| p.heading_path.first()).map(String::as_str).collect();
    let seconds: HashSet<&str> = passages.iter().filter_map(|p| p.heading_path.get(1)).map(String::as_str).collect();
    if tops.len() == 1 && seconds.len() > 1 {
        1
    } else {
        0
    }
}

fn document_label(source: &DraftSource) -> String {
    match &source.title {
        Some(title) if !title.trim().is_empty() => title.trim().to_string(),
        _ => source.name.rsplit('/').next().unwrap_or(&source.name).to_string(),
    }
}

fn unit_of(name: &str, passages: &[&Passage], ids: &mut HashSet<String>, titles: &mut HashSet<String>) -> DraftUnit {
    let title = unique(name.trim().to_string(), titles, |base, n| format!("{base} ({n})"));
    let id = unit_id_for(name, ids);
    let words: usize = passages.iter().map(|p| p.text.split_whitespace().count()).sum();
    DraftUnit {
        id,
        title,
        prerequisites: Vec::new(),
        chunks: passages.iter().map(|p| p.id).collect(),
        anchor: passages.first().map(|p| first_sentence(&p.text)).unwrap_or_default(),
        misconceptions: Vec::new(),
        // Reading at about 150 words a minute, and as long again to practise.
        effort_minutes: Some((words.div_ceil(75) as u32).clamp(5, 120)),
        questions: Vec::new(),
        drills: Vec::new(),
        blueprints: Vec::new(),
    }
}

/// A unit id made from `title`, none of `taken` (which it joins).
pub(crate) fn unit_id_for(title: &str, taken: &mut HashSet<String>) -> String {
    unique(slug(title, ID_CHARS, false), taken, |base, n| format!("{base}-{n}"))
}

fn unique(base: String, taken: &mut HashSet<String>, nth: impl Fn(&str, usize) -> String) -> String {
    let mut candidate = base.clone();
    let mut n = 2;
    while !taken.insert(candidate.to_lowercase()) {
        candidate = nth(&base, n);
        n += 1;
    }
    candidate
}

/// Letters and digits kept (ASCII), every other run of characters one `-`; `unit` when
/// nothing is left.
fn slug(text: &str, max: usize, upper: bool) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(if upper { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() });
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= max {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        if upper { "COURSE" } else { "unit" }.to_string()
    } else {
        out
    }
}

/// The course id a title suggests: `Networking notes` is `NETWORKING-NOTES`.
pub fn course_id_of(title: &str) -> String {
    slug(title, ID_CHARS, true)
}

/// The passage's first sentence, or its first [`ANCHOR_CHARS`] characters cut at a word.
fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut end = None;
    for (i, c) in text.char_indices() {
        if i >= ANCHOR_CHARS {
            break;
        }
        if matches!(c, '.' | '!' | '?') && text[i + c.len_utf8()..].starts_with(' ') | (i + c.len_utf8() == text.len())
        {
            end = Some(i + c.len_utf8());
            break;
        }
    }
    match end {
        Some(end) => text[..end].to_string(),
        None if text.chars().count() <= ANCHOR_CHARS => text,
        None => {
            let cut: String = text.chars().take(ANCHOR_CHARS).collect();
            let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head).to_string();
            format!("{cut}…")
        }
    }
}

impl Passage {
    /// Where it comes from, as a reader looks it up (`notes.pdf, p. 3, Masks`).
    pub fn citation(&self) -> String {
        pathwise_domain::citation::citation(&self.document, self.page, &self.heading_path)
    }
}

impl CourseDraft {
    /// The draft as a course pack: each unit's passages become its content, cited by
    /// document and section. Passages not in `passages` (removed since) are left out;
    /// [`CourseDraft::problems`] names them.
    pub fn to_pack(&self, passages: &HashMap<SourceChunkId, Passage>) -> CoursePack {
        let units = self
            .units
            .iter()
            .map(|u| UnitSpec {
                id: u.id.clone(),
                title: u.title.clone(),
                prerequisites: u.prerequisites.clone(),
                tags: Vec::new(),
                misconceptions: u.misconceptions.clone(),
                anchor: u.anchor.clone(),
                blueprints: u.blueprints.iter().map(|b| b.skill_id.clone()).collect(),
                drills: u
                    .drills
                    .iter()
                    .map(|d| WrittenDrill {
                        stem: d.stem.clone(),
                        options: Vec::new(),
                        answer: d.answer.clone(),
                        passage: Some(d.passage.to_string()),
                    })
                    .collect(),
                effort_minutes: u.effort_minutes,
            })
            .collect();
        let exam_questions = self
            .units
            .iter()
            .flat_map(|u| {
                u.questions.iter().map(move |q| ExamQuestionSpec {
                    id: q.id.clone(),
                    units: vec![u.id.clone()],
                    tier: q.tier,
                    tags: Vec::new(),
                    stem: q.stem.clone(),
                    options: q.options.clone(),
                    correct: q.correct,
                    memo: q.memo.clone(),
                    video: None,
                    video_transcript: None,
                    passage: Some(q.passage.to_string()),
                })
            })
            .collect();
        let content = self
            .units
            .iter()
            .flat_map(|u| u.chunks.iter().filter_map(|id| passages.get(id)).map(move |p| (u, p)))
            .map(|(u, p)| ChunkSpec {
                id: Some(p.id.to_string()),
                unit: u.id.clone(),
                chunk_type: ChunkType::Document,
                source_id: p.document.clone(),
                section: pathwise_domain::citation::section(p.page, &p.heading_path),
                text: p.text.clone(),
            })
            .collect();
        CoursePack {
            course_id: self.course_id.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            entry_unit: self.units.first().map(|u| u.id.clone()).unwrap_or_default(),
            confusion_tags: self.confusion_tags.clone(),
            units,
            content,
            exam_questions,
            skills: Vec::new(),
        }
    }

    /// Everything wrong with the draft, each with its field: what the pack it makes would be
    /// refused for, and a unit without material, a passage no longer there, a unit other
    /// than the first with no prerequisites (nothing leads to it).
    pub fn problems(&self, passages: &HashMap<SourceChunkId, Passage>, library: &Library) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut push = |field: FieldPath, message: String| problems.push(Problem { field, line: None, message });
        let units = FieldPath::root().key("units");
        for (i, unit) in self.units.iter().enumerate() {
            let at = units.index(i);
            if unit.chunks.is_empty() {
                push(at.key("chunks"), format!("unit '{}' has no material: give it at least one passage", unit.id));
            }
            for (j, chunk) in unit.chunks.iter().enumerate() {
                if !passages.contains_key(chunk) {
                    push(
                        at.key("chunks").index(j),
                        format!("passage {chunk} is not in your documents (removed, or re-ingested without it)"),
                    );
                }
            }
            if i == 0 && !unit.prerequisites.is_empty() {
                push(
                    at.key("prerequisites"),
                    format!("unit '{}' is the first unit, where a learner starts: it has no prerequisites", unit.id),
                );
            }
            if unit.questions.is_empty() {
                push(
                    at.key("questions"),
                    format!(
                        "unit '{}' has no exam question, so no tier can be earned in it: draft questions and drills \
                         for it, or write one",
                        unit.id
                    ),
                );
            }
            if i > 0 && unit.prerequisites.is_empty() {
                push(
                    at.key("prerequisites"),
                    format!(
                        "unit '{}' has no prerequisites and is not the first unit: nothing leads to it; name the \
                         unit it follows",
                        unit.id
                    ),
                );
            }
        }
        self.material_problems(passages, &mut push);
        if let Err(error) = Course::from_pack(self.to_pack(passages), library) {
            let questions: Vec<(usize, usize)> =
                self.units.iter().enumerate().flat_map(|(i, u)| (0..u.questions.len()).map(move |j| (i, j))).collect();
            problems.extend(
                error
                    .problems()
                    .iter()
                    .filter(|p| !is_entry_problem(p) && !is_repeated_passage(p))
                    .map(|p| Problem { field: draft_field(&p.field, &questions), ..p.clone() }),
            );
        }
        problems
    }

    /// What a learner could not earn, unit by unit: a unit with exam questions but not one of
    /// each tier (a unit with none is a problem of its own, see [`CourseDraft::problems`]).
    /// These do not keep the draft from being a course.
    pub fn gaps(&self) -> Vec<Problem> {
        let units = FieldPath::root().key("units");
        self.units
            .iter()
            .enumerate()
            .filter(|(_, u)| !u.questions.is_empty())
            .filter_map(|(i, unit)| {
                let missing: Vec<&str> = Tier::ALL
                    .iter()
                    .filter(|t| !unit.questions.iter().any(|q| q.tier == **t))
                    .map(|t| t.name())
                    .collect();
                (!missing.is_empty()).then(|| Problem {
                    field: units.index(i).key("questions"),
                    line: None,
                    message: format!(
                        "unit '{}' has no {} question: a learner can earn {} in it at most; write one, or draft \
                         its questions again after adding material",
                        unit.id,
                        missing.join(" or "),
                        highest_earnable(unit)
                    ),
                })
            })
            .collect()
    }

    /// A passage in two units, and questions and drills whose answer their passage does not
    /// hold.
    fn material_problems(&self, passages: &HashMap<SourceChunkId, Passage>, push: &mut impl FnMut(FieldPath, String)) {
        let units = FieldPath::root().key("units");
        let mut owner: HashMap<SourceChunkId, &str> = HashMap::new();
        for (i, unit) in self.units.iter().enumerate() {
            for (j, chunk) in unit.chunks.iter().enumerate() {
                if let Some(first) = owner.insert(*chunk, &unit.id) {
                    owner.insert(*chunk, first);
                    push(
                        units.index(i).key("chunks").index(j),
                        format!("passage {chunk} is also in unit '{first}'; a passage belongs to one unit"),
                    );
                }
            }
        }
        let unsupported = |answer: &str, passage: &SourceChunkId| -> Option<String> {
            let p = passages.get(passage)?;
            (!supported_by(answer, &p.text)).then(|| {
                format!(
                    "the answer '{answer}' is not in the passage it cites ({}); cite the passage it comes from",
                    p.citation()
                )
            })
        };
        for (i, unit) in self.units.iter().enumerate() {
            let at = units.index(i);
            for (j, q) in unit.questions.iter().enumerate() {
                if let Some(message) = q.options.get(q.correct).and_then(|key| unsupported(key, &q.passage)) {
                    push(at.key("questions").index(j).key("correct"), message);
                }
            }
            for (j, d) in unit.drills.iter().enumerate() {
                if let Some(message) = unsupported(&d.answer, &d.passage) {
                    push(at.key("drills").index(j).key("answer"), message);
                }
            }
            for (j, b) in unit.blueprints.iter().enumerate() {
                if !unit.chunks.contains(&b.passage) {
                    push(
                        at.key("blueprints").index(j).key("passage"),
                        format!(
                            "passage {} is not one of unit '{}''s; cite the passage it comes from",
                            b.passage, unit.id
                        ),
                    );
                }
            }
        }
    }

    /// Questions and drills written from their passages without a model (see
    /// [`crate::recall`]) for the units named, or for every unit that has neither when none
    /// is named, and the blueprints of `library` that compute drills like the passages'
    /// computations (see [`crate::computable`]); a unit's earlier ones are replaced. The
    /// units drafted, by id.
    pub fn draft_units(
        &mut self,
        passages: &HashMap<SourceChunkId, Passage>,
        library: &Library,
        only: &[String],
    ) -> Vec<String> {
        let chosen: Vec<bool> = self
            .units
            .iter()
            .map(|u| if only.is_empty() { u.questions.is_empty() && u.drills.is_empty() } else { only.contains(&u.id) })
            .collect();
        let material: Vec<(usize, &Passage)> = self
            .units
            .iter()
            .enumerate()
            .flat_map(|(i, u)| u.chunks.iter().filter_map(|c| passages.get(c)).map(move |p| (i, p)))
            .collect();
        let recall_passages: Vec<RecallPassage<'_>> =
            material.iter().map(|(unit, p)| RecallPassage { unit: *unit, text: &p.text }).collect();
        let titles: Vec<&str> = self.units.iter().map(|u| u.title.as_str()).collect();
        let drafted = recall(&self.title, self.units.len(), &titles, &recall_passages, DRILLS_PER_UNIT);
        let mut done = Vec::new();
        for ((unit, recall), chosen) in self.units.iter_mut().zip(drafted).zip(chosen) {
            if !chosen {
                continue;
            }
            unit.questions = recall
                .questions
                .into_iter()
                .map(|q| {
                    let passage = material[q.cloze.passage].1;
                    DraftQuestion {
                        id: format!("{}-{}", unit.id, q.tier.name()),
                        tier: q.tier,
                        stem: format!("Which completes this sentence? \"{}\"", q.cloze.blanked),
                        options: q.options,
                        correct: q.correct,
                        memo: format!("{} reads: \"{}\"", passage.citation(), q.cloze.sentence),
                        passage: passage.id,
                    }
                })
                .collect();
            unit.drills = recall
                .drills
                .into_iter()
                .map(|c| DraftDrill {
                    stem: format!("Fill in the blank: \"{}\"", c.blanked),
                    answer: c.term,
                    passage: material[c.passage].1.id,
                })
                .collect();
            let own: Vec<&Passage> = unit.chunks.iter().filter_map(|c| passages.get(c)).collect();
            let texts: Vec<&str> = own.iter().map(|p| p.text.as_str()).collect();
            unit.blueprints = computable_blueprints(&texts, library, BLUEPRINTS_PER_UNIT)
                .into_iter()
                .map(|found| DraftBlueprint {
                    skill_id: found.skill_id,
                    passage: own[found.passage].id,
                    example: found.example,
                })
                .collect();
            done.push(unit.id.clone());
        }
        done
    }
}

/// The highest tier a unit's questions let a learner earn: tiers are earned in order.
fn highest_earnable(unit: &DraftUnit) -> &'static str {
    let mut highest = "no tier";
    for tier in Tier::ALL {
        if !unit.questions.iter().any(|q| q.tier == tier) {
            break;
        }
        highest = tier.name();
    }
    highest
}

/// Drills drafted for each unit.
const DRILLS_PER_UNIT: usize = 3;
/// Blueprints found for each unit, at most.
const BLUEPRINTS_PER_UNIT: usize = 3;

/// A passage in two units is named on the draft's unit (see `material_problems`), not on
/// the pack's content.
fn is_repeated_passage(problem: &Problem) -> bool {
    problem.field.segments().first() == Some(&Segment::Key("content".into()))
        && problem.message.contains("appears twice")
}

/// A pack problem's field as the draft has it: the pack lists exam questions on their own,
/// in the draft's unit order, where the draft keeps them under their unit.
fn draft_field(field: &FieldPath, questions: &[(usize, usize)]) -> FieldPath {
    let segments = field.segments();
    // A unit's blueprint is named by its `skill_id` in a draft.
    if let [Segment::Key(units), Segment::Index(_), Segment::Key(blueprints), Segment::Index(_)] = segments {
        if units == "units" && blueprints == "blueprints" {
            return field.key("skill_id");
        }
    }
    let (Some(Segment::Key(key)), Some(Segment::Index(k))) = (segments.first(), segments.get(1)) else {
        return field.clone();
    };
    let Some(&(unit, question)) = questions.get(*k).filter(|_| key == "exam_questions") else { return field.clone() };
    let mut path = FieldPath::root().key("units").index(unit).key("questions").index(question);
    for segment in &segments[2..] {
        path = match segment {
            Segment::Key(k) => path.key(k),
            Segment::Index(i) => path.index(*i),
        };
    }
    path
}

/// The pack's entry unit is the draft's first unit, so a problem with it is the first
/// unit's prerequisites, reported on that unit above.
fn is_entry_problem(problem: &Problem) -> bool {
    problem.field.to_string() == "entry_unit"
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn passage(n: u128, document: &str, headings: &[&str], text: &str) -> Passage {
        Passage {
            id: SourceChunkId(Uuid::from_u128(n)),
            document_id: SourceDocumentId(Uuid::from_u128(if document == "subnets.md" { 1 } else { 2 })),
            document: document.into(),
            heading_path: headings.iter().map(|h| h.to_string()).collect(),
            page: None,
            text: text.into(),
        }
    }

    fn source(n: u128, name: &str, title: Option<&str>, passages: Vec<Passage>) -> DraftSource {
        DraftSource {
            id: SourceDocumentId(Uuid::from_u128(n)),
            name: name.into(),
            title: title.map(Into::into),
            passages,
        }
    }

    fn by_id(sources: &[DraftSource]) -> HashMap<SourceChunkId, Passage> {
        sources.iter().flat_map(|s| s.passages.iter()).map(|p| (p.id, p.clone())).collect()
    }

    fn notes() -> Vec<DraftSource> {
        vec![
            source(
                1,
                "subnets.md",
                Some("Subnets"),
                vec![
                    passage(
                        1,
                        "subnets.md",
                        &["Subnets"],
                        "An address has a network part and a host part. It is 32 bits.",
                    ),
                    passage(2, "subnets.md", &["Subnets", "Masks"], "A mask marks the network bits. A /24 keeps 24."),
                    passage(3, "subnets.md", &["Subnets", "Masks", "Prefixes"], "A prefix length counts the ones."),
                    passage(4, "subnets.md", &["Subnets", "Hosts"], "A /24 has 254 usable hosts."),
                ],
            ),
            source(
                2,
                "routing.md",
                None,
                vec![
                    passage(5, "routing.md", &[], "Routers forward packets between networks."),
                    passage(6, "routing.md", &["Tables"], "A routing table maps prefixes to next hops."),
                ],
            ),
        ]
    }

    #[test]
    fn an_outline_follows_the_headings_in_document_order() {
        let draft = outline_from_headings("Networking notes", &notes());
        assert_eq!(draft.course_id, "NETWORKING-NOTES");
        let units: Vec<(&str, &str, Vec<&str>, usize)> = draft
            .units
            .iter()
            .map(|u| {
                (u.id.as_str(), u.title.as_str(), u.prerequisites.iter().map(String::as_str).collect(), u.chunks.len())
            })
            .collect();
        assert_eq!(
            units,
            [
                // One title heading holds everything in subnets.md: its sections are the units,
                // and the passage under the title alone joins the first.
                ("subnets", "Subnets", vec![], 1),
                ("masks", "Masks", vec!["subnets"], 2),
                ("hosts", "Hosts", vec!["masks"], 1),
                // Before routing.md's first heading: a unit named after the file.
                ("routing-md", "routing.md", vec!["hosts"], 1),
                ("tables", "Tables", vec!["routing-md"], 1),
            ]
        );
        assert_eq!(draft.units[0].anchor, "An address has a network part and a host part.");
        // An outline alone is no course yet: no tier could be earned in any unit.
        let problems: Vec<String> =
            draft.problems(&by_id(&notes()), &Library::builtin()).iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), draft.units.len(), "{problems:#?}");
        assert!(problems.iter().all(|p| p.contains("has no exam question, so no tier can be earned")), "{problems:#?}");
    }

    #[test]
    fn repeated_titles_get_their_own_ids_and_a_long_passage_a_cut_anchor() {
        let long = "word ".repeat(200);
        let sources = vec![source(
            1,
            "a.md",
            None,
            vec![
                passage(1, "a.md", &["Intro"], &long),
                passage(2, "a.md", &["Intro!"], "x"),
                passage(3, "a.md", &["intro"], "y"),
            ],
        )];
        let draft = outline_from_headings("  ", &sources);
        assert_eq!(draft.course_id, "COURSE");
        let ids: Vec<&str> = draft.units.iter().map(|u| u.id.as_str()).collect();
        assert_eq!(ids, ["intro", "intro-2", "intro-3"]);
        let titles: Vec<&str> = draft.units.iter().map(|u| u.title.as_str()).collect();
        assert_eq!(titles, ["Intro", "Intro!", "intro (2)"]);
        assert!(draft.units[0].anchor.ends_with('…') && draft.units[0].anchor.chars().count() <= 301);
    }

    #[test]
    fn a_draft_names_what_is_wrong_with_it_by_field() {
        let sources = notes();
        let mut draft = outline_from_headings("Networking notes", &sources);
        draft.units[1].chunks.clear();
        draft.units[2].chunks.push(SourceChunkId(Uuid::from_u128(99)));
        draft.units[3].prerequisites.clear();
        draft.units[4].prerequisites = vec!["tables".into()];
        draft.units[0].prerequisites = vec!["tables".into()];
        let problems: Vec<String> =
            draft.problems(&by_id(&sources), &Library::builtin()).iter().map(ToString::to_string).collect();
        assert!(
            problems.contains(&"units[1].chunks: unit 'masks' has no material: give it at least one passage".into()),
            "{problems:#?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with(
                "units[2].chunks[1]: passage 00000000-0000-0000-0000-000000000063 is not in your documents"
            )),
            "{problems:#?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with("units[3].prerequisites: unit 'routing-md' has no prerequisites")),
            "{problems:#?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with("units[4].prerequisites[0]") && p.contains("own prerequisite")),
            "{problems:#?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with("units[0].prerequisites: unit 'subnets' is the first unit")),
            "{problems:#?}"
        );
        assert!(!problems.iter().any(|p| p.starts_with("entry_unit")), "{problems:#?}");
    }

    #[test]
    fn a_draft_writes_out_as_a_pack_whose_content_cites_its_sources() {
        let sources = notes();
        let draft = outline_from_headings("Networking notes", &sources);
        let pack = draft.to_pack(&by_id(&sources));
        assert_eq!(pack.entry_unit, "subnets");
        assert_eq!(pack.content.len(), 6);
        let masks: Vec<(&str, Option<&str>)> = pack
            .content
            .iter()
            .filter(|c| c.unit == "masks")
            .map(|c| (c.source_id.as_str(), c.section.as_deref()))
            .collect();
        assert_eq!(
            masks,
            [("subnets.md", Some("Subnets > Masks")), ("subnets.md", Some("Subnets > Masks > Prefixes"))]
        );
        let text = pack.to_text(crate::PackFormat::Toml).unwrap();
        let course = Course::parse(&text, crate::PackFormat::Toml, &Library::builtin()).expect("the pack checks");
        assert_eq!(course.id(), "NETWORKING-NOTES");
    }

    fn plants() -> Vec<DraftSource> {
        let p = |n: u128, heading: &str, text: &str| Passage {
            id: SourceChunkId(Uuid::from_u128(n)),
            document_id: SourceDocumentId(Uuid::from_u128(9)),
            document: "plants.md".into(),
            heading_path: vec!["Plants".into(), heading.into()],
            page: None,
            text: text.into(),
        };
        vec![source(
            9,
            "plants.md",
            Some("Plants"),
            vec![
                p(11, "Leaves", "Photosynthesis turns light energy into chemical energy inside the chloroplasts."),
                p(12, "Leaves", "Chlorophyll absorbs mostly red and blue light and reflects green light back."),
                p(13, "Roots", "Root hairs absorb water and minerals from the soil around the plant."),
                p(14, "Roots", "Xylem vessels carry the water upward from the roots to every leaf."),
            ],
        )]
    }

    #[test]
    fn units_drafted_offline_get_questions_and_drills_from_their_own_passages() {
        let sources = plants();
        let passages = by_id(&sources);
        let mut draft = outline_from_headings("Plants", &sources);
        assert_eq!(draft.draft_units(&passages, &Library::builtin(), &[]), ["leaves", "roots"]);
        for unit in &draft.units {
            assert!(!unit.questions.is_empty() && !unit.drills.is_empty(), "{unit:?}");
            for q in &unit.questions {
                assert!(unit.chunks.contains(&q.passage), "{q:?}");
                assert!(q.id.starts_with(&unit.id) && q.stem.contains(crate::recall::BLANK), "{q:?}");
                assert!(q.memo.starts_with("plants.md, Plants > "), "{q:?}");
            }
        }
        assert!(draft.problems(&passages, &Library::builtin()).is_empty());
        // Drafted already: only a unit named is drafted again.
        assert!(draft.draft_units(&passages, &Library::builtin(), &[]).is_empty());
        assert_eq!(draft.draft_units(&passages, &Library::builtin(), &["roots".into()]), ["roots"]);
        // Written out, it is a course whose questions and drills cite passages it has.
        let course = Course::from_pack(draft.to_pack(&passages), &Library::builtin()).expect("the pack checks");
        assert!(course.grounded());
        let q = &course.questions()[0];
        let cited = course.passage(q.passage.as_deref().unwrap()).unwrap();
        assert_eq!((cited.unit.as_str(), cited.citation()), ("leaves", "plants.md, Plants > Leaves".to_string()));
        assert!(!course.written_drills("roots").is_empty());
    }

    #[test]
    fn a_key_its_passage_does_not_hold_and_a_passage_in_two_units_are_problems() {
        let sources = plants();
        let passages = by_id(&sources);
        let mut draft = outline_from_headings("Plants", &sources);
        draft.draft_units(&passages, &Library::builtin(), &[]);
        // The roots' passage cited by a leaves question: the pack's rule, on the draft's field.
        draft.units[0].questions[0].passage = SourceChunkId(Uuid::from_u128(13));
        draft.units[0].drills[0].answer = "gravity".into();
        draft.units[1].chunks.push(SourceChunkId(Uuid::from_u128(11)));
        let problems: Vec<String> =
            draft.problems(&passages, &Library::builtin()).iter().map(ToString::to_string).collect();
        assert_problem(&problems, "units[0].questions[0].passage: passage '", "belongs to unit 'roots'");
        assert_problem(&problems, "units[0].drills[0].answer: the answer 'gravity' is not in the passage", "");
        assert_problem(&problems, "units[1].chunks[2]: passage", "also in unit 'leaves'");
        assert!(!problems.iter().any(|p| p.starts_with("content") || p.starts_with("exam_questions")), "{problems:#?}");
    }

    #[test]
    fn a_unit_whose_material_works_a_computation_gets_the_blueprint_that_computes_drills_like_it() {
        let p = |n: u128, heading: &str, text: &str| Passage {
            id: SourceChunkId(Uuid::from_u128(n)),
            document_id: SourceDocumentId(Uuid::from_u128(8)),
            document: "subnets.md".into(),
            heading_path: vec!["Subnets".into(), heading.into()],
            page: None,
            text: text.into(),
        };
        let sources = vec![source(
            8,
            "subnets.md",
            Some("Subnets"),
            vec![
                p(21, "Prefixes", "A prefix length counts the network bits of an address."),
                p(22, "Prefixes", "The subnet 192.168.4.64/26 has its broadcast address at 192.168.4.127."),
                p(23, "History", "Classful addressing was replaced by CIDR in the nineties."),
            ],
        )];
        let passages = by_id(&sources);
        let library = Library::builtin();
        let mut draft = outline_from_headings("Subnets", &sources);
        draft.draft_units(&passages, &library, &[]);
        let found: Vec<(&str, SourceChunkId, &str)> =
            draft.units[0].blueprints.iter().map(|b| (b.skill_id.as_str(), b.passage, b.example.as_str())).collect();
        assert_eq!(found, [("NET.IP.SUBNET.BROADCAST", SourceChunkId(Uuid::from_u128(22)), "192.168.4.64/26")]);
        assert!(draft.units[1].blueprints.is_empty(), "prose without a computation gets none");
        assert!(draft.problems(&passages, &library).is_empty());
        // Published, the unit's drills are computed by the blueprint.
        let course = Course::from_pack(draft.to_pack(&passages), &library).expect("the pack checks");
        assert_eq!(course.unit(&draft.units[0].id).unwrap().blueprints, ["NET.IP.SUBNET.BROADCAST"]);
        // An unknown skill, or a passage of another unit, is named on the draft's field.
        draft.units[0].blueprints.push(DraftBlueprint {
            skill_id: "NET.NOPE".into(),
            passage: SourceChunkId(Uuid::from_u128(23)),
            example: String::new(),
        });
        let problems: Vec<String> = draft.problems(&passages, &library).iter().map(ToString::to_string).collect();
        assert_problem(&problems, "units[0].blueprints[1].skill_id: unknown skill blueprint 'NET.NOPE'", "");
        assert_problem(&problems, "units[0].blueprints[1].passage: passage", "not one of unit");
    }

    /// `problems` has one that starts with `start` and contains `words`.
    fn assert_problem(problems: &[String], start: &str, words: &str) {
        assert!(problems.iter().any(|p| p.starts_with(start) && p.contains(words)), "{start}: {problems:#?}");
    }
}
