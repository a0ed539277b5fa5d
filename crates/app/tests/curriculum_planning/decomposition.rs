//! Requirement: Topic decomposition into concept graph.

use super::*;

async fn every_node_has_a_populated_effort_estimate(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    let agg = t.map(plan.mind_map_id).await;
    assert_eq!(agg.nodes.len(), 15);
    for node in &agg.nodes {
        let effort = node.effort_minutes.unwrap_or_else(|| panic!("'{}' has no effort", node.label));
        assert!(effort > 0, "'{}' has effort {effort}", node.label);
    }
    let efforts: HashMap<String, Option<i32>> = agg.nodes.iter().map(|n| (n.label.clone(), n.effort_minutes)).collect();
    assert_eq!(efforts["Variables"], Some(10));
    assert_eq!(efforts["Classes"], Some(45));

    let before = t.counts().await;
    // Zero and negative efforts are refused, naming the field.
    for bad in [0, -5] {
        let err =
            try_plan(t, "Bad", dag("Root", &[("Root", 10), ("Zero", bad)], &[("Root", "Zero")])).await.unwrap_err();
        assert_error(
            &err,
            ErrorKind::Invalid,
            ErrorCode::Invalid,
            &format!(
                "nodes[1].effort_minutes: {bad} is not allowed; effort is a whole number of minutes from 1 to 10000"
            ),
        );
    }
    // A missing or null effort does not even parse.
    for node in [json!({ "label": "Missing" }), json!({ "label": "Null", "effort_minutes": null })] {
        let body = json!({
            "topic": "Bad",
            "decomposition": { "root": "Root", "nodes": [{ "label": "Root", "effort_minutes": 10 }, node], "edges": [] }
        });
        let err = parse_json::<GenerateInput>(&body.to_string()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadRequest);
        assert_eq!(err.code, ErrorCode::MalformedJson);
        assert!(err.message.starts_with("decomposition.nodes[1]"), "{}", err.message);
        assert!(err.message.contains("effort_minutes"), "{}", err.message);
    }
    // A node created one at a time is held to the same rule.
    let ids = t.ids(plan.mind_map_id).await;
    let input = CreateNode {
        label: "Zero effort".into(),
        description: None,
        effort_minutes: Some(0),
        prerequisite_ids: vec![ids["Variables"]],
        metadata: None,
    };
    let err = t.app.create_node(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::Invalid,
        "effort_minutes: 0 is not allowed; effort is a whole number of minutes from 1 to 10000",
    );
    assert_eq!(t.counts().await, before);
}

async fn root_node_is_recorded_on_the_mind_map(t: &TestApp) {
    // The root is listed last, and "Deepest" is reachable by a short and a long path.
    let decomposition = dag(
        "Topic",
        &[("Basics", 10), ("Deeper", 10), ("Deepest", 10), ("Shortcut", 10), ("Topic", 20)],
        &[
            ("Topic", "Basics"),
            ("Basics", "Deeper"),
            ("Deeper", "Deepest"),
            ("Topic", "Deepest"),
            ("Topic", "Shortcut"),
        ],
    );
    let plan = t.plan("Topic", decomposition).await;
    let agg = t.map(plan.mind_map_id).await;
    let ids = t.ids(plan.mind_map_id).await;
    assert_eq!(agg.map.root_node_id, Some(ids["Topic"]));
    assert_eq!(plan.root_node_id, Some(ids["Topic"]));
    let depths: BTreeMap<String, i32> = agg.nodes.iter().map(|n| (n.label.clone(), n.depth)).collect();
    assert_eq!(
        depths,
        BTreeMap::from([
            ("Basics".to_string(), 1),
            ("Deeper".to_string(), 2),
            ("Deepest".to_string(), 3),
            ("Shortcut".to_string(), 1),
            ("Topic".to_string(), 0),
        ])
    );
    for node in agg.nodes.iter().filter(|n| n.id != ids["Topic"]) {
        assert!(node.depth >= 1, "'{}' has depth {}", node.label, node.depth);
    }
}

async fn all_edges_are_prerequisite_edges_by_default(t: &TestApp) {
    let mut decomposition =
        dag("Root", &[("Root", 10), ("A", 10), ("B", 10), ("C", 10)], &[("Root", "A"), ("Root", "B"), ("Root", "C")]);
    decomposition["edges"].as_array_mut().unwrap().push(json!({ "parent": "A", "child": "C", "edge_type": "related" }));
    let plan = t.plan("Edges", decomposition).await;
    let ids = t.ids(plan.mind_map_id).await;
    let agg = t.map(plan.mind_map_id).await;
    for edge in &agg.edges {
        let expected = if (edge.parent_node_id, edge.child_node_id) == (ids["A"], ids["C"]) {
            EdgeType::Related
        } else {
            EdgeType::Prerequisite
        };
        assert_eq!(edge.edge_type, expected);
    }

    // mind_map_edge_create without an edge_type.
    let created =
        t.app.create_edge(t.learner, plan.mind_map_id, edge_input(ids["A"], ids["B"], None)).await.expect("edge");
    assert_eq!(created.edge_type, EdgeType::Prerequisite);
    let stored = t.map(plan.mind_map_id).await;
    let persisted =
        stored.edges.iter().find(|e| (e.parent_node_id, e.child_node_id) == (ids["A"], ids["B"])).expect("persisted");
    assert_eq!(persisted.edge_type, EdgeType::Prerequisite);
    // It gates like a prerequisite: B is now a level deeper.
    assert_eq!(stored.node(ids["B"]).unwrap().depth, 2);
}

conformance!(
    every_node_has_a_populated_effort_estimate,
    root_node_is_recorded_on_the_mind_map,
    all_edges_are_prerequisite_edges_by_default,
);
