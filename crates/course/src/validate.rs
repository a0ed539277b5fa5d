//! The rules a course pack must keep: ids well formed and unique, every reference resolving,
//! prerequisites forming a DAG, exam questions well formed, blueprints known and usable for
//! drills.

use crate::error::Problem;
use crate::locate::FieldPath;
use crate::pack::CoursePack;
use pathwise_items::{ItemType, Library, Pack};
use std::collections::{HashMap, HashSet};

const MAX_ID: usize = 64;
const MAX_TITLE: usize = 200;

/// Every problem of the pack, or the library its drills draw from (`base` plus the
/// course's own skills).
pub(crate) fn validate(pack: &CoursePack, base: &Library) -> Result<Library, Vec<Problem>> {
    let mut p = Problems::default();
    let root = FieldPath::root();

    p.id(&root.key("course_id"), &pack.course_id);
    p.text(&root.key("title"), &pack.title, MAX_TITLE);

    let tags = root.key("confusion_tags");
    if pack.confusion_tags.is_empty() {
        p.push(&tags, "give at least one tag; drill grading may only tag a mistake with one of them");
    }
    let mut seen_tags = HashSet::new();
    for (i, tag) in pack.confusion_tags.iter().enumerate() {
        if tag.is_empty() || !tag.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
            p.push(&tags.index(i), format!("'{tag}' is not a tag; allowed: lowercase letters, digits and '_'"));
        } else if !seen_tags.insert(tag.as_str()) {
            p.push(&tags.index(i), format!("tag '{tag}' appears twice"));
        }
    }

    let library = course_library(pack, base, &mut p);
    let units = check_units(pack, &library, &mut p);
    // The graph can be searched for a cycle once every unit is distinct and every
    // prerequisite resolves, whatever else is wrong.
    let graph_sound = units.len() == pack.units.len()
        && pack.units.iter().all(|u| u.prerequisites.iter().all(|q| units.contains_key(q.as_str()) && q != &u.id));
    match units.get(pack.entry_unit.as_str()) {
        None => p.push(&root.key("entry_unit"), format!("unknown unit '{}'", pack.entry_unit)),
        Some(&i) if !pack.units[i].prerequisites.is_empty() => p.push(
            &root.key("entry_unit"),
            format!("entry unit '{}' has prerequisites; a new learner must be able to start there", pack.entry_unit),
        ),
        Some(_) => {}
    }
    if graph_sound {
        check_acyclic(pack, &units, &mut p);
    }
    let passages = check_content(pack, &units, &mut p);
    check_questions(pack, &units, &passages, &mut p);
    let library = check_drills(pack, library, &passages, &mut p);

    if p.0.is_empty() {
        Ok(library)
    } else {
        Err(p.0)
    }
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn push(&mut self, field: &FieldPath, message: impl Into<String>) {
        self.0.push(Problem { field: field.clone(), line: None, message: message.into() });
    }

    fn id(&mut self, field: &FieldPath, id: &str) -> bool {
        let ok = !id.is_empty()
            && id.len() <= MAX_ID
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !ok {
            self.push(field, format!("'{id}' is not an id; allowed: 1-{MAX_ID} letters, digits, '.', '_' and '-'"));
        }
        ok
    }

    fn text(&mut self, field: &FieldPath, text: &str, max: usize) {
        if text.trim().is_empty() {
            self.push(field, "is empty");
        } else if text.chars().count() > max {
            self.push(field, format!("is {} characters long; allowed: at most {max}", text.chars().count()));
        }
    }
}

fn course_library(pack: &CoursePack, base: &Library, p: &mut Problems) -> Library {
    let mut library = base.clone();
    let own = Pack { skills: pack.skills.clone(), ..Pack::default() };
    if let Err(e) = library.add(own) {
        p.push(&FieldPath::root().key("skills"), e.to_string());
    }
    library
}

