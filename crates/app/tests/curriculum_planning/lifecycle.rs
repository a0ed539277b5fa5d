//! Requirement: Syllabus lifecycle governs mind map state transitions.

use super::*;

async fn mind_map_transitions_to_active_after_curriculum_generate_completes(t: &TestApp) {
    let plan = t.plan("Active", chain(&["Root", "A"])).await;
    assert_eq!(plan.status, MapStatus::Active);
    assert_eq!(t.map(plan.mind_map_id).await.map.status, MapStatus::Active);

    // A map created first is a draft until its graph is planned (never active while empty).
    let draft = t.app.create_map(t.learner, CreateMap { title: "Later".into(), metadata: None }).await.unwrap();
    assert_eq!(draft.status, MapStatus::Draft);
    let err = t.app.update_map_status(t.learner, draft.id, MapStatus::Active).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict);
    let input: PlanInput = serde_json::from_value(json!({ "decomposition": chain(&["Root", "A", "B"]) })).unwrap();
    let planned = t.app.plan_map(t.learner, draft.id, input.clone()).await.expect("plan");
    assert_eq!(planned.status, MapStatus::Active);
    assert_eq!(t.map(draft.id).await.map.status, MapStatus::Active);
    // Planning again is refused: a plan is changed by re-planning.
    let err = t.app.plan_map(t.learner, draft.id, input).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict);

    // A refused generation leaves no map behind, draft or otherwise.
    let maps = t.app.list_maps(t.learner, None, None, None).await.unwrap().total;
    try_plan(t, "Broken", chain(&["Only", "Only"])).await.unwrap_err();
    assert_eq!(t.app.list_maps(t.learner, None, None, None).await.unwrap().total, maps);
}

async fn mind_map_transitions_to_completed_when_all_nodes_are_mastered(t: &TestApp) {
    // Through quiz responses.
    let plan = t.plan("By responses", chain(&["Root", "A", "B"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    graduate(t, map, ids["Root"]).await;
    graduate(t, map, ids["A"]).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Active);
    graduate(t, map, ids["B"]).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Completed);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);

    // Through status updates.
    let plan = t.plan("By hand", chain(&["Root", "A"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    set_status(t, ids["A"], MasteryStatus::Learning).await;
    set_status(t, ids["A"], MasteryStatus::Reviewing).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Active);
    set_status(t, ids["A"], MasteryStatus::Mastered).await;
    assert_eq!(t.map(map).await.map.status, MapStatus::Completed);
    assert_eq!(t.app.next_node(t.learner, map).await.unwrap(), None);
}

async fn curriculum_replan_rejects_abandoned_mind_maps(t: &TestApp) {
    let plan = t.plan("Abandoned", chain(&["Root", "A", "B"])).await;
    let map = plan.mind_map_id;
    let ids = t.ids(map).await;
    master(t, ids["Root"]).await;
    t.app.update_map_status(t.learner, map, MapStatus::Abandoned).await.expect("abandon");
    let map_before = t.map(map).await;
    let before = t.counts().await;

    let input = ReplanInput {
        reason: Some("try again".into()),
        add_nodes: vec![concept("Extra", 10, vec![ids["A"]], vec![ids["B"]])],
    };
    let err = t.app.replan(t.learner, map, input).await.unwrap_err();
    assert_error(
        &err,
        ErrorKind::Conflict,
        ErrorCode::MapNotOpen,
        "status: mind map is abandoned; curriculum_replan needs a map that is active",
    );
    assert_eq!(err.details, json!({ "field": "status", "status": "abandoned" }));
    assert_eq!(t.map(map).await, map_before);
    assert_eq!(t.counts().await, before);
}

async fn curriculum_generate_returns_the_mind_map_dict_on_success(t: &TestApp) {
    let plan = t.plan("Dict", chain(&["Root", "A", "B"])).await;
    let dict = serde_json::to_value(&plan).unwrap();
    let agg = t.map(plan.mind_map_id).await;
    assert_eq!(
        dict,
        json!({
            "mind_map_id": agg.map.id.to_string(),
            "node_count": 3,
            "edge_count": 2,
            "status": "active",
            "root_node_id": agg.map.root_node_id.unwrap().to_string(),
        })
    );
    assert_eq!(agg.map.title, "Dict");
    assert_eq!((agg.nodes.len(), agg.edges.len()), (3, 2));
}

conformance!(
    mind_map_transitions_to_active_after_curriculum_generate_completes,
    mind_map_transitions_to_completed_when_all_nodes_are_mastered,
    curriculum_replan_rejects_abandoned_mind_maps,
    curriculum_generate_returns_the_mind_map_dict_on_success,
);
