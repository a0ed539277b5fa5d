//! Requirement: Topological sort with tie-breaking.

use super::*;

async fn shallower_node_ranks_before_deeper_node_at_same_topological_level(t: &TestApp) {
    // A is shallow but costly; B is deep but quick. Depth decides.
    let decomposition =
        dag("Root", &[("Root", 10), ("A", 60), ("M", 5), ("B", 5)], &[("Root", "A"), ("Root", "M"), ("M", "B")]);
    let plan = t.plan("Depth", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    master(t, ids["M"]).await;
    replan(t, map, ReplanInput::default()).await;

    let (a, b) = (t.node(ids["A"]).await, t.node(ids["B"]).await);
    assert_eq!((a.depth, b.depth), (1, 2));
    let frontier: Vec<NodeId> = t.app.frontier(t.learner, map).await.unwrap().iter().map(|n| n.id).collect();
    assert_eq!(frontier, vec![ids["A"], ids["B"]], "both are topologically available");
    assert!(a.sequence < b.sequence);
    assert_eq!(order(t, map).await, labels(&["A", "B", "Root", "M"]));
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["A"]);
}

async fn lower_effort_node_ranks_before_higher_effort_node_at_same_depth(t: &TestApp) {
    let decomposition =
        dag("Root", &[("Root", 10), ("P", 10), ("D", 45), ("C", 10)], &[("Root", "P"), ("P", "D"), ("P", "C")]);
    let plan = t.plan("Effort", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!((t.node(ids["C"]).await.depth, t.node(ids["D"]).await.depth), (2, 2));
    assert_eq!(order(t, map).await, labels(&["Root", "P", "C", "D"]));

    // Both topologically available.
    master(t, ids["Root"]).await;
    master(t, ids["P"]).await;
    replan(t, map, ReplanInput::default()).await;
    let (c, d) = (t.node(ids["C"]).await, t.node(ids["D"]).await);
    assert_eq!((c.sequence, d.sequence), (Some(1), Some(2)));
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().id, ids["C"]);

    // Effort, not the label, decides.
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("P", 10), ("Alpha", 45), ("Omega", 10)],
        &[("Root", "P"), ("P", "Alpha"), ("P", "Omega")],
    );
    let plan = t.plan("Effort again", decomposition).await;
    assert_eq!(order(t, plan.mind_map_id).await, labels(&["Root", "P", "Omega", "Alpha"]));
}

async fn diagnosed_node_ranks_before_unseen_node_at_same_depth_and_effort(t: &TestApp) {
    let decomposition =
        |_: ()| dag("Root", &[("Root", 10), ("P", 10), ("F", 20), ("E", 20)], &[("Root", "P"), ("P", "F"), ("P", "E")]);
    let plan = t
        .plan_with(json!({
            "topic": "Diagnosed first",
            "diagnostic_results": { "node_label": "E", "quality": 4 },
            "decomposition": decomposition(()),
        }))
        .await;
    let map = plan.mind_map_id;
    let (e, f) = (node_by_label(t, map, "E").await, node_by_label(t, map, "F").await);
    assert_eq!((e.depth, e.effort_minutes, e.mastery_status), (2, Some(20), MasteryStatus::Diagnosed));
    assert_eq!((f.depth, f.effort_minutes, f.mastery_status), (2, Some(20), MasteryStatus::Unseen));
    assert_eq!((e.sequence, f.sequence), (Some(3), Some(4)));

    // Still so once both are available.
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    master(t, ids["P"]).await;
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(order(t, map).await, labels(&["E", "F", "Root", "P"]));

    // The status decides, not the label: diagnose F instead and F comes first.
    let plan = t
        .plan_with(json!({
            "topic": "Diagnosed first, mirrored",
            "diagnostic_results": [{ "node_label": "F", "quality": 4 }],
            "decomposition": decomposition(()),
        }))
        .await;
    assert_eq!(order(t, plan.mind_map_id).await, labels(&["Root", "P", "F", "E"]));

    // A node in `learning` is partially known too.
    let plan = t.plan("Learning first", decomposition(())).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "P", "E", "F"]));
    set_status(t, ids["F"], MasteryStatus::Learning).await;
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(order(t, map).await, labels(&["Root", "P", "F", "E"]));
}