fn check_units<'p>(pack: &'p CoursePack, library: &Library, p: &mut Problems) -> HashMap<&'p str, usize> {
    let field = FieldPath::root().key("units");
    if pack.units.is_empty() {
        p.push(&field, "a course needs at least one unit");
    }
    let mut ids = HashMap::new();
    let mut titles = HashMap::new();
    for (i, unit) in pack.units.iter().enumerate() {
        let at = field.index(i);
        if p.id(&at.key("id"), &unit.id) && ids.insert(unit.id.as_str(), i).is_some() {
            p.push(&at.key("id"), format!("unit '{}' appears twice", unit.id));
        }
        p.text(&at.key("title"), &unit.title, MAX_TITLE);
        if let Some(first) = titles.insert(unit.title.trim().to_lowercase(), i) {
            p.push(
                &at.key("title"),
                format!("title '{}' is also the title of units[{first}]; titles must be unique", unit.title),
            );
        }
        p.text(&at.key("anchor"), &unit.anchor, 2_000);
    }
    for (i, unit) in pack.units.iter().enumerate() {
        let at = field.index(i);
        let mut seen = HashSet::new();
        for (j, prerequisite) in unit.prerequisites.iter().enumerate() {
            let at = at.key("prerequisites").index(j);
            if prerequisite == &unit.id {
                p.push(&at, format!("unit '{}' cannot be its own prerequisite", unit.id));
            } else if !ids.contains_key(prerequisite.as_str()) {
                p.push(&at, format!("unknown unit '{prerequisite}'"));
            } else if !seen.insert(prerequisite) {
                p.push(&at, format!("prerequisite '{prerequisite}' is listed twice"));
            }
        }
        for (j, skill) in unit.blueprints.iter().enumerate() {
            let at = at.key("blueprints").index(j);
            match library.skill(skill) {
                None => p.push(&at, format!("unknown skill blueprint '{skill}'; name a built-in one or one in skills")),
                Some(b) if b.spec().presentation.item_type == ItemType::CodeEditor => p.push(
                    &at,
                    format!("skill '{skill}' makes code tasks; drills are answered in a line of text or a choice"),
                ),
                Some(_) => {}
            }
        }
    }
    ids
}

