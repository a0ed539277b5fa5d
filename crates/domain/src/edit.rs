//! Editing a map's graph node by node and edge by edge, with every structural rule
//! checked against the whole map before anything is stored.

use crate::graph::{recompute_depths, GraphLimits, Prerequisites};
use crate::lifecycle::{self, clean_text, require_editable};
use crate::mastery::check_manual_transition;
use crate::model::{Edge, MapAggregate, Metadata, Node};
use crate::status::{EdgeType, MapStatus, MasteryStatus};
use crate::{DomainError, NodeId};
use chrono::{DateTime, Utc};
use serde_json::Value;

pub const MAX_LABEL_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 4_000;

/// A concept to add to a map.
#[derive(Debug, Clone, PartialEq)]
pub struct NewNode {
    pub id: NodeId,
    pub label: String,
    pub description: Option<String>,
    pub effort_minutes: Option<i64>,
    /// Nodes this one needs first. Empty only for the first node, which becomes the root.
    pub prerequisite_ids: Vec<NodeId>,
    pub metadata: Metadata,
}

/// Changes to a node's own fields; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodePatch {
    pub label: Option<String>,
    pub description: Option<String>,
    pub effort_minutes: Option<i64>,
    /// Keys to set; a `null` value removes the key.
    pub metadata: Option<Metadata>,
    pub mastery_status: Option<MasteryStatus>,
    pub mastery_score: Option<f64>,
}

pub fn check_effort(field: &str, minutes: i64) -> Result<i32, DomainError> {
    if (1..=10_000).contains(&minutes) {
        Ok(minutes as i32)
    } else {
        Err(DomainError::invalid(
            field,
            format!("{minutes} is not allowed; effort is a whole number of minutes from 1 to 10000"),
        ))
    }
}

pub fn check_label_free(agg: &MapAggregate, label: &str, except: Option<NodeId>) -> Result<(), DomainError> {
    let wanted = normalize_label(label);
    if agg.nodes.iter().any(|n| Some(n.id) != except && normalize_label(&n.label) == wanted) {
        return Err(DomainError::DuplicateLabel { label: label.to_string() });
    }
    Ok(())
}

pub use crate::model::normalize_label;

fn clean_description(description: Option<&str>) -> Result<Option<String>, DomainError> {
    match description.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => clean_text("description", text, MAX_DESCRIPTION_CHARS).map(Some),
    }
}

fn require_member(agg: &MapAggregate, field: &'static str, id: NodeId) -> Result<(), DomainError> {
    if agg.node(id).is_some() {
        Ok(())
    } else {
        Err(DomainError::CrossMap { field, map: agg.map.id.to_string(), node: id.to_string() })
    }
}

/// Add a concept. The first node of a map becomes its root; every later node needs at least
/// one prerequisite, so every node stays reachable from the root.
pub fn add_node(
    agg: &mut MapAggregate,
    new: NewNode,
    now: DateTime<Utc>,
    limits: GraphLimits,
) -> Result<(), DomainError> {
    require_editable(&agg.map, "adding a node")?;
    let label = clean_text("label", &new.label, MAX_LABEL_CHARS)?;
    check_label_free(agg, &label, None)?;
    let effort = new.effort_minutes.map(|m| check_effort("effort_minutes", m)).transpose()?;
    let description = clean_description(new.description.as_deref())?;
    limits.check_node_count(agg.nodes.len() + 1)?;
    for &parent in &new.prerequisite_ids {
        require_member(agg, "prerequisite_ids", parent)?;
    }
    let before = (agg.map.root_node_id, agg.map.updated_at, agg.nodes.len(), agg.edges.len());
    match agg.map.root_node_id {
        None => {
            if !new.prerequisite_ids.is_empty() {
                return Err(DomainError::conflict_at(
                    "prerequisite_ids",
                    "the map is empty, so this node becomes its root and cannot have prerequisites",
                ));
            }
            agg.map.root_node_id = Some(new.id);
            agg.map.updated_at = now;
        }
        Some(root) if new.prerequisite_ids.is_empty() => {
            return Err(DomainError::conflict_at(
                "prerequisite_ids",
                format!(
                    "the map already has a root ('{}'); a new node needs at least one prerequisite so that it is reachable from the root",
                    agg.label_of(root)
                ),
            ));
        }
        Some(_) => {}
    }
    let mut node = Node::new(new.id, agg.map.id, label, description, effort, new.metadata, now);
    if agg.map.status == MapStatus::Active {
        // A node added to a plan in progress goes last until the next re-plan places it.
        node.sequence = Some(agg.nodes.iter().filter_map(|n| n.sequence).max().unwrap_or(0) + 1);
    }
    agg.nodes.push(node);
    let mut seen = std::collections::HashSet::new();
    for parent in new.prerequisite_ids {
        if seen.insert(parent) {
            agg.edges.push(Edge {
                mind_map_id: agg.map.id,
                parent_node_id: parent,
                child_node_id: new.id,
                edge_type: EdgeType::Prerequisite,
                created_at: now,
            });
        }
    }
    if let Err(error) = recompute_depths(agg, limits) {
        // A refused node leaves the map as it was.
        (agg.map.root_node_id, agg.map.updated_at) = (before.0, before.1);
        agg.nodes.truncate(before.2);
        agg.edges.truncate(before.3);
        return Err(error);
    }
    Ok(())
}

