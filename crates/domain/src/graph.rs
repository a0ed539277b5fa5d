//! Prerequisite-graph algorithms: paths, cycles, depths, frontier and subtrees.
//!
//! Only `prerequisite` edges take part; `related` edges never gate and are never checked
//! for cycles.

use crate::ids::NodeId;
use crate::model::{Edge, MapAggregate, Node};
use crate::status::{EdgeType, MasteryStatus};
use crate::DomainError;
use std::collections::{HashMap, VecDeque};

/// The metadata key naming the course a map was made from.
pub const COURSE_KEY: &str = "course_id";
/// The metadata key naming the Anki deck a map was imported from.
pub const ANKI_DECK_KEY: &str = "anki_deck_id";

/// Structural limits a map's graph must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphLimits {
    pub max_nodes: Option<usize>,
    pub max_depth: Option<u32>,
}

impl GraphLimits {
    /// A map for one topic: at most 30 nodes, and no node deeper than 5 (root = 0).
    pub const SINGLE_TOPIC: GraphLimits = GraphLimits { max_nodes: Some(30), max_depth: Some(5) };
    /// An authored course's map: as large and deep as the course (always acyclic).
    pub const AUTHORED_COURSE: GraphLimits = GraphLimits { max_nodes: None, max_depth: None };

    /// The limits for `map`: a course's map (its metadata names the course) and an Anki
    /// deck's (a concept per card, thousands of them) are held to their own shape, any
    /// other map to these limits.
    pub fn for_map(self, map: &crate::model::MindMap) -> GraphLimits {
        if map.metadata.contains_key(COURSE_KEY) || map.metadata.contains_key(ANKI_DECK_KEY) {
            GraphLimits::AUTHORED_COURSE
        } else {
            self
        }
    }

    pub fn check_node_count(&self, count: usize) -> Result<(), DomainError> {
        match self.max_nodes {
            Some(max) if count > max => Err(DomainError::TooManyNodes { count, max }),
            _ => Ok(()),
        }
    }
}

/// Prerequisite adjacency over a list of nodes, by position in that list.
#[derive(Debug, Clone)]
pub struct Prerequisites {
    index: HashMap<NodeId, usize>,
    parents: Vec<Vec<usize>>,
    children: Vec<Vec<usize>>,
}

