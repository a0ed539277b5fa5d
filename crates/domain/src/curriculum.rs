//! The deterministic half of curriculum planning: validating a decomposition, seeding it
//! from a diagnostic, scoping it to a goal, the learning order, re-planning and next-node.

use crate::edit::{self, check_effort, normalize_label, NewNode, MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS};
use crate::graph::{recompute_depths, GraphLimits, Prerequisites, ANKI_DECK_KEY, COURSE_KEY};
use crate::lifecycle::{clean_text, require_active};
use crate::mastery::SKIPPABLE_SCORE;
use crate::model::{Edge, MapAggregate, Metadata, MindMap, Node};
pub use crate::order::{assign_sequence, learning_order};
use crate::status::{EdgeType, MapStatus, MasteryStatus};
use crate::{DomainError, MindMapId, NodeId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use utoipa::ToSchema;

/// A topic broken into concepts, as a model (or a person) writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Decomposition {
    /// Label of the node that stands for the topic itself; everything is reachable from it.
    pub root: String,
    #[schema(min_items = 1)]
    pub nodes: Vec<ConceptSpec>,
    #[serde(default)]
    pub edges: Vec<EdgeSpec>,
    /// With a goal: the label of the concept that achieves it. Nodes that are not on its
    /// prerequisite path are marked optional and ordered after the critical path.
    #[serde(default)]
    pub goal_node: Option<String>,
}

/// How a goal and a decomposition's `goal_node` go together: both or neither (a blank goal
/// is none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalFit<'a> {
    Both { goal: &'a str, goal_node: &'a str },
    Neither,
    GoalWithoutNode { goal: &'a str },
    NodeWithoutGoal,
}

impl Decomposition {
    pub fn goal_fit<'a>(&'a self, goal: Option<&'a str>) -> GoalFit<'a> {
        match (goal.map(str::trim).filter(|g| !g.is_empty()), self.goal_node.as_deref()) {
            (Some(goal), Some(goal_node)) => GoalFit::Both { goal, goal_node },
            (Some(goal), None) => GoalFit::GoalWithoutNode { goal },
            (None, Some(_)) => GoalFit::NodeWithoutGoal,
            (None, None) => GoalFit::Neither,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConceptSpec {
    #[schema(min_length = 1, max_length = 200)]
    pub label: String,
    #[serde(default)]
    #[schema(max_length = 4000)]
    pub description: Option<String>,
    /// Estimated minutes to learn; a positive whole number.
    #[schema(minimum = 1, maximum = 10000)]
    pub effort_minutes: i64,
}

/// `parent -> child`: the parent is a prerequisite of the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdgeSpec {
    pub parent: String,
    pub child: String,
    #[serde(default)]
    pub edge_type: EdgeType,
}

/// What a diagnostic found about one concept, matched to nodes by label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct DiagnosticResult {
    pub node_label: String,
    /// 0-5; 3 or more seeds the node as `diagnosed`.
    #[schema(minimum = 0, maximum = 5)]
    pub quality: i64,
}

/// The mastery score a diagnostic quality seeds: conservative, never full mastery.
pub fn diagnostic_seed_score(quality: u8) -> f64 {
    (0.9 * f64::from(quality) / 5.0).clamp(0.3, 0.9)
}

/// Seed nodes from diagnostic results: quality >= 3 gives `diagnosed` with a conservative
/// score; lower quality leaves the node `unseen` at 0. Unmatched labels are ignored.
pub fn seed_diagnostics(nodes: &mut [Node], results: &[DiagnosticResult]) -> Result<(), DomainError> {
    for (i, result) in results.iter().enumerate() {
        if !(0..=5).contains(&result.quality) {
            return Err(DomainError::invalid(
                format!("diagnostic_results[{i}].quality"),
                format!("{} is out of range; quality is an integer from 0 to 5", result.quality),
            ));
        }
    }
    for result in results {
        let wanted = normalize_label(&result.node_label);
        let Some(node) = nodes.iter_mut().find(|n| normalize_label(&n.label) == wanted) else {
            continue;
        };
        if node.mastery_status != MasteryStatus::Unseen && node.mastery_status != MasteryStatus::Diagnosed {
            continue;
        }
        if result.quality >= i64::from(crate::mastery::Quality::PASS.value()) {
            node.mastery_status = MasteryStatus::Diagnosed;
            node.mastery_score = diagnostic_seed_score(result.quality as u8);
        } else {
            node.mastery_status = MasteryStatus::Unseen;
            node.mastery_score = 0.0;
        }
    }
    Ok(())
}

/// Turn a validated decomposition into the nodes and edges of a draft, empty map, seed it,
/// scope it to the goal, order it and make it active. Any broken rule rejects the whole.
pub fn plan(
    agg: &mut MapAggregate,
    decomposition: &Decomposition,
    goal: Option<&str>,
    diagnostics: &[DiagnosticResult],
    mut new_id: impl FnMut() -> NodeId,
    now: DateTime<Utc>,
    limits: GraphLimits,
) -> Result<(), DomainError> {
    if agg.map.status != MapStatus::Draft || !agg.nodes.is_empty() {
        return Err(DomainError::Conflict {
            message: format!(
                "plan: a decomposition is planned into an empty draft map; this map is {} with {} nodes (use replan to change a plan)",
                agg.map.status,
                agg.nodes.len()
            ),
        });
    }
    if decomposition.nodes.is_empty() {
        return Err(DomainError::invalid("nodes", "a decomposition needs at least the root node"));
    }
    limits.check_node_count(decomposition.nodes.len())?;

    let mut by_label: HashMap<String, NodeId> = HashMap::new();
    for (i, spec) in decomposition.nodes.iter().enumerate() {
        let label = clean_text(&format!("nodes[{i}].label"), &spec.label, MAX_LABEL_CHARS)?;
        let effort = check_effort(&format!("nodes[{i}].effort_minutes"), spec.effort_minutes)?;
        let id = new_id();
        if by_label.insert(normalize_label(&label), id).is_some() {
            return Err(DomainError::DuplicateLabel { label });
        }
        let description = match spec.description.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(clean_text(&format!("nodes[{i}].description"), text, MAX_DESCRIPTION_CHARS)?),
        };
        agg.nodes.push(Node::new(id, agg.map.id, label, description, Some(effort), Metadata::new(), now));
    }
    let lookup = |field: String, label: &str| {
        by_label.get(&normalize_label(label)).copied().ok_or_else(|| {
            DomainError::invalid(field, format!("'{label}' is not the label of a node in this decomposition"))
        })
    };
    let root = lookup("root".into(), &decomposition.root)?;
    agg.map.root_node_id = Some(root);

