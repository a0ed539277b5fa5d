//! The context block each teaching step is given (D3): the flow's state, the map's
//! progress and frontier, the concept at hand with its prerequisites, and the latest
//! responses. Bounded lists keep it small however large the map or long the history, so a
//! step's prompt stays well under its token budget.

use pathwise_domain::flow::Flow;
use pathwise_domain::model::{MapAggregate, Node, QuizResponse};
use pathwise_domain::{MasteryStatus, NodeId};
use std::fmt::Write;

/// Frontier concepts listed, in learning order.
const FRONTIER_SHOWN: usize = 5;
/// Latest responses listed.
const RESPONSES_SHOWN: usize = 8;
/// Descriptions are cut to this many characters.
const DESCRIPTION_CHARS: usize = 240;

pub(crate) fn context_block(
    flow: &Flow,
    map: &MapAggregate,
    frontier: &[Node],
    recent: &[QuizResponse],
    focus: Option<NodeId>,
) -> String {
    let mut out = String::new();
    let mastered = map.nodes.iter().filter(|n| n.mastery_status == MasteryStatus::Mastered).count();
    let _ = writeln!(out, "## Learner and flow");
    let _ = writeln!(out, "Topic: {}", flow.topic);
    if let Some(goal) = &flow.goal {
        let _ = writeln!(out, "Goal: {goal}");
    }
    let _ = writeln!(
        out,
        "Flow: {} (session {}), progress {mastered} of {} concepts mastered.",
        flow.status,
        flow.session_count + 1,
        map.nodes.len()
    );
    if let Some(node) = focus.and_then(|id| map.node(id)) {
        let _ = writeln!(out, "\n## Concept at hand\n{}", describe(node));
        let prerequisites: Vec<String> = map
            .edges
            .iter()
            .filter(|e| e.child_node_id == node.id)
            .filter_map(|e| map.node(e.parent_node_id))
            .map(|p| format!("{} ({})", p.label, p.mastery_status))
            .collect();
        if !prerequisites.is_empty() {
            let _ = writeln!(out, "Prerequisites: {}", prerequisites.join(", "));
        }
    }
    let next: Vec<String> = frontier.iter().take(FRONTIER_SHOWN).map(|n| n.label.clone()).collect();
    if !next.is_empty() {
        let _ = writeln!(out, "\n## Frontier (next to learn, in order)\n{}", next.join("; "));
    }
    if !recent.is_empty() {
        let _ = writeln!(out, "\n## Latest responses (newest first)");
        for response in recent.iter().take(RESPONSES_SHOWN) {
            let label = map.node(response.node_id).map_or("?", |n| n.label.as_str());
            let _ = writeln!(out, "- {label}: {} quality {}/5", response.response_type, response.quality);
        }
    }
    out
}

fn describe(node: &Node) -> String {
    let mut text = format!(
        "{} — status {}, mastery {:.2}, {} repetitions",
        node.label, node.mastery_status, node.mastery_score, node.repetitions
    );
    if let Some(description) = &node.description {
        let cut: String = description.chars().take(DESCRIPTION_CHARS).collect();
        let _ = write!(text, "\n{cut}");
    }
    text
}