/// Prerequisites must form a DAG; a cycle is named with its path.
fn check_acyclic(pack: &CoursePack, ids: &HashMap<&str, usize>, p: &mut Problems) {
    let n = pack.units.len();
    let parents: Vec<Vec<usize>> =
        pack.units.iter().map(|u| u.prerequisites.iter().map(|q| ids[q.as_str()]).collect()).collect();
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; n];
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&parent) = parents[node].get(*next) {
                *next += 1;
                match state[parent] {
                    0 => {
                        state[parent] = 1;
                        stack.push((parent, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|&(u, _)| u == parent).unwrap_or(0);
                        // The stack runs from a unit to its prerequisites; the cycle is named
                        // in learning order, each unit before the ones that need it.
                        let cycle: Vec<&str> = std::iter::once(parent)
                            .chain(stack[from..].iter().rev().map(|&(u, _)| u))
                            .map(|u| pack.units[u].id.as_str())
                            .collect();
                        p.push(
                            &FieldPath::root().key("units").index(parent).key("prerequisites"),
                            format!("prerequisites form a cycle: {}", cycle.join(" -> ")),
                        );
                        return;
                    }
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
}

/// The content's passage ids, each with the unit it belongs to.
fn check_content<'p>(pack: &'p CoursePack, ids: &HashMap<&str, usize>, p: &mut Problems) -> HashMap<&'p str, &'p str> {
    let field = FieldPath::root().key("content");
    let mut passages = HashMap::new();
    for (i, chunk) in pack.content.iter().enumerate() {
        let at = field.index(i);
        if !ids.contains_key(chunk.unit.as_str()) {
            p.push(&at.key("unit"), format!("unknown unit '{}'", chunk.unit));
        }
        p.text(&at.key("source_id"), &chunk.source_id, 200);
        p.text(&at.key("text"), &chunk.text, 20_000);
        if let Some(id) = &chunk.id {
            if p.id(&at.key("id"), id) {
                if passages.contains_key(id.as_str()) {
                    p.push(&at.key("id"), format!("passage id '{id}' appears twice"));
                } else {
                    passages.insert(id.as_str(), chunk.unit.as_str());
                }
            }
        }
    }
    passages
}

/// A reference to a passage must name one of `units`' passages.
fn check_passage(at: &FieldPath, passage: &str, units: &[String], passages: &HashMap<&str, &str>, p: &mut Problems) {
    match passages.get(passage) {
        None => p.push(at, format!("unknown passage '{passage}'; name a content chunk's id")),
        Some(unit) if !units.iter().any(|u| u == unit) => {
            p.push(at, format!("passage '{passage}' belongs to unit '{unit}'; cite a passage of {}", units.join(", ")))
        }
        Some(_) => {}
    }
}

/// Written drills become inline items of the course's library, which grades them.
fn check_drills(pack: &CoursePack, mut library: Library, passages: &HashMap<&str, &str>, p: &mut Problems) -> Library {
    for (i, unit) in pack.units.iter().enumerate() {
        let at = FieldPath::root().key("units").index(i).key("drills");
        for (j, drill) in unit.drills.iter().enumerate() {
            let at = at.index(j);
            p.text(&at.key("stem"), &drill.stem, crate::pack::MAX_DRILL_CHARS);
            match drill.to_inline().to_item() {
                Ok(item) => library.add_inline(item),
                Err(e) => p.push(&at, e.to_string()),
            }
            if let Some(passage) = &drill.passage {
                check_passage(&at.key("passage"), passage, std::slice::from_ref(&unit.id), passages, p);
            }
        }
    }
    library
}

fn check_questions(pack: &CoursePack, ids: &HashMap<&str, usize>, passages: &HashMap<&str, &str>, p: &mut Problems) {
    let field = FieldPath::root().key("exam_questions");
    let mut seen = HashSet::new();
    for (i, q) in pack.exam_questions.iter().enumerate() {
        let at = field.index(i);
        if p.id(&at.key("id"), &q.id) && !seen.insert(q.id.as_str()) {
            p.push(&at.key("id"), format!("question '{}' appears twice", q.id));
        }
        if q.units.is_empty() {
            p.push(&at.key("units"), "name at least one unit the question examines");
        }
        for (j, unit) in q.units.iter().enumerate() {
            if !ids.contains_key(unit.as_str()) {
                p.push(&at.key("units").index(j), format!("unknown unit '{unit}'"));
            }
        }
        p.text(&at.key("stem"), &q.stem, 5_000);
        if !(2..=6).contains(&q.options.len()) {
            p.push(&at.key("options"), format!("has {} options; allowed: 2-6", q.options.len()));
        }
        let mut distinct = HashSet::new();
        for (j, option) in q.options.iter().enumerate() {
            if option.trim().is_empty() {
                p.push(&at.key("options").index(j), "is empty");
            } else if !distinct.insert(option.trim()) {
                p.push(&at.key("options").index(j), format!("option '{option}' appears twice"));
            }
        }
        if q.correct >= q.options.len() {
            p.push(
                &at.key("correct"),
                format!(
                    "{} is not an option's index; allowed: 0-{} (counting from 0)",
                    q.correct,
                    q.options.len().saturating_sub(1)
                ),
            );
        }
        p.text(&at.key("memo"), &q.memo, 10_000);
        if let Some(passage) = &q.passage {
            check_passage(&at.key("passage"), passage, &q.units, passages, p);
        }
        if let Some(video) = &q.video {
            if !(video.starts_with("https://") || video.starts_with("http://")) || video.contains(char::is_whitespace) {
                p.push(&at.key("video"), format!("'{video}' is not a link; allowed: an http:// or https:// URL"));
            }
        }
    }
}