    let mut pairs = HashSet::new();
    for (i, spec) in decomposition.edges.iter().enumerate() {
        let parent = lookup(format!("edges[{i}].parent"), &spec.parent)?;
        let child = lookup(format!("edges[{i}].child"), &spec.child)?;
        if parent == child {
            return Err(DomainError::SelfLoop { label: agg.label_of(parent) });
        }
        if !pairs.insert((parent, child)) {
            return Err(DomainError::DuplicateEdge { parent: agg.label_of(parent), child: agg.label_of(child) });
        }
        agg.edges.push(Edge {
            mind_map_id: agg.map.id,
            parent_node_id: parent,
            child_node_id: child,
            edge_type: spec.edge_type,
            created_at: now,
        });
    }
    if let Some(cycle) = Prerequisites::of(agg).find_cycle() {
        return Err(DomainError::Cycle { path: cycle.iter().map(|&i| agg.nodes[i].label.clone()).collect() });
    }
    recompute_depths(agg, limits)?;

    match decomposition.goal_fit(goal) {
        GoalFit::Both { goal, goal_node } => {
            let goal_node = lookup("goal_node".into(), goal_node)?;
            agg.map.metadata.insert("goal".into(), Value::String(goal.to_string()));
            mark_off_path_optional(agg, goal_node);
        }
        GoalFit::GoalWithoutNode { .. } => {
            return Err(DomainError::invalid(
                "goal_node",
                "with a goal, the decomposition must name the concept that achieves it (goal_node), so that off-path nodes can be marked optional",
            ))
        }
        GoalFit::NodeWithoutGoal => return Err(DomainError::invalid("goal", "goal_node was given without a goal")),
        GoalFit::Neither => {}
    }
    seed_diagnostics(&mut agg.nodes, diagnostics)?;
    agg.map.status = MapStatus::Active;
    agg.map.updated_at = now;
    assign_sequence(agg);
    Ok(())
}

/// What to do when the learner already has a map for the topic of a new one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnExisting {
    /// Refuse (`map_exists`, naming the map): nothing is duplicated unless asked for.
    #[default]
    Refuse,
    /// Make a new map beside the existing one.
    New,
    /// Delete the existing map, with the progress recorded on it, and make this one instead.
    Replace,
}

impl OnExisting {
    pub const ALL: [OnExisting; 3] = [OnExisting::Refuse, OnExisting::New, OnExisting::Replace];

    pub fn as_str(self) -> &'static str {
        match self {
            OnExisting::Refuse => "refuse",
            OnExisting::New => "new",
            OnExisting::Replace => "replace",
        }
    }
}

