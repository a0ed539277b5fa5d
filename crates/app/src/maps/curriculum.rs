//! Planning a map from a decomposition, re-planning it, and choosing the next concept.

use crate::stores::MasteryStores;
use crate::{App, AppError, AppResult, ErrorCode};
use pathwise_domain::curriculum::{self, AddedConcept, Decomposition, DiagnosticResult, OnExisting};
use pathwise_domain::edit::NewNode;
use pathwise_domain::lifecycle;
use pathwise_domain::model::{MapAggregate, MapChanges, Metadata, MindMap, Node};
use pathwise_domain::{outline, DomainError, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId};
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
    #[schema(min_length = 1, max_length = 200)]
    pub topic: String,
    #[serde(default)]
    #[schema(max_length = 500)]
    pub goal: Option<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub diagnostic_results: Vec<DiagnosticResult>,
    /// The concept graph; leave it out to have the configured language model build it.
    #[serde(default)]
    pub decomposition: Option<Decomposition>,
    /// When you already have a map for this topic (same title, case aside, not abandoned):
    /// `refuse` (the default: 409 `map_exists` naming it), `new` (keep both) or `replace`
    /// (delete it, with its progress, and make this one).
    #[serde(default)]
    pub on_existing: OnExisting,
}

/// A map from a pasted outline.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportOutline {
    /// Markdown headings (`#`, `##`, ...) or a nested list (`-`, `*`, `+`, `1.`), or both.
    /// The first heading or item is the topic, the map's root; whatever is nested under an
    /// entry needs it first. A label written again is the same concept (one more
    /// prerequisite). Text under an entry describes it; an entry may end with its effort,
    /// as in `Borrowing (45 min)` (30 minutes otherwise). The limits of every map apply
    /// (30 concepts, depth 5, no cycles), and a refusal names the outline's line.
    #[schema(min_length = 1, pattern = r"(^|\n) {0,3}(#{1,6}|[-*+]|[0-9]{1,9}[.)]) +[^\s\u0000]")]
    pub outline: String,
    /// The map's title; the root's label when left out.
    #[serde(default)]
    pub title: Option<String>,
    /// When you already have a map with this title: `refuse` (the default), `new` or `replace`.
    #[serde(default)]
    pub on_existing: OnExisting,
}

/// What a planned map holds.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct PlanSummary {
    pub mind_map_id: MindMapId,
    pub node_count: usize,
    pub edge_count: usize,
    pub status: MapStatus,
    pub root_node_id: Option<NodeId>,
    /// The map this one replaced (`on_existing: replace`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_mind_map_id: Option<MindMapId>,
}

