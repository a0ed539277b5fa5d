//! A pasted outline as a decomposition: Markdown headings (`#`, `##`, ...) and nested lists
//! (`-`, `*`, `+`, `1.`, `1)`), mixed freely. The first heading or item is the root topic;
//! whatever is nested under an entry needs it first (`parent -> child`, as in every
//! decomposition). A label that appears again is the same concept, so it gains a second
//! prerequisite; repeated inside its own nesting it becomes its own ancestor, a cycle the
//! planning rules refuse like any other.
//!
//! Lines are read one by one rather than as CommonMark: in an outline, deeper indentation
//! means nesting, however deep, whereas CommonMark reads an item indented less than its
//! parent's text as a sibling and one indented four columns past it as more of that text.
//! Text under an entry that is neither a heading nor an item becomes its description, and
//! an entry may end with its effort, as in `Borrowing (45 min)`.
//!
//! The outline is turned into a [`Decomposition`] and checked by exactly the rules every
//! import goes through ([`crate::curriculum::plan`]); [`Outline::locate`] then names the
//! line a refusal comes from.

use crate::curriculum::{ConceptSpec, Decomposition, EdgeSpec};
use crate::edit::{normalize_label, MAX_DESCRIPTION_CHARS};
use crate::DomainError;
use std::collections::HashMap;

/// The effort of a concept whose entry does not give one.
pub const DEFAULT_EFFORT_MINUTES: i64 = 30;

/// The longest outline read, in characters: far more than 30 concepts with descriptions need.
pub const MAX_OUTLINE_CHARS: usize = 100_000;

/// Columns a tab advances to (the next multiple of), as Markdown counts them.
const TAB_STOP: usize = 4;

/// A parsed outline: the decomposition it describes and where each part of it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    pub decomposition: Decomposition,
    /// For each node of the decomposition (same order), where it appears: (line, how many
    /// entries it is nested in).
    node_lines: Vec<Vec<(usize, usize)>>,
    /// For each edge of the decomposition (same order), the line of the nested entry that made it.
    edge_lines: Vec<usize>,
}

/// A refusal, with the outline's line (from 1) it concerns when there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct OutlineError {
    pub line: Option<usize>,
    pub error: DomainError,
}

impl std::fmt::Display for OutlineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = self.line.map_or_else(|| "outline".to_string(), |line| format!("outline line {line}"));
        match &self.error {
            // The reader's own refusals are about the outline already.
            DomainError::Invalid { field, message } if field == "outline" => write!(f, "{place}: {message}"),
            error => write!(f, "{place}: {error}"),
        }
    }
}

impl OutlineError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        OutlineError { line: Some(line), error: DomainError::invalid("outline", message) }
    }
}

/// One line's meaning.
#[derive(Debug, PartialEq)]
enum Line<'a> {
    Heading {
        level: usize,
        text: &'a str,
    },
    Item {
        indent: usize,
        text: &'a str,
    },
    Text(&'a str),
    /// Nothing, or layout: a thematic break or a setext underline.
    Blank,
}

fn classify(line: &str) -> Line<'_> {
    let indent = indentation(line);
    let rest = line.trim_start();
    if rest.is_empty() || is_rule(rest) {
        return Line::Blank;
    }
    if indent < TAB_STOP {
        if let Some(heading) = heading(rest) {
            return heading;
        }
    }
    match item_text(rest) {
        Some(text) => Line::Item { indent, text },
        None => Line::Text(rest.trim_end()),
    }
}

/// Columns of leading whitespace, a tab advancing to the next tab stop.
fn indentation(line: &str) -> usize {
    let mut column = 0;
    for c in line.chars() {
        match c {
            ' ' => column += 1,
            '\t' => column += TAB_STOP - column % TAB_STOP,
            _ => break,
        }
    }
    column
}

/// `# Title`, `## Title ##`: one to six `#` and a space (or nothing after them).
fn heading(rest: &str) -> Option<Line<'_>> {
    let level = rest.chars().take_while(|&c| c == '#').count();
    let after = &rest[level..];
    if !(1..=6).contains(&level) || !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let text = after.trim();
    // A closing sequence of `#`s is not part of the title.
    let text = match text.trim_end_matches('#') {
        stripped if stripped.is_empty() || stripped.ends_with([' ', '\t']) => stripped.trim_end(),
        _ => text,
    };
    Some(Line::Heading { level, text })
}

