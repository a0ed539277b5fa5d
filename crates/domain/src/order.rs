//! The learning order of a map: which concept comes next, written onto the nodes as their
//! `sequence`. Planning, re-planning and a map's activation all order a map this way.

use crate::graph::Prerequisites;
use crate::model::{normalize_label, MapAggregate, Node};
use crate::status::MasteryStatus;
use crate::NodeId;
use std::collections::HashMap;

/// The learning order of a map's nodes.
///
/// Nodes still to learn come first, numbered from the next one to learn. They are ordered
/// by topological level over the unmastered subgraph (a node whose prerequisites are all
/// mastered is level 0), so the prerequisite constraint outranks every tie-break; within a
/// level, critical-path nodes precede optional ones, then shallower depth, lower effort,
/// partially-known (diagnosed, learning) before unseen, then label. Mastered nodes follow
/// in their previous order: they are done, not re-ordered to the front.
pub fn learning_order(agg: &MapAggregate) -> Vec<NodeId> {
    let graph = Prerequisites::of(agg);
    let order = graph.topological_order().unwrap_or_else(|| (0..graph.len()).collect());
    let mastered = |i: usize| agg.nodes[i].mastery_status == MasteryStatus::Mastered;
    // A node that only groups others is not learned: it holds back nothing and has no place.
    let grouping = |i: usize| agg.nodes[i].is_grouping();
    let settled = |i: usize| mastered(i) || grouping(i);
    let mut level = vec![0u32; graph.len()];
    for &i in &order {
        if settled(i) {
            continue;
        }
        level[i] = graph.parents(i).iter().filter(|&&p| !settled(p)).map(|&p| level[p] + 1).max().unwrap_or(0);
    }
    let mut open: Vec<usize> = (0..graph.len()).filter(|&i| !settled(i)).collect();
    open.sort_by(|&a, &b| {
        let key = |i: usize| {
            let n = &agg.nodes[i];
            (
                level[i],
                n.is_optional(),
                n.depth,
                n.effort_minutes.unwrap_or(i32::MAX),
                !n.mastery_status.is_partially_known(),
            )
        };
        key(a).cmp(&key(b)).then_with(|| by_label(&agg.nodes[a], &agg.nodes[b]))
    });
    // A mastered node a re-plan marked skippable leaves the sequence (curriculum-planning:
    // "not assigned a future sequence position"); other mastered nodes keep their place.
    let mut done: Vec<usize> =
        (0..graph.len()).filter(|&i| mastered(i) && !grouping(i) && !agg.nodes[i].is_skippable()).collect();
    done.sort_by(|&a, &b| {
        let (x, y) = (&agg.nodes[a], &agg.nodes[b]);
        (x.sequence.is_none(), x.sequence).cmp(&(y.sequence.is_none(), y.sequence)).then_with(|| by_label(x, y))
    });
    open.into_iter().chain(done).map(|i| agg.nodes[i].id).collect()
}

fn by_label(a: &Node, b: &Node) -> std::cmp::Ordering {
    normalize_label(&a.label)
        .cmp(&normalize_label(&b.label))
        .then_with(|| a.label.cmp(&b.label))
        .then_with(|| a.id.cmp(&b.id))
}

/// Write the learning order onto the nodes as `sequence` 1..N; a mastered, skippable node
/// has none, nor has a node that only groups others.
pub fn assign_sequence(agg: &mut MapAggregate) {
    let position: HashMap<NodeId, i32> =
        learning_order(agg).into_iter().enumerate().map(|(i, id)| (id, i as i32 + 1)).collect();
    for node in &mut agg.nodes {
        node.sequence = position.get(&node.id).copied();
    }
}
