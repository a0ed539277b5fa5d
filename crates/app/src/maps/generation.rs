//! `curriculum_generate` with a language model: the model builds the concept graph with
//! tools (`mind_map_node_create`, `mind_map_edge_create`, deletions to correct itself, and
//! `finish`). Its graph is held as a draft in memory and checked, on `finish`, by exactly
//! the validation a supplied decomposition goes through. A model that answers the first
//! request without calling a tool (many small local models cannot) is asked instead for
//! the whole graph in one reply, constrained by a JSON Schema (and such a model is asked that
//! way from then on), and that graph is checked by the same rules once the faults small
//! models make are mended (`model_graph::tidy`). A rejected graph is explained to the model once; if the corrected one is
//! rejected too, or the model fails, nothing is stored and the error says why. Only a valid
//! graph is stored, in one transaction.

use crate::maps::curriculum::GenerateInput;
use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::curriculum::{self, ConceptSpec, Decomposition, EdgeSpec};
use pathwise_domain::edit::MAX_LABEL_CHARS;
use pathwise_domain::lifecycle;
use pathwise_domain::mastery::Quality;
use pathwise_domain::model::{MapAggregate, Metadata};
use pathwise_domain::model_graph;
use pathwise_domain::{MindMapId, NodeId};
use pathwise_llm::{prompts, schema, Message, Request, Session, Tool, ToolCall};
use pathwise_store::{JobStore, MapStore, UsageStore};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

/// The operation's name in token accounting and in the offline error.
pub const OPERATION: &str = "curriculum_generate";

/// Model turns before giving up on a conversation that never finishes.
const MAX_TURNS: usize = 60;

/// How often a graph rejected on `finish` is explained before the generation fails.
const CORRECTIONS: usize = 1;

/// A whole graph in one reply at most: 30 concepts with a short description each and their
/// edges come to about 2,000 tokens.
const GRAPH_MAX_TOKENS: u32 = 2_500;

/// Where decoding is held to the schema (a small local model): at most this many concepts
/// and edges. A small model that has run out of concepts repeats them until the schema lets
/// it stop, and every repeat costs the learner time.
const DECODED_MAX_CONCEPTS: usize = 16;
const DECODED_MAX_EDGES: usize = 24;

