//! Requirement: Next-node selection returns highest-priority frontier node.

use super::*;

async fn returns_frontier_node_with_lowest_sequence(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[
            ("Root", 10),
            ("A", 10),
            ("B", 20),
            ("C", 30),
            ("D", 10),
            ("E", 20),
            ("F", 30),
            ("G", 40),
            ("H", 10),
            ("I", 20),
            ("J", 30),
            ("K", 40),
        ],
        &[
            ("Root", "A"),
            ("Root", "B"),
            ("Root", "C"),
            ("B", "D"),
            ("C", "E"),
            ("A", "F"),
            ("B", "G"),
            ("D", "H"),
            ("D", "I"),
            ("G", "J"),
            ("E", "K"),
        ],
    );
    let plan = t.plan("Frontier", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"]));
    for label in ["Root", "A", "C", "E"] {
        master(t, ids[label]).await;
    }
    let frontier: Vec<Option<i32>> = t.app.frontier(t.learner, map).await.unwrap().iter().map(|n| n.sequence).collect();
    assert_eq!(frontier, vec![Some(3), Some(7), Some(12)]);
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!((next.label.as_str(), next.sequence), ("B", Some(3)));
}

async fn non_frontier_node_is_never_returned_even_if_it_has_a_low_sequence_number(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("X", 5), ("A", 10), ("B", 15), ("Z", 20), ("M", 1), ("Y", 5)],
        &[("Root", "X"), ("Root", "A"), ("Root", "B"), ("Root", "Z"), ("Root", "M"), ("M", "Y")],
    );
    let plan = t.plan("Not the frontier", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    master(t, ids["M"]).await;
    replan(t, map, ReplanInput::default()).await;
    assert_eq!(order(t, map).await, labels(&["X", "A", "B", "Z", "Y", "Root", "M"]));
    master(t, ids["A"]).await;
    master(t, ids["B"]).await;
    set_status(t, ids["Y"], MasteryStatus::Learning).await;
    // X now needs Y, which is still being learned; X keeps sequence 1 until a re-plan.
    t.app.create_edge(t.learner, map, edge_input(ids["Y"], ids["X"], None)).await.expect("edge");

    let (x, y, z) = (t.node(ids["X"]).await, t.node(ids["Y"]).await, t.node(ids["Z"]).await);
    assert_eq!(x.sequence, Some(1));
    assert_eq!(y.mastery_status, MasteryStatus::Learning);
    assert_eq!(z.sequence, Some(4));
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!(next.id, ids["Z"]);
}

async fn returns_none_when_all_nodes_are_mastered(t: &TestApp) {
    let plan = t.plan("All mastered", chain(&["Root", "A", "B"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    for label in ["Root", "A"] {
        graduate(t, map, ids[label]).await;
    }
    master(t, ids["B"]).await;
    assert!(t.map(map).await.nodes.iter().all(|n| n.mastery_status == MasteryStatus::Mastered));
    assert!(t.app.frontier(t.learner, map).await.unwrap().is_empty());
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);
}

async fn returns_none_for_a_completed_or_abandoned_mind_map(t: &TestApp) {
    // Abandoned: its frontier still holds the root, but next-node does not look.
    let plan = t.plan("Abandoned", chain(&["Root", "A"])).await;
    let map = plan.mind_map_id;
    t.app.update_map_status(t.learner, map, MapStatus::Abandoned).await.expect("abandon");
    assert_eq!(t.app.frontier(t.learner, map).await.unwrap().len(), 1);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);

    // Completed.
    let plan = t.plan("Completed", chain(&["Root", "A"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    graduate(t, map, ids["Root"]).await;
    graduate(t, map, ids["A"]).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Completed);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);
}

async fn root_node_is_on_the_frontier_for_a_fresh_mind_map(t: &TestApp) {
    // The root is listed last, costs the most and sorts last by label.
    let decomposition = dag(
        "Web Development",
        &[("APIs", 5), ("CSS", 5), ("HTML", 5), ("Web Development", 90)],
        &[("Web Development", "APIs"), ("Web Development", "CSS"), ("Web Development", "HTML")],
    );
    let plan = t.plan("Web Development", decomposition).await;
    let map = plan.mind_map_id;
    let root = plan.root_node_id.expect("root");
    let frontier = t.app.frontier(t.learner, map).await.unwrap();
    assert_eq!(frontier.iter().map(|n| n.id).collect::<Vec<_>>(), vec![root]);
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!((next.id, next.depth, next.sequence), (root, 0, Some(1)));
    assert_eq!(next.label, "Web Development");
}

async fn node_in_learning_state_is_returned_by_next_node_if_on_frontier(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("B", 10), ("C", 20), ("D", 30), ("A", 40), ("F", 50), ("E", 10)],
        &[("Root", "B"), ("Root", "C"), ("Root", "D"), ("Root", "A"), ("Root", "F"), ("A", "E")],
    );
    let plan = t.plan("Learning", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    assert_eq!(order(t, map).await, labels(&["Root", "B", "C", "D", "A", "F", "E"]));
    for label in ["Root", "B", "C", "D"] {
        master(t, ids[label]).await;
    }
    let out = t.record_later(map, ids["A"], 2, ResponseType::Teach).await;
    assert_eq!(out.node.mastery_status, MasteryStatus::Learning);

    let frontier: Vec<(String, Option<i32>)> =
        t.app.frontier(t.learner, map).await.unwrap().into_iter().map(|n| (n.label, n.sequence)).collect();
    assert_eq!(frontier, vec![("A".to_string(), Some(5)), ("F".to_string(), Some(6))]);
    let next = t.app.next_node(t.learner, map).await.unwrap().expect("a next node");
    assert_eq!((next.id, next.mastery_status, next.sequence), (ids["A"], MasteryStatus::Learning, Some(5)));
}

conformance!(
    returns_frontier_node_with_lowest_sequence,
    non_frontier_node_is_never_returned_even_if_it_has_a_low_sequence_number,
    returns_none_when_all_nodes_are_mastered,
    returns_none_for_a_completed_or_abandoned_mind_map,
    root_node_is_on_the_frontier_for_a_fresh_mind_map,
    node_in_learning_state_is_returned_by_next_node_if_on_frontier,
);
