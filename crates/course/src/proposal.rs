//! A unit's questions and drills as a language model proposes them, and the check they
//! pass before they are kept: each answer in the passage it cites, every field within the
//! pack's rules. The model is shown the unit's passages under short keys (`P1`, `P2`, ...),
//! which a small model copies more reliably than ids; the check maps them back. A proposal
//! with any problem is refused whole, with every problem named by its field.

use crate::draft::{CourseDraft, DraftDrill, DraftQuestion, DraftUnit, Passage};
use crate::pack::MAX_DRILL_CHARS;
use crate::recall::supported_by;
use crate::Tier;
use serde::Deserialize;
use std::collections::HashSet;

/// The longest anchor a proposal may give (the pack allows 2,000 characters).
const MAX_ANCHOR_CHARS: usize = 400;

/// What a model writes for one unit.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct UnitProposal {
    /// One or two sentences: what the unit is about, in the material's words.
    #[schemars(length(min = 1, max = 400))]
    pub anchor: String,
    /// Mistakes learners commonly make here (at most three).
    #[serde(default)]
    #[schemars(length(max = 3))]
    pub misconceptions: Vec<String>,
    /// One question per tier: bronze (recall a fact), silver (apply it), gold (combine or
    /// reason about it).
    #[schemars(length(min = 1, max = 3))]
    pub questions: Vec<ProposedQuestion>,
    /// Short drills answered with a word or a number from the material.
    #[schemars(length(min = 1, max = 3))]
    pub drills: Vec<ProposedDrill>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct ProposedQuestion {
    /// `bronze`, `silver` or `gold`.
    pub tier: String,
    pub stem: String,
    /// 2-4 distinct options.
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<String>,
    /// The correct option's index, from 0.
    pub correct: usize,
    /// Why the correct option is right, from the passage.
    pub memo: String,
    /// The key of the passage the answer comes from (`P1`).
    pub passage: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct ProposedDrill {
    pub stem: String,
    /// A word or a number, as the passage writes it.
    pub answer: String,
    /// The key of the passage the answer comes from (`P1`).
    pub passage: String,
}

/// An outline as a model proposes it: the sections of the author's headings grouped into
/// units, in the order a learner takes them.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct OutlineProposal {
    /// In learning order; each section (`S1`, `S2`, ...) in exactly one unit.
    #[schemars(length(min = 1, max = 100))]
    pub units: Vec<ProposedUnit>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct ProposedUnit {
    #[schemars(length(min = 1, max = 120))]
    pub title: String,
    /// The keys of the sections it covers, in order.
    #[schemars(length(min = 1))]
    pub sections: Vec<String>,
}

/// The key a heading outline's `i`th unit (a section) is shown under.
pub fn section_key(i: usize) -> String {
    format!("S{}", i + 1)
}

/// The draft a proposed outline makes of `sections` (the outline drafted from the headings:
/// a unit per section), or every problem of the proposal. Units take their sections'
/// passages in order, the first section's anchor, and their efforts summed; each unit is
/// the prerequisite of the next, as in the headings' outline.
pub fn checked_outline(sections: &CourseDraft, proposal: &OutlineProposal) -> Result<CourseDraft, Vec<String>> {
    let mut problems = Vec::new();
    let mut placed: Vec<Option<usize>> = vec![None; sections.units.len()];
    let mut titles = HashSet::new();
    for (i, unit) in proposal.units.iter().enumerate() {
        let title = unit.title.trim();
        if title.is_empty() || title.chars().count() > 120 {
            problems.push(format!("units[{i}].title: give a title of 1-120 characters"));
        } else if !titles.insert(title.to_lowercase()) {
            problems.push(format!("units[{i}].title: '{title}' is the title of an earlier unit; titles are unique"));
        }
        if unit.sections.is_empty() {
            problems.push(format!("units[{i}].sections: a unit covers at least one section"));
        }
        for (j, key) in unit.sections.iter().enumerate() {
            let at = format!("units[{i}].sections[{j}]");
            let found = key
                .trim()
                .strip_prefix('S')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=placed.len()).contains(n));
            match found {
                None => problems.push(format!("{at}: '{key}' is not a section; use S1-S{}", placed.len())),
                Some(n) => match placed[n - 1] {
                    Some(first) => problems
                        .push(format!("{at}: {key} is already in units[{first}]; each section goes in one unit")),
                    None => placed[n - 1] = Some(i),
                },
            }
        }
    }
    let missing: Vec<String> =
        placed.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| section_key(i)).collect();
    if !missing.is_empty() {
        problems.push(format!("units: {} in no unit; put every section in one", missing.join(", ")));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut ids = HashSet::new();
    let mut units: Vec<DraftUnit> = proposal
        .units
        .iter()
        .map(|proposed| {
            let members: Vec<&DraftUnit> = proposed
                .sections
                .iter()
                .filter_map(|k| k.trim()[1..].parse::<usize>().ok())
                .map(|n| &sections.units[n - 1])
                .collect();
            let efforts: Option<u32> = members.iter().map(|m| m.effort_minutes).sum();
            DraftUnit {
                id: crate::draft::unit_id_for(proposed.title.trim(), &mut ids),
                title: proposed.title.trim().to_string(),
                prerequisites: Vec::new(),
                chunks: members.iter().flat_map(|m| m.chunks.iter().copied()).collect(),
                anchor: members.first().map(|m| m.anchor.clone()).unwrap_or_default(),
                misconceptions: Vec::new(),
                effort_minutes: efforts.map(|e| e.min(240)),
                questions: Vec::new(),
                drills: Vec::new(),
                blueprints: Vec::new(),
            }
        })
        .collect();
    for i in 1..units.len() {
        units[i].prerequisites = vec![units[i - 1].id.clone()];
    }
    Ok(CourseDraft { units, ..sections.clone() })
}