/// The graph in one reply, for a model that does not call tools, with the bounds a
/// decoding server holds it to (the most concepts also follow the server's node limit).
#[derive(Deserialize, JsonSchema)]
struct GraphReply {
    #[schemars(length(min = 1, max = MAX_LABEL_CHARS))]
    root: String,
    #[schemars(length(min = 2, max = DECODED_MAX_CONCEPTS))]
    nodes: Vec<GraphNode>,
    #[schemars(length(max = DECODED_MAX_EDGES))]
    edges: Vec<GraphEdge>,
    #[serde(default)]
    goal_node: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct GraphNode {
    #[schemars(length(min = 1, max = MAX_LABEL_CHARS))]
    label: String,
    /// Asked for always; a missing one is read as none.
    #[serde(default)]
    #[schemars(with = "String", length(max = 200))]
    description: Option<String>,
    #[schemars(range(min = 5, max = 240))]
    effort_minutes: i64,
}

#[derive(Deserialize, JsonSchema)]
struct GraphEdge {
    #[schemars(length(min = 1, max = MAX_LABEL_CHARS))]
    parent: String,
    #[schemars(length(min = 1, max = MAX_LABEL_CHARS))]
    child: String,
}

impl GraphReply {
    fn into_decomposition(self) -> Decomposition {
        Decomposition {
            root: self.root.trim().to_string(),
            nodes: self
                .nodes
                .into_iter()
                .map(|n| ConceptSpec {
                    label: n.label.trim().to_string(),
                    description: n.description.map(|d| d.trim().to_string()).filter(|d| !d.is_empty()),
                    effort_minutes: n.effort_minutes,
                })
                .collect(),
            edges: self
                .edges
                .into_iter()
                .map(|e| EdgeSpec {
                    parent: e.parent.trim().to_string(),
                    child: e.child.trim().to_string(),
                    edge_type: Default::default(),
                })
                .collect(),
            goal_node: self.goal_node.map(|g| g.trim().to_string()).filter(|g| !g.is_empty()),
        }
    }
}

/// What the model is told when it is asked for the graph in one reply.
const ONE_REPLY: &str = "Do not call tools. Reply with the whole concept graph as one JSON object: \
    `root` (the label of the concept that stands for the topic), `nodes` (each with `label`, a one-sentence \
    `description` and `effort_minutes`), `edges` (each `parent` -> `child` by label: the parent is learned \
    first; every concept is reachable from the root) and `goal_node` (the label of the concept that achieves \
    the learner's goal, or null).";

/// The graph as the model has built it so far.
#[derive(Default)]
struct Draft {
    nodes: Vec<(String, ConceptSpec)>,
    edges: Vec<EdgeSpec>,
}

/// The arguments of the graph tools, with their doc comments as the model's guide.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NodeArgs {
    label: String,
    /// One sentence on what the concept is.
    #[serde(default)]
    description: Option<String>,
    #[schemars(range(min = 1))]
    effort_minutes: i64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EdgeArgs {
    /// A node_id returned by mind_map_node_create, or the node's label.
    parent_node_id: String,
    /// A node_id returned by mind_map_node_create, or the node's label.
    child_node_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NodeRef {
    /// A node_id returned by mind_map_node_create, or the node's label.
    node_id: String,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FinishArgs {
    /// A node_id returned by mind_map_node_create, or the node's label.
    #[serde(default)]
    goal_node_id: Option<String>,
}

impl Draft {
    /// A node by the id it was given or by its label.
    fn label_of(&self, reference: &str) -> Result<String, String> {
        let reference = reference.trim();
        self.nodes
            .iter()
            .find(|(id, spec)| id == reference || spec.label.eq_ignore_ascii_case(reference))
            .map(|(_, spec)| spec.label.clone())
            .ok_or_else(|| {
                format!("there is no node {reference:?}; create it first or use an id returned by mind_map_node_create")
            })
    }

    fn create_node(&mut self, args: NodeArgs) -> Result<Value, String> {
        let label = args.label.trim().to_string();
        if label.is_empty() {
            return Err("label must not be empty".into());
        }
        if self.nodes.iter().any(|(_, spec)| spec.label.eq_ignore_ascii_case(&label)) {
            return Err(format!("a node labelled {label:?} exists already; labels are unique"));
        }
        let id = Uuid::now_v7().to_string();
        self.nodes.push((
            id.clone(),
            ConceptSpec { label: label.clone(), description: args.description, effort_minutes: args.effort_minutes },
        ));
        let root = if self.nodes.len() == 1 { " (the root)" } else { "" };
        Ok(json!({ "node_id": id, "label": label, "note": format!("created{root}") }))
    }

    fn create_edge(&mut self, args: EdgeArgs) -> Result<Value, String> {
        let (parent, child) = (self.label_of(&args.parent_node_id)?, self.label_of(&args.child_node_id)?);
        if parent == child {
            return Err(format!("{parent:?} cannot be its own prerequisite"));
        }
        if !self.edges.iter().any(|e| e.parent == parent && e.child == child) {
            self.edges.push(EdgeSpec { parent: parent.clone(), child: child.clone(), edge_type: Default::default() });
        }
        Ok(json!({ "edge": format!("{parent} -> {child}") }))
    }

    fn delete_node(&mut self, args: NodeRef) -> Result<Value, String> {
        let label = self.label_of(&args.node_id)?;
        self.nodes.retain(|(_, spec)| spec.label != label);
        self.edges.retain(|e| e.parent != label && e.child != label);
        Ok(json!({ "deleted": label }))
    }

    fn delete_edge(&mut self, args: EdgeArgs) -> Result<Value, String> {
        let (parent, child) = (self.label_of(&args.parent_node_id)?, self.label_of(&args.child_node_id)?);
        let before = self.edges.len();
        self.edges.retain(|e| !(e.parent == parent && e.child == child));
        if self.edges.len() == before {
            return Err(format!("there is no edge {parent} -> {child}"));
        }
        Ok(json!({ "deleted": format!("{parent} -> {child}") }))
    }

    fn decomposition(&self, goal_node: Option<String>) -> Result<Decomposition, String> {
        let root = self.nodes.first().map(|(_, spec)| spec.label.clone()).ok_or("the graph has no nodes yet")?;
        Ok(Decomposition {
            root,
            nodes: self.nodes.iter().map(|(_, spec)| spec.clone()).collect(),
            edges: self.edges.clone(),
            goal_node,
        })
    }
}

fn tools() -> Vec<Tool> {
    vec![
        schema::tool::<NodeArgs>("mind_map_node_create", "Add a concept. The first concept created is the root."),
        schema::tool::<EdgeArgs>("mind_map_edge_create", "Make parent a prerequisite of child."),
        schema::tool::<NodeRef>("mind_map_node_delete", "Remove a concept and its edges."),
        schema::tool::<EdgeArgs>("mind_map_edge_delete", "Remove a prerequisite edge."),
        schema::tool::<FinishArgs>("finish", "The graph is complete; name the goal concept if the learner has a goal."),
    ]
}

fn parse<T: for<'de> Deserialize<'de>>(call: &ToolCall) -> Result<T, String> {
    let arguments = if call.arguments.trim().is_empty() { "{}" } else { &call.arguments };
    serde_json::from_str(arguments).map_err(|e| format!("the arguments of {} are not valid: {e}", call.name))
}

/// How a conversation ended.
enum Outcome {
    Graph(Decomposition),
    Failed(AppError),
}

/// The model's proposal broke the rules even after its correction: 502, as the model failed.
pub(crate) fn model_failed(message: String) -> AppError {
    tracing::warn!(reason = "invalid_reply", %message, "a language model's concept graph broke the rules");
    AppError::new(ErrorKind::Upstream, ErrorCode::LlmInvalidGraph, message)
}

impl<S: StoreHandle + JobStore + MapStore + UsageStore> App<S> {
    /// The model's decomposition of `input.topic`, checked by the planning rules; its tokens
    /// are recorded whatever the outcome.
    pub(crate) async fn model_decomposition(
        &self,
        learner: pathwise_domain::LearnerId,
        input: &GenerateInput,
    ) -> AppResult<Decomposition> {
        let session = self.llm.session(OPERATION).await?;
        let outcome = self.converse(&session, input).await;
        // Tokens are spent whether or not the graph was any good.
        self.record_llm_session(learner, OPERATION, &session).await?;
        match outcome? {
            Outcome::Graph(decomposition) => Ok(decomposition),
            Outcome::Failed(error) => Err(error),
        }
    }

    async fn converse(&self, session: &Session, input: &GenerateInput) -> AppResult<Outcome> {
        let known: Vec<&str> = input
            .diagnostic_results
            .iter()
            .filter(|d| d.quality >= i64::from(Quality::PASS.value()))
            .map(|d| d.node_label.as_str())
            .collect();
        let system = prompts::render(
            "curriculum_planning",
            json!({ "topic": input.topic, "goal": input.goal, "known": known,
                    "max_nodes": self.limits.max_nodes, "max_depth": self.limits.max_depth }),
        );
        let mut request = Request {
            tools: tools(),
            ..Request::new(vec![Message::system(system), Message::user(format!("Plan \"{}\" now.", input.topic))])
        };
        let mut draft = Draft::default();
        let mut rejections = 0;
        for turn in 0..MAX_TURNS {
            if turn == 0 && self.llm.calls_tools() == Some(false) {
                let system = request.messages.swap_remove(0);
                return self.graph_in_one_reply(session, system, input).await;
            }
            let reply = session.chat(&request).await?;
            if turn == 0 {
                self.llm.learned_tool_calls(!reply.tool_calls.is_empty());
            }
            if reply.tool_calls.is_empty() && turn == 0 {
                // No tool called at all: a model that cannot (remembered, so that it is not
                // asked again); the graph in one reply instead.
                let system = request.messages.swap_remove(0);
                return self.graph_in_one_reply(session, system, input).await;
            }
            request.messages.push(Message::assistant(&reply));
            if reply.tool_calls.is_empty() {
                request.messages.push(Message::user("Build the graph with the tools, then call finish."));
                continue;
            }
            for call in &reply.tool_calls {
                let result = match call.name.as_str() {
                    "mind_map_node_create" => parse(call).and_then(|a| draft.create_node(a)),
                    "mind_map_edge_create" => parse(call).and_then(|a| draft.create_edge(a)),
                    "mind_map_node_delete" => parse(call).and_then(|a| draft.delete_node(a)),
                    "mind_map_edge_delete" => parse(call).and_then(|a| draft.delete_edge(a)),
                    "finish" => match self.finish(&draft, parse::<FinishArgs>(call), input) {
                        Ok(decomposition) => return Ok(Outcome::Graph(decomposition)),
                        Err(reason) if rejections < CORRECTIONS => {
                            rejections += 1;
                            Err(format!(
                                "the graph was rejected: {reason}. Correct it with the tools, then call finish again."
                            ))
                        }
                        Err(reason) => {
                            return Ok(Outcome::Failed(model_failed(format!(
                            "the language model's concept graph was rejected, and again after one correction: {reason}"
                        ))))
                        }
                    },
                    other => Err(format!("there is no tool {other:?}")),
                };
                let content = match result {
                    Ok(value) => value.to_string(),
                    Err(message) => json!({ "error": message }).to_string(),
                };
                request.messages.push(Message::tool_result(call, content));
            }
        }
        Ok(Outcome::Failed(model_failed(format!(
            "the language model did not finish the concept graph within {MAX_TURNS} turns"
        ))))
    }

    /// The whole graph asked for in one schema-constrained reply, checked by the planning
    /// rules, with one correction when they reject it.
    async fn graph_in_one_reply(
        &self,
        session: &Session,
        system: Message,
        input: &GenerateInput,
    ) -> AppResult<Outcome> {
        // For a server that decodes by grammar: the graph's bounds in the schema itself.
        let mut decoding = schema::decoding_schema::<GraphReply>();
        let most = self.limits.max_nodes.map_or(DECODED_MAX_CONCEPTS, |limit| limit.min(DECODED_MAX_CONCEPTS));
        decoding["properties"]["nodes"]["maxItems"] = json!(most);
        let mut request = Request {
            decoding_schema: Some(decoding),
            output: Some(schema::output_schema::<GraphReply>("concept_graph")),
            max_tokens: Some(GRAPH_MAX_TOKENS),
            temperature: Some(0.2),
            ..Request::new(vec![system, Message::user(format!("Plan \"{}\" now. {ONE_REPLY}", input.topic))])
        };
        for attempt in 0..=CORRECTIONS {
            let (graph, reply) = session.structured::<GraphReply>(&request).await?;
            match self.check_graph(self.tidy(graph.into_decomposition(), input), input) {
                Ok(decomposition) => return Ok(Outcome::Graph(decomposition)),
                Err(reason) if attempt < CORRECTIONS => {
                    request.messages.push(Message::assistant(&reply));
                    request.messages.push(Message::user(format!(
                        "The graph was rejected: {reason}. Reply with the corrected graph, whole, in the same form."
                    )));
                }
                Err(reason) => {
                    return Ok(Outcome::Failed(model_failed(format!(
                        "the language model's concept graph was rejected, and again after one correction: {reason}"
                    ))))
                }
            }
        }
        unreachable!("the last attempt returns")
    }

    /// The draft as a decomposition, if the same rules as any supplied one accept it.
    fn finish(
        &self,
        draft: &Draft,
        args: Result<FinishArgs, String>,
        input: &GenerateInput,
    ) -> Result<Decomposition, String> {
        let goal_node = args?.goal_node_id.map(|g| draft.label_of(&g)).transpose()?;
        self.check_graph(draft.decomposition(goal_node)?, input)
    }

    /// A graph written in one reply, mended where that keeps what the model meant
    /// (`model_graph::tidy`); what was mended is logged for the operator. Graphs built with
    /// tools need no mending: each call is checked as it is made.
    fn tidy(&self, graph: Decomposition, input: &GenerateInput) -> Decomposition {
        let (mut graph, mended) = model_graph::tidy(graph);
        if !mended.is_empty() {
            tracing::info!(operation = OPERATION, ?mended, "mended the language model's concept graph");
        }
        // A goal concept named when the learner gave no goal means nothing: the schema
        // makes every model name one or null, and small ones rarely choose null.
        if input.goal.as_deref().is_none_or(|g| g.trim().is_empty()) {
            graph.goal_node = None;
        }
        graph
    }

    /// `decomposition`, if the same rules as any supplied one accept it.
    fn check_graph(&self, decomposition: Decomposition, input: &GenerateInput) -> Result<Decomposition, String> {
        let now = self.now();
        let map = lifecycle::new_map(
            MindMapId(Uuid::nil()),
            pathwise_domain::LearnerId(Uuid::nil()),
            &input.topic,
            Metadata::new(),
            now,
        )
        .map_err(|e| e.to_string())?;
        let mut scratch = MapAggregate { map, nodes: Vec::new(), edges: Vec::new() };
        curriculum::plan(
            &mut scratch,
            &decomposition,
            input.goal.as_deref(),
            &input.diagnostic_results,
            || NodeId(Uuid::now_v7()),
            now,
            self.limits,
        )
        .map_err(|e| e.to_string())?;
        Ok(decomposition)
    }
}
