//! A checked course: the pack with its indexes, its unit DAG and the item library its
//! drills come from.

use crate::error::CourseError;
use crate::locate::Locator;
use crate::pack::{ChunkSpec, CoursePack, ExamQuestionSpec, PackFormat, Tier, UnitSpec};
use crate::validate;
use pathwise_items::Library;
use std::collections::HashMap;

/// A course whose references all resolve and whose prerequisites form a DAG.
#[derive(Debug, Clone)]
pub struct Course {
    pack: CoursePack,
    units: HashMap<String, usize>,
    questions: HashMap<String, usize>,
    /// Content chunks by passage id: their own, or for a chunk without one (a shipped
    /// course's), `{source_id}.{n}`, its place among its source's chunks.
    passages: HashMap<String, usize>,
    /// Each content chunk's passage id, in the course's order.
    passage_ids: Vec<String>,
    /// The content names its passages (a course drafted from someone's material).
    grounded: bool,
    /// Units that name each unit as a prerequisite, by position.
    dependents: Vec<Vec<usize>>,
    /// Built-in blueprints and the course's own.
    library: Library,
}

impl Course {
    /// Reads and checks a pack. `base` is the library whose blueprints units may name besides
    /// the course's own (usually [`Library::builtin`]).
    pub fn parse(text: &str, format: PackFormat, base: &Library) -> Result<Course, CourseError> {
        let pack = parse_pack(text, format)?;
        Course::check(pack, base, &Locator::new(text, format))
    }

    /// Checks a pack built in code (no lines in its problems).
    pub fn from_pack(pack: CoursePack, base: &Library) -> Result<Course, CourseError> {
        Course::check(pack, base, &Locator::none())
    }

    fn check(pack: CoursePack, base: &Library, locator: &Locator<'_>) -> Result<Course, CourseError> {
        let library = validate::validate(&pack, base).map_err(|mut problems| {
            for problem in &mut problems {
                problem.line = locator.line_of(&problem.field);
            }
            CourseError::Invalid(problems)
        })?;
        let units: HashMap<String, usize> = pack.units.iter().enumerate().map(|(i, u)| (u.id.clone(), i)).collect();
        let questions = pack.exam_questions.iter().enumerate().map(|(i, q)| (q.id.clone(), i)).collect();
        let passage_ids = passage_ids(&pack.content);
        let passages = passage_ids.iter().enumerate().map(|(i, id)| (id.clone(), i)).collect();
        let grounded = pack.content.iter().any(|c| c.id.is_some());
        let mut dependents = vec![Vec::new(); pack.units.len()];
        for (i, unit) in pack.units.iter().enumerate() {
            for p in &unit.prerequisites {
                dependents[units[p]].push(i);
            }
        }
        Ok(Course { pack, units, questions, passages, passage_ids, grounded, dependents, library })
    }

    pub fn id(&self) -> &str {
        &self.pack.course_id
    }

    pub fn title(&self) -> &str {
        &self.pack.title
    }

    pub fn description(&self) -> Option<&str> {
        self.pack.description.as_deref()
    }

    pub fn entry_unit(&self) -> &str {
        &self.pack.entry_unit
    }

    pub fn confusion_tags(&self) -> &[String] {
        &self.pack.confusion_tags
    }

    pub fn pack(&self) -> &CoursePack {
        &self.pack
    }

    pub fn units(&self) -> &[UnitSpec] {
        &self.pack.units
    }

    pub fn unit(&self, id: &str) -> Option<&UnitSpec> {
        self.units.get(id).map(|&i| &self.pack.units[i])
    }

    pub fn has_unit(&self, id: &str) -> bool {
        self.units.contains_key(id)
    }

    /// A unit's direct prerequisites, in the order the pack gives them (none for an
    /// unknown unit).
    pub fn prerequisites(&self, id: &str) -> &[String] {
        self.unit(id).map_or(&[], |u| &u.prerequisites)
    }

    /// Units that name `id` as a direct prerequisite.
    pub fn dependents(&self, id: &str) -> impl Iterator<Item = &UnitSpec> {
        let positions = self.units.get(id).map_or(&[][..], |&i| &self.dependents[i]);
        positions.iter().map(|&i| &self.pack.units[i])
    }

