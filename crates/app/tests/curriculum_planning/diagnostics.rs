//! Requirement: Diagnostic results inform sequence ordering.

use super::*;

async fn high_scoring_diagnostic_node_gets_diagnosed_status(t: &TestApp) {
    let plan = t
        .plan_with(json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": { "node_label": "Variables", "quality": 4 },
            "decomposition": python_15(),
        }))
        .await;
    let agg = t.map(plan.mind_map_id).await;
    for node in &agg.nodes {
        if node.label == "Variables" {
            assert_eq!(node.mastery_status, MasteryStatus::Diagnosed);
            assert!(close(node.mastery_score, 0.72), "{}", node.mastery_score);
            assert!((0.3..=0.9).contains(&node.mastery_score));
        } else {
            assert_eq!((node.mastery_status, node.mastery_score), (MasteryStatus::Unseen, 0.0), "'{}'", node.label);
        }
    }
    assert_eq!(plan.status, MapStatus::Active);

    // Labels match case-insensitively after trimming.
    let plan = t
        .plan_with(json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": [{ "node_label": "  variables ", "quality": 4 }],
            "decomposition": python_15(),
            "on_existing": "new",
        }))
        .await;
    let variables = node_by_label(t, plan.mind_map_id, "Variables").await;
    assert_eq!(variables.mastery_status, MasteryStatus::Diagnosed);
    assert!(close(variables.mastery_score, 0.72));
}

async fn low_scoring_diagnostic_node_remains_unseen(t: &TestApp) {
    let decomposition = dag(
        "Python",
        &[("Python", 10), ("Functions", 20), ("Decorators", 30), ("Generators", 30), ("Closures", 30)],
        &[("Python", "Functions"), ("Functions", "Decorators"), ("Functions", "Generators"), ("Functions", "Closures")],
    );
    let plan = t
        .plan_with(json!({
            "topic": "Python",
            "diagnostic_results": [
                { "node_label": "Decorators", "quality": 1 },
                { "node_label": "Generators", "quality": 2 },
                { "node_label": "Closures", "quality": 0 },
                { "node_label": "Functions", "quality": 3 },
            ],
            "decomposition": decomposition,
        }))
        .await;
    let map = plan.mind_map_id;
    for label in ["Decorators", "Generators", "Closures"] {
        let node = node_by_label(t, map, label).await;
        assert_eq!((node.mastery_status, node.mastery_score), (MasteryStatus::Unseen, 0.0), "'{label}'");
    }
    // The boundary: quality 3 is enough.
    let functions = node_by_label(t, map, "Functions").await;
    assert_eq!(functions.mastery_status, MasteryStatus::Diagnosed);
    assert!(close(functions.mastery_score, 0.54));
}

async fn diagnosed_nodes_rank_before_unseen_nodes_in_sequence(t: &TestApp) {
    let decomposition = dag(
        "Root",
        &[("Root", 10), ("Alpha", 15), ("Bravo", 15), ("Charlie", 15), ("Delta", 15), ("Echo", 15)],
        &[("Root", "Alpha"), ("Root", "Bravo"), ("Root", "Charlie"), ("Root", "Delta"), ("Root", "Echo")],
    );
    let plan = t
        .plan_with(json!({
            "topic": "Diagnosed first",
            "diagnostic_results": [
                { "node_label": "Echo", "quality": 5 },
                { "node_label": "Delta", "quality": 3 },
                { "node_label": "Bravo", "quality": 2 },
            ],
            "decomposition": decomposition,
        }))
        .await;
    let map = plan.mind_map_id;
    assert_eq!(order(t, map).await, labels(&["Root", "Delta", "Echo", "Alpha", "Bravo", "Charlie"]));
    let agg = t.map(map).await;
    for diagnosed in agg.nodes.iter().filter(|n| n.mastery_status == MasteryStatus::Diagnosed) {
        for unseen in
            agg.nodes.iter().filter(|n| n.mastery_status == MasteryStatus::Unseen && n.depth == diagnosed.depth)
        {
            assert!(diagnosed.sequence < unseen.sequence);
        }
    }
}

