//! Requirement: Structural constraints on concept graph.

use super::*;

async fn edge_creating_a_cycle_is_rejected(t: &TestApp) {
    let plan = t.plan("Cycle", chain(&["A", "B", "C"])).await;
    let ids = t.ids(plan.mind_map_id).await;
    let map_before = t.map(plan.mind_map_id).await;
    let before = t.counts().await;

    let err = t.app.create_edge(t.learner, plan.mind_map_id, edge_input(ids["C"], ids["A"], None)).await.unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::Cycle, "cycle: C -> A -> B -> C");
    assert_eq!(err.details["cycle"], json!(["C", "A", "B", "C"]));

    let err = t
        .app
        .create_edge(t.learner, plan.mind_map_id, edge_input(ids["C"], ids["B"], Some(EdgeType::Prerequisite)))
        .await
        .unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::Cycle, "cycle: C -> B -> C");

    assert_eq!(t.counts().await, before);
    assert_eq!(t.map(plan.mind_map_id).await, map_before);

    // A decomposition holding a cycle is refused as a whole.
    let cyclic = dag(
        "Root",
        &[("Root", 10), ("A", 10), ("B", 10), ("C", 10)],
        &[("Root", "A"), ("A", "B"), ("B", "C"), ("C", "A")],
    );
    let err = try_plan(t, "Cyclic", cyclic).await.unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::Cycle, "cycle: A -> B -> C -> A");
    assert_eq!(t.counts().await, before);
}

async fn graph_exceeding_30_nodes_is_rejected(t: &TestApp) {
    let star = |n: usize| {
        let mut nodes = vec![("Root".to_string(), 10)];
        nodes.extend((1..n).map(|i| (format!("Concept {i}"), 10)));
        let nodes: Vec<(&str, i64)> = nodes.iter().map(|(l, e)| (l.as_str(), *e)).collect();
        let edges: Vec<(&str, &str)> = nodes[1..].iter().map(|(l, _)| ("Root", *l)).collect();
        dag("Root", &nodes, &edges)
    };
    let before = t.counts().await;
    let err = try_plan(t, "Too big", star(31)).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxNodes,
        "node_count: a single-topic map holds at most 30 nodes; this would make 31",
    );
    assert_eq!(err.details, json!({ "field": "nodes", "count": 31, "max_nodes": 30 }));
    // Rolled back: no map, no nodes, no edges.
    assert_eq!(t.counts().await, before);
    assert_eq!(t.app.list_maps(t.learner, None, None, None).await.unwrap().total, 0);

    // A full map refuses a 31st node, one at a time or through a re-plan.
    let plan = t.plan("Full", star(30)).await;
    let root = plan.root_node_id.unwrap();
    let full = t.counts().await;
    let input = CreateNode {
        label: "One too many".into(),
        description: None,
        effort_minutes: Some(5),
        prerequisite_ids: vec![root],
        metadata: None,
    };
    let err = t.app.create_node(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MaxNodes);
    assert_eq!(err.message, "node_count: a single-topic map holds at most 30 nodes; this would make 31");
    let input = ReplanInput { reason: None, add_nodes: vec![concept("One too many", 5, vec![root], vec![])] };
    let err = t.app.replan(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MaxNodes);
    assert_eq!(t.counts().await, full);
}

async fn node_at_depth_exceeding_5_is_rejected(t: &TestApp) {
    let mut decomposition = chain(&["L0", "L1", "L2", "L3", "L4", "L5"]);
    decomposition["nodes"].as_array_mut().unwrap().push(json!({ "label": "Side", "effort_minutes": 10 }));
    decomposition["edges"].as_array_mut().unwrap().push(json!({ "parent": "L0", "child": "Side" }));
    let plan = t.plan("Deep", decomposition).await;
    let ids = t.ids(plan.mind_map_id).await;
    assert_eq!(t.node(ids["L5"]).await.depth, 5);
    let map_before = t.map(plan.mind_map_id).await;
    let before = t.counts().await;

    // mind_map_node_create at depth 6.
    let input = CreateNode {
        label: "L6".into(),
        description: None,
        effort_minutes: Some(10),
        prerequisite_ids: vec![ids["L5"]],
        metadata: None,
    };
    let err = t.app.create_node(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxDepth,
        "depth: 'L6' would be at depth 6, and the deepest allowed is 5 (the root is depth 0)",
    );
    assert_eq!(err.details, json!({ "field": "depth", "label": "L6", "depth": 6, "max_depth": 5 }));

    // An edge that would push an existing node to depth 6.
    let err =
        t.app.create_edge(t.learner, plan.mind_map_id, edge_input(ids["L5"], ids["Side"], None)).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxDepth,
        "depth: 'Side' would be at depth 6, and the deepest allowed is 5 (the root is depth 0)",
    );

    // A concept a re-plan would add below the deepest node.
    let input =
        ReplanInput { reason: Some("too shallow".into()), add_nodes: vec![concept("L6", 10, vec![ids["L5"]], vec![])] };
    let err = t.app.replan(t.learner, plan.mind_map_id, input).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::MaxDepth);

    assert_eq!(t.counts().await, before);
    assert_eq!(t.map(plan.mind_map_id).await, map_before);

    // A decomposition seven levels deep.
    let err = try_plan(t, "Too deep", chain(&["L0", "L1", "L2", "L3", "L4", "L5", "L6"])).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::MaxDepth,
        "depth: 'L6' would be at depth 6, and the deepest allowed is 5 (the root is depth 0)",
    );
    assert_eq!(t.counts().await, before);
}

