//! Planning a map from a decomposition, re-planning it, and choosing the next concept.

use crate::{App, AppError, AppResult, Store};
use pathwise_domain::curriculum::{self, AddedConcept, Decomposition, DiagnosticResult};
use pathwise_domain::edit::NewNode;
use pathwise_domain::lifecycle;
use pathwise_domain::model::{MapAggregate, MapChanges, Metadata, Node};
use pathwise_domain::{LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

/// Plan an empty draft map from a decomposition.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanInput {
    pub decomposition: Decomposition,
    /// What the learner wants to be able to do; scopes the plan to the goal's critical path.
    #[serde(default)]
    pub goal: Option<String>,
    /// Diagnostic findings by node label: one object or a list.
    #[serde(default, deserialize_with = "one_or_many")]
    pub diagnostic_results: Vec<DiagnosticResult>,
}

/// Create a map for a topic and plan it, in one transaction: from the decomposition given,
/// or, without one, from the one the language model proposes.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateInput {
    pub topic: String,
    #[serde(default)]
    pub goal: Option<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub diagnostic_results: Vec<DiagnosticResult>,
    /// The concept graph; leave it out to have the configured language model build it.
    #[serde(default)]
    pub decomposition: Option<Decomposition>,
}

/// What a planned map holds.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct PlanSummary {
    pub mind_map_id: MindMapId,
    pub node_count: usize,
    pub edge_count: usize,
    pub status: MapStatus,
    pub root_node_id: Option<NodeId>,
}