/// Add an edge `parent -> child`. Prerequisite edges are checked for self-loops, cycles
/// (reported as the cycle's path) and the depth limit.
pub fn add_edge(
    agg: &mut MapAggregate,
    parent: NodeId,
    child: NodeId,
    edge_type: EdgeType,
    now: DateTime<Utc>,
    limits: GraphLimits,
) -> Result<(), DomainError> {
    require_editable(&agg.map, "adding an edge")?;
    require_member(agg, "parent_node_id", parent)?;
    require_member(agg, "child_node_id", child)?;
    if parent == child {
        return Err(DomainError::SelfLoop { label: agg.label_of(parent) });
    }
    if let Some(existing) = agg.edges.iter().find(|e| (e.parent_node_id, e.child_node_id) == (parent, child)) {
        let _ = existing;
        return Err(DomainError::DuplicateEdge { parent: agg.label_of(parent), child: agg.label_of(child) });
    }
    if edge_type == EdgeType::Prerequisite {
        let graph = Prerequisites::of(agg);
        let (p, c) = (graph.position(parent), graph.position(child));
        if let (Some(p), Some(c)) = (p, c) {
            if let Some(path) = graph.path(c, p) {
                let mut cycle = vec![agg.nodes[p].label.clone()];
                cycle.extend(path.iter().map(|&i| agg.nodes[i].label.clone()));
                return Err(DomainError::Cycle { path: cycle });
            }
        }
    }
    agg.edges.push(Edge {
        mind_map_id: agg.map.id,
        parent_node_id: parent,
        child_node_id: child,
        edge_type,
        created_at: now,
    });
    if let Err(error) = recompute_depths(agg, limits) {
        // A refused edge leaves the map as it was.
        agg.edges.pop();
        return Err(error);
    }
    Ok(())
}

/// Remove an edge, refusing if a node would lose its path from the root.
pub fn remove_edge(
    agg: &mut MapAggregate,
    parent: NodeId,
    child: NodeId,
    limits: GraphLimits,
) -> Result<(), DomainError> {
    require_editable(&agg.map, "removing an edge")?;
    let Some(position) = agg.edges.iter().position(|e| (e.parent_node_id, e.child_node_id) == (parent, child)) else {
        return Err(DomainError::NotFound { what: format!("edge {parent} -> {child}") });
    };
    let removed = agg.edges.remove(position);
    let depths: Vec<i32> = agg.nodes.iter().map(|n| n.depth).collect();
    if let Err(error) = recompute_depths(agg, limits) {
        // A refused removal leaves the map as it was.
        agg.edges.insert(position, removed);
        agg.nodes.iter_mut().zip(depths).for_each(|(node, depth)| node.depth = depth);
        return Err(error);
    }
    Ok(())
}

/// Remove a node with its edges (its responses go with it), refusing to strand others.
pub fn remove_node(
    agg: &mut MapAggregate,
    id: NodeId,
    now: DateTime<Utc>,
    limits: GraphLimits,
) -> Result<(), DomainError> {
    require_editable(&agg.map, "removing a node")?;
    require_member(agg, "node_id", id)?;
    if agg.map.root_node_id == Some(id) && agg.nodes.len() > 1 {
        return Err(DomainError::Conflict {
            message: "node: the root cannot be removed while other nodes depend on it".into(),
        });
    }
    let mut after = agg.clone();
    if after.map.root_node_id == Some(id) {
        after.map.root_node_id = None;
        after.map.updated_at = now;
    }
    after.nodes.retain(|n| n.id != id);
    after.edges.retain(|e| e.parent_node_id != id && e.child_node_id != id);
    // Checked on a copy, so that a refused removal leaves the map as it was.
    recompute_depths(&mut after, limits)?;
    lifecycle::complete_if_all_mastered(&mut after, now);
    *agg = after;
    Ok(())
}

/// Update a node's fields; a status change must be an edge of the mastery state machine.
pub fn update_node(
    agg: &mut MapAggregate,
    id: NodeId,
    patch: NodePatch,
    now: DateTime<Utc>,
) -> Result<(), DomainError> {
    require_editable(&agg.map, "updating a node")?;
    require_member(agg, "node_id", id)?;
    if let Some(label) = &patch.label {
        let label = clean_text("label", label, MAX_LABEL_CHARS)?;
        check_label_free(agg, &label, Some(id))?;
    }
    let effort = patch.effort_minutes.map(|m| check_effort("effort_minutes", m)).transpose()?;
    if let Some(score) = patch.mastery_score {
        if !(0.0..=1.0).contains(&score) {
            return Err(DomainError::invalid(
                "mastery_score",
                format!("{score} is out of range; a score is from 0.0 to 1.0"),
            ));
        }
    }
    let description = match &patch.description {
        Some(text) => Some(clean_description(Some(text))?),
        None => None,
    };
    let node = agg.node_mut(id).expect("membership checked");
    if let Some(status) = patch.mastery_status {
        check_manual_transition(node.mastery_status, status)?;
        node.mastery_status = status;
        if status == MasteryStatus::Mastered && node.mastered_at.is_none() {
            node.mastered_at = Some(now);
        }
    }
    if let Some(label) = patch.label {
        node.label = label.trim().to_string();
    }
    if let Some(description) = description {
        node.description = description;
    }
    if effort.is_some() {
        node.effort_minutes = effort;
    }
    if let Some(score) = patch.mastery_score {
        node.mastery_score = score;
    }
    if let Some(metadata) = patch.metadata {
        for (key, value) in metadata {
            if value == Value::Null {
                node.metadata.remove(&key);
            } else {
                node.metadata.insert(key, value);
            }
        }
    }
    lifecycle::complete_if_all_mastered(agg, now);
    Ok(())
}
