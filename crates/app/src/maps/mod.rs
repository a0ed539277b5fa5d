//! Mind maps, their nodes and edges, the frontier and subtrees; planning a map
//! (`curriculum`), with a model (`generation`), and re-planning it (`replanning`).

pub mod curriculum;
pub mod generation;
pub mod replanning;

use crate::paging::{window, Paged};
use crate::StoreHandle;
use crate::{App, AppError, AppResult};
use pathwise_domain::edit::{self, NewNode, NodePatch};
use pathwise_domain::graph;
use pathwise_domain::lifecycle;
use pathwise_domain::model::{Edge, MapAggregate, MapChanges, Metadata, MindMap, Node};
use pathwise_domain::{DomainError, EdgeType, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId};
use pathwise_store::{JobStore, MapStore};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateMap {
    #[schema(min_length = 1, max_length = 200)]
    pub title: String,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMap {
    /// `active`, `completed` or `abandoned`, following the lifecycle.
    pub status: MapStatus,
}

#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateNode {
    #[schema(min_length = 1, max_length = 200)]
    pub label: String,
    #[serde(default)]
    #[schema(max_length = 4000)]
    pub description: Option<String>,
    #[serde(default)]
    #[schema(minimum = 1, maximum = 10000)]
    pub effort_minutes: Option<i64>,
    /// Nodes this one needs first. Leave empty only for a map's first node (its root).
    #[serde(default)]
    pub prerequisite_ids: Vec<NodeId>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, Default, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateNode {
    #[schema(min_length = 1, max_length = 200)]
    pub label: Option<String>,
    #[schema(max_length = 4000)]
    pub description: Option<String>,
    #[schema(minimum = 1, maximum = 10000)]
    pub effort_minutes: Option<i64>,
    /// Keys to set on the node's metadata; a null value removes a key.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Metadata>,
    /// Must follow the mastery state machine (for example `unseen` -> `diagnosed`).
    pub mastery_status: Option<MasteryStatus>,
    /// 0.0 to 1.0.
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub mastery_score: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEdge {
    pub parent_node_id: NodeId,
    pub child_node_id: NodeId,
    /// `prerequisite` (the default) or `related`.
    #[serde(default)]
    pub edge_type: Option<EdgeType>,
}

/// A node and everything that depends on it.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Subtree {
    pub root_id: NodeId,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

impl<S: StoreHandle + JobStore + MapStore> App<S> {
    pub async fn create_map(&self, learner: LearnerId, input: CreateMap) -> AppResult<MindMap> {
        let map = lifecycle::new_map(
            MindMapId(Self::new_id()),
            learner,
            &input.title,
            input.metadata.unwrap_or_default(),
            self.now(),
        )?;
        self.store.insert_map(&map, &MapChanges::default()).await?;
        Ok(map)
    }

    pub async fn get_map(&self, learner: LearnerId, id: MindMapId) -> AppResult<MapAggregate> {
        self.whole_map(learner, id).await
    }

    pub async fn list_maps(
        &self,
        learner: LearnerId,
        status: Option<MapStatus>,
        offset: Option<i64>,
        limit: Option<i64>,
    ) -> AppResult<Paged<MindMap>> {
        let (offset, limit) = window(offset, limit)?;
        let page = self.store.list_maps(learner, status, offset, limit).await?;
        Ok(Paged { items: page.items, total: page.total, offset, limit })
    }

    pub async fn update_map_status(&self, learner: LearnerId, id: MindMapId, status: MapStatus) -> AppResult<MindMap> {
        let map = self
            .edit_map(learner, id, move |agg, now| lifecycle::change_status(agg, status, now), |agg| agg.map.clone())
            .await?;
        // A map that is no longer active keeps no pending reviews.
        self.review_jobs.sync(learner, id).await?;
        Ok(map)
    }

    pub async fn delete_map(&self, learner: LearnerId, id: MindMapId) -> AppResult<()> {
        if self.store.delete_map(learner, id).await? {
            Ok(())
        } else {
            Err(AppError::not_found("mind map", id))
        }
    }

    pub async fn create_node(&self, learner: LearnerId, map: MindMapId, input: CreateNode) -> AppResult<Node> {
        let id = NodeId(Self::new_id());
        let limits = self.limits;
        let new = NewNode {
            id,
            label: input.label,
            description: input.description,
            effort_minutes: input.effort_minutes,
            prerequisite_ids: input.prerequisite_ids,
            metadata: input.metadata.unwrap_or_default(),
        };
        self.edit_map(
            learner,
            map,
            move |agg, now| {
                let limits = limits.for_map(&agg.map);
                edit::add_node(agg, new, now, limits)
            },
            move |agg| node_in(agg, id),
        )
        .await
    }

    pub async fn get_node(&self, learner: LearnerId, id: NodeId) -> AppResult<Node> {
        self.store.get_node(learner, id).await?.ok_or_else(|| AppError::not_found("node", id))
    }

    pub async fn list_nodes(
        &self,
        learner: LearnerId,
        map: MindMapId,
        status: Option<MasteryStatus>,
    ) -> AppResult<Vec<Node>> {
        let agg = self.get_map(learner, map).await?;
        Ok(agg.nodes.into_iter().filter(|n| status.is_none_or(|s| n.mastery_status == s)).collect())
    }

    pub async fn update_node(&self, learner: LearnerId, id: NodeId, input: UpdateNode) -> AppResult<Node> {
        let map = self.get_node(learner, id).await?.mind_map_id;
        let patch = NodePatch {
            label: input.label,
            description: input.description,
            effort_minutes: input.effort_minutes,
            metadata: input.metadata,
            mastery_status: input.mastery_status,
            mastery_score: input.mastery_score,
        };
        self.edit_map(learner, map, move |agg, now| edit::update_node(agg, id, patch, now), move |agg| node_in(agg, id))
            .await
    }

    pub async fn delete_node(&self, learner: LearnerId, id: NodeId) -> AppResult<()> {
        let map = self.get_node(learner, id).await?.mind_map_id;
        let limits = self.limits;
        self.edit_map(
            learner,
            map,
            move |agg, now| {
                let limits = limits.for_map(&agg.map);
                edit::remove_node(agg, id, now, limits)
            },
            |_| (),
        )
        .await
    }

    pub async fn create_edge(&self, learner: LearnerId, map: MindMapId, input: CreateEdge) -> AppResult<Edge> {
        let limits = self.limits;
        let (parent, child) = (input.parent_node_id, input.child_node_id);
        let edge_type = input.edge_type.unwrap_or_default();
        self.edit_map(
            learner,
            map,
            move |agg, now| {
                let limits = limits.for_map(&agg.map);
                edit::add_edge(agg, parent, child, edge_type, now, limits)
            },
            move |agg| {
                agg.edges
                    .iter()
                    .find(|e| (e.parent_node_id, e.child_node_id) == (parent, child))
                    .cloned()
                    .expect("the edge was just added")
            },
        )
        .await
    }

    pub async fn delete_edge(
        &self,
        learner: LearnerId,
        map: MindMapId,
        parent: NodeId,
        child: NodeId,
    ) -> AppResult<()> {
        let limits = self.limits;
        self.edit_map(
            learner,
            map,
            move |agg, _| {
                let limits = limits.for_map(&agg.map);
                edit::remove_edge(agg, parent, child, limits)
            },
            |_| (),
        )
        .await
    }

    /// Nodes ready to learn now, in learning order.
    pub async fn frontier(&self, learner: LearnerId, map: MindMapId) -> AppResult<Vec<Node>> {
        self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        self.ordered_frontier(learner, map).await
    }

    pub(crate) async fn ordered_frontier(&self, learner: LearnerId, map: MindMapId) -> AppResult<Vec<Node>> {
        let mut nodes = self.store.frontier(learner, map).await?;
        nodes.sort_by(graph::frontier_order);
        Ok(nodes)
    }

    pub async fn subtree(&self, learner: LearnerId, node: NodeId) -> AppResult<Subtree> {
        let map = self.get_node(learner, node).await?.mind_map_id;
        let agg = self.get_map(learner, map).await?;
        let (nodes, edges) = graph::subtree(&agg, node).ok_or_else(|| AppError::not_found("node", node))?;
        Ok(Subtree { root_id: node, nodes, edges })
    }

    /// Apply a domain operation to a map inside one write transaction: the operation edits
    /// an in-memory copy, and only the difference is written. `output` reads the result
    /// from the edited map.
    pub(crate) async fn edit_map<T, Op, Out>(
        &self,
        learner: LearnerId,
        map: MindMapId,
        op: Op,
        output: Out,
    ) -> AppResult<T>
    where
        T: Send + 'static,
        Op: FnOnce(&mut MapAggregate, chrono::DateTime<chrono::Utc>) -> Result<(), DomainError> + Send + 'static,
        Out: FnOnce(&MapAggregate) -> T + Send + 'static,
    {
        let now = self.now();
        self.store
            .update_map(learner, map, move |before| {
                let mut after = before.clone();
                op(&mut after, now)?;
                pathwise_domain::curriculum::touch_changed(before, &mut after, now);
                Ok((MapChanges::between(before, &after), output(&after)))
            })
            .await
            .map_err(|e| match e {
                pathwise_store::StoreError::NotFound(_) => AppError::not_found("mind map", map),
                other => other.into(),
            })
    }
}

fn node_in(agg: &MapAggregate, id: NodeId) -> Node {
    agg.node(id).cloned().expect("the node is in the edited map")
}
