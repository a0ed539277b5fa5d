//! Where a store answers a rule with a query of its own for speed, it must agree with the
//! domain's definition of that rule.

mod support;

use pathwise_app::maps::{CreateEdge, UpdateNode};
use pathwise_domain::graph;
use pathwise_domain::model::NodeProgress;
use pathwise_domain::{EdgeType, MasteryStatus, ResponseType};
use pathwise_store::prelude::*;
use serde_json::json;
use support::TestApp;

async fn frontier_query_agrees_with_the_domain_frontier(t: &TestApp) {
    // Root -> {A, B, C}; A -> D; B -> D; C -> E (related only); D -> F.
    let nodes: Vec<_> =
        ["Root", "A", "B", "C", "D", "E", "F"].iter().map(|l| json!({"label": l, "effort_minutes": 10})).collect();
    let decomposition = json!({
        "root": "Root",
        "nodes": nodes,
        "edges": [
            {"parent": "Root", "child": "A"}, {"parent": "Root", "child": "B"}, {"parent": "Root", "child": "C"},
            {"parent": "A", "child": "D"}, {"parent": "B", "child": "D"}, {"parent": "Root", "child": "E"},
            {"parent": "D", "child": "F"}
        ]
    });
    let plan = t.plan("Agreement", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    t.app
        .create_edge(
            t.learner,
            map,
            CreateEdge { parent_node_id: ids["C"], child_node_id: ids["E"], edge_type: Some(EdgeType::Related) },
        )
        .await
        .unwrap();

    let check = |step: &'static str| async move {
        let agg = t.map(map).await;
        let expected: Vec<_> = graph::frontier(&agg).into_iter().map(|n| n.id).collect();
        let actual: Vec<_> = t.app.frontier(t.learner, map).await.unwrap().into_iter().map(|n| n.id).collect();
        assert_eq!(actual, expected, "frontier differs after {step}");
    };
    check("planning").await;
    let master = |label: &'static str| {
        let id = ids[label];
        async move {
            for status in [MasteryStatus::Learning, MasteryStatus::Reviewing, MasteryStatus::Mastered] {
                let patch = UpdateNode { mastery_status: Some(status), ..Default::default() };
                t.app.update_node(t.learner, id, patch).await.unwrap();
            }
        }
    };
    master("Root").await;
    check("mastering the root").await;
    t.record_later(map, ids["A"], 4, ResponseType::Teach).await;
    check("teaching A").await;
    master("A").await;
    check("mastering A").await;
    master("B").await;
    check("mastering B").await;
    master("C").await;
    check("mastering C").await;
}

/// Live analytics read every node and edge of a learner's maps in one query each and
/// order them in Rust; they must come as the maps themselves list them, map by map. And a
/// learner is found by id alone.
async fn analytics_reads_list_a_map_as_the_map_does(t: &TestApp) {
    let nodes: Vec<_> = ["Root", "b", "C", "a", "Z"].map(|l| json!({"label": l, "effort_minutes": 10})).into();
    let decomposition = json!({
        "root": "Root",
        "nodes": nodes,
        "edges": [
            {"parent": "Root", "child": "b"}, {"parent": "Root", "child": "C"},
            {"parent": "Root", "child": "a"}, {"parent": "a", "child": "Z"}
        ]
    });
    let first = t.plan("Cooking", decomposition.clone()).await.mind_map_id;
    let second = t.plan("Astronomy", decomposition).await.mind_map_id;
    let ids = t.ids(first).await;
    // A node added to a plan in progress goes last in its learning order.
    let added = t
        .app
        .create_node(
            t.learner,
            first,
            serde_json::from_value(json!({"label": "Aside", "prerequisite_ids": [ids["Root"]]})).unwrap(),
        )
        .await
        .unwrap();
    let store = t.app.store();
    let activity = store.node_activity(t.learner, None).await.unwrap();
    let edges = store.map_edges(t.learner, None).await.unwrap();
    let mut maps = vec![first, second];
    maps.sort();
    let mut expected_nodes = Vec::new();
    let mut expected_edges = Vec::new();
    for map in maps {
        let agg = t.map(map).await;
        expected_nodes.extend(agg.nodes.iter().map(NodeProgress::from));
        expected_edges.extend(agg.edges);
    }
    let nodes: Vec<NodeProgress> = activity.into_iter().map(|a| a.node).collect();
    assert_eq!(nodes, expected_nodes);
    assert_eq!(edges, expected_edges);
    let first_nodes: Vec<&NodeProgress> = nodes.iter().filter(|n| n.mind_map_id == first).collect();
    assert_eq!(first_nodes.last().map(|n| n.id), Some(added.id), "the added node last: {first_nodes:?}");

    let found = store.learner(t.learner).await.unwrap().expect("the learner");
    assert_eq!(found.id, t.learner);
    let other = t.other_learner().await;
    assert_eq!(store.learner(other).await.unwrap().map(|l| l.id), Some(other));
    assert!(store.learner(pathwise_domain::LearnerId(uuid::Uuid::new_v4())).await.unwrap().is_none());
}

conformance!(frontier_query_agrees_with_the_domain_frontier, analytics_reads_list_a_map_as_the_map_does);