impl Prerequisites {
    pub fn new<'a>(ids: impl IntoIterator<Item = NodeId>, edges: impl IntoIterator<Item = &'a Edge>) -> Self {
        let index: HashMap<NodeId, usize> = ids.into_iter().enumerate().map(|(i, id)| (id, i)).collect();
        let mut parents = vec![Vec::new(); index.len()];
        let mut children = vec![Vec::new(); index.len()];
        for edge in edges {
            if edge.edge_type != EdgeType::Prerequisite {
                continue;
            }
            if let (Some(&p), Some(&c)) = (index.get(&edge.parent_node_id), index.get(&edge.child_node_id)) {
                parents[c].push(p);
                children[p].push(c);
            }
        }
        Prerequisites { index, parents, children }
    }

    pub fn of(agg: &MapAggregate) -> Self {
        Self::new(agg.nodes.iter().map(|n| n.id), &agg.edges)
    }

    pub fn len(&self) -> usize {
        self.parents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    pub fn position(&self, id: NodeId) -> Option<usize> {
        self.index.get(&id).copied()
    }

    pub fn parents(&self, i: usize) -> &[usize] {
        &self.parents[i]
    }

    pub fn children(&self, i: usize) -> &[usize] {
        &self.children[i]
    }

    /// A shortest path `from ->...-> to` following prerequisite edges, if any.
    pub fn path(&self, from: usize, to: usize) -> Option<Vec<usize>> {
        let mut previous = vec![usize::MAX; self.len()];
        let mut queue = VecDeque::from([from]);
        previous[from] = from;
        while let Some(current) = queue.pop_front() {
            if current == to {
                let mut path = vec![to];
                let mut at = to;
                while at != from {
                    at = previous[at];
                    path.push(at);
                }
                path.reverse();
                return Some(path);
            }
            for &next in &self.children[current] {
                if previous[next] == usize::MAX {
                    previous[next] = current;
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// Some cycle, as a closed path `a -> b -> ... -> a`, if the graph has one.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            OnStack,
            Done,
        }
        let mut mark = vec![Mark::New; self.len()];
        for start in 0..self.len() {
            if mark[start] != Mark::New {
                continue;
            }
            // Iterative depth-first search; `stack` holds (node, next child to visit).
            let mut stack = vec![(start, 0usize)];
            mark[start] = Mark::OnStack;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&child) = self.children[node].get(*next) {
                    *next += 1;
                    match mark[child] {
                        Mark::New => {
                            mark[child] = Mark::OnStack;
                            stack.push((child, 0));
                        }
                        Mark::OnStack => {
                            let from = stack.iter().position(|&(n, _)| n == child).unwrap_or(0);
                            let mut cycle: Vec<usize> = stack[from..].iter().map(|&(n, _)| n).collect();
                            cycle.push(child);
                            return Some(cycle);
                        }
                        Mark::Done => {}
                    }
                } else {
                    mark[node] = Mark::Done;
                    stack.pop();
                }
            }
        }
        None
    }

    /// Kahn's order of all nodes, or `None` when the graph has a cycle.
    pub fn topological_order(&self) -> Option<Vec<usize>> {
        let mut missing: Vec<usize> = self.parents.iter().map(Vec::len).collect();
        let mut ready: VecDeque<usize> = (0..self.len()).filter(|&i| missing[i] == 0).collect();
        let mut order = Vec::with_capacity(self.len());
        while let Some(node) = ready.pop_front() {
            order.push(node);
            for &child in &self.children[node] {
                missing[child] -= 1;
                if missing[child] == 0 {
                    ready.push_back(child);
                }
            }
        }
        (order.len() == self.len()).then_some(order)
    }

    /// Longest prerequisite-path distance from `root` to every node it reaches.
    /// `None` for nodes the root does not reach; `Err` with a cycle if there is one.
    pub fn longest_depths(&self, root: usize) -> Result<Vec<Option<u32>>, Vec<usize>> {
        let order = match self.topological_order() {
            Some(order) => order,
            None => return Err(self.find_cycle().unwrap_or_default()),
        };
        let mut depth: Vec<Option<u32>> = vec![None; self.len()];
        depth[root] = Some(0);
        for node in order {
            if let Some(d) = depth[node] {
                for &child in &self.children[node] {
                    if depth[child].is_none_or(|c| c < d + 1) {
                        depth[child] = Some(d + 1);
                    }
                }
            }
        }
        Ok(depth)
    }

    /// `start` and every node that depends on it, directly or not, in breadth-first order.
    pub fn descendants(&self, start: usize) -> Vec<usize> {
        let mut seen = vec![false; self.len()];
        let mut order = vec![start];
        seen[start] = true;
        let mut cursor = 0;
        while cursor < order.len() {
            let node = order[cursor];
            cursor += 1;
            for &child in &self.children[node] {
                if !seen[child] {
                    seen[child] = true;
                    order.push(child);
                }
            }
        }
        order
    }
}

/// Recompute every node's depth from the root and enforce reachability and the depth limit.
pub fn recompute_depths(agg: &mut MapAggregate, limits: GraphLimits) -> Result<(), DomainError> {
    let Some(root_id) = agg.map.root_node_id else {
        for node in &mut agg.nodes {
            node.depth = 0;
        }
        return Ok(());
    };
    let graph = Prerequisites::of(agg);
    let root = graph
        .position(root_id)
        .ok_or_else(|| DomainError::Conflict { message: "root node is missing from the map".into() })?;
    let depths = graph
        .longest_depths(root)
        .map_err(|cycle| DomainError::Cycle { path: cycle.iter().map(|&i| agg.nodes[i].label.clone()).collect() })?;
    let mut deepest: Option<(usize, u32)> = None;
    for (i, depth) in depths.iter().enumerate() {
        match depth {
            None => return Err(DomainError::Unreachable { label: agg.nodes[i].label.clone() }),
            Some(d) if deepest.is_none_or(|(_, best)| *d > best) => deepest = Some((i, *d)),
            Some(_) => {}
        }
    }
    if let (Some(max), Some((i, depth))) = (limits.max_depth, deepest) {
        if depth > max {
            return Err(DomainError::DepthExceeded { label: agg.nodes[i].label.clone(), depth, max });
        }
    }
    for (node, depth) in agg.nodes.iter_mut().zip(depths) {
        node.depth = depth.unwrap_or(0) as i32;
    }
    Ok(())
}

/// Nodes still to learn whose every prerequisite is mastered, in learning order. A node
/// that only groups others (`Node::is_grouping`) is never on it, and never holds back the
/// nodes under it.
pub fn frontier(agg: &MapAggregate) -> Vec<&Node> {
    let graph = Prerequisites::of(agg);
    let satisfied = |p: usize| agg.nodes[p].mastery_status == MasteryStatus::Mastered || agg.nodes[p].is_grouping();
    let mut open: Vec<&Node> = agg
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, node)| {
            node.mastery_status.is_open() && !node.is_grouping() && graph.parents(*i).iter().all(|&p| satisfied(p))
        })
        .map(|(_, node)| node)
        .collect();
    open.sort_by(|a, b| frontier_order(a, b));
    open
}