/// The text of a list item (`- x`, `* x`, `+ x`, `1. x`, `1) x`, a task box dropped), if
/// the line is one.
fn item_text(rest: &str) -> Option<&str> {
    let after_marker = if let Some(after) = rest.strip_prefix(['-', '*', '+']) {
        after
    } else {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        rest[digits..].strip_prefix(['.', ')'])?
    };
    if !(after_marker.is_empty() || after_marker.starts_with([' ', '\t'])) {
        return None;
    }
    let text = after_marker.trim();
    let text = ["[ ]", "[x]", "[X]"]
        .iter()
        .find_map(|task| text.strip_prefix(task).filter(|t| t.is_empty() || t.starts_with(' ')))
        .map_or(text, str::trim_start);
    Some(text)
}

/// A thematic break or a setext underline (`---`, `***`, `===`): layout, not content.
fn is_rule(text: &str) -> bool {
    let marks: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    marks.len() >= 3 && ['-', '*', '_', '='].iter().any(|m| marks.iter().all(|c| c == m))
}

/// `Label (45 min)`: the label and the effort it states, if it states one.
fn split_effort(text: &str) -> (&str, Option<i64>) {
    let Some(open) = text.strip_suffix(')').and_then(|t| t.rfind('(').map(|at| (at, t))) else {
        return (text, None);
    };
    let (at, without_paren) = open;
    let inside = without_paren[at + 1..].trim();
    let digits = inside.chars().take_while(char::is_ascii_digit).count();
    let unit = inside[digits..].trim();
    if digits == 0 || !["m", "min", "mins", "minute", "minutes"].contains(&unit) {
        return (text, None);
    }
    match inside[..digits].parse() {
        Ok(minutes) => (text[..at].trim_end(), Some(minutes)),
        Err(_) => (text, None),
    }
}

/// The outline being read: concepts by label, nesting by heading level and indentation.
#[derive(Default)]
struct Reader {
    nodes: Vec<ConceptSpec>,
    descriptions: Vec<Vec<String>>,
    node_lines: Vec<Vec<(usize, usize)>>,
    by_label: HashMap<String, usize>,
    edges: Vec<EdgeSpec>,
    edge_lines: Vec<usize>,
    /// Open headings: (level, node).
    headings: Vec<(usize, usize)>,
    /// Open list items under the current heading: (indentation, node).
    items: Vec<(usize, usize)>,
    /// The entry that text lines describe.
    last: Option<usize>,
}

impl Reader {
    /// Add an entry under `parent` (none only for the root).
    fn entry(&mut self, line: usize, text: &str, parent: Option<usize>) -> Result<usize, OutlineError> {
        let (label, effort) = split_effort(text);
        if label.is_empty() {
            return Err(OutlineError::at(line, "this heading or item has no text; write the concept's name"));
        }
        if parent.is_none() && !self.nodes.is_empty() {
            return Err(OutlineError::at(
                line,
                format!(
                    "'{label}' is a second top-level entry, and an outline has one root, its first heading or item \
                     ('{}'); nest it under the root",
                    self.nodes[0].label
                ),
            ));
        }
        let node = match self.by_label.get(&normalize_label(label)) {
            Some(&known) => {
                if let Some(effort) = effort {
                    self.nodes[known].effort_minutes = effort;
                }
                known
            }
            None => {
                self.nodes.push(ConceptSpec {
                    label: label.to_string(),
                    description: None,
                    effort_minutes: effort.unwrap_or(DEFAULT_EFFORT_MINUTES),
                });
                self.descriptions.push(Vec::new());
                self.node_lines.push(Vec::new());
                self.by_label.insert(normalize_label(label), self.nodes.len() - 1);
                self.nodes.len() - 1
            }
        };
        let nesting = self.headings.len() + self.items.len();
        self.node_lines[node].push((line, nesting));
        if let Some(parent) = parent {
            let (parent, child) = (self.nodes[parent].label.clone(), self.nodes[node].label.clone());
            // The same nesting written twice is one prerequisite.
            if !self.edges.iter().any(|e| e.parent == parent && e.child == child) {
                self.edges.push(EdgeSpec { parent, child, edge_type: Default::default() });
                self.edge_lines.push(line);
            }
        }
        self.last = Some(node);
        Ok(node)
    }

