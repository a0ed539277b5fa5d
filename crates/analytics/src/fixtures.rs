//! Hand-built maps, nodes and responses with fixed timestamps, for the tests.

use chrono::{DateTime, NaiveDate, Utc};
use pathwise_domain::model::{Edge, MindMap, Node, NodeProgress, ResponseEvent};
use pathwise_domain::{EdgeType, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId, ResponseType};
use uuid::Uuid;

pub fn at(rfc3339: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(rfc3339).unwrap().with_timezone(&Utc)
}

pub fn date(ymd: &str) -> NaiveDate {
    NaiveDate::parse_from_str(ymd, "%Y-%m-%d").unwrap()
}

pub fn node_id(n: u128) -> NodeId {
    NodeId(Uuid::from_u128(n))
}

pub fn map_id(n: u128) -> MindMapId {
    MindMapId(Uuid::from_u128(0xAA00 + n))
}

pub fn mind_map(created_at: DateTime<Utc>, root: Option<NodeId>) -> MindMap {
    MindMap {
        id: map_id(1),
        learner_id: LearnerId(Uuid::from_u128(0xBB)),
        title: "Rust".into(),
        root_node_id: root,
        status: MapStatus::Active,
        metadata: Default::default(),
        created_at,
        updated_at: created_at,
    }
}

/// A node with the given mastery; reviewed (ease factor set) unless it is unseen.
pub fn node(n: u128, label: &str, status: MasteryStatus, score: f64) -> NodeProgress {
    let created = at("2026-01-01T00:00:00Z");
    let mut node = Node::new(node_id(n), map_id(1), label.to_string(), None, Some(30), Default::default(), created);
    node.mastery_status = status;
    node.mastery_score = score;
    if status != MasteryStatus::Unseen && status != MasteryStatus::Diagnosed {
        node.last_reviewed_at = Some(created);
    }
    NodeProgress::from(&node)
}

pub fn edge(parent: u128, child: u128) -> Edge {
    Edge {
        mind_map_id: map_id(1),
        parent_node_id: node_id(parent),
        child_node_id: node_id(child),
        edge_type: EdgeType::Prerequisite,
        created_at: at("2026-01-01T00:00:00Z"),
    }
}

pub fn response(node: NodeId, quality: u8, response_type: ResponseType, responded_at: DateTime<Utc>) -> ResponseEvent {
    let rating = pathwise_domain::evidence::Rating::stated(pathwise_domain::mastery::Quality::of(quality));
    ResponseEvent {
        node_id: node,
        mind_map_id: map_id(1),
        quality,
        rating,
        response_type,
        session_id: None,
        responded_at,
    }
}
