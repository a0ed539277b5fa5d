mod support;

use pathwise_domain::ResponseType;
use support::{chain, TestApp};

async fn a_planned_chain_is_learned_to_completion(t: &TestApp) {
    let plan = t.plan("Smoke", chain(&["Root", "A", "B"])).await;
    assert_eq!(plan.node_count, 3);
    let ids = t.ids(plan.mind_map_id).await;
    let root = ids["Root"];
    let out = t.record_later(plan.mind_map_id, root, 4, ResponseType::Teach).await;
    assert_eq!(out.node.mastery_score, 0.8);
}

conformance!(a_planned_chain_is_learned_to_completion);