impl std::fmt::Display for OnExisting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for OnExisting {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OnExisting::ALL.into_iter().find(|o| o.as_str() == text.trim()).ok_or_else(|| {
            format!("'{text}' is not allowed; allowed: {}", OnExisting::ALL.map(OnExisting::as_str).join(", "))
        })
    }
}

/// The learner's map that a new map titled `title` would repeat: the newest one with the
/// same title (case and surrounding spaces aside), unless it was abandoned (a topic given
/// up may be started afresh) or is a course's map (the tutor's, whatever its title) or an
/// Anki deck's (the learner's own cards, kept beside any map of the topic).
pub fn same_topic<'a>(maps: &'a [MindMap], title: &str) -> Option<&'a MindMap> {
    let wanted = normalize_label(title);
    maps.iter()
        .filter(|m| {
            m.status != MapStatus::Abandoned
                && !m.metadata.contains_key(COURSE_KEY)
                && !m.metadata.contains_key(ANKI_DECK_KEY)
        })
        .filter(|m| normalize_label(&m.title) == wanted)
        .max_by_key(|m| (m.created_at, m.id))
}

/// Whether a new map titled `title` may join the learner's `maps`, and which map it
/// replaces (to be deleted in the same transaction) when the learner asked for that.
pub fn place_new_map(maps: &[MindMap], title: &str, on_existing: OnExisting) -> Result<Option<MindMapId>, DomainError> {
    match (same_topic(maps, title), on_existing) {
        (None, _) | (Some(_), OnExisting::New) => Ok(None),
        (Some(existing), OnExisting::Replace) => Ok(Some(existing.id)),
        (Some(existing), OnExisting::Refuse) => Err(DomainError::MapExists {
            id: existing.id.to_string(),
            title: existing.title.clone(),
            status: existing.status,
        }),
    }
}

/// Nodes that are not the goal or one of its prerequisites (transitively) become optional.
fn mark_off_path_optional(agg: &mut MapAggregate, goal: NodeId) {
    let graph = Prerequisites::of(agg);
    let mut on_path = vec![false; graph.len()];
    let mut stack = vec![graph.position(goal).expect("goal node is in the map")];
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut on_path[i], true) {
            stack.extend_from_slice(graph.parents(i));
        }
    }
    for (node, critical) in agg.nodes.iter_mut().zip(on_path) {
        if !critical {
            node.metadata.insert("optional".into(), Value::Bool(true));
        }
    }
}

/// A concept a re-plan adds, typically a missing prerequisite of struggling nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct AddedConcept {
    pub node: NewNode,
    /// Existing nodes that need the new concept first.
    pub prerequisite_of: Vec<NodeId>,
}

/// Re-plan an active map: add concepts if asked, mark mastered nodes with a score of at
/// least 0.9 skippable, and recompute the sequence. The existing structure stays; on a
/// stable map nothing changes.
pub fn replan(
    agg: &mut MapAggregate,
    added: Vec<AddedConcept>,
    now: DateTime<Utc>,
    limits: GraphLimits,
) -> Result<(), DomainError> {
    require_active(&agg.map, "curriculum_replan")?;
    for concept in added {
        let id = concept.node.id;
        let mut node = concept.node;
        if node.prerequisite_ids.is_empty() {
            // A concept with no stated prerequisite hangs from the topic itself.
            node.prerequisite_ids.extend(agg.map.root_node_id);
        }
        edit::add_node(agg, node, now, limits)?;
        for child in concept.prerequisite_of {
            edit::add_edge(agg, id, child, EdgeType::Prerequisite, now, limits)?;
        }
    }
    for node in &mut agg.nodes {
        if node.mastery_status == MasteryStatus::Mastered
            && node.mastery_score >= SKIPPABLE_SCORE
            && !node.is_skippable()
        {
            node.metadata.insert("skippable".into(), Value::Bool(true));
        }
    }
    assign_sequence(agg);
    Ok(())
}

/// The concept to study next: the frontier node with the lowest sequence (critical-path
/// nodes before optional ones), if the map is active.
pub fn next_node(agg: &MapAggregate) -> Option<&Node> {
    if agg.map.status != MapStatus::Active {
        return None;
    }
    crate::graph::frontier(agg).into_iter().next()
}

/// Stamp `updated_at` on whatever an operation changed, and nothing else.
pub fn touch_changed(before: &MapAggregate, after: &mut MapAggregate, now: DateTime<Utc>) {
    let old: HashMap<NodeId, &Node> = before.nodes.iter().map(|n| (n.id, n)).collect();
    for node in &mut after.nodes {
        if let Some(previous) = old.get(&node.id) {
            if *previous != node {
                node.updated_at = now;
            }
        }
    }
    if before.map != after.map {
        after.map.updated_at = now;
    }
}