/// The order frontier nodes are offered in. Every frontier node is at level 0 of the
/// learning order, where critical-path nodes precede optional ones; saying so here keeps
/// that true between re-plans too.
pub fn frontier_order(a: &Node, b: &Node) -> std::cmp::Ordering {
    let key = |n: &Node| {
        (n.is_optional(), n.sequence.is_none(), n.sequence, n.depth, n.effort_minutes.is_none(), n.effort_minutes)
    };
    key(a).cmp(&key(b)).then_with(|| a.label.cmp(&b.label)).then_with(|| a.id.cmp(&b.id))
}

/// A node and every node that depends on it, with the edges among them.
pub fn subtree(agg: &MapAggregate, start: NodeId) -> Option<(Vec<Node>, Vec<Edge>)> {
    let graph = Prerequisites::of(agg);
    let start = graph.position(start)?;
    let members = graph.descendants(start);
    let ids: std::collections::HashSet<NodeId> = members.iter().map(|&i| agg.nodes[i].id).collect();
    let nodes = members.iter().map(|&i| agg.nodes[i].clone()).collect();
    let edges = agg
        .edges
        .iter()
        .filter(|e| ids.contains(&e.parent_node_id) && ids.contains(&e.child_node_id))
        .cloned()
        .collect();
    Some((nodes, edges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Metadata, MindMap, GROUPING_KEY};
    use crate::{LearnerId, MapStatus, MindMapId};
    use chrono::{DateTime, Utc};
    use uuid::Uuid;

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z").unwrap().with_timezone(&Utc)
    }

    /// A deck's root grouping two cards, the second needing the first.
    fn deck() -> MapAggregate {
        let map_id = MindMapId(Uuid::from_u128(1));
        let mut grouping = Metadata::new();
        grouping.insert(GROUPING_KEY.into(), serde_json::json!(true));
        let node = |n: u128, label: &str, metadata: Metadata| {
            Node::new(NodeId(Uuid::from_u128(n)), map_id, label.into(), None, None, metadata, at())
        };
        let nodes = vec![
            node(10, "Spanish basics", grouping),
            node(11, "hola", Metadata::new()),
            node(12, "adiós", Metadata::new()),
        ];
        let edge = |p: u128, c: u128| Edge {
            mind_map_id: map_id,
            parent_node_id: NodeId(Uuid::from_u128(p)),
            child_node_id: NodeId(Uuid::from_u128(c)),
            edge_type: EdgeType::Prerequisite,
            created_at: at(),
        };
        let map = MindMap {
            id: map_id,
            learner_id: LearnerId(Uuid::nil()),
            title: "Spanish basics".into(),
            root_node_id: Some(nodes[0].id),
            status: MapStatus::Active,
            metadata: Metadata::new(),
            created_at: at(),
            updated_at: at(),
        };
        let mut agg = MapAggregate { map, nodes, edges: vec![edge(10, 11), edge(10, 12), edge(11, 12)] };
        recompute_depths(&mut agg, GraphLimits::SINGLE_TOPIC).unwrap();
        crate::order::assign_sequence(&mut agg);
        agg
    }

    fn labels<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> Vec<&'a str> {
        nodes.into_iter().map(|n| n.label.as_str()).collect()
    }

    #[test]
    fn a_grouping_node_is_never_learned_and_never_holds_back_the_nodes_under_it() {
        let mut agg = deck();
        assert!(agg.nodes[0].is_grouping());
        assert_eq!(labels(frontier(&agg)), ["hola"], "the card under the deck, not the deck");
        assert_eq!(crate::curriculum::next_node(&agg).map(|n| n.label.as_str()), Some("hola"));
        let sequences: Vec<Option<i32>> = agg.nodes.iter().map(|n| n.sequence).collect();
        assert_eq!(sequences, [None, Some(1), Some(2)], "no place in the learning order");
        let summary = crate::mastery::summarize(&agg.nodes, &[]);
        assert_eq!((summary.total_nodes, summary.unseen_count), (2, 2), "the deck is not a concept");

        for node in &mut agg.nodes[1..] {
            node.mastery_status = MasteryStatus::Mastered;
        }
        assert!(frontier(&agg).is_empty());
        assert!(crate::lifecycle::complete_if_all_mastered(&mut agg, at()), "every concept mastered");
        assert_eq!(agg.map.status, MapStatus::Completed);
    }
}
