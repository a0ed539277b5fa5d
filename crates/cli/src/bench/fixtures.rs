//! What several benchmarks start from: a learner with a map, and the responses they record.

use anyhow::Result;
use pathwise_app::curriculum::GenerateInput;
use pathwise_app::mastery::RecordResponse;
use pathwise_app::App;
use pathwise_domain::{LearnerId, MindMapId, NodeId, ResponseType};
use serde_json::json;

/// A learner with one active 30-node map; returns its ids.
pub(crate) async fn learner_with_map(app: &App) -> Result<(LearnerId, MindMapId, Vec<NodeId>, String)> {
    let created = app.create_learner("bench learner").await?;
    let labels: Vec<String> = (0..30).map(|i| format!("Concept {i}")).collect();
    let nodes: Vec<_> = labels.iter().map(|l| json!({ "label": l, "effort_minutes": 10 })).collect();
    // A shallow tree: every node depends on the root, so all are on the frontier after it.
    let edges: Vec<_> = labels[1..].iter().map(|l| json!({ "parent": labels[0], "child": l })).collect();
    let input: GenerateInput = serde_json::from_value(json!({
        "topic": "Benchmark", "decomposition": { "root": labels[0], "nodes": nodes, "edges": edges }
    }))?;
    let plan = app.curriculum_generate(created.learner.id, input).await?;
    let map = app.get_map(created.learner.id, plan.mind_map_id).await?;
    Ok((created.learner.id, plan.mind_map_id, map.nodes.iter().map(|n| n.id).collect(), created.token))
}

pub(crate) fn response(map: MindMapId, node: NodeId, i: usize) -> RecordResponse {
    let quality = [4, 5, 3, 4, 2, 5][i % 6];
    let kind = if i.is_multiple_of(3) { ResponseType::Teach } else { ResponseType::Review };
    RecordResponse::new(node, map, "What does this concept mean?", Some("an answer"), quality, Some(kind))
}