impl PlanSummary {
    pub(crate) fn of(agg: &MapAggregate) -> Self {
        PlanSummary {
            mind_map_id: agg.map.id,
            node_count: agg.nodes.len(),
            edge_count: agg.edges.len(),
            status: agg.map.status,
            root_node_id: agg.map.root_node_id,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplanInput {
    /// Why the plan is revisited (for example "struggling with recursion").
    #[serde(default)]
    pub reason: Option<String>,
    /// Missing prerequisite concepts to add before the sequence is recomputed.
    #[serde(default)]
    pub add_nodes: Vec<AddConceptInput>,
}

#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddConceptInput {
    pub label: String,
    #[serde(default)]
    pub description: Option<String>,
    pub effort_minutes: i64,
    /// What the new concept needs first; the root when empty.
    #[serde(default)]
    pub prerequisite_ids: Vec<NodeId>,
    /// Existing nodes that need the new concept first.
    #[serde(default)]
    pub prerequisite_of: Vec<NodeId>,
}

impl AddConceptInput {
    /// The concept as the domain adds it, under `id`.
    pub(crate) fn into_added(self, id: NodeId) -> AddedConcept {
        AddedConcept {
            node: NewNode {
                id,
                label: self.label,
                description: self.description,
                effort_minutes: Some(self.effort_minutes),
                prerequisite_ids: self.prerequisite_ids,
                metadata: Metadata::new(),
            },
            prerequisite_of: self.prerequisite_of,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct ReplanResult {
    #[serde(flatten)]
    pub summary: PlanSummary,
    pub added_node_ids: Vec<NodeId>,
    pub skippable_node_ids: Vec<NodeId>,
    /// The nodes in learning order.
    pub sequence: Vec<SequencedNode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct SequencedNode {
    pub id: NodeId,
    pub label: String,
    pub sequence: Option<i32>,
    pub mastery_status: MasteryStatus,
}

fn one_or_many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<DiagnosticResult>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(DiagnosticResult),
        Many(Vec<DiagnosticResult>),
    }
    Ok(match Option::<OneOrMany>::deserialize(deserializer)? {
        None => Vec::new(),
        Some(OneOrMany::One(result)) => vec![result],
        Some(OneOrMany::Many(results)) => results,
    })
}

impl<S: Store> App<S> {
    /// Plan an existing empty draft map from a decomposition: validated as a whole and
    /// stored in one transaction, or not at all.
    pub async fn plan_map(&self, learner: LearnerId, map: MindMapId, input: PlanInput) -> AppResult<PlanSummary> {
        let limits = self.limits;
        self.edit_map(
            learner,
            map,
            move |agg, now| {
                curriculum::plan(
                    agg,
                    &input.decomposition,
                    input.goal.as_deref(),
                    &input.diagnostic_results,
                    || NodeId(Self::new_id()),
                    now,
                    limits,
                )
            },
            PlanSummary::of,
        )
        .await
    }

    /// `curriculum_generate`: a new map for the topic, planned and active, or nothing at
    /// all. The decomposition is the caller's, or the language model's when none is given.
    pub async fn curriculum_generate(&self, learner: LearnerId, input: GenerateInput) -> AppResult<PlanSummary> {
        let decomposition = match &input.decomposition {
            Some(decomposition) => decomposition.clone(),
            None => self.model_decomposition(learner, &input).await?,
        };
        self.store_plan(learner, &input.topic, input.goal.as_deref(), &input.diagnostic_results, &decomposition).await
    }

    /// Plan `decomposition` into a new map for `topic` and store it in one transaction.
    pub(crate) async fn store_plan(
        &self,
        learner: LearnerId,
        topic: &str,
        goal: Option<&str>,
        diagnostics: &[DiagnosticResult],
        decomposition: &Decomposition,
    ) -> AppResult<PlanSummary> {
        let (planned, changes) = self.new_plan(learner, topic, goal, diagnostics, decomposition)?;
        self.store.insert_map(&planned.map, &changes).await?;
        Ok(PlanSummary::of(&planned))
    }

    /// A new map for `topic` planned from `decomposition`, and the rows to write for it.
    pub(crate) fn new_plan(
        &self,
        learner: LearnerId,
        topic: &str,
        goal: Option<&str>,
        diagnostics: &[DiagnosticResult],
        decomposition: &Decomposition,
    ) -> AppResult<(MapAggregate, MapChanges)> {
        let now = self.now();
        let map = lifecycle::new_map(MindMapId(Self::new_id()), learner, topic, Metadata::new(), now)?;
        let empty = MapAggregate { map, nodes: Vec::new(), edges: Vec::new() };
        let mut planned = empty.clone();
        curriculum::plan(&mut planned, decomposition, goal, diagnostics, || NodeId(Self::new_id()), now, self.limits)?;
        let mut changes = MapChanges::between(&empty, &planned);
        changes.map = None;
        Ok((planned, changes))
    }

    /// `curriculum_replan`: add concepts if asked, mark mastered nodes skippable, and
    /// recompute the sequence. Refuses maps that are not active.
    pub async fn replan(&self, learner: LearnerId, map: MindMapId, mut input: ReplanInput) -> AppResult<ReplanResult> {
        if let Some(reason) = input.reason.as_deref() {
            tracing::info!(%map, reason, "re-planning");
            // With a reason and no concepts of the caller's, a configured model may propose
            // missing prerequisites; offline, the plan is recomputed all the same.
            if input.add_nodes.is_empty() && self.llm.is_configured() {
                input.add_nodes = self.proposed_prerequisites(learner, map, reason).await?;
            }
        }
        let limits = self.limits;
        let added: Vec<AddedConcept> =
            input.add_nodes.into_iter().map(|c| c.into_added(NodeId(Self::new_id()))).collect();
        let added_ids: Vec<NodeId> = added.iter().map(|c| c.node.id).collect();
        self.edit_map(
            learner,
            map,
            move |agg, now| {
                let limits = limits.for_map(&agg.map);
                curriculum::replan(agg, added, now, limits)
            },
            move |agg| {
                let mut ordered: Vec<&Node> = agg.nodes.iter().collect();
                // Nodes out of the sequence (mastered, skippable) come last.
                ordered.sort_by_key(|n| (n.sequence.is_none(), n.sequence));
                ReplanResult {
                    summary: PlanSummary::of(agg),
                    added_node_ids: added_ids,
                    skippable_node_ids: agg.nodes.iter().filter(|n| n.is_skippable()).map(|n| n.id).collect(),
                    sequence: ordered
                        .into_iter()
                        .map(|n| SequencedNode {
                            id: n.id,
                            label: n.label.clone(),
                            sequence: n.sequence,
                            mastery_status: n.mastery_status,
                        })
                        .collect(),
                }
            },
        )
        .await
    }

    /// `curriculum_next_node`: the frontier node with the lowest sequence, or none.
    pub async fn next_node(&self, learner: LearnerId, map: MindMapId) -> AppResult<Option<Node>> {
        let found = self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        if found.status != MapStatus::Active {
            return Ok(None);
        }
        Ok(self.ordered_frontier(learner, map).await?.into_iter().next())
    }
}

/// Parse a decomposition file or body, naming the path of whatever is wrong in it. A
/// field the input does not take is a 422 `unknown_field` listing those it does; anything
/// else wrong (syntax, types, missing fields) is a 400 `malformed_json`.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> AppResult<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_data() {
            if let Some(unknown) = crate::error::UnknownField::from_serde(&path, &inner.to_string()) {
                return AppError::unknown_field(&unknown);
            }
        }
        let field = if path == "." { "body".to_string() } else { path };
        AppError::new(crate::ErrorKind::BadRequest, "malformed_json", format!("{field}: {inner}"))
            .with_details(serde_json::json!({ "field": field, "line": inner.line(), "column": inner.column() }))
    })
}