    pub fn chunks(&self) -> &[ChunkSpec] {
        &self.pack.content
    }

    /// A content chunk by its passage id.
    pub fn passage(&self, id: &str) -> Option<&ChunkSpec> {
        self.passages.get(id).map(|&i| &self.pack.content[i])
    }

    /// Whether the course was drafted from someone's material, whose passages its replies
    /// must cite (its content has passage ids).
    pub fn grounded(&self) -> bool {
        self.grounded
    }

    /// The passage id of the content chunk at `position` (see [`Course::chunks`]).
    pub fn passage_id_at(&self, position: usize) -> Option<&str> {
        self.passage_ids.get(position).map(String::as_str)
    }

    /// The content chunk at `position` as a card cites it.
    pub fn source_at(&self, position: usize) -> Option<crate::card::Source> {
        self.passage_id_at(position).and_then(|id| self.source(id))
    }

    /// A passage as a card cites it.
    pub fn source(&self, passage: &str) -> Option<crate::card::Source> {
        self.passage(passage).map(|c| crate::card::Source { passage_id: passage.to_string(), citation: c.citation() })
    }

    /// A unit's written drills as items of the course's library (which grades them by id).
    pub fn written_drills(&self, unit: &str) -> Vec<pathwise_items::Item> {
        self.unit(unit)
            .map_or_else(Vec::new, |u| u.drills.iter().filter_map(|d| d.to_inline().to_item().ok()).collect())
    }

    pub fn questions(&self) -> &[ExamQuestionSpec] {
        &self.pack.exam_questions
    }

    pub fn question(&self, id: &str) -> Option<&ExamQuestionSpec> {
        self.questions.get(id).map(|&i| &self.pack.exam_questions[i])
    }

    /// Questions of a unit at a tier, in the pack's order.
    pub fn questions_for<'a>(&'a self, unit: &'a str, tier: Tier) -> impl Iterator<Item = &'a ExamQuestionSpec> + 'a {
        self.pack.exam_questions.iter().filter(move |q| q.tier == tier && q.units.iter().any(|u| u == unit))
    }

    /// The blueprints drills may come from: the built-in ones and the course's own.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// Units in an order where every unit comes after its prerequisites (the pack's order
    /// among units that are free at the same time).
    pub fn learning_order(&self) -> Vec<&UnitSpec> {
        let n = self.pack.units.len();
        let mut waiting: Vec<usize> = self.pack.units.iter().map(|u| u.prerequisites.len()).collect();
        let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop_first() {
            order.push(&self.pack.units[i]);
            for &d in &self.dependents[i] {
                waiting[d] -= 1;
                if waiting[d] == 0 {
                    ready.insert(d);
                }
            }
        }
        order
    }
}

/// Each chunk's passage id: its own, or `{source_id}.{n}` (1-based among its source's chunks
/// without an id), which no id of the course's own takes.
fn passage_ids(content: &[ChunkSpec]) -> Vec<String> {
    let own: std::collections::HashSet<&str> = content.iter().filter_map(|c| c.id.as_deref()).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    content
        .iter()
        .map(|c| match &c.id {
            Some(id) => id.clone(),
            None => loop {
                let n = counts.entry(c.source_id.as_str()).or_default();
                *n += 1;
                let id = format!("{}.{n}", c.source_id);
                if !own.contains(id.as_str()) {
                    break id;
                }
            },
        })
        .collect()
}

fn parse_pack(text: &str, format: PackFormat) -> Result<CoursePack, CourseError> {
    match format {
        PackFormat::Toml => toml::from_str(text).map_err(|e| CourseError::Parse {
            format: format.name(),
            line: e.span().map(|s| crate::locate::line_at(text, s.start)),
            message: e.to_string().trim_end().to_string(),
        }),
        PackFormat::Json => serde_json::from_str(text).map_err(|e| CourseError::Parse {
            format: format.name(),
            line: Some(e.line()),
            message: e.to_string(),
        }),
    }
}
