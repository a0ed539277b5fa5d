//! A concept graph written by a language model, tidied before it is checked.
//!
//! Small local models get a graph's shape roughly right and its bookkeeping wrong: they
//! repeat a concept, name a prerequisite they never listed, point an edge back at the root,
//! or leave a concept hanging with no way to it. A person's decomposition with those faults
//! is refused with the reason, so that they can fix it; a model's is mended here in ways
//! that keep what it meant, and then goes through exactly the same checks (`plan`). What
//! cannot be mended this way (a graph too deep, say) is still refused.

use crate::curriculum::{ConceptSpec, Decomposition, EdgeSpec};
use crate::edit::{normalize_label, MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS};
use std::collections::{HashMap, HashSet};

/// Effort given to a concept the model named but did not describe (its root, say).
const UNSTATED_EFFORT_MINUTES: i64 = 15;
/// The bounds an effort is brought into (`check_effort` allows 1-10000; a model's
/// concept of a topic is never a week's work).
const EFFORT_RANGE: (i64, i64) = (5, 600);

/// What tidying changed, for the operator's log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mended {
    pub repeated_concepts: usize,
    pub unnamed_concepts: usize,
    pub root_added: bool,
    pub edges_dropped: usize,
    pub concepts_attached_to_root: usize,
}

impl Mended {
    pub fn is_empty(&self) -> bool {
        *self == Mended::default()
    }
}

/// The graph with repeated and unnamed concepts dropped (the first of each label kept),
/// labels and descriptions cut to their limits, efforts brought into range, the root made a
/// concept (the first) if it was not one, edges that name no concept, repeat one, loop on a
/// concept or lead into the root dropped, every concept no path reached attached to the
/// root, and a goal that names no concept cleared.
pub fn tidy(graph: Decomposition) -> (Decomposition, Mended) {
    let mut mended = Mended::default();
    let root = cut(graph.root.trim(), MAX_LABEL_CHARS);

    let mut nodes: Vec<ConceptSpec> = Vec::new();
    let mut seen = HashSet::new();
    for spec in graph.nodes {
        let label = cut(spec.label.trim(), MAX_LABEL_CHARS);
        if label.is_empty() {
            mended.unnamed_concepts += 1;
            continue;
        }
        if !seen.insert(normalize_label(&label)) {
            mended.repeated_concepts += 1;
            continue;
        }
        let description = spec.description.map(|d| cut(d.trim(), MAX_DESCRIPTION_CHARS)).filter(|d| !d.is_empty());
        let effort_minutes = spec.effort_minutes.clamp(EFFORT_RANGE.0, EFFORT_RANGE.1);
        nodes.push(ConceptSpec { label, description, effort_minutes });
    }
    let root = if root.is_empty() { nodes.first().map(|n| n.label.clone()).unwrap_or_default() } else { root };
    match nodes.iter().position(|n| normalize_label(&n.label) == normalize_label(&root)) {
        Some(at) => {
            let spec = nodes.remove(at);
            nodes.insert(0, spec);
        }
        None if !root.is_empty() => {
            mended.root_added = true;
            nodes.insert(
                0,
                ConceptSpec { label: root.clone(), description: None, effort_minutes: UNSTATED_EFFORT_MINUTES },
            );
        }
        None => {}
    }
    let index: HashMap<String, usize> = nodes.iter().enumerate().map(|(i, n)| (normalize_label(&n.label), i)).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut edges = Vec::new();
    for edge in graph.edges {
        let ends = (index.get(&normalize_label(&edge.parent)), index.get(&normalize_label(&edge.child)));
        let (Some(&parent), Some(&child)) = ends else {
            mended.edges_dropped += 1;
            continue;
        };
        if parent == child || child == 0 || children[parent].contains(&child) {
            mended.edges_dropped += 1;
            continue;
        }
        children[parent].push(child);
        edges.push(EdgeSpec { parent: nodes[parent].label.clone(), child: nodes[child].label.clone(), ..edge });
    }
    if !nodes.is_empty() {
        let reached = reachable_from(&children, 0);
        for (i, node) in nodes.iter().enumerate().skip(1) {
            if !reached.contains(&i) && !reaches(&children, 0, i) {
                children[0].push(i);
                edges.push(EdgeSpec {
                    parent: nodes[0].label.clone(),
                    child: node.label.clone(),
                    edge_type: Default::default(),
                });
                mended.concepts_attached_to_root += 1;
            }
        }
    }
    let goal_node =
        graph.goal_node.and_then(|goal| index.get(&normalize_label(&goal)).map(|&i| nodes[i].label.clone()));
    let root = nodes.first().map(|n| n.label.clone()).unwrap_or(root);
    (Decomposition { root, nodes, edges, goal_node }, mended)
}

