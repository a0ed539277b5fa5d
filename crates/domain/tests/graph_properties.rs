//! Properties of the concept graph rules over random graphs: the learning order
//! (`curriculum::learning_order` / `assign_sequence`) and the acyclicity of edge insertion
//! (`edit::add_edge`). Every aggregate is built through the domain API, so depths, roots
//! and statuses are what the real rules make of them.

use chrono::{DateTime, Utc};
use pathwise_domain::curriculum;
use pathwise_domain::edit::{self, NewNode, NodePatch};
use pathwise_domain::graph::{GraphLimits, Prerequisites};
use pathwise_domain::lifecycle;
use pathwise_domain::model::{MapAggregate, Metadata};
use pathwise_domain::{EdgeType, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

const UNLIMITED: GraphLimits = GraphLimits { max_nodes: None, max_depth: None };

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc)
}

fn node_id(i: usize) -> NodeId {
    NodeId(Uuid::from_u128(0x1000 + i as u128))
}

fn empty_map() -> MapAggregate {
    let map = lifecycle::new_map(
        MindMapId(Uuid::from_u128(1)),
        LearnerId(Uuid::from_u128(2)),
        "Random topic",
        Metadata::new(),
        now(),
    )
    .expect("new map");
    MapAggregate { map, nodes: Vec::new(), edges: Vec::new() }
}

/// A tiny deterministic generator for shuffles and picks that proptest seeds.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// One concept of a random graph: its prerequisites among the earlier concepts, and its
/// attributes.
#[derive(Debug, Clone)]
struct Concept {
    /// Indices into the earlier concepts (taken modulo their count).
    parents: Vec<u32>,
    effort: i64,
    status: MasteryStatus,
    optional: bool,
    /// A label shared by several concepts, so that ties reach the last tie-breaks.
    label_group: u8,
}

#[derive(Debug, Clone)]
struct RandomGraph {
    concepts: Vec<Concept>,
    /// Extra `earlier -> later` edges (by index pairs, modulo the node count).
    extra_edges: Vec<(u32, u32, bool)>,
    /// Whether the map is activated (and so sequenced) before the statuses move.
    activate_first: bool,
    seed: u64,
}

fn status_strategy() -> impl Strategy<Value = MasteryStatus> {
    prop_oneof![
        3 => Just(MasteryStatus::Unseen),
        1 => Just(MasteryStatus::Diagnosed),
        1 => Just(MasteryStatus::Learning),
        1 => Just(MasteryStatus::Reviewing),
        2 => Just(MasteryStatus::Mastered),
    ]
}

fn concept_strategy() -> impl Strategy<Value = Concept> {
    (
        prop::collection::vec(any::<u32>(), 1..=3),
        prop_oneof![1i64..=3, 1i64..=120],
        status_strategy(),
        prop::bool::weighted(0.25),
        0u8..4,
    )
        .prop_map(|(parents, effort, status, optional, label_group)| Concept {
            parents,
            effort,
            status,
            optional,
            label_group,
        })
}

fn graph_strategy() -> impl Strategy<Value = RandomGraph> {
    (1usize..=60).prop_flat_map(|n| {
        (
            prop::collection::vec(concept_strategy(), n),
            prop::collection::vec((any::<u32>(), any::<u32>(), prop::bool::weighted(0.2)), 0..=2 * n),
            any::<bool>(),
            any::<u64>(),
        )
            .prop_map(|(concepts, extra_edges, activate_first, seed)| RandomGraph {
                concepts,
                extra_edges,
                activate_first,
                seed,
            })
    })
}

/// Walk a node to `target` through manual transitions of the mastery state machine.
fn move_to(agg: &mut MapAggregate, id: NodeId, target: MasteryStatus) {
    use MasteryStatus::*;
    let path: &[MasteryStatus] = match target {
        Unseen => &[],
        Diagnosed => &[Diagnosed],
        Learning => &[Learning],
        Reviewing => &[Learning, Reviewing],
        Mastered => &[Learning, Reviewing, Mastered],
    };
    for &status in path {
        let patch = NodePatch { mastery_status: Some(status), ..Default::default() };
        edit::update_node(agg, id, patch, now()).expect("a valid manual transition");
    }
}

