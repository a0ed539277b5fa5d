//! Requirement: Re-planning updates sequence without destroying structure.

use super::*;

async fn re_plan_reorders_sequence_after_mastery_state_change(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("A", 30), ("B", 5), ("C", 10), ("D", 10), ("F", 20)],
        &[("Root", "A"), ("A", "B"), ("Root", "C"), ("C", "D"), ("Root", "F")],
    );
    let plan = t.plan("Replan", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "C", "F", "A", "B", "D"]));
    master(t, ids["Root"]).await;
    replan(t, map, ReplanInput::default()).await;
    let last_plan = seqs(t, map).await;
    assert_eq!(order(t, map).await, labels(&["C", "F", "A", "B", "D", "Root"]));
    assert_eq!(t.node(ids["A"]).await.mastery_status, MasteryStatus::Unseen);

    // A goes from unseen to mastered.
    master(t, ids["A"]).await;
    let result = replan(t, map, ReplanInput::default()).await;
    let now = seqs(t, map).await;
    assert_eq!(
        result.sequence.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(),
        vec!["C", "F", "B", "D", "A", "Root"]
    );
    // A left the active sequence: everything still to learn comes before it.
    let open = ["C", "F", "B", "D"];
    assert!(open.iter().all(|l| now[*l] < now["A"]));
    assert_ne!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["A"]);
    // B, blocked only by A, moved up (4 -> 3) and is on the frontier now.
    assert_eq!((last_plan["B"], now["B"]), (4, 3));
    let frontier: Vec<NodeId> = t.app.frontier(t.learner, map).await.unwrap().iter().map(|n| n.id).collect();
    assert!(frontier.contains(&ids["B"]));
}