impl PlanSummary {
    pub(crate) fn of(agg: &MapAggregate) -> Self {
        PlanSummary {
            mind_map_id: agg.map.id,
            node_count: agg.nodes.len(),
            edge_count: agg.edges.len(),
            status: agg.map.status,
            root_node_id: agg.map.root_node_id,
            replaced_mind_map_id: None,
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
    #[schema(min_length = 1, max_length = 200)]
    pub label: String,
    #[serde(default)]
    #[schema(max_length = 4000)]
    pub description: Option<String>,
    #[schema(minimum = 1, maximum = 10000)]
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

impl<S: MasteryStores> App<S> {
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
    /// all. The decomposition is the caller's, or the language model's when none is given;
    /// with no model configured, that is refused before anything is asked or stored.
    pub async fn curriculum_generate(&self, learner: LearnerId, input: GenerateInput) -> AppResult<PlanSummary> {
        let decomposition = match &input.decomposition {
            Some(decomposition) => decomposition.clone(),
            None if !self.llm.is_configured() => {
                return Err(AppError::topic_needs_model("planning a topic without a decomposition", None))
            }
            None => {
                // A map the learner has already would refuse the model's work: say so first.
                let maps = self.all_maps(learner).await?;
                curriculum::place_new_map(&maps, &input.topic, input.on_existing)?;
                self.model_decomposition(learner, &input).await?
            }
        };
        let (planned, changes) =
            self.new_plan(learner, &input.topic, input.goal.as_deref(), &input.diagnostic_results, &decomposition)?;
        self.store_new_map(planned, changes, input.on_existing).await
    }

    /// A new map from a pasted outline, checked by the rules every decomposition meets, with
    /// a refusal placed on the outline's line.
    pub async fn import_outline(&self, learner: LearnerId, input: ImportOutline) -> AppResult<PlanSummary> {
        let parsed = outline::parse(&input.outline)?;
        let title = match input.title.as_deref().map(str::trim) {
            None | Some("") => parsed.decomposition.root.clone(),
            Some(title) => title.to_string(),
        };
        let (planned, changes) =
            self.new_plan(learner, &title, None, &[], &parsed.decomposition).map_err(|e| match e {
                // The title is the caller's, not the outline's.
                DomainError::Invalid { ref field, .. } if field == "title" => AppError::from(e),
                e => parsed.locate(e).into(),
            })?;
        self.store_new_map(planned, changes, input.on_existing).await
    }

    /// Store a planned map unless the learner has one for the topic already and did not
    /// ask for another (`on_existing`); the rule is the domain's, applied in the store's
    /// transaction so that two requests at once cannot both pass it.
    async fn store_new_map(
        &self,
        planned: MapAggregate,
        changes: MapChanges,
        on_existing: OnExisting,
    ) -> AppResult<PlanSummary> {
        let title = planned.map.title.clone();
        let replaced = self
            .store
            .insert_topic_map(&planned.map, &changes, move |maps| curriculum::place_new_map(maps, &title, on_existing))
            .await?;
        if let Some(replaced) = replaced {
            tracing::info!(%replaced, by = %planned.map.id, "a map was replaced by a new one for its topic");
        }
        Ok(PlanSummary { replaced_mind_map_id: replaced, ..PlanSummary::of(&planned) })
    }

    /// Every map of the learner, whatever its status.
    async fn all_maps(&self, learner: LearnerId) -> AppResult<Vec<MindMap>> {
        const PAGE: i64 = 500;
        let mut maps = Vec::new();
        loop {
            let page = self.store.list_maps(learner, None, maps.len() as i64, PAGE).await?;
            let done = page.items.len() < PAGE as usize;
            maps.extend(page.items);
            if done {
                return Ok(maps);
            }
        }
    }

    /// A new map for `topic` planned from `decomposition`, and the rows to write for it.
    pub(crate) fn new_plan(
        &self,
        learner: LearnerId,
        topic: &str,
        goal: Option<&str>,
        diagnostics: &[DiagnosticResult],
        decomposition: &Decomposition,
    ) -> Result<(MapAggregate, MapChanges), DomainError> {
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
    // Only an escape can put a NUL in JSON text (a raw one is a syntax error); the full
    // search runs only when one might be there.
    if text.contains("\\u0000") {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            refuse_nul_text(&value)?;
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut deserializer).or_else(|e| {
        // JSON has one kind of number: `3.0` is the integer 3 to JSON Schema (and to a
        // client whose numbers are all floats), so a whole float where an integer goes is
        // read as that integer (inside an untagged enum too, whose error names no float).
        // Tried only after a direct parse failed: a body of integers costs nothing more.
        if e.inner().is_data() {
            if let Some(parsed) = serde_json::from_str(text).ok().and_then(parse_with_whole_floats) {
                return Ok(parsed);
            }
        }
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_data() {
            if let Some(unknown) = crate::error::UnknownField::from_serde(&path, &inner.to_string()) {
                return Err(AppError::unknown_field(&unknown));
            }
        }
        let field = if path == "." { "body".to_string() } else { path };
        Err(AppError::new(crate::ErrorKind::BadRequest, ErrorCode::MalformedJson, format!("{field}: {inner}"))
            .with_details(serde_json::json!({ "field": field, "line": inner.line(), "column": inner.column() })))
    })
}

/// `value` parsed again with its whole floats read as integers, if it had any: the retry
/// after a direct parse failed on a type (`3.0` where an integer goes).
pub(crate) fn parse_with_whole_floats<T: serde::de::DeserializeOwned>(mut value: serde_json::Value) -> Option<T> {
    whole_floats_as_integers(&mut value).then(|| serde_json::from_value(value).ok()).flatten()
}

/// Every float in `value` with no fractional part, within the range of a 64-bit integer,
/// made that integer; whether there was one.
fn whole_floats_as_integers(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            // 2^63: the first float past i64's range (and every float of that size is whole).
            let whole = float.fract() == 0.0 && float.abs() < 9_223_372_036_854_775_808.0;
            if whole {
                *value = Value::from(float as i64);
            }
            whole
        }
        // Every item is visited (no short circuit): each whole float is made an integer.
        Value::Array(items) => items.iter_mut().map(whole_floats_as_integers).filter(|changed| *changed).count() > 0,
        Value::Object(fields) => {
            fields.values_mut().map(whole_floats_as_integers).filter(|changed| *changed).count() > 0
        }
        _ => false,
    }
}

/// Refuse JSON text that is not an object (empty, an array, a number) as such: serde would
/// otherwise read an array as a struct, field by position.
pub fn expect_json_object(text: &str) -> AppResult<()> {
    let text = text.trim_start();
    if text.starts_with('{') {
        return Ok(());
    }
    let got = if text.is_empty() { ", got an empty body" } else { "" };
    Err(AppError::new(
        crate::ErrorKind::BadRequest,
        ErrorCode::MalformedJson,
        format!("body: expected a JSON object{got}"),
    ))
}

/// Refuse a JSON value with a NUL character in a key or a string, naming where: PostgreSQL
/// keeps no NUL in text, so neither store nor door takes one (SQLite would, and a learner
/// moved to PostgreSQL would then not fit).
pub fn refuse_nul_text(value: &serde_json::Value) -> AppResult<()> {
    match nul_at(value, "") {
        None => Ok(()),
        Some(field) => Err(AppError::new(
            crate::ErrorKind::Invalid,
            ErrorCode::UnstorableText,
            format!("{field}: holds a NUL character (U+0000), which text may not contain; remove it"),
        )
        .with_details(serde_json::json!({ "field": field }))),
    }
}

/// The path of the first key or string in `value` that holds a NUL, as serde names fields
/// (`a.b[2]`).
fn nul_at(value: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    let here = || if path.is_empty() { "body".to_string() } else { path.to_string() };
    match value {
        Value::String(text) => text.contains('\0').then(here),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| nul_at(item, &format!("{path}[{i}]"))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            let inner = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
            if key.contains('\0') {
                return Some(inner);
            }
            nul_at(item, &inner)
        }),
        _ => None,
    }
}

#[cfg(test)]
mod whole_numbers {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Answer {
        quality: u8,
        minutes: Vec<i64>,
        weight: f64,
    }

    #[test]
    fn a_whole_float_where_an_integer_goes_is_that_integer() {
        let parsed: Answer = parse_json(r#"{"quality": 4.0, "minutes": [10, -5.0], "weight": 0.5}"#).unwrap();
        assert_eq!(parsed, Answer { quality: 4, minutes: vec![10, -5], weight: 0.5 });
        let error = parse_json::<Answer>(r#"{"quality": 4.5, "minutes": [], "weight": 1}"#).unwrap_err();
        assert_eq!(error.code, ErrorCode::MalformedJson, "a fraction is no integer: {}", error.message);
        assert!(error.message.starts_with("quality: invalid type: floating point `4.5`"), "{}", error.message);
        let error = parse_json::<Answer>(r#"{"quality": 1e300, "minutes": [], "weight": 1}"#).unwrap_err();
        assert_eq!(error.code, ErrorCode::MalformedJson, "past any integer's range: {}", error.message);
    }
}