async fn a_graph_with_exactly_30_nodes_and_depth_5_is_accepted(t: &TestApp) {
    // A spine C0 -> ... -> C5 and 24 more concepts hanging from it at depths 1 to 5, some
    // also reachable by a shortcut from the root.
    let mut nodes: Vec<(String, i64)> = (0..=5).map(|i| (format!("C{i}"), 10 + i as i64)).collect();
    let mut edges: Vec<(String, String)> = (1..=5).map(|i| (format!("C{}", i - 1), format!("C{i}"))).collect();
    for i in 1..=24usize {
        nodes.push((format!("N{i}"), (i as i64 % 7) * 5 + 5));
        edges.push((format!("C{}", (i - 1) % 5), format!("N{i}")));
        if i % 3 == 0 && (i - 1) % 5 != 0 {
            edges.push(("C0".to_string(), format!("N{i}")));
        }
    }
    assert_eq!((nodes.len(), edges.len()), (30, 35));
    let node_refs: Vec<(&str, i64)> = nodes.iter().map(|(l, e)| (l.as_str(), *e)).collect();
    let edge_refs: Vec<(&str, &str)> = edges.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();

    let before = t.counts().await;
    let plan = t.plan("Thirty", dag("C0", &node_refs, &edge_refs)).await;
    assert_eq!(plan.node_count, 30);
    assert_eq!(plan.edge_count, 35);
    assert_eq!(plan.status, MapStatus::Active);

    let after = t.counts().await;
    assert_eq!(count(&after, "mind_maps") - count(&before, "mind_maps"), 1);
    assert_eq!(count(&after, "mind_map_nodes") - count(&before, "mind_map_nodes"), 30);
    assert_eq!(count(&after, "mind_map_edges") - count(&before, "mind_map_edges"), 35);

    let agg = t.map(plan.mind_map_id).await;
    assert_eq!((agg.nodes.len(), agg.edges.len()), (30, 35));
    assert_eq!(agg.nodes.iter().map(|n| n.depth).max(), Some(5));
    let mut sequences: Vec<i32> = agg.nodes.iter().filter_map(|n| n.sequence).collect();
    sequences.sort_unstable();
    assert_eq!(sequences, (1..=30).collect::<Vec<_>>());
}

async fn a_self_loop_edge_is_rejected(t: &TestApp) {
    let plan = t.plan("Loops", chain(&["Root", "X"])).await;
    let ids = t.ids(plan.mind_map_id).await;
    let map_before = t.map(plan.mind_map_id).await;
    let before = t.counts().await;
    for (label, edge_type) in [("X", None), ("Root", None), ("X", Some(EdgeType::Related))] {
        let id = ids[label];
        let err = t.app.create_edge(t.learner, plan.mind_map_id, edge_input(id, id, edge_type)).await.unwrap_err();
        assert_error(
            &err,
            ErrorKind::Invalid,
            ErrorCode::SelfLoop,
            &format!("self-loop: '{label}' cannot be its own prerequisite"),
        );
    }
    assert_eq!(t.counts().await, before);
    assert_eq!(t.map(plan.mind_map_id).await, map_before);

    let looped = dag("Root", &[("Root", 10), ("X", 10)], &[("Root", "X"), ("X", "X")]);
    let err = try_plan(t, "Looped", looped).await.unwrap_err();
    assert_error(&err, ErrorKind::Invalid, ErrorCode::SelfLoop, "self-loop: 'X' cannot be its own prerequisite");
    assert_eq!(t.counts().await, before);
}

conformance!(
    edge_creating_a_cycle_is_rejected,
    graph_exceeding_30_nodes_is_rejected,
    node_at_depth_exceeding_5_is_rejected,
    a_graph_with_exactly_30_nodes_and_depth_5_is_accepted,
    a_self_loop_edge_is_rejected,
);