    fn heading(&mut self, line: usize, level: usize, text: &str) -> Result<(), OutlineError> {
        while self.headings.last().is_some_and(|&(open, _)| open >= level) {
            self.headings.pop();
        }
        self.items.clear();
        let parent = self.headings.last().map(|&(_, node)| node);
        let node = self.entry(line, text, parent)?;
        self.headings.push((level, node));
        Ok(())
    }

    fn item(&mut self, line: usize, indent: usize, text: &str) -> Result<(), OutlineError> {
        while self.items.last().is_some_and(|&(open, _)| open >= indent) {
            self.items.pop();
        }
        let parent = self.items.last().or(self.headings.last()).map(|&(_, node)| node);
        let node = self.entry(line, text, parent)?;
        self.items.push((indent, node));
        Ok(())
    }

    fn text(&mut self, line: usize, text: &str) -> Result<(), OutlineError> {
        let Some(node) = self.last else {
            // Words before the first entry (an introduction) describe nothing.
            return Ok(());
        };
        let description = &mut self.descriptions[node];
        description.push(text.to_string());
        let length: usize = description.iter().map(|d| d.chars().count() + 1).sum();
        if length > MAX_DESCRIPTION_CHARS + 1 {
            return Err(OutlineError::at(
                line,
                format!(
                    "the text under '{}' is longer than a description may be ({MAX_DESCRIPTION_CHARS} characters)",
                    self.nodes[node].label
                ),
            ));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Outline, OutlineError> {
        if self.nodes.is_empty() {
            return Err(OutlineError {
                line: None,
                error: DomainError::invalid(
                    "outline",
                    "no heading or list item was found; write the topic as the first heading (`# Topic`) or item \
                     (`- Topic`) and nest its concepts under it",
                ),
            });
        }
        for (node, lines) in self.nodes.iter_mut().zip(&self.descriptions) {
            if !lines.is_empty() {
                node.description = Some(lines.join(" "));
            }
        }
        Ok(Outline {
            decomposition: Decomposition {
                root: self.nodes[0].label.clone(),
                nodes: self.nodes,
                edges: self.edges,
                goal_node: None,
            },
            node_lines: self.node_lines,
            edge_lines: self.edge_lines,
        })
    }
}

/// Read an outline. Its structure is checked here only as far as reading needs (one root,
/// entries with text); the rules of a map (limits, cycles) are the planning's, and
/// [`Outline::locate`] places their refusals.
pub fn parse(text: &str) -> Result<Outline, OutlineError> {
    let length = text.chars().count();
    if length > MAX_OUTLINE_CHARS {
        return Err(OutlineError {
            line: None,
            error: DomainError::invalid(
                "outline",
                format!("{length} characters; an outline may have at most {MAX_OUTLINE_CHARS}"),
            ),
        });
    }
    let mut reader = Reader::default();
    let mut fence: Option<&str> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim_start();
        // Code blocks are examples, not concepts.
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = Some(marker);
            continue;
        }
        match classify(raw) {
            Line::Heading { level, text } => reader.heading(line, level, text)?,
            Line::Item { indent, text } => reader.item(line, indent, text)?,
            Line::Text(text) => reader.text(line, text)?,
            Line::Blank => {}
        }
    }
    reader.finish()
}

impl Outline {
    /// `error`, refused by the planning rules for this outline's decomposition, with the
    /// line it comes from: where a cycle closes, where the node too deep or one too many is
    /// written, where the entry with a field at fault is.
    pub fn locate(&self, error: DomainError) -> OutlineError {
        let line = match &error {
            DomainError::Cycle { path } => path.windows(2).filter_map(|step| self.edge_line(&step[0], &step[1])).max(),
            DomainError::SelfLoop { label } => self.edge_line(label, label),
            // Where the node is nested deepest, which is where its path grew too long.
            DomainError::DepthExceeded { label, .. } => self.node_index(label).and_then(|i| {
                let deepest = self.node_lines[i].iter().map(|&(_, nesting)| nesting).max()?;
                self.node_lines[i].iter().find(|&&(_, nesting)| nesting == deepest).map(|&(line, _)| line)
            }),
            DomainError::TooManyNodes { max, .. } => self.first_line(*max),
            DomainError::Invalid { field, .. } => field
                .strip_prefix("nodes[")
                .and_then(|rest| rest.split_once(']'))
                .and_then(|(index, _)| index.parse::<usize>().ok())
                .and_then(|i| self.first_line(i)),
            _ => None,
        };
        OutlineError { line, error }
    }