async fn topological_constraint_takes_precedence_over_all_tie_breaking_criteria(t: &TestApp) {
    // G (depth 1, 5 min) needs H; I (depth 3, 60 min) needs K, which is mastered (and so
    // is J before it).
    let decomposition = dag(
        "H",
        &[("H", 10), ("G", 5), ("J", 10), ("K", 10), ("I", 60)],
        &[("H", "G"), ("H", "J"), ("J", "K"), ("K", "I")],
    );
    let plan = t.plan("Precedence", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["H", "G", "J", "K", "I"]));
    master(t, ids["J"]).await;
    master(t, ids["K"]).await;
    replan(t, map, ReplanInput::default()).await;

    let (g, i) = (t.node(ids["G"]).await, t.node(ids["I"]).await);
    assert_eq!((g.depth, g.effort_minutes), (1, Some(5)));
    assert_eq!((i.depth, i.effort_minutes), (3, Some(60)));
    assert_eq!(t.node(ids["H"]).await.mastery_status, MasteryStatus::Unseen);
    assert!(i.sequence < g.sequence, "I {:?} must come before G {:?}", i.sequence, g.sequence);
    assert_eq!(order(t, map).await, labels(&["H", "I", "G", "J", "K"]));
}

async fn sort_is_deterministic_across_multiple_calls(t: &TestApp) {
    let body = |decomposition: Value| {
        json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": [{ "node_label": "Strings", "quality": 4 }],
            "decomposition": decomposition,
            // The same topic planned again on purpose, to compare the plans.
            "on_existing": "new",
        })
    };
    let first = t.plan_with(body(python_15())).await;
    let second = t.plan_with(body(python_15())).await;
    assert_ne!(first.mind_map_id, second.mind_map_id);
    let expected = seqs(t, first.mind_map_id).await;
    assert_eq!(seqs(t, second.mind_map_id).await, expected);
    // The diagnosed "Strings" goes before "Conditionals" (same depth and effort).
    assert_eq!((expected["Strings"], expected["Conditionals"]), (5, 6));

    // The same graph written in another order.
    let mut shuffled = python_15();
    shuffled["nodes"].as_array_mut().unwrap().reverse();
    shuffled["edges"].as_array_mut().unwrap().reverse();
    let third = t.plan_with(body(shuffled)).await;
    assert_eq!(seqs(t, third.mind_map_id).await, expected);

    // Re-plans of an unchanged graph agree too.
    for plan in [&first, &second, &third] {
        replan(t, plan.mind_map_id, ReplanInput::default()).await;
        assert_eq!(seqs(t, plan.mind_map_id).await, expected);
    }

    // Full ties (same depth, effort and status) are settled by label, every time.
    let star = dag(
        "Root",
        &[("Root", 10), ("Kiwi", 10), ("apple", 10), ("Mango", 10), ("banana", 10)],
        &[("Root", "Kiwi"), ("Root", "apple"), ("Root", "Mango"), ("Root", "banana")],
    );
    for _ in 0..2 {
        let plan = t.plan_with(json!({ "topic": "Fruit", "decomposition": star, "on_existing": "new" })).await;
        assert_eq!(order(t, plan.mind_map_id).await, labels(&["Root", "apple", "banana", "Kiwi", "Mango"]));
    }
}

conformance!(
    shallower_node_ranks_before_deeper_node_at_same_topological_level,
    lower_effort_node_ranks_before_higher_effort_node_at_same_depth,
    diagnosed_node_ranks_before_unseen_node_at_same_depth_and_effort,
    topological_constraint_takes_precedence_over_all_tie_breaking_criteria,
    sort_is_deterministic_across_multiple_calls,
);