/// Build a random DAG through `edit::add_node` / `edit::add_edge`, with statuses set
/// through the state machine.
fn build(graph: &RandomGraph) -> MapAggregate {
    let mut agg = empty_map();
    let mut rng = SplitMix(graph.seed);
    for (i, concept) in graph.concepts.iter().enumerate() {
        let prerequisite_ids: Vec<NodeId> = if i == 0 {
            Vec::new()
        } else {
            let set: HashSet<usize> = concept.parents.iter().map(|&p| p as usize % i).collect();
            let mut parents: Vec<usize> = set.into_iter().collect();
            parents.sort_unstable();
            parents.into_iter().map(node_id).collect()
        };
        let mut metadata = Metadata::new();
        if concept.optional {
            metadata.insert("optional".into(), Value::Bool(true));
        }
        let new = NewNode {
            id: node_id(i),
            label: format!("Concept {} #{i}", concept.label_group),
            description: None,
            effort_minutes: Some(concept.effort),
            prerequisite_ids,
            metadata,
        };
        edit::add_node(&mut agg, new, now(), UNLIMITED).expect("add node");
    }
    let n = graph.concepts.len();
    for &(a, b, related) in &graph.extra_edges {
        let (a, b) = (a as usize % n, b as usize % n);
        if a == b {
            continue;
        }
        let (parent, child) = (a.min(b), a.max(b));
        let edge_type = if related { EdgeType::Related } else { EdgeType::Prerequisite };
        // Duplicates are refused; every other earlier -> later edge keeps the graph acyclic.
        let _ = edit::add_edge(&mut agg, node_id(parent), node_id(child), edge_type, now(), UNLIMITED);
    }
    if graph.activate_first {
        lifecycle::change_status(&mut agg, MapStatus::Active, now()).expect("activate");
    }
    let mut statuses: Vec<MasteryStatus> = graph.concepts.iter().map(|c| c.status).collect();
    if statuses.iter().all(|&s| s == MasteryStatus::Mastered) {
        // Keep one node open so that the map does not complete and refuse further edits.
        statuses[rng.below(n)] = MasteryStatus::Reviewing;
    }
    for (i, status) in statuses.into_iter().enumerate() {
        move_to(&mut agg, node_id(i), status);
    }
    agg
}

fn shuffled(agg: &MapAggregate, seed: u64) -> MapAggregate {
    let mut copy = agg.clone();
    let mut rng = SplitMix(seed ^ 0xDEAD_BEEF);
    rng.shuffle(&mut copy.nodes);
    rng.shuffle(&mut copy.edges);
    copy
}

/// The topological level of every unmastered node over the unmastered subgraph, computed
/// independently of the code under test: 0 with no unmastered prerequisite, else one more
/// than the deepest unmastered prerequisite.
fn levels(agg: &MapAggregate) -> HashMap<NodeId, u32> {
    let open: HashSet<NodeId> =
        agg.nodes.iter().filter(|n| n.mastery_status != MasteryStatus::Mastered).map(|n| n.id).collect();
    let mut parents: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    for e in agg.edges.iter().filter(|e| e.edge_type == EdgeType::Prerequisite) {
        if open.contains(&e.parent_node_id) && open.contains(&e.child_node_id) {
            parents.entry(e.child_node_id).or_default().push(e.parent_node_id);
        }
    }
    fn level_of(id: NodeId, parents: &HashMap<NodeId, Vec<NodeId>>, memo: &mut HashMap<NodeId, u32>) -> u32 {
        if let Some(&l) = memo.get(&id) {
            return l;
        }
        let l = parents.get(&id).map_or(0, |ps| ps.iter().map(|&p| level_of(p, parents, memo) + 1).max().unwrap_or(0));
        memo.insert(id, l);
        l
    }
    let mut memo = HashMap::new();
    for &id in &open {
        level_of(id, &parents, &mut memo);
    }
    memo
}

