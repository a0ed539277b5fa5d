//! Requirement: Sequence numbering on nodes.

use super::*;

async fn all_nodes_receive_unique_sequence_numbers_after_generation(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    assert_eq!(plan.node_count, 15);
    let agg = t.map(plan.mind_map_id).await;
    let mut sequences: Vec<i32> = agg.nodes.iter().map(|n| n.sequence.expect("non-null sequence")).collect();
    sequences.sort_unstable();
    assert_eq!(sequences, (1..=15).collect::<Vec<_>>());
    assert_eq!(order(t, plan.mind_map_id).await, labels(&PYTHON_15_ORDER));
    // And it is a learning order: every prerequisite comes first.
    let seq: HashMap<NodeId, i32> = agg.nodes.iter().map(|n| (n.id, n.sequence.unwrap())).collect();
    for edge in &agg.edges {
        assert!(seq[&edge.parent_node_id] < seq[&edge.child_node_id]);
    }
}

async fn sequence_numbers_are_stable_across_node_additions(t: &TestApp) {
    let decomposition = dag(
        "Algebra",
        &[
            ("Algebra", 10),
            ("Numbers", 10),
            ("Symbols", 15),
            ("Equality", 20),
            ("Expressions", 10),
            ("Terms", 15),
            ("Balance", 20),
            ("Like Terms", 10),
            ("Linear Equations", 20),
            ("Substitution", 30),
        ],
        &[
            ("Algebra", "Numbers"),
            ("Algebra", "Symbols"),
            ("Algebra", "Equality"),
            ("Numbers", "Expressions"),
            ("Symbols", "Expressions"),
            ("Symbols", "Terms"),
            ("Equality", "Balance"),
            ("Terms", "Like Terms"),
            ("Expressions", "Linear Equations"),
            ("Balance", "Linear Equations"),
            ("Expressions", "Substitution"),
        ],
    );
    let plan = t.plan("Algebra", decomposition).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    let original = seqs(t, map).await;
    assert_eq!(
        order(t, map).await,
        labels(&[
            "Algebra",
            "Numbers",
            "Symbols",
            "Equality",
            "Expressions",
            "Terms",
            "Balance",
            "Like Terms",
            "Linear Equations",
            "Substitution",
        ])
    );

    let input = ReplanInput {
        reason: Some("extend the plan".into()),
        add_nodes: vec![
            concept("Systems of Equations", 30, vec![ids["Linear Equations"]], vec![]),
            concept("Inequalities", 40, vec![ids["Linear Equations"]], vec![]),
        ],
    };
    let result = replan(t, map, input).await;
    assert_eq!(result.summary.node_count, 12);
    assert_eq!(result.added_node_ids.len(), 2);
    let after = seqs(t, map).await;
    for (label, sequence) in &original {
        assert_eq!(after[label], *sequence, "'{label}' moved");
    }
    assert_eq!((after["Systems of Equations"], after["Inequalities"]), (11, 12));
    assert_eq!(t.node(result.added_node_ids[0]).await.label, "Systems of Equations");

    // A node created one at a time goes last until the next re-plan places it.
    let input = CreateNode {
        label: "Quadratics".into(),
        description: None,
        effort_minutes: Some(50),
        prerequisite_ids: vec![ids["Linear Equations"]],
        metadata: None,
    };
    let created = t.app.create_node(t.learner, map, input).await.expect("node");
    assert_eq!(created.sequence, Some(13));
    replan(t, map, ReplanInput::default()).await;
    let mut expected = after.clone();
    expected.insert("Quadratics".into(), 13);
    assert_eq!(seqs(t, map).await, expected);
}

async fn sequence_is_queryable_and_sortable_via_sql(t: &TestApp) {
    let plan = t.plan("Python Fundamentals", python_15()).await;
    let map = plan.mind_map_id;
    let rows = sql_by_sequence(t, map).await;
    let expected: Vec<(String, Option<i64>)> =
        PYTHON_15_ORDER.iter().enumerate().map(|(i, l)| (l.to_string(), Some(i as i64 + 1))).collect();
    assert_eq!(rows, expected);

    // After progress and a re-plan the stored order is still the learning order: the root,
    // mastered with a perfect score and so skippable, has left the sequence; the others are
    // numbered 1..14 without gaps.
    let ids = t.ids(map).await;
    graduate(t, map, ids["Python Fundamentals"]).await;
    replan(t, map, ReplanInput::default()).await;
    let rows: Vec<(String, Option<i64>)> =
        sql_by_sequence(t, map).await.into_iter().filter(|(_, sequence)| sequence.is_some()).collect();
    let learning_order: Vec<&str> = PYTHON_15_ORDER[1..].to_vec();
    assert_eq!(rows.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), learning_order);
    assert_eq!(rows.iter().map(|(_, s)| *s).collect::<Vec<_>>(), (1..=14).map(Some).collect::<Vec<_>>());
    assert_eq!(t.node(ids["Python Fundamentals"]).await.sequence, None);
}

conformance!(
    all_nodes_receive_unique_sequence_numbers_after_generation,
    sequence_numbers_are_stable_across_node_additions,
    sequence_is_queryable_and_sortable_via_sql,
);