async fn re_plan_with_reason_triggers_optional_llm_node_addition(t: &TestApp) {
    let decomposition = dag(
        "Python",
        &[("Python", 10), ("Functions", 20), ("Loops", 15), ("Recursion", 30), ("Tail Recursion", 25)],
        &[("Python", "Functions"), ("Python", "Loops"), ("Functions", "Recursion"), ("Recursion", "Tail Recursion")],
    );
    let plan = t.plan("Python", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Python", "Loops", "Functions", "Recursion", "Tail Recursion"]));

    let stack_frames = AddConceptInput {
        label: "Stack Frames".into(),
        description: Some("How each call gets its own frame on the call stack".into()),
        effort_minutes: 15,
        prerequisite_ids: vec![ids["Functions"]],
        prerequisite_of: vec![ids["Recursion"], ids["Tail Recursion"]],
    };
    let input =
        ReplanInput { reason: Some("user struggling with recursion subtree".into()), add_nodes: vec![stack_frames] };
    let result = replan(t, map, input).await;
    assert_eq!(result.added_node_ids.len(), 1);
    let added = t.node(result.added_node_ids[0]).await;
    assert_eq!(added.label, "Stack Frames");
    assert_eq!(added.effort_minutes, Some(15));
    assert_eq!(added.depth, 2);
    assert_eq!(added.mastery_status, MasteryStatus::Unseen);

    let agg = t.map(map).await;
    for (parent, child) in
        [(ids["Functions"], added.id), (added.id, ids["Recursion"]), (added.id, ids["Tail Recursion"])]
    {
        let edge = agg.edges.iter().find(|e| (e.parent_node_id, e.child_node_id) == (parent, child)).expect("edge");
        assert_eq!(edge.edge_type, EdgeType::Prerequisite);
    }
    assert_eq!((result.summary.node_count, result.summary.edge_count), (6, 7));
    // Depths follow the new prerequisite, and the whole sequence is recomputed.
    assert_eq!(agg.node(ids["Recursion"]).unwrap().depth, 3);
    assert_eq!(agg.node(ids["Tail Recursion"]).unwrap().depth, 4);
    let expected = ["Python", "Loops", "Functions", "Stack Frames", "Recursion", "Tail Recursion"];
    assert_eq!(order(t, map).await, labels(&expected));
    assert_eq!(result.sequence.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(), expected);
    assert_eq!(result.sequence.iter().map(|n| n.sequence).collect::<Vec<_>>(), (1..=6).map(Some).collect::<Vec<_>>());
}

async fn re_plan_preserves_existing_edge_structure(t: &TestApp) {
    let nodes: Vec<(&str, i64)> = vec![
        ("Topic", 10),
        ("A1", 10),
        ("A2", 20),
        ("A3", 30),
        ("A4", 40),
        ("B1", 10),
        ("B2", 20),
        ("B3", 30),
        ("B4", 40),
        ("B5", 50),
        ("C1", 10),
        ("C2", 20),
        ("C3", 30),
        ("C4", 40),
        ("C5", 50),
        ("D1", 10),
        ("D2", 20),
        ("D3", 30),
        ("D4", 40),
        ("E1", 10),
    ];
    let edges = [
        ("Topic", "A1"),
        ("Topic", "A2"),
        ("Topic", "A3"),
        ("Topic", "A4"),
        ("A1", "B1"),
        ("A1", "B2"),
        ("A2", "B2"),
        ("A2", "B3"),
        ("A3", "B4"),
        ("A3", "B5"),
        ("A4", "B5"),
        ("B1", "C1"),
        ("B2", "C2"),
        ("B3", "C2"),
        ("B3", "C3"),
        ("B4", "C4"),
        ("B5", "C5"),
        ("C1", "D1"),
        ("C2", "D1"),
        ("C3", "D2"),
        ("C4", "D3"),
        ("C5", "D4"),
        ("D1", "E1"),
        ("D4", "E1"),
    ];
    let mut decomposition = dag("Topic", &nodes, &edges);
    for (p, c) in [("A1", "A4"), ("C1", "C5")] {
        decomposition["edges"].as_array_mut().unwrap().push(json!({ "parent": p, "child": c, "edge_type": "related" }));
    }
    let plan = t.plan("Twenty", decomposition).await;
    let map = plan.mind_map_id;
    assert_eq!((plan.node_count, plan.edge_count), (20, 26));
    let ids = t.ids(map).await;
    graduate(t, map, ids["Topic"]).await;
    master(t, ids["A1"]).await;

    let sorted_edges = |mut edges: Vec<Edge>| {
        edges.sort_by_key(|e| (e.parent_node_id, e.child_node_id));
        edges
    };
    let before_edges = sorted_edges(t.map(map).await.edges);
    let before = t.counts().await;

    let result = replan(t, map, ReplanInput::default()).await;
    assert_eq!((result.summary.node_count, result.summary.edge_count), (20, 26));
    assert_eq!(sorted_edges(t.map(map).await.edges), before_edges);
    assert_eq!(t.counts().await, before);

    // Even a re-plan that adds a concept keeps every existing edge as it was.
    let input = ReplanInput {
        reason: Some("struggling with C3".into()),
        add_nodes: vec![concept("Extra", 15, vec![ids["A2"]], vec![ids["C3"]])],
    };
    let result = replan(t, map, input).await;
    assert_eq!((result.summary.node_count, result.summary.edge_count), (21, 28));
    let after_edges = t.map(map).await.edges;
    assert!(after_edges.len() >= before_edges.len());
    for edge in &before_edges {
        assert!(after_edges.contains(edge), "edge {edge:?} was changed or removed");
    }
    let after = t.counts().await;
    assert_eq!(count(&after, "mind_map_edges"), count(&before, "mind_map_edges") + 2);
    assert_eq!(count(&after, "mind_map_nodes"), count(&before, "mind_map_nodes") + 1);
}

async fn re_plan_marks_a_node_as_skippable_based_on_mastery(t: &TestApp) {
    let decomposition =
        dag("Root", &[("Root", 10), ("A", 10), ("B", 10), ("C", 20)], &[("Root", "A"), ("A", "B"), ("Root", "C")]);
    let plan = t.plan("Skippable", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "A", "C", "B"]));

    // Root: mastered with a perfect score.
    let root = graduate(t, map, ids["Root"]).await;
    assert!(root.mastery_score >= 0.9);
    // C: mastered, but with a score under 0.9 (teach 3, then reviews 4, 4, 4, 5).
    t.record_later(map, ids["C"], 3, ResponseType::Teach).await;
    for q in [4, 4, 4, 5] {
        t.record_later(map, ids["C"], q, ResponseType::Review).await;
    }
    let c = t.node(ids["C"]).await;
    assert_eq!(c.mastery_status, MasteryStatus::Mastered);
    assert!(close(c.mastery_score, 139.0 / 155.0), "{}", c.mastery_score);

    let result = replan(t, map, ReplanInput::default()).await;
    assert_eq!(result.skippable_node_ids, vec![ids["Root"]]);
    let root = t.node(ids["Root"]).await;
    assert_eq!(Value::Object(root.metadata.clone()), json!({ "skippable": true }));
    assert!(root.is_skippable());
    assert!(!t.node(ids["C"]).await.is_skippable());
    // Out of the active learning sequence: no sequence position at all, never next; the
    // others are numbered 1..N without gaps, the mastered C after every node still to learn.
    assert_eq!(t.node(ids["Root"]).await.sequence, None);
    let sequenced: Vec<(String, i32)> = {
        let mut nodes: Vec<(String, i32)> =
            t.map(map).await.nodes.into_iter().filter_map(|n| Some((n.label, n.sequence?))).collect();
        nodes.sort_by_key(|(_, s)| *s);
        nodes
    };
    assert_eq!(sequenced, vec![("A".to_string(), 1), ("B".to_string(), 2), ("C".to_string(), 3)]);
    let last = result.sequence.last().unwrap();
    assert_eq!((last.id, last.sequence), (ids["Root"], None), "listed last, with no position");
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["A"]);
    let frontier = t.app.frontier(t.learner, map).await.unwrap();
    assert_eq!(frontier.iter().map(|n| n.label.as_str()).collect::<Vec<_>>(), ["A"]);
    // A re-plan later keeps it out, and new mastery does not bring it back.
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(t.node(ids["Root"]).await.sequence, None);
}