/// Every rule the learning order promises, checked on `agg` after `assign_sequence`;
/// `previous` holds the sequences the nodes had before.
fn check_learning_order(agg: &MapAggregate, previous: &HashMap<NodeId, Option<i32>>) -> Result<(), TestCaseError> {
    let n = agg.nodes.len();
    let seq: HashMap<NodeId, i32> =
        agg.nodes.iter().map(|node| (node.id, node.sequence.expect("every node is sequenced"))).collect();

    // 1..N, no gaps, no duplicates.
    let mut values: Vec<i32> = seq.values().copied().collect();
    values.sort_unstable();
    prop_assert_eq!(values, (1..=n as i32).collect::<Vec<_>>());

    // Nodes still to learn first, mastered nodes after.
    let open_count = agg.nodes.iter().filter(|x| x.mastery_status != MasteryStatus::Mastered).count() as i32;
    for node in &agg.nodes {
        let s = seq[&node.id];
        if node.mastery_status == MasteryStatus::Mastered {
            prop_assert!(s > open_count, "mastered '{}' has {} among {} open nodes", node.label, s, open_count);
        } else {
            prop_assert!(s <= open_count, "open '{}' has {} after the {} open nodes", node.label, s, open_count);
        }
    }

    // A topological order over the unmastered nodes.
    let by_id: HashMap<NodeId, &pathwise_domain::model::Node> = agg.nodes.iter().map(|x| (x.id, x)).collect();
    for e in agg.edges.iter().filter(|e| e.edge_type == EdgeType::Prerequisite) {
        let (p, c) = (by_id[&e.parent_node_id], by_id[&e.child_node_id]);
        if p.mastery_status != MasteryStatus::Mastered && c.mastery_status != MasteryStatus::Mastered {
            prop_assert!(
                seq[&p.id] < seq[&c.id],
                "prerequisite '{}' ({}) is not before '{}' ({})",
                p.label,
                seq[&p.id],
                c.label,
                seq[&c.id]
            );
        }
    }

    // The documented keys: level, then critical before optional, then depth, effort,
    // partially-known before unseen (label and id settle the rest).
    let level = levels(agg);
    let mut open: Vec<&pathwise_domain::model::Node> =
        agg.nodes.iter().filter(|x| x.mastery_status != MasteryStatus::Mastered).collect();
    open.sort_by_key(|x| seq[&x.id]);
    let key = |x: &pathwise_domain::model::Node| {
        (
            level[&x.id],
            x.is_optional(),
            x.depth,
            x.effort_minutes.unwrap_or(i32::MAX),
            !x.mastery_status.is_partially_known(),
        )
    };
    for pair in open.windows(2) {
        prop_assert!(
            key(pair[0]) <= key(pair[1]),
            "'{}' {:?} is before '{}' {:?}",
            pair[0].label,
            key(pair[0]),
            pair[1].label,
            key(pair[1])
        );
    }

    // Mastered nodes keep their previous relative order.
    let mut done: Vec<&pathwise_domain::model::Node> =
        agg.nodes.iter().filter(|x| x.mastery_status == MasteryStatus::Mastered).collect();
    done.sort_by_key(|x| seq[&x.id]);
    for pair in done.windows(2) {
        let (a, b) = (previous[&pair[0].id], previous[&pair[1].id]);
        let rank = |s: Option<i32>| (s.is_none(), s);
        prop_assert!(
            rank(a) <= rank(b),
            "mastered '{}' (was {:?}) is before '{}' (was {:?})",
            pair[0].label,
            a,
            pair[1].label,
            b
        );
    }
    Ok(())
}

