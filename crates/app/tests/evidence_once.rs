//! Evidence stored once and only where it belongs, on both stores: a response retried with
//! its idempotency key is found, not stored again (also when the retries race), the same key
//! for another response is refused, keys are the learner's own, and a response cites only
//! the learner's own session.

mod support;

use pathwise_app::mastery::RecordResponse;
use pathwise_app::{ErrorCode, ErrorKind};
use pathwise_domain::ResponseType;
use pathwise_store::ResponseFilter;
use support::{chain, TestApp};

fn keyed(map: pathwise_domain::MindMapId, node: pathwise_domain::NodeId, quality: i64, key: &str) -> RecordResponse {
    RecordResponse {
        idempotency_key: Some(key.to_string()),
        ..RecordResponse::new(
            node,
            map,
            "What is a closure?",
            Some("A function with its scope"),
            quality,
            Some(ResponseType::Teach),
        )
    }
}

async fn stored(t: &TestApp, map: pathwise_domain::MindMapId) -> u64 {
    let filter = ResponseFilter { mind_map_id: Some(map), ..ResponseFilter::default() };
    t.app.list_responses(t.learner, filter, None, Some(500)).await.unwrap().total
}

async fn a_response_retried_with_its_key_is_stored_once(t: &TestApp) {
    let plan = t.plan("Closures", chain(&["Closures", "Captures"])).await;
    let (map, node) = (plan.mind_map_id, t.ids(plan.mind_map_id).await["Closures"]);
    let first = t.app.record_response_once(t.learner, keyed(map, node, 4, "retry-1")).await.unwrap();
    assert!(!first.replayed);
    let counts = t.counts().await;
    let again = t.app.record_response_once(t.learner, keyed(map, node, 4, "retry-1")).await.unwrap();
    assert!(again.replayed, "the retry finds the first response");
    assert_eq!(again.recorded.id, first.recorded.id);
    assert_eq!(again.recorded.response, first.recorded.response);
    assert_eq!(again.recorded.node.mastery_score, first.recorded.node.mastery_score, "the node moved once");
    assert_eq!(t.counts().await, counts, "nothing stored again");

    // The same key for another response: refused, nothing stored.
    let error = t.app.record_response_once(t.learner, keyed(map, node, 1, "retry-1")).await.unwrap_err();
    assert_eq!((error.kind, error.code), (ErrorKind::Invalid, ErrorCode::IdempotencyKeyReused), "{error}");
    assert_eq!(error.details["field"], "Idempotency-Key");
    assert_eq!(t.counts().await, counts);

    // Keys a client cannot mean are refused with what is allowed.
    for bad in ["", "has space", "ключ", &"k".repeat(256)] {
        let error = t.app.record_response_once(t.learner, keyed(map, node, 4, bad)).await.unwrap_err();
        assert_eq!((error.kind, error.code), (ErrorKind::BadRequest, ErrorCode::BadIdempotencyKey), "{bad:?}: {error}");
        assert!(error.message.contains("1-255 printable ASCII"), "{error}");
    }
    assert_eq!(t.counts().await, counts);
    assert_eq!(stored(t, map).await, 1);
}

async fn keys_are_each_learners_own(t: &TestApp) {
    let plan = t.plan("Closures", chain(&["Closures", "Captures"])).await;
    let (map, node) = (plan.mind_map_id, t.ids(plan.mind_map_id).await["Closures"]);
    t.app.record_response_once(t.learner, keyed(map, node, 4, "shared-key")).await.unwrap();
    // Another learner with the same key: their own response, stored; and they cannot reach
    // the first learner's response by it.
    let other = t.other_learner().await;
    let input = serde_json::from_value(serde_json::json!({
        "topic": "Loops",
        "decomposition": chain(&["Loops", "Iterators"]),
    }))
    .unwrap();
    let theirs = t.app.curriculum_generate(other, input).await.unwrap();
    let their_node = t.app.get_map(other, theirs.mind_map_id).await.unwrap().nodes[0].id;
    let recorded = t.app.record_response_once(other, keyed(theirs.mind_map_id, their_node, 4, "shared-key")).await;
    assert!(!recorded.unwrap().replayed, "keys are scoped to their learner");
    let error = t.app.record_response_once(other, keyed(map, node, 4, "fresh-key")).await.unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotFound, "{error}");
    assert_eq!(stored(t, map).await, 1);
}

async fn simultaneous_retries_with_one_key_store_one_response(t: &TestApp) {
    let plan = t.plan("Closures", chain(&["Closures", "Captures"])).await;
    let (map, node) = (plan.mind_map_id, t.ids(plan.mind_map_id).await["Closures"]);
    let attempts = (0..8).map(|_| {
        let app = t.app.clone();
        let learner = t.learner;
        tokio::spawn(async move { app.record_response_once(learner, keyed(map, node, 4, "racing")).await })
    });
    let mut ids = std::collections::HashSet::new();
    let mut fresh = 0;
    for attempt in attempts {
        let recorded = attempt.await.unwrap().expect("every retry is answered");
        fresh += usize::from(!recorded.replayed);
        ids.insert(recorded.recorded.id);
    }
    assert_eq!((fresh, ids.len()), (1, 1), "one stored, the others found it");
    assert_eq!(stored(t, map).await, 1);
    assert_eq!(t.node(node).await.repetitions, 1, "SM-2 moved once");
}

async fn a_response_cites_only_the_learners_own_session(t: &TestApp) {
    let plan = t.plan("Closures", chain(&["Closures", "Captures"])).await;
    let (map, node) = (plan.mind_map_id, t.ids(plan.mind_map_id).await["Closures"]);
    let other = t.other_learner().await;
    let start = |topic: &str| pathwise_app::flows::StartFlow {
        topic: topic.into(),
        goal: None,
        caller_writes_steps: Some(true),
    };
    let theirs = t.app.flow_start(other, start("Theirs")).await.unwrap().id.0;
    let mine = t.app.flow_start(t.learner, start("Mine")).await.unwrap().id.0;
    let counts = t.counts().await;
    for session in [theirs, uuid::Uuid::new_v4()] {
        let request = RecordResponse { session_id: Some(session), ..keyed(map, node, 4, "cite") };
        let error = t.app.record_response(t.learner, request).await.unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotFound, "{error}");
        assert_eq!(error.details["field"], "session_id", "{error}");
    }
    assert_eq!(t.counts().await, counts, "nothing stored");
    let request = RecordResponse { session_id: Some(mine), ..keyed(map, node, 4, "cite") };
    assert_eq!(t.app.record_response(t.learner, request).await.unwrap().response.session_id, Some(mine));
}

conformance!(
    a_response_retried_with_its_key_is_stored_once,
    keys_are_each_learners_own,
    simultaneous_retries_with_one_key_store_one_response,
    a_response_cites_only_the_learners_own_session,
);