    fn first_line(&self, node: usize) -> Option<usize> {
        self.node_lines.get(node)?.first().map(|&(line, _)| line)
    }

    fn node_index(&self, label: &str) -> Option<usize> {
        let wanted = normalize_label(label);
        self.decomposition.nodes.iter().position(|n| normalize_label(&n.label) == wanted)
    }

    fn edge_line(&self, parent: &str, child: &str) -> Option<usize> {
        let (parent, child) = (normalize_label(parent), normalize_label(child));
        self.decomposition
            .edges
            .iter()
            .zip(&self.edge_lines)
            .find(|(e, _)| normalize_label(&e.parent) == parent && normalize_label(&e.child) == child)
            .map(|(_, &line)| line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curriculum::plan;
    use crate::graph::GraphLimits;
    use crate::lifecycle::new_map;
    use crate::model::{MapAggregate, Metadata};
    use crate::ErrorCode;
    use crate::{LearnerId, MindMapId};
    use chrono::{TimeZone, Utc};
    use uuid::Uuid;

    fn edges(outline: &Outline) -> Vec<(String, String)> {
        outline.decomposition.edges.iter().map(|e| (e.parent.clone(), e.child.clone())).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(p, c)| (p.to_string(), c.to_string())).collect()
    }

    fn labels(outline: &Outline) -> Vec<&str> {
        outline.decomposition.nodes.iter().map(|n| n.label.as_str()).collect()
    }

    /// The outline planned as every import is; the refusal placed on its line.
    fn planned(text: &str) -> Result<MapAggregate, OutlineError> {
        let outline = parse(text)?;
        let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
        let map = new_map(MindMapId(Uuid::nil()), LearnerId(Uuid::nil()), "Outline", Metadata::new(), now).unwrap();
        let mut agg = MapAggregate { map, nodes: Vec::new(), edges: Vec::new() };
        let mut next = 0u128;
        let new_id = || {
            next += 1;
            crate::NodeId(Uuid::from_u128(next))
        };
        plan(&mut agg, &outline.decomposition, None, &[], new_id, now, GraphLimits::SINGLE_TOPIC)
            .map_err(|e| outline.locate(e))?;
        Ok(agg)
    }

    #[test]
    fn headings_nest_by_level_and_the_first_is_the_root() {
        let outline = parse("# Rust\n## Ownership\n### Borrowing\n## Traits ##\n#### Generics\n").unwrap();
        assert_eq!(outline.decomposition.root, "Rust");
        assert_eq!(labels(&outline), ["Rust", "Ownership", "Borrowing", "Traits", "Generics"]);
        assert_eq!(
            edges(&outline),
            pairs(&[("Rust", "Ownership"), ("Ownership", "Borrowing"), ("Rust", "Traits"), ("Traits", "Generics")])
        );
        assert!(outline.decomposition.nodes.iter().all(|n| n.effort_minutes == DEFAULT_EFFORT_MINUTES));
    }

    #[test]
    fn nested_lists_of_every_marker_nest_by_indentation() {
        let text = "- Algebra\n  * Expressions\n    1. Terms\n    2) Factors\n  + Equations\n";
        let outline = parse(text).unwrap();
        assert_eq!(
            edges(&outline),
            pairs(&[
                ("Algebra", "Expressions"),
                ("Expressions", "Terms"),
                ("Expressions", "Factors"),
                ("Algebra", "Equations"),
            ])
        );
    }

    #[test]
    fn lists_under_headings_hang_from_the_heading() {
        let text = "# Rust\nAn introduction nobody needs.\n- Ownership\n  - Borrowing\n## Traits\n- Generics\n";
        let outline = parse(text).unwrap();
        assert_eq!(
            edges(&outline),
            pairs(&[("Rust", "Ownership"), ("Ownership", "Borrowing"), ("Rust", "Traits"), ("Traits", "Generics")])
        );
    }

    #[test]
    fn tabs_and_spaces_mixed_nest_by_the_column_they_reach() {
        // A tab reaches column 4, as four spaces do; two spaces are less deep than either.
        let text =
            "- Root\n\t- Tabbed\n    - Under tabbed? no, a sibling at the same column\n  - Shallow\n\t\t- Deep\n";
        let outline = parse(text).unwrap();
        assert_eq!(
            edges(&outline),
            pairs(&[
                ("Root", "Tabbed"),
                ("Root", "Under tabbed? no, a sibling at the same column"),
                ("Root", "Shallow"),
                ("Shallow", "Deep"),
            ])
        );
        // Uneven steps: whatever is deeper than the open item is its child.
        let uneven = parse("- A\n   - B\n - C\n      - D\n").unwrap();
        assert_eq!(edges(&uneven), pairs(&[("A", "B"), ("A", "C"), ("C", "D")]));
    }

    #[test]
    fn blank_lines_rules_and_code_blocks_are_layout() {
        let text = "\n\n# Topic\n\n---\n\n- One\n\n\n  - Two\n```\n- Not a concept\n```\n***\n- Three\n";
        let outline = parse(text).unwrap();
        assert_eq!(labels(&outline), ["Topic", "One", "Two", "Three"]);
        assert_eq!(edges(&outline), pairs(&[("Topic", "One"), ("One", "Two"), ("Topic", "Three")]));
    }

    #[test]
    fn text_under_an_entry_describes_it_and_an_effort_may_close_it() {
        let text = "# Rust (10 min)\nA systems language.\n- Ownership (45 minutes)\n  Who frees what,\n  and when.\n- [x] Traits (1 m)\n- Tuples (soon)\n";
        let outline = parse(text).unwrap();
        let nodes = &outline.decomposition.nodes;
        assert_eq!(labels(&outline), ["Rust", "Ownership", "Traits", "Tuples (soon)"]);
        assert_eq!(nodes.iter().map(|n| n.effort_minutes).collect::<Vec<_>>(), [10, 45, 1, DEFAULT_EFFORT_MINUTES]);
        assert_eq!(nodes[0].description.as_deref(), Some("A systems language."));
        assert_eq!(nodes[1].description.as_deref(), Some("Who frees what, and when."));
        assert_eq!(nodes[2].description, None);
    }

    #[test]
    fn a_repeated_label_is_one_concept_with_a_prerequisite_from_each_place() {
        let text = "# Web\n## HTTP\n- Requests\n## HTML\n- Forms\n  - requests\n- Forms\n";
        let outline = parse(text).unwrap();
        assert_eq!(labels(&outline), ["Web", "HTTP", "Requests", "HTML", "Forms"]);
        assert_eq!(
            edges(&outline),
            pairs(&[("Web", "HTTP"), ("HTTP", "Requests"), ("Web", "HTML"), ("HTML", "Forms"), ("Forms", "Requests")])
        );
        let agg = planned(text).expect("a DAG with a shared concept plans");
        assert_eq!(agg.nodes.len(), 5);
    }

    #[test]
    fn an_empty_outline_and_entries_without_text_are_refused() {
        for empty in ["", "\n  \n", "Just prose, no entries.\n\nMore prose.", "---\n```\n- inside a fence\n```"] {
            let refused = parse(empty).expect_err(empty);
            assert_eq!(refused.line, None, "{empty:?}");
            assert!(refused.to_string().contains("no heading or list item"), "{refused}");
        }
        let refused = parse("# Topic\n-\n").unwrap_err();
        assert_eq!(refused.line, Some(2));
        assert!(refused.to_string().starts_with("outline line 2: this heading or item has no text"), "{refused}");
        assert_eq!(parse("# Topic\n## (20 min)\n").unwrap_err().line, Some(2));
    }

    #[test]
    fn a_second_top_level_entry_is_refused_on_its_line() {
        let refused = parse("- Rust\n  - Ownership\n- Traits\n").unwrap_err();
        assert_eq!(refused.line, Some(3));
        assert!(refused.to_string().contains("'Traits' is a second top-level entry"), "{refused}");
        assert!(refused.to_string().contains("('Rust')"), "{refused}");
        assert_eq!(parse("# A\n# B\n").unwrap_err().line, Some(2));
        assert_eq!(parse("## A\n# B\n").unwrap_err().line, Some(2));
    }

    #[test]
    fn a_label_repeated_inside_itself_is_a_cycle_on_the_line_that_closes_it() {
        let text = "# Rust\n## Ownership\n- Borrowing\n  - Lifetimes\n    - ownership\n";
        let refused = planned(text).unwrap_err();
        assert_eq!(refused.error.code(), ErrorCode::Cycle);
        assert_eq!(refused.line, Some(5));
        let DomainError::Cycle { path } = &refused.error else { panic!("{refused}") };
        assert_eq!(path.first(), path.last());
        assert_eq!(path.len(), 4, "{path:?}");
        assert!(refused.to_string().starts_with("outline line 5: cycle: "), "{refused}");
        // Directly under itself: a self-loop.
        let refused = planned("- A\n  - B\n    - b\n").unwrap_err();
        assert_eq!((refused.error.code(), refused.line), (ErrorCode::SelfLoop, Some(3)));
    }

    #[test]
    fn more_than_thirty_concepts_are_refused_on_the_thirty_first() {
        let mut text = String::from("# Topic\n");
        for i in 1..=30 {
            text.push_str(&format!("- Concept {i}\n"));
        }
        let refused = planned(&text).unwrap_err();
        assert_eq!(refused.error, DomainError::TooManyNodes { count: 31, max: 30 });
        assert_eq!(refused.line, Some(31), "the root is line 1, the 31st concept line 31");
        assert_eq!(refused.error.code(), ErrorCode::MaxNodes);
    }

    #[test]
    fn deeper_than_five_is_refused_on_the_line_of_the_deepest_concept() {
        let text = "# L0\n## L1\n### L2\n#### L3\n##### L4\n###### L5\n- L6\n";
        let refused = planned(text).unwrap_err();
        assert_eq!(refused.error.code(), ErrorCode::MaxDepth);
        assert_eq!(refused.line, Some(7));
        planned("# L0\n## L1\n### L2\n#### L3\n##### L4\n###### L5\n").expect("depth 5 is allowed");
    }

    #[test]
    fn an_effort_or_label_the_rules_refuse_is_placed_on_its_line() {
        let refused = planned("# Topic\n- Fine\n- Idle (0 min)\n").unwrap_err();
        assert_eq!(refused.line, Some(3));
        assert!(refused.to_string().contains("nodes[2].effort_minutes"), "{refused}");
        let long = format!("# Topic\n\n- {}\n", "x".repeat(201));
        assert_eq!(planned(&long).unwrap_err().line, Some(3));
    }

    #[test]
    fn text_too_long_for_a_description_and_outlines_too_long_are_refused() {
        let text = format!("# Topic\n{}\n{}\n", "a".repeat(3_000), "b".repeat(3_000));
        assert_eq!(parse(&text).unwrap_err().line, Some(3));
        let huge = "x".repeat(MAX_OUTLINE_CHARS + 1);
        assert!(parse(&huge).unwrap_err().to_string().contains("at most 100000"));
    }

    #[test]
    fn a_well_formed_outline_plans_into_an_active_map_ordered_by_prerequisites() {
        let agg = planned("# Rust\n- Ownership\n  - Borrowing\n- Traits\n").unwrap();
        assert_eq!(agg.map.status, crate::MapStatus::Active);
        let depth = |label: &str| agg.nodes.iter().find(|n| n.label == label).unwrap().depth;
        assert_eq!((depth("Rust"), depth("Ownership"), depth("Borrowing"), depth("Traits")), (0, 1, 2, 1));
    }

    #[test]
    fn hashes_without_a_space_and_numbers_without_a_marker_are_text() {
        let outline = parse("# Topic\n#hashtag\n2024 was a year\n- Item\n").unwrap();
        assert_eq!(labels(&outline), ["Topic", "Item"]);
        assert_eq!(outline.decomposition.nodes[0].description.as_deref(), Some("#hashtag 2024 was a year"));
    }
}