/// The key a unit's `i`th passage is shown under.
pub fn passage_key(i: usize) -> String {
    format!("P{}", i + 1)
}

/// The unit as the proposal makes it, or every problem of the proposal (`questions[1].correct:
/// ...`), for the model to mend once.
pub fn checked_proposal(
    unit: &DraftUnit,
    passages: &[&Passage],
    proposal: &UnitProposal,
) -> Result<DraftUnit, Vec<String>> {
    let mut problems = Vec::new();
    let passage = |key: &str, field: String, problems: &mut Vec<String>| -> Option<&Passage> {
        let found = key
            .trim()
            .strip_prefix('P')
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| passages.get(n.checked_sub(1)?).copied());
        if found.is_none() {
            problems.push(format!(
                "{field}: '{key}' is not one of this unit's passages; cite one of P1-P{}",
                passages.len()
            ));
        }
        found
    };
    let anchor = proposal.anchor.trim();
    if anchor.is_empty() || anchor.chars().count() > MAX_ANCHOR_CHARS {
        problems.push(format!("anchor: write one or two sentences, at most {MAX_ANCHOR_CHARS} characters"));
    }
    let mut questions = Vec::new();
    let mut tiers = HashSet::new();
    for (i, q) in proposal.questions.iter().enumerate() {
        let at = format!("questions[{i}]");
        let Some(tier) = Tier::parse(q.tier.trim()) else {
            problems.push(format!("{at}.tier: '{}' is not bronze, silver or gold", q.tier));
            continue;
        };
        if !tiers.insert(tier) {
            problems.push(format!("{at}.tier: a second {tier} question; write one per tier"));
        }
        let options: Vec<String> = q.options.iter().map(|o| o.trim().to_string()).collect();
        let distinct: HashSet<String> = options.iter().map(|o| o.to_lowercase()).collect();
        if !(2..=6).contains(&options.len()) || distinct.len() != options.len() || options.iter().any(String::is_empty)
        {
            problems.push(format!("{at}.options: give 2-4 options, distinct and not empty"));
        }
        if q.stem.trim().is_empty() {
            problems.push(format!("{at}.stem: is empty"));
        }
        let Some(key) = options.get(q.correct) else {
            problems.push(format!("{at}.correct: {} is not an option's index (from 0)", q.correct));
            continue;
        };
        let Some(p) = passage(&q.passage, format!("{at}.passage"), &mut problems) else { continue };
        if !supported_by(key, &p.text) {
            problems.push(format!(
                "{at}.correct: the answer '{key}' is not in {}; cite the passage it comes from",
                q.passage.trim()
            ));
        }
        questions.push(DraftQuestion {
            id: format!("{}-{}", unit.id, tier.name()),
            tier,
            stem: q.stem.trim().to_string(),
            options,
            correct: q.correct,
            memo: if q.memo.trim().is_empty() {
                format!("{} reads: \"{}\"", p.citation(), p.text)
            } else {
                q.memo.trim().to_string()
            },
            passage: p.id,
        });
    }
    if !tiers.contains(&Tier::Bronze) {
        problems.push("questions: write a bronze question; a learner earns the unit's first tier with it".into());
    }
    let mut drills = Vec::new();
    for (i, d) in proposal.drills.iter().enumerate() {
        let at = format!("drills[{i}]");
        let size = d.stem.trim().chars().count();
        if size == 0 || size > MAX_DRILL_CHARS {
            problems.push(format!("{at}.stem: 1-{MAX_DRILL_CHARS} characters"));
        }
        let answer = d.answer.trim();
        if answer.is_empty() || answer.split_whitespace().count() > 5 {
            problems.push(format!("{at}.answer: a word, a number or a short phrase (at most five words)"));
        }
        let Some(p) = passage(&d.passage, format!("{at}.passage"), &mut problems) else { continue };
        if !answer.is_empty() && !supported_by(answer, &p.text) {
            problems.push(format!(
                "{at}.answer: '{answer}' is not in {}; cite the passage it comes from",
                d.passage.trim()
            ));
        }
        drills.push(DraftDrill { stem: d.stem.trim().to_string(), answer: answer.to_string(), passage: p.id });
    }
    if drills.is_empty() {
        problems.push("drills: write at least one drill".into());
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    questions.sort_by_key(|q| q.tier);
    Ok(DraftUnit {
        anchor: anchor.to_string(),
        misconceptions: proposal
            .misconceptions
            .iter()
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .take(3)
            .collect(),
        questions,
        drills,
        ..unit.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathwise_domain::{SourceChunkId, SourceDocumentId};
    use uuid::Uuid;

    fn passage(n: u128, text: &str) -> Passage {
        Passage {
            id: SourceChunkId(Uuid::from_u128(n)),
            document_id: SourceDocumentId(Uuid::from_u128(1)),
            document: "plants.md".into(),
            heading_path: vec!["Leaves".into()],
            page: None,
            text: text.into(),
        }
    }

    fn unit() -> DraftUnit {
        DraftUnit {
            id: "leaves".into(),
            title: "Leaves".into(),
            prerequisites: vec![],
            chunks: vec![SourceChunkId(Uuid::from_u128(1)), SourceChunkId(Uuid::from_u128(2))],
            anchor: "old".into(),
            misconceptions: vec![],
            effort_minutes: None,
            questions: vec![],
            drills: vec![],
            blueprints: Vec::new(),
        }
    }

    fn proposal(value: serde_json::Value) -> UnitProposal {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_proposal_whose_answers_are_in_their_passages_makes_the_unit() {
        let p1 = passage(1, "Photosynthesis turns light into chemical energy.");
        let p2 = passage(2, "Chlorophyll absorbs red and blue light.");
        let made = checked_proposal(
            &unit(),
            &[&p1, &p2],
            &proposal(serde_json::json!({
                "anchor": "Leaves turn light into chemical energy.",
                "questions": [
                    { "tier": "silver", "stem": "Which colours does chlorophyll absorb?", "options": ["green", "red and blue"],
                      "correct": 1, "memo": "", "passage": "P2" },
                    { "tier": "bronze", "stem": "What does photosynthesis turn into chemical energy?",
                      "options": ["light", "water"], "correct": 0, "memo": "It turns light.", "passage": "P1" }
                ],
                "drills": [{ "stem": "Photosynthesis turns ____ into chemical energy.", "answer": "light", "passage": "P1" }]
            })),
        )
        .unwrap();
        assert_eq!(made.anchor, "Leaves turn light into chemical energy.");
        let tiers: Vec<Tier> = made.questions.iter().map(|q| q.tier).collect();
        assert_eq!(tiers, [Tier::Bronze, Tier::Silver]);
        assert_eq!(made.questions[1].passage, p2.id);
        assert!(made.questions[1].memo.starts_with("plants.md, Leaves reads"), "{:?}", made.questions[1]);
        assert_eq!(made.drills[0].passage, p1.id);
        assert_eq!(made.chunks, unit().chunks);
    }

    #[test]
    fn every_problem_of_a_proposal_is_named_by_its_field() {
        let p1 = passage(1, "Photosynthesis turns light into chemical energy.");
        let problems = checked_proposal(
            &unit(),
            &[&p1],
            &proposal(serde_json::json!({
                "anchor": " ",
                "questions": [
                    { "tier": "silver", "stem": "Q?", "options": ["gravity", "wind"], "correct": 0, "memo": "", "passage": "P1" },
                    { "tier": "platinum", "stem": "Q?", "options": ["a", "b"], "correct": 0, "memo": "", "passage": "P1" },
                    { "tier": "gold", "stem": "Q?", "options": ["light", "light"], "correct": 5, "memo": "", "passage": "P7" }
                ],
                "drills": [{ "stem": "?", "answer": "sunlight", "passage": "P1" }]
            })),
        )
        .unwrap_err();
        for expected in [
            "anchor:",
            "questions[0].correct: the answer 'gravity' is not in P1",
            "questions[1].tier: 'platinum'",
            "questions[2].options:",
            "questions[2].correct: 5",
            "questions: write a bronze question",
            "drills[0].answer: 'sunlight' is not in P1",
        ] {
            assert!(problems.iter().any(|p| p.starts_with(expected)), "{expected}: {problems:#?}");
        }
    }

    #[test]
    fn an_outline_groups_every_section_once_in_the_order_given() {
        let section = |id: &str, chunk: u128| DraftUnit {
            id: id.into(),
            title: id.into(),
            chunks: vec![SourceChunkId(Uuid::from_u128(chunk))],
            anchor: format!("{id} anchor"),
            effort_minutes: Some(10),
            ..unit()
        };
        let sections = CourseDraft {
            course_id: "PLANTS".into(),
            title: "Plants".into(),
            description: None,
            documents: vec![],
            confusion_tags: vec!["misread_the_material".into()],
            units: vec![section("a", 1), section("b", 2), section("c", 3)],
        };
        let outline = |v: serde_json::Value| serde_json::from_value::<OutlineProposal>(v).unwrap();
        let made = checked_outline(
            &sections,
            &outline(serde_json::json!({ "units": [
                { "title": "Water", "sections": ["S3"] },
                { "title": "Light and leaves", "sections": ["S1", "S2"] }
            ] })),
        )
        .unwrap();
        let units: Vec<(&str, usize, Vec<&str>)> = made
            .units
            .iter()
            .map(|u| (u.id.as_str(), u.chunks.len(), u.prerequisites.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(units, [("water", 1, vec![]), ("light-and-leaves", 2, vec!["water"])]);
        assert_eq!((made.units[1].anchor.as_str(), made.units[1].effort_minutes), ("a anchor", Some(20)));
        let problems = checked_outline(
            &sections,
            &outline(serde_json::json!({ "units": [
                { "title": "Water", "sections": ["S3", "S9"] },
                { "title": "water", "sections": ["S3"] }
            ] })),
        )
        .unwrap_err();
        for expected in [
            "units[0].sections[1]: 'S9'",
            "units[1].title",
            "units[1].sections[0]: S3 is already",
            "units: S1, S2 in no unit",
        ] {
            assert!(problems.iter().any(|p| p.starts_with(expected)), "{expected}: {problems:#?}");
        }
    }
}
