//! Responses that arrive at the same moment: both stores write them in groups, and a
//! group must behave exactly as if its responses had come one after another. Run against
//! SQLite and (with `PATHWISE_TEST_DATABASE_URL`) PostgreSQL.

mod support;

use pathwise_app::curriculum::GenerateInput;
use pathwise_app::mastery::{RecordResponse, RecordedResponse};
use pathwise_app::{AppError, ErrorKind};
use pathwise_domain::mastery::{apply_response, MasteryState, Quality, RecentHistory};
use pathwise_domain::model::Node;
use pathwise_domain::ResponseType::{self, Review, Teach};
use pathwise_domain::{LearnerId, MasteryStatus, MindMapId, NodeId};
use serde_json::json;
use support::{chain, TestApp};

/// A planned map for `learner` with `count` concepts in a chain; its node ids in order.
async fn map_for(t: &TestApp, learner: LearnerId, count: usize) -> (MindMapId, Vec<NodeId>) {
    let labels: Vec<String> = (0..count).map(|i| format!("Concept {i}")).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let input: GenerateInput = serde_json::from_value(
        json!({ "topic": "Simultaneous", "decomposition": chain(&labels), "on_existing": "new" }),
    )
    .unwrap();
    let plan = t.app().curriculum_generate(learner, input).await.expect("plan");
    let map = t.app().get_map(learner, plan.mind_map_id).await.expect("map");
    let mut nodes = map.nodes;
    nodes.sort_by_key(|n| n.sequence);
    (plan.mind_map_id, nodes.into_iter().map(|n| n.id).collect())
}

/// Record every response at once, each in a task of its own; results in the order given.
async fn all_at_once(
    t: &TestApp,
    responses: Vec<(LearnerId, RecordResponse)>,
) -> Vec<Result<RecordedResponse, AppError>> {
    let tasks: Vec<_> = responses
        .into_iter()
        .map(|(learner, response)| {
            let app = t.app().clone();
            tokio::spawn(async move { app.record_response(learner, response).await })
        })
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.expect("task"));
    }
    results
}

fn answer(map: MindMapId, node: NodeId, quality: i64, kind: ResponseType) -> RecordResponse {
    RecordResponse::new(node, map, "question?", Some("answer"), quality, Some(kind))
}

/// The node's mastery state as replaying its stored responses, oldest first, through the
/// rules gives it.
async fn replayed(t: &TestApp, learner: LearnerId, node: &Node) -> MasteryState {
    let mut history = t.app().node_history(learner, node.id, None).await.expect("history");
    history.reverse();
    let mut state = MasteryState::of(&Node { mastery_status: MasteryStatus::Unseen, ..node.clone() });
    state.score = 0.0;
    state.sm2 = Default::default();
    state.next_review_at = None;
    state.last_reviewed_at = None;
    let mut recent = RecentHistory::default();
    for response in history {
        let quality = Quality::new(i64::from(response.quality)).unwrap();
        let outcome = apply_response(&state, &recent, quality, response.response_type, response.responded_at);
        (state, recent) = (outcome.state, outcome.history);
    }
    state
}

async fn simultaneous_responses_to_one_node_are_applied_one_after_another(t: &TestApp) {
    let (map, nodes) = map_for(t, t.learner, 2).await;
    let qualities = [3, 4, 5, 2, 4, 3, 5, 1, 4, 4, 3, 5, 2, 4, 5, 3, 4, 4, 1, 5, 3, 4, 5, 4];
    let responses = qualities
        .iter()
        .enumerate()
        .map(|(i, &q)| (t.learner, answer(map, nodes[1], q, if i % 3 == 0 { Teach } else { Review })))
        .collect();
    for result in all_at_once(t, responses).await {
        result.expect("every simultaneous response is recorded");
    }
    let node = t.node(nodes[1]).await;
    let history = t.app().node_history(t.learner, node.id, None).await.unwrap();
    assert_eq!(history.len(), qualities.len(), "each response stored once");
    assert_eq!(
        MasteryState::of(&node),
        replayed(t, t.learner, &node).await,
        "the node is what its responses, applied in the order stored, make it"
    );
}

async fn simultaneous_responses_of_many_learners_are_all_recorded(t: &TestApp) {
    let mut responses = Vec::new();
    let mut expected = Vec::new();
    for l in 0..6 {
        let learner = if l == 0 { t.learner } else { t.other_learner().await };
        let (map, nodes) = map_for(t, learner, 4).await;
        for (i, node) in nodes.iter().enumerate() {
            for round in 0..3 {
                responses.push((learner, answer(map, *node, [4, 5, 3][(i + round) % 3], Teach)));
            }
            expected.push((learner, *node));
        }
    }
    for result in all_at_once(t, responses).await {
        result.expect("every simultaneous response is recorded");
    }
    for (learner, id) in expected {
        let node = t.app().get_node(learner, id).await.unwrap();
        assert_eq!(t.app().node_history(learner, id, None).await.unwrap().len(), 3);
        assert_eq!(MasteryState::of(&node), replayed(t, learner, &node).await);
    }
}

async fn a_refused_response_among_simultaneous_ones_fails_alone(t: &TestApp) {
    let (map, nodes) = map_for(t, t.learner, 6).await;
    let stranger = t.other_learner().await;
    let (other_map, other_nodes) = map_for(t, t.learner, 2).await;
    let before = t.counts().await;
    let mut responses: Vec<_> = nodes.iter().map(|n| (t.learner, answer(map, *n, 4, Teach))).collect();
    // Someone else's node, a node named with the wrong map, and a quality out of range.
    responses.insert(2, (stranger, answer(map, nodes[0], 4, Teach)));
    responses.insert(4, (t.learner, answer(map, other_nodes[0], 4, Teach)));
    responses.insert(6, (t.learner, answer(other_map, other_nodes[1], 9, Teach)));
    let results = all_at_once(t, responses).await;
    let kinds: Vec<Option<ErrorKind>> = results.iter().map(|r| r.as_ref().err().map(|e| e.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            None,
            None,
            Some(ErrorKind::NotFound),
            None,
            Some(ErrorKind::NotFound),
            None,
            Some(ErrorKind::Invalid),
            None,
            None
        ]
    );
    let responses_before = before.iter().find(|(table, _)| table == "quiz_responses").unwrap().1;
    let after = t.counts().await;
    assert_eq!(after.iter().find(|(table, _)| table == "quiz_responses").unwrap().1, responses_before + 6);
}

conformance!(
    simultaneous_responses_to_one_node_are_applied_one_after_another,
    simultaneous_responses_of_many_learners_are_all_recorded,
    a_refused_response_among_simultaneous_ones_fails_alone,
);