async fn diagnostic_results_for_unknown_node_labels_are_ignored(t: &TestApp) {
    let before = t.counts().await;
    let plan = t
        .plan_with(json!({
            "topic": "Python Fundamentals",
            "diagnostic_results": [
                { "node_label": "Quantum Entanglement", "quality": 5 },
                { "node_label": "Variables", "quality": 4 },
                { "node_label": "Web Scraping", "quality": 1 },
                { "node_label": "loops ", "quality": 2 },
                { "node_label": "Strings", "quality": 3 },
            ],
            "decomposition": python_15(),
        }))
        .await;
    assert_eq!(plan.node_count, 15);
    let after = t.counts().await;
    assert_eq!(count(&after, "mind_map_nodes") - count(&before, "mind_map_nodes"), 15);
    let agg = t.map(plan.mind_map_id).await;
    assert!(agg.nodes.iter().all(|n| n.label != "Quantum Entanglement" && n.label != "Web Scraping"));
    let statuses: BTreeMap<String, MasteryStatus> =
        agg.nodes.iter().map(|n| (n.label.clone(), n.mastery_status)).collect();
    for (label, status) in &statuses {
        let expected = match label.as_str() {
            "Variables" | "Strings" => MasteryStatus::Diagnosed,
            _ => MasteryStatus::Unseen,
        };
        assert_eq!(*status, expected, "'{label}'");
    }
    assert!(close(agg.node(t.ids(plan.mind_map_id).await["Strings"]).unwrap().mastery_score, 0.54));
}

async fn mastery_seeded_conservatively_from_diagnostic_scores(t: &TestApp) {
    let decomposition = dag(
        "Python",
        &[("Python", 10), ("Variables", 10), ("Types", 10)],
        &[("Python", "Variables"), ("Python", "Types")],
    );
    let plan = t
        .plan_with(json!({
            "topic": "Python",
            "diagnostic_results": [{ "node_label": "Python", "quality": 5 }, { "node_label": "Variables", "quality": 5 }],
            "decomposition": decomposition.clone(),
        }))
        .await;
    let map = plan.mind_map_id;
    assert_eq!(plan.status, MapStatus::Active);
    for label in ["Python", "Variables"] {
        let node = node_by_label(t, map, label).await;
        assert_eq!(node.mastery_status, MasteryStatus::Diagnosed, "'{label}'");
        assert!(node.mastery_score <= 0.9);
        assert!(close(node.mastery_score, 0.9));
    }
    // Still in the learning sequence, for reinforcement: the root is studied first.
    assert_eq!(order(t, map).await, labels(&["Python", "Variables", "Types"]));
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap().unwrap().label, "Python");
    let result = replan(t, map, ReplanInput::default()).await;
    assert!(result.skippable_node_ids.is_empty());
    assert_eq!(order(t, map).await, labels(&["Python", "Variables", "Types"]));

    // A quality outside 0-5 is refused, whatever label it names.
    let before = t.counts().await;
    let err = try_generate(
        t,
        json!({
            "topic": "Python",
            "diagnostic_results": [{ "node_label": "Nowhere", "quality": 6 }],
            "decomposition": decomposition,
        }),
    )
    .await
    .unwrap_err();
    assert_error(
        &err,
        ErrorKind::Invalid,
        ErrorCode::Invalid,
        "diagnostic_results[0].quality: 6 is out of range; quality is an integer from 0 to 5",
    );
    assert_eq!(t.counts().await, before);
}

conformance!(
    high_scoring_diagnostic_node_gets_diagnosed_status,
    low_scoring_diagnostic_node_remains_unseen,
    diagnosed_nodes_rank_before_unseen_nodes_in_sequence,
    diagnostic_results_for_unknown_node_labels_are_ignored,
    mastery_seeded_conservatively_from_diagnostic_scores,
);
