//! Every tool, named as the specifications name the operations. Each one parses its
//! arguments and calls one application operation for the calling learner; the rules are
//! the application's.

use super::args::{FlowArg, MapArg, NodeArg, Nothing, ReviewsMapArg, With};
use super::registry::{tool, Effect::Reads, Effect::Writes, ToolSpec};
use pathwise_app::advance::AdvanceFlow;
use pathwise_app::analytics::MapAnalytics;
use pathwise_app::curriculum::{GenerateInput, ImportOutline, ReplanInput};
use pathwise_app::diagnostics::{RecordProbe, StartDiagnostic};
use pathwise_app::flows::StartFlow;
use pathwise_app::maps::{CreateEdge, CreateMap, CreateNode, UpdateMap, UpdateNode};
use pathwise_app::mastery::RecordResponse;
use pathwise_app::queries::{HistoryQuery, ListFlowsQuery, ListMapsQuery, ListNodesQuery, PendingReviewsQuery};
use pathwise_domain::mastery::Struggle;
use pathwise_domain::model::{Node, QuizResponse};
use pathwise_domain::{NodeId, ResponseType};
use pathwise_store::Snapshot;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The arguments of `spaced_repetition_pending_reviews`: the HTTP API's query, and the map
/// it may be narrowed to (which the HTTP API takes from the path).
pub type PendingReviews = With<ReviewsMapArg, PendingReviewsQuery>;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdgeEnds {
    /// The prerequisite.
    parent_node_id: NodeId,
    /// The concept that needs it.
    child_node_id: NodeId,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewAnswer {
    pub node_id: NodeId,
    pub mind_map_id: pathwise_domain::MindMapId,
    /// The review question as asked.
    pub question_text: String,
    #[serde(default)]
    pub user_answer: Option<String>,
    /// SM-2 quality: 0 (blackout) to 5 (perfect recall); 3 or more is a successful recall.
    pub quality: i64,
    /// A key of yours for this answer (1-255 printable characters): recording it again with
    /// the same key stores nothing twice.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotQuery {
    /// Also store the figures as today's snapshot (default false: only read them).
    #[serde(default)]
    refresh: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct Nodes {
    pub nodes: Vec<Node>,
}

#[derive(Serialize, JsonSchema)]
pub struct NextNode {
    /// The concept to study next, or null when nothing is left (or the map is not active).
    pub node: Option<Node>,
}

#[derive(Serialize, JsonSchema)]
pub struct History {
    /// Newest first.
    pub responses: Vec<QuizResponse>,
}

#[derive(Serialize, JsonSchema)]
pub struct Struggles {
    pub struggles: Vec<Struggle>,
}

#[derive(Serialize, JsonSchema)]
pub struct Done {
    pub deleted: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct LatestSnapshot {
    /// The map's figures now (today's point, computed at the call; not stored unless
    /// `refresh` asked for it).
    pub snapshot: Snapshot,
}

pub fn all() -> Vec<ToolSpec> {
    let mut tools = maps();
    tools.extend(learning());
    tools.extend(flows());
    tools.extend(super::learner_tools::all());
    tools.extend(super::tutor_tools::all());
    tools.extend(super::author_tools::all());
    tools
}

fn maps() -> Vec<ToolSpec> {
    vec![
        tool(
            "mind_map_create",
            "Create an empty mind map (status draft) for a topic. Add concepts with mind_map_node_create and \
             prerequisites with mind_map_edge_create, then set it active with mind_map_update_status; or use \
             curriculum_generate to build and plan a whole map in one call.",
            Writes,
            |app, l, input: CreateMap| async move { app.create_map(l, input).await },
        ),
        tool(
            "mind_map_get",
            "A mind map with its nodes (in learning order, with mastery and review state) and its edges.",
            Reads,
            |app, l, a: With<MapArg, Nothing>| async move { app.get_map(l, a.id).await },
        ),
        tool(
            "mind_map_list",
            "The learner's mind maps, newest first, optionally only those in one status.",
            Reads,
            |app, l, q: ListMapsQuery| async move { app.list_maps(l, q.status, q.offset, q.limit).await },
        ),
        tool(
            "mind_map_update_status",
            "Move a mind map along its lifecycle: draft -> active -> completed, or abandoned. Completing or \
             abandoning a map removes its pending review jobs.",
            Writes,
            |app, l, a: With<MapArg, UpdateMap>| async move { app.update_map_status(l, a.id, a.input.status).await },
        ),
        tool(
            "mind_map_node_create",
            "Add a concept to a map. The first node is the root; every later node needs at least one \
             prerequisite (prerequisite_ids). Limits: 30 nodes, depth 5, no cycles.",
            Writes,
            |app, l, a: With<MapArg, CreateNode>| async move { app.create_node(l, a.id, a.input).await },
        ),
        tool(
            "mind_map_node_get",
            "One concept node with its mastery score and status and its spaced-repetition state.",
            Reads,
            |app, l, a: With<NodeArg, Nothing>| async move { app.get_node(l, a.id).await },
        ),
        tool(
            "mind_map_node_list",
            "A map's nodes in learning order, optionally only those in one mastery status.",
            Reads,
            |app, l, a: With<MapArg, ListNodesQuery>| async move {
                Ok(Nodes { nodes: app.list_nodes(l, a.id, a.input.mastery_status).await? })
            },
        ),
        tool(
            "mind_map_node_update",
            "Change a node's label, description, effort or metadata, or seed its mastery (mastery_status, \
             mastery_score) from a diagnostic.",
            Writes,
            |app, l, a: With<NodeArg, UpdateNode>| async move { app.update_node(l, a.id, a.input).await },
        ),
        tool(
            "mind_map_edge_create",
            "Add an edge parent -> child: a prerequisite edge means the parent must be mastered before the \
             child. A cycle, a depth over 5 or nodes of another map are refused with the reason \
             (e.g. 'cycle: C -> A -> B -> C').",
            Writes,
            |app, l, a: With<MapArg, CreateEdge>| async move { app.create_edge(l, a.id, a.input).await },
        ),
        tool(
            "mind_map_edge_delete",
            "Remove the edge parent -> child. Refused when it would leave a node unreachable from the root.",
            Writes,
            |app, l, a: With<MapArg, EdgeEnds>| async move {
                app.delete_edge(l, a.id, a.input.parent_node_id, a.input.child_node_id).await?;
                Ok(Done { deleted: true })
            },
        ),
        tool(
            "mind_map_frontier",
            "The concepts ready to learn now (every prerequisite mastered, not mastered themselves), in \
             learning order.",
            Reads,
            |app, l, a: With<MapArg, Nothing>| async move { Ok(Nodes { nodes: app.frontier(l, a.id).await? }) },
        ),
        tool(
            "mind_map_subtree",
            "A node and everything that depends on it, with the edges between them.",
            Reads,
            |app, l, a: With<NodeArg, Nothing>| async move { app.subtree(l, a.id).await },
        ),
    ]
}

fn learning() -> Vec<ToolSpec> {
    vec![
        tool(
            "curriculum_generate",
            "Create and plan a map for a topic in one call. Pass `decomposition` (the concept graph you \
             wrote, following the curriculum_planning prompt) or leave it out to have Pathwise's configured \
             model write it. A goal scopes the plan to what the goal needs; diagnostic_results seed what the \
             learner already knows. A map the learner has for the topic already is refused (map_exists) unless \
             on_existing is new or replace. Returns {mind_map_id, node_count, edge_count, status}.",
            Writes,
            |app, l, input: GenerateInput| async move { app.curriculum_generate(l, input).await },
        ),
        tool(
            "mind_map_import_outline",
            "Create and plan a map from an outline the learner pasted: Markdown headings (#, ##, ...) or a nested \
             list (-, *, 1.). The first heading or item is the topic; whatever is nested under an entry needs it \
             first; a label written again is the same concept; `(45 min)` at an entry's end gives its effort. \
             Refusals (cycle, depth over 5, over 30 concepts) name the outline's line. Needs no language model. \
             Returns {mind_map_id, node_count, edge_count, status}.",
            Writes,
            |app, l, input: ImportOutline| async move { app.import_outline(l, input).await },
        ),
        tool(
            "curriculum_replan",
            "Revisit an active map's plan: add missing prerequisite concepts (add_nodes) and recompute the \
             learning order; with a configured model and only a reason, the model proposes the additions.",
            Writes,
            |app, l, a: With<MapArg, ReplanInput>| async move { app.replan(l, a.id, a.input).await },
        ),
        tool(
            "curriculum_next_node",
            "The concept to study next: the frontier node first in learning order; null when the map is not \
             active or nothing is left.",
            Reads,
            |app, l, a: With<MapArg, Nothing>| async move { Ok(NextNode { node: app.next_node(l, a.id).await? }) },
        ),
        tool(
            "mastery_record_response",
            "Record the learner's answer to a question on a concept, with its SM-2 quality 0-5. Updates the \
             mastery score and status; teach and review responses also schedule the next review (SM-2). \
             response_type: diagnostic, teach or review (default).",
            Writes,
            |app, l, input: RecordResponse| async move { app.record_response(l, input).await },
        ),
        tool(
            "mastery_get_node_history",
            "A node's responses, newest first.",
            Reads,
            |app, l, a: With<NodeArg, HistoryQuery>| async move {
                Ok(History { responses: app.node_history(l, a.id, a.input.limit).await? })
            },
        ),
        tool(
            "mastery_get_map_summary",
            "How far the learner is through a map: counts by mastery status, average score, struggling nodes.",
            Reads,
            |app, l, a: With<MapArg, Nothing>| async move { app.map_summary(l, a.id).await },
        ),
        tool(
            "mastery_detect_struggles",
            "The nodes the learner struggles with, and why (consecutive failures, declining scores, stuck).",
            Reads,
            |app, l, a: With<MapArg, Nothing>| async move {
                Ok(Struggles { struggles: app.detect_struggles(l, a.id).await? })
            },
        ),
        tool(
            "spaced_repetition_record_response",
            "Record the answer to a spaced-repetition review (a review response): SM-2 (or FSRS, if the \
             learner chose it) schedules the next review.",
            Writes,
            |app, l, a: ReviewAnswer| async move {
                let response = RecordResponse {
                    idempotency_key: a.idempotency_key,
                    ..RecordResponse::new(
                        a.node_id,
                        a.mind_map_id,
                        a.question_text,
                        a.user_answer.as_deref(),
                        a.quality,
                        Some(ResponseType::Review),
                    )
                };
                app.record_response(l, response).await
            },
        ),
        tool(
            "spaced_repetition_pending_reviews",
            "Concepts due for review now (or within horizon_days), most overdue first, within the learner's \
             daily review cap.",
            Reads,
            |app, l, a: PendingReviews| async move {
                Ok(Nodes { nodes: app.pending_reviews(l, a.id, a.input.horizon_days).await? })
            },
        ),
        tool(
            "spaced_repetition_schedule_cleanup",
            "Re-plan a map's review jobs now: an active map keeps one job per due review (at most 20, the rest \
             in one batch job); a completed or abandoned map keeps none.",
            Writes,
            |app, l, a: With<MapArg, Nothing>| async move { app.review_jobs().cleanup(l, a.id).await },
        ),
        tool(
            "analytics_get_snapshot",
            "A map's analytics figures now (mastery, retention, velocity, struggles), every recorded response \
             counted; refresh: true also stores them as today's snapshot, a point of the map's trend.",
            Writes,
            |app, l, a: With<MapArg, SnapshotQuery>| async move {
                if a.input.refresh {
                    app.analytics().snapshot_map(l, a.id).await?;
                }
                let analytics: MapAnalytics = app.analytics().map_analytics(l, a.id).await?;
                Ok(LatestSnapshot { snapshot: analytics.latest })
            },
        ),
        tool(
            "analytics_get_trend",
            "A map's nightly snapshots of the last week, its figures now as today's point, and the trend \
             between them (improving, steady, declining).",
            Reads,
            |app, l, a: With<MapArg, Nothing>| async move { app.analytics().map_analytics(l, a.id).await },
        ),
        tool(
            "analytics_get_cross_topic",
            "Every map of the learner with its figures now, summed up across topics.",
            Reads,
            |app, l, _: Nothing| async move { app.portfolio(l).await },
        ),
    ]
}

fn flows() -> Vec<ToolSpec> {
    vec![
        tool(
            "teaching_flow_start",
            "Start learning a topic: a teaching flow (pending -> diagnosing -> planning -> teaching -> \
             quizzing -> reviewing -> completed). Next: diagnostic_start, or teaching_flow_advance with step \
             plan to skip the diagnostic.",
            Writes,
            // The caller is an assistant, which can write every step: no model needed, unless it says so.
            |app, l, mut input: StartFlow| async move {
                input.caller_writes_steps.get_or_insert(true);
                app.flow_start(l, input).await
            },
        ),
        tool(
            "teaching_flow_get",
            "A teaching flow: its status, map, current concept and the question waiting for an answer.",
            Reads,
            |app, l, a: With<FlowArg, Nothing>| async move { app.flow_get(l, a.id).await },
        ),
        tool(
            "teaching_flow_advance",
            "Take one step of a flow: plan (build the map), teach (the next concept, or node_id: one the learner \
             chose among those ready to learn), quiz (a question on it), \
             answer (grade the learner's answer and record it), review (ask the most overdue review). \
             Pathwise's model writes what a step needs unless you supply it: decomposition for plan, \
             caller_explains for teach (you get the concept and its context block to explain), question for \
             quiz and review, quality and feedback when grading a free-text answer yourself.",
            Writes,
            |app, l, a: With<FlowArg, AdvanceFlow>| async move { app.flow_advance(l, a.id, a.input).await },
        ),
        tool(
            "teaching_flow_abandon",
            "Abandon a flow; its active map is abandoned too and its pending reviews removed.",
            Writes,
            |app, l, a: With<FlowArg, Nothing>| async move { app.flow_abandon(l, a.id).await },
        ),
        tool(
            "teaching_flow_list",
            "The learner's teaching flows, most recently active first.",
            Reads,
            |app, l, q: ListFlowsQuery| async move { app.flow_list(l, q.status, q.offset, q.limit).await },
        ),
        tool(
            "diagnostic_start",
            "Start a pending flow's diagnostic: 3-7 adaptive probes from a 10-15 concept inventory. Pass \
             `inventory` (easiest first) to write the probes yourself: each step then names the next_concept \
             to ask about; without it Pathwise's model writes the inventory and the probes.",
            Writes,
            |app, l, a: With<FlowArg, StartDiagnostic>| async move { app.diagnostic_begin(l, a.id, a.input).await },
        ),
        tool(
            "diagnostic_record_probe",
            "Record the learner's answer to the waiting probe (graded exactly for a choice question; give \
             quality 0-5 for free text if you grade it). When you write the probes, pass the question you \
             asked about next_concept with the answer.",
            Writes,
            |app, l, a: With<FlowArg, RecordProbe>| async move { app.diagnostic_record_probe(l, a.id, a.input).await },
        ),
        tool(
            "diagnostic_complete",
            "End the diagnostic (early, too); its findings seed the plan. Next: teaching_flow_advance with step plan.",
            Writes,
            |app, l, a: With<FlowArg, Nothing>| async move { app.diagnostic_complete(l, a.id).await },
        ),
    ]
}

#[cfg(test)]
mod tests {
    /// The horizon the tool's schema states is the one the application allows.
    #[test]
    fn the_pending_reviews_horizon_is_the_applications() {
        let schema = serde_json::to_value(schemars::schema_for!(super::PendingReviews)).unwrap();
        let horizon = &schema["properties"]["horizon_days"];
        assert_eq!(horizon["maximum"].as_f64(), Some(pathwise_app::mastery::MAX_HORIZON_DAYS), "{horizon}");
        assert!(horizon["description"].as_str().unwrap().contains("0-3650"), "{horizon}");
    }
}