/// `text`, cut to at most `chars` characters.
fn cut(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect::<String>().trim_end().to_string()
}

/// Whether a path of edges leads from `from` to `to`.
fn reaches(children: &[Vec<usize>], from: usize, to: usize) -> bool {
    from == to || reachable_from(children, from).contains(&to)
}

fn reachable_from(children: &[Vec<usize>], from: usize) -> HashSet<usize> {
    let mut seen = HashSet::from([from]);
    let mut stack = vec![from];
    while let Some(at) = stack.pop() {
        for &next in &children[at] {
            if seen.insert(next) {
                stack.push(next);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concept(label: &str, effort_minutes: i64) -> ConceptSpec {
        ConceptSpec { label: label.into(), description: Some(format!("About {label}.")), effort_minutes }
    }

    fn edge(parent: &str, child: &str) -> EdgeSpec {
        EdgeSpec { parent: parent.into(), child: child.into(), edge_type: Default::default() }
    }

    fn labels(graph: &Decomposition) -> Vec<&str> {
        graph.nodes.iter().map(|n| n.label.as_str()).collect()
    }

    fn pairs(graph: &Decomposition) -> Vec<(&str, &str)> {
        graph.edges.iter().map(|e| (e.parent.as_str(), e.child.as_str())).collect()
    }

    #[test]
    fn a_sound_graph_is_left_as_it_is() {
        let graph = Decomposition {
            root: "Fractions".into(),
            nodes: vec![concept("Fractions", 20), concept("Halves", 10), concept("Adding fractions", 30)],
            edges: vec![edge("Fractions", "Halves"), edge("Halves", "Adding fractions")],
            goal_node: None,
        };
        let (tidied, mended) = tidy(graph.clone());
        assert_eq!(tidied, graph);
        assert!(mended.is_empty(), "{mended:?}");
    }

    #[test]
    fn repeats_strays_and_loops_are_mended_and_a_cycle_is_left_to_the_checks() {
        let graph = Decomposition {
            root: "Binary numbers".into(),
            nodes: vec![
                concept("Bits", 10),
                concept("bits ", 12),
                concept("Place value", 0),
                concept("  ", 5),
                concept("Counting in binary", 99_999),
                concept("Binary addition", 30),
            ],
            edges: vec![
                edge("Binary numbers", "Bits"),
                edge("Bits", "Bits"),
                edge("Bits", "Counting in binary"),
                edge("Counting in binary", "Bits"),
                edge("Bits", "Counting in Binary"),
                edge("Bits", "Hexadecimal"),
                edge("Place value", "Binary numbers"),
            ],
            goal_node: Some("Hexadecimal".into()),
        };
        let (tidied, mended) = tidy(graph);
        assert_eq!(tidied.root, "Binary numbers");
        assert_eq!(labels(&tidied), ["Binary numbers", "Bits", "Place value", "Counting in binary", "Binary addition"]);
        assert_eq!(tidied.nodes[2].effort_minutes, EFFORT_RANGE.0);
        assert_eq!(tidied.nodes[3].effort_minutes, EFFORT_RANGE.1);
        assert_eq!(
            pairs(&tidied),
            [
                ("Binary numbers", "Bits"),
                ("Bits", "Counting in binary"),
                ("Counting in binary", "Bits"),
                ("Binary numbers", "Place value"),
                ("Binary numbers", "Binary addition")
            ]
        );
        assert_eq!(tidied.goal_node, None);
        assert_eq!(
            mended,
            Mended {
                repeated_concepts: 1,
                unnamed_concepts: 1,
                root_added: true,
                edges_dropped: 4,
                concepts_attached_to_root: 2
            }
        );
    }

    #[test]
    fn the_root_comes_first_and_a_goal_is_matched_by_its_label() {
        let mut nodes: Vec<ConceptSpec> = (1..=4).map(|i| concept(&format!("Concept {i}"), 10)).collect();
        nodes.push(concept("Topic", 10));
        let graph = Decomposition { root: "topic".into(), nodes, edges: vec![], goal_node: Some("concept 3".into()) };
        let (tidied, mended) = tidy(graph);
        assert_eq!(labels(&tidied), ["Topic", "Concept 1", "Concept 2", "Concept 3", "Concept 4"]);
        assert_eq!(tidied.root, "Topic");
        assert_eq!(tidied.goal_node.as_deref(), Some("Concept 3"));
        assert_eq!(mended.concepts_attached_to_root, 4);
    }
}