async fn re_planning_is_idempotent_on_a_stable_graph(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    let map = plan.mind_map_id;
    // A fresh plan re-planned changes nothing.
    let generated = t.map(map).await;
    let counts = t.counts().await;
    t.clock.advance(chrono::Duration::hours(1));
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(t.map(map).await, generated);
    assert_eq!(t.counts().await, counts);

    // After progress, the first re-plan moves things; the next ones do not.
    let ids = t.ids(map).await;
    graduate(t, map, ids["Python Fundamentals"]).await;
    master(t, ids["Variables"]).await;
    let first = replan(t, map, ReplanInput::default()).await;
    let planned = t.map(map).await;
    let counts = t.counts().await;
    for _ in 0..2 {
        t.clock.advance(chrono::Duration::hours(1));
        let again = replan(t, map, ReplanInput::default()).await;
        assert_eq!(again.sequence, first.sequence);
        assert_eq!(again.skippable_node_ids, first.skippable_node_ids);
        assert!(again.added_node_ids.is_empty());
        assert_eq!(t.map(map).await, planned);
        assert_eq!(t.counts().await, counts);
    }
}

conformance!(
    re_plan_reorders_sequence_after_mastery_state_change,
    re_plan_with_reason_triggers_optional_llm_node_addition,
    re_plan_preserves_existing_edge_structure,
    re_plan_marks_a_node_as_skippable_based_on_mastery,
    re_planning_is_idempotent_on_a_stable_graph,
);
