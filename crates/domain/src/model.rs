//! The learner model's records, as stored and as served.

use crate::evidence::Rating;
use crate::ids::{LearnerId, MindMapId, NodeId, ResponseId};
use crate::status::{EdgeType, MapStatus, MasteryStatus, ResponseType};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::cmp::Ordering;
use utoipa::ToSchema;
use uuid::Uuid;

/// A JSON object of free-form attributes (`goal`, `optional`, `skippable`, tags, notes).
pub type Metadata = Map<String, Value>;

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct MindMap {
    pub id: MindMapId,
    #[serde(skip)]
    pub learner_id: LearnerId,
    pub title: String,
    pub root_node_id: Option<NodeId>,
    pub status: MapStatus,
    #[schema(value_type = Object)]
    pub metadata: Metadata,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl MindMap {
    pub fn goal(&self) -> Option<&str> {
        self.metadata.get("goal").and_then(Value::as_str)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Node {
    pub id: NodeId,
    pub mind_map_id: MindMapId,
    pub label: String,
    pub description: Option<String>,
    /// Longest prerequisite path from the root; the root is 0.
    pub depth: i32,
    pub effort_minutes: Option<i32>,
    /// Position in the learning order, 1 for the next concept to learn.
    pub sequence: Option<i32>,
    pub mastery_score: f64,
    pub mastery_status: MasteryStatus,
    pub ease_factor: f64,
    pub repetitions: i32,
    /// The last spaced-repetition interval, in days (0 before the first review).
    pub interval_days: f64,
    pub next_review_at: Option<DateTime<Utc>>,
    pub last_reviewed_at: Option<DateTime<Utc>>,
    // The time of the answer that first mastered it (an imported review's own time), kept
    // if it falls back. A comment, not a doc: the schema repeats docs in every MCP tool.
    /// When first mastered.
    #[serde(default)]
    pub mastered_at: Option<DateTime<Utc>>,
    #[schema(value_type = Object)]
    pub metadata: Metadata,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The metadata key of a node that groups others (an Anki deck's root over its cards):
/// shown on the map, never learned ([`Node::is_grouping`]).
pub const GROUPING_KEY: &str = "grouping";

/// Labels compare case-insensitively after trimming.
pub fn normalize_label(label: &str) -> String {
    label.trim().to_lowercase()
}

impl Node {
    /// A node as it is first created: unseen, never reviewed.
    pub fn new(
        id: NodeId,
        mind_map_id: MindMapId,
        label: String,
        description: Option<String>,
        effort_minutes: Option<i32>,
        metadata: Metadata,
        now: DateTime<Utc>,
    ) -> Self {
        Node {
            id,
            mind_map_id,
            label,
            description,
            depth: 0,
            effort_minutes,
            sequence: None,
            mastery_score: 0.0,
            mastery_status: MasteryStatus::Unseen,
            ease_factor: crate::srs::INITIAL_EASE_FACTOR,
            repetitions: 0,
            interval_days: 0.0,
            next_review_at: None,
            last_reviewed_at: None,
            mastered_at: None,
            metadata,
            created_at: now,
            updated_at: now,
        }
    }

    pub fn is_optional(&self) -> bool {
        self.metadata.get("optional").and_then(Value::as_bool) == Some(true)
    }

    pub fn is_skippable(&self) -> bool {
        self.metadata.get("skippable").and_then(Value::as_bool) == Some(true)
    }

    /// A node that groups others rather than a concept to learn (an Anki deck's root): it is
    /// never on the frontier nor in the learning order, never gates the nodes under it, and
    /// is not counted among a map's concepts (summaries, analytics, completion).
    pub fn is_grouping(&self) -> bool {
        self.metadata.get(GROUPING_KEY).and_then(Value::as_bool) == Some(true)
    }

    /// The order a map's nodes are listed in: the learning order (`sequence`, nodes
    /// without one last), then depth, label (compared byte by byte, so every database
    /// agrees) and id. Applied where nodes are read, not in SQL: sorting a learner's
    /// thousands of nodes costs the database more than it costs here.
    pub fn map_order(&self, other: &Node) -> Ordering {
        map_order_key(self.sequence, self.depth, &self.label, self.id).cmp(&map_order_key(
            other.sequence,
            other.depth,
            &other.label,
            other.id,
        ))
    }
}

fn map_order_key(
    sequence: Option<i32>,
    depth: i32,
    label: &str,
    id: NodeId,
) -> (bool, Option<i32>, i32, &[u8], NodeId) {
    (sequence.is_none(), sequence, depth, label.as_bytes(), id)
}

/// Where the learner stands on a node, and the node's place in its map: what progress
/// figures read of a node. It leaves the content out (description, metadata), so that a
/// read of every node of every map moves only what the figures need.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeProgress {
    pub id: NodeId,
    pub mind_map_id: MindMapId,
    pub label: String,
    pub depth: i32,
    pub sequence: Option<i32>,
    pub mastery_score: f64,
    pub mastery_status: MasteryStatus,
    pub ease_factor: f64,
    pub next_review_at: Option<DateTime<Utc>>,
    pub last_reviewed_at: Option<DateTime<Utc>>,
    /// [`Node::mastered_at`].
    pub mastered_at: Option<DateTime<Utc>>,
}

impl NodeProgress {
    /// [`Node::map_order`].
    pub fn map_order(&self, other: &NodeProgress) -> Ordering {
        map_order_key(self.sequence, self.depth, &self.label, self.id).cmp(&map_order_key(
            other.sequence,
            other.depth,
            &other.label,
            other.id,
        ))
    }
}

impl From<&Node> for NodeProgress {
    fn from(node: &Node) -> Self {
        NodeProgress {
            id: node.id,
            mind_map_id: node.mind_map_id,
            label: node.label.clone(),
            depth: node.depth,
            sequence: node.sequence,
            mastery_score: node.mastery_score,
            mastery_status: node.mastery_status,
            ease_factor: node.ease_factor,
            next_review_at: node.next_review_at,
            last_reviewed_at: node.last_reviewed_at,
            mastered_at: node.mastered_at,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Edge {
    pub mind_map_id: MindMapId,
    /// The prerequisite.
    pub parent_node_id: NodeId,
    /// The concept that needs it.
    pub child_node_id: NodeId,
    pub edge_type: EdgeType,
    pub created_at: DateTime<Utc>,
}

impl Edge {
    /// The order a map's edges are listed in: as they were added, then by their ends.
    pub fn map_order(&self, other: &Edge) -> Ordering {
        (self.created_at, self.parent_node_id, self.child_node_id).cmp(&(
            other.created_at,
            other.parent_node_id,
            other.child_node_id,
        ))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct QuizResponse {
    pub id: ResponseId,
    pub node_id: NodeId,
    pub mind_map_id: MindMapId,
    pub question_text: String,
    pub user_answer: Option<String>,
    /// SM-2 quality, 0 (blackout) to 5 (perfect recall).
    pub quality: u8,
    /// The rating FSRS schedules by: a right answer graded automatically is at most `good`;
    /// `easy` comes only from the learner's own rating or Anki's Easy button.
    pub rating: Rating,
    pub response_type: ResponseType,
    pub session_id: Option<Uuid>,
    pub responded_at: DateTime<Utc>,
}

/// What analytics read of a response: where it was, how well it went, of which kind, when
/// and in which session; not the question and the answer, which no figure needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseEvent {
    pub node_id: NodeId,
    pub mind_map_id: MindMapId,
    /// SM-2 quality, 0 to 5.
    pub quality: u8,
    pub rating: Rating,
    pub response_type: ResponseType,
    pub session_id: Option<Uuid>,
    pub responded_at: DateTime<Utc>,
}

impl From<&QuizResponse> for ResponseEvent {
    fn from(response: &QuizResponse) -> Self {
        ResponseEvent {
            node_id: response.node_id,
            mind_map_id: response.mind_map_id,
            quality: response.quality,
            rating: response.rating,
            response_type: response.response_type,
            session_id: response.session_id,
            responded_at: response.responded_at,
        }
    }
}

/// A mind map with everything in it: the unit that graph rules are checked against.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct MapAggregate {
    #[serde(flatten)]
    pub map: MindMap,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl MapAggregate {
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    pub fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }

    pub fn label_of(&self, id: NodeId) -> String {
        self.node(id).map(|n| n.label.clone()).unwrap_or_else(|| id.to_string())
    }
}

/// What an operation on a map changed, for a store to write in one transaction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MapChanges {
    pub map: Option<MindMap>,
    pub insert_nodes: Vec<Node>,
    pub update_nodes: Vec<Node>,
    pub delete_nodes: Vec<NodeId>,
    pub insert_edges: Vec<Edge>,
    pub delete_edges: Vec<(NodeId, NodeId)>,
}

impl MapChanges {
    /// The smallest set of writes that turns `before` into `after`.
    pub fn between(before: &MapAggregate, after: &MapAggregate) -> Self {
        use std::collections::HashMap;
        let old_nodes: HashMap<NodeId, &Node> = before.nodes.iter().map(|n| (n.id, n)).collect();
        let new_nodes: HashMap<NodeId, &Node> = after.nodes.iter().map(|n| (n.id, n)).collect();
        let mut changes =
            MapChanges { map: (before.map != after.map).then(|| after.map.clone()), ..Default::default() };
        for node in &after.nodes {
            match old_nodes.get(&node.id) {
                None => changes.insert_nodes.push(node.clone()),
                Some(old) if *old != node => changes.update_nodes.push(node.clone()),
                Some(_) => {}
            }
        }
        changes.delete_nodes = before.nodes.iter().filter(|n| !new_nodes.contains_key(&n.id)).map(|n| n.id).collect();
        let key = |e: &Edge| (e.parent_node_id, e.child_node_id);
        let old_edges: HashMap<(NodeId, NodeId), &Edge> = before.edges.iter().map(|e| (key(e), e)).collect();
        let new_edges: HashMap<(NodeId, NodeId), &Edge> = after.edges.iter().map(|e| (key(e), e)).collect();
        for edge in &after.edges {
            match old_edges.get(&key(edge)) {
                None => changes.insert_edges.push(edge.clone()),
                Some(old) if *old != edge => {
                    changes.delete_edges.push(key(edge));
                    changes.insert_edges.push(edge.clone());
                }
                Some(_) => {}
            }
        }
        for edge in &before.edges {
            // Edges of deleted nodes go by cascade; only the rest are deleted explicitly.
            let gone_with_node =
                !new_nodes.contains_key(&edge.parent_node_id) || !new_nodes.contains_key(&edge.child_node_id);
            if !new_edges.contains_key(&key(edge)) && !gone_with_node {
                changes.delete_edges.push(key(edge));
            }
        }
        changes
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_none()
            && self.insert_nodes.is_empty()
            && self.update_nodes.is_empty()
            && self.delete_nodes.is_empty()
            && self.insert_edges.is_empty()
            && self.delete_edges.is_empty()
    }
}
