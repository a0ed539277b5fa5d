//! Where a store answers a rule with a query of its own for speed, it must agree with the
//! domain's definition of that rule.

mod support;

use pathwise_app::maps::{CreateEdge, UpdateNode};
use pathwise_domain::graph;
use pathwise_domain::{EdgeType, MasteryStatus, ResponseType};
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

conformance!(frontier_query_agrees_with_the_domain_frontier);