fn order_by_id(agg: &MapAggregate) -> HashMap<NodeId, Option<i32>> {
    agg.nodes.iter().map(|x| (x.id, x.sequence)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn learning_order_is_a_gapless_deterministic_topological_order(graph in graph_strategy()) {
        let agg = build(&graph);
        prop_assert!(Prerequisites::of(&agg).find_cycle().is_none());
        let previous = order_by_id(&agg);

        let mut planned = agg.clone();
        curriculum::assign_sequence(&mut planned);
        check_learning_order(&planned, &previous)?;

        // `learning_order` is the order `assign_sequence` writes.
        let order = curriculum::learning_order(&agg);
        let mut by_sequence: Vec<(i32, NodeId)> = planned.nodes.iter().map(|x| (x.sequence.unwrap(), x.id)).collect();
        by_sequence.sort_unstable();
        prop_assert_eq!(&order, &by_sequence.iter().map(|&(_, id)| id).collect::<Vec<_>>());

        // Deterministic: the same input gives the same order...
        prop_assert_eq!(&curriculum::learning_order(&agg), &order);
        let mut again = agg.clone();
        curriculum::assign_sequence(&mut again);
        prop_assert_eq!(order_by_id(&again), order_by_id(&planned));

        // ...and so does the same graph with its nodes and edges listed in another order.
        let other = shuffled(&agg, graph.seed);
        prop_assert_eq!(&curriculum::learning_order(&other), &order);
        let mut other_planned = other.clone();
        curriculum::assign_sequence(&mut other_planned);
        prop_assert_eq!(order_by_id(&other_planned), order_by_id(&planned));

        // Re-sequencing a sequenced map is stable.
        let mut twice = planned.clone();
        curriculum::assign_sequence(&mut twice);
        prop_assert_eq!(&twice, &planned);
    }
}

/// A random tree to insert edges into: each node hangs from one earlier node, chosen among
/// those the limits allow to have a child.
fn base_tree(picks: &[u32], limits: GraphLimits) -> MapAggregate {
    let mut agg = empty_map();
    let count = limits.max_nodes.map_or(picks.len() + 1, |max| max.min(picks.len() + 1));
    for i in 0..count {
        let prerequisite_ids = if i == 0 {
            Vec::new()
        } else {
            let allowed: Vec<&pathwise_domain::model::Node> =
                agg.nodes.iter().filter(|x| limits.max_depth.is_none_or(|max| (x.depth as u32) < max)).collect();
            vec![allowed[picks[i - 1] as usize % allowed.len()].id]
        };
        let new = NewNode {
            id: node_id(i),
            label: format!("N{i}"),
            description: None,
            effort_minutes: Some(10),
            prerequisite_ids,
            metadata: Metadata::new(),
        };
        edit::add_node(&mut agg, new, now(), limits).expect("add node");
    }
    agg
}

fn check_insertions(picks: &[u32], insertions: &[(u32, u32, bool)], limits: GraphLimits) -> Result<(), TestCaseError> {
    let mut agg = base_tree(picks, limits);
    let n = agg.nodes.len();
    for &(a, b, related) in insertions {
        let (parent, child) = (agg.nodes[a as usize % n].id, agg.nodes[b as usize % n].id);
        let edge_type = if related { EdgeType::Related } else { EdgeType::Prerequisite };
        let before = agg.clone();
        match edit::add_edge(&mut agg, parent, child, edge_type, now(), limits) {
            Ok(()) => {
                prop_assert_eq!(agg.edges.len(), before.edges.len() + 1);
                prop_assert!(agg
                    .edges
                    .iter()
                    .any(|e| (e.parent_node_id, e.child_node_id, e.edge_type) == (parent, child, edge_type)));
                if let Some(max) = limits.max_depth {
                    prop_assert!(agg.nodes.iter().all(|x| x.depth as u32 <= max));
                }
            }
            Err(error) => {
                prop_assert_eq!(&agg, &before, "the refused insertion ({}) changed the map", error);
            }
        }
        prop_assert!(
            Prerequisites::of(&agg).find_cycle().is_none(),
            "a cycle after inserting {:?} -> {:?}",
            parent,
            child
        );
        prop_assert!(Prerequisites::of(&agg).topological_order().is_some());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_edge_insertions_never_leave_a_cycle_without_a_depth_limit(
        picks in prop::collection::vec(any::<u32>(), 0..40),
        insertions in prop::collection::vec((any::<u32>(), any::<u32>(), prop::bool::weighted(0.15)), 0..120),
    ) {
        check_insertions(&picks, &insertions, UNLIMITED)?;
    }

    #[test]
    fn random_edge_insertions_never_leave_a_cycle_within_single_topic_limits(
        picks in prop::collection::vec(any::<u32>(), 0..40),
        insertions in prop::collection::vec((any::<u32>(), any::<u32>(), prop::bool::weighted(0.15)), 0..120),
    ) {
        check_insertions(&picks, &insertions, GraphLimits::SINGLE_TOPIC)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// The same for nodes: a refused `edit::add_node` (too deep, too many) changes nothing.
    #[test]
    fn refused_node_insertions_leave_the_map_unchanged(
        picks in prop::collection::vec(any::<u32>(), 0..40),
        insertions in prop::collection::vec(prop::collection::vec(any::<u32>(), 1..=3), 0..20),
    ) {
        let limits = GraphLimits::SINGLE_TOPIC;
        let mut agg = base_tree(&picks, limits);
        for (k, parents) in insertions.iter().enumerate() {
            let n = agg.nodes.len();
            let mut prerequisite_ids: Vec<NodeId> = parents.iter().map(|&p| agg.nodes[p as usize % n].id).collect();
            prerequisite_ids.dedup();
            let new = NewNode {
                id: node_id(1000 + k),
                label: format!("Added {k}"),
                description: None,
                effort_minutes: Some(5),
                prerequisite_ids,
                metadata: Metadata::new(),
            };
            let before = agg.clone();
            match edit::add_node(&mut agg, new, now(), limits) {
                Ok(()) => {
                    prop_assert_eq!(agg.nodes.len(), before.nodes.len() + 1);
                    prop_assert!(agg.nodes.len() <= 30 && agg.nodes.iter().all(|x| x.depth <= 5));
                }
                Err(error) => prop_assert_eq!(&agg, &before, "the refused node ({}) changed the map", error),
            }
            prop_assert!(Prerequisites::of(&agg).find_cycle().is_none());
        }
    }
}
