//! `curriculum_replan` with a reason: the language model may propose missing prerequisite
//! concepts (for example "Stack Frames" before a struggling "Recursion"). It proposes with
//! tools; on `finish` the proposals are checked by re-planning a copy of the map with the
//! domain's rules, a rejection is explained once, and the caller's re-plan then adds them
//! through the ordinary path. The model writes nothing itself.

use crate::maps::curriculum::AddConceptInput;
use crate::maps::generation::model_failed;
use crate::stores::MasteryStores;
use crate::{App, AppResult};
use pathwise_domain::curriculum;
use pathwise_domain::model::MapAggregate;
use pathwise_domain::{LearnerId, MapStatus, MindMapId, NodeId};
use pathwise_llm::{prompts, schema, Message, Request, Session, Tool, ToolCall};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

/// The operation's name in token accounting and in errors.
pub const OPERATION: &str = "curriculum_replan";

const MAX_TURNS: usize = 20;
/// The most concepts one re-plan may add.
const MAX_ADDITIONS: usize = 5;

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProposalArgs {
    label: String,
    /// One sentence on what the concept is.
    #[serde(default)]
    description: Option<String>,
    #[schemars(range(min = 1))]
    effort_minutes: i64,
    /// Labels of existing concepts that need the new one first.
    prerequisite_of: Vec<String>,
    /// Labels of existing concepts the new one needs first (the root when empty).
    #[serde(default)]
    prerequisites: Vec<String>,
}

/// `finish` takes no arguments.
#[derive(schemars::JsonSchema)]
struct NoArgs {}

fn tools() -> Vec<Tool> {
    vec![
        schema::tool::<ProposalArgs>(
            "add_prerequisite",
            "Propose a missing concept that existing concepts need first.",
        ),
        schema::tool::<NoArgs>("finish", "No more concepts to propose (proposing none is fine)."),
    ]
}

fn node_id(agg: &MapAggregate, label: &str) -> Result<NodeId, String> {
    agg.nodes
        .iter()
        .find(|n| n.label.eq_ignore_ascii_case(label.trim()))
        .map(|n| n.id)
        .ok_or_else(|| format!("there is no concept {label:?} in the map"))
}

fn propose(agg: &MapAggregate, proposals: &[AddConceptInput], call: &ToolCall) -> Result<AddConceptInput, String> {
    let args: ProposalArgs = serde_json::from_str(&call.arguments)
        .map_err(|e| format!("the arguments of {} are not valid: {e}", call.name))?;
    let label = args.label.trim().to_string();
    let taken = agg.nodes.iter().any(|n| n.label.eq_ignore_ascii_case(&label))
        || proposals.iter().any(|p| p.label.eq_ignore_ascii_case(&label));
    if label.is_empty() || taken {
        return Err(format!("{label:?} is empty or already a concept of the map; propose a new one"));
    }
    if proposals.len() >= MAX_ADDITIONS {
        return Err(format!("at most {MAX_ADDITIONS} concepts may be added in one re-plan"));
    }
    if args.prerequisite_of.is_empty() {
        return Err("prerequisite_of must name at least one existing concept that needs the new one".into());
    }
    Ok(AddConceptInput {
        label,
        description: args.description,
        effort_minutes: args.effort_minutes,
        prerequisite_ids: args.prerequisites.iter().map(|l| node_id(agg, l)).collect::<Result<_, _>>()?,
        prerequisite_of: args.prerequisite_of.iter().map(|l| node_id(agg, l)).collect::<Result<_, _>>()?,
    })
}

impl<S: MasteryStores> App<S> {
    /// The missing prerequisites the model proposes for `map`, checked against the rules.
    pub(crate) async fn proposed_prerequisites(
        &self,
        learner: LearnerId,
        map: MindMapId,
        reason: &str,
    ) -> AppResult<Vec<AddConceptInput>> {
        let agg = self.get_map(learner, map).await?;
        if agg.map.status != MapStatus::Active {
            // The re-plan itself refuses, with the rule's own message.
            return Ok(Vec::new());
        }
        let struggling = self.detect_struggles(learner, map).await?;
        let session = self.llm.session(OPERATION).await?;
        let proposals = self.ask_for_prerequisites(&session, &agg, reason, &struggling).await;
        self.record_llm_session(learner, OPERATION, &session).await?;
        proposals
    }

    async fn ask_for_prerequisites(
        &self,
        session: &Session,
        agg: &MapAggregate,
        reason: &str,
        struggling: &[pathwise_domain::mastery::Struggle],
    ) -> AppResult<Vec<AddConceptInput>> {
        let mut ordered: Vec<_> = agg.nodes.iter().collect();
        ordered.sort_by_key(|n| (n.sequence.is_none(), n.sequence));
        let concepts: Vec<Value> = ordered
            .iter()
            .map(|n| json!({ "label": n.label, "status": n.mastery_status, "score": (n.mastery_score * 100.0).round() / 100.0 }))
            .collect();
        let struggling: Vec<&str> = struggling.iter().map(|s| s.label.as_str()).collect();
        let system = prompts::render(
            "curriculum_replan",
            json!({ "title": agg.map.title, "reason": reason, "concepts": concepts, "struggling": struggling,
                    "max_additions": MAX_ADDITIONS }),
        );
        let mut request =
            Request { tools: tools(), ..Request::new(vec![Message::system(system), Message::user("Propose now.")]) };
        let mut proposals: Vec<AddConceptInput> = Vec::new();
        let mut rejected = false;
        for _ in 0..MAX_TURNS {
            let reply = session.chat(&request).await?;
            request.messages.push(Message::assistant(&reply));
            if reply.tool_calls.is_empty() {
                request
                    .messages
                    .push(Message::user("Use add_prerequisite for each missing concept, then call finish."));
                continue;
            }
            for call in &reply.tool_calls {
                let result = match call.name.as_str() {
                    "add_prerequisite" => propose(agg, &proposals, call).map(|p| {
                        let note = json!({ "proposed": p.label });
                        proposals.push(p);
                        note
                    }),
                    "finish" => match self.check_proposals(agg, &proposals) {
                        Ok(()) => return Ok(proposals),
                        Err(reason) if !rejected => {
                            rejected = true;
                            proposals.clear();
                            Err(format!("the proposals were rejected: {reason}. Propose again, then call finish."))
                        }
                        Err(reason) => {
                            return Err(model_failed(format!(
                                "the language model's proposals were rejected twice: {reason}"
                            )))
                        }
                    },
                    other => Err(format!("there is no tool {other:?}")),
                };
                let content = result.unwrap_or_else(|message| json!({ "error": message })).to_string();
                request.messages.push(Message::tool_result(call, content));
            }
        }
        Err(model_failed(format!("the language model did not finish its proposals within {MAX_TURNS} turns")))
    }

    /// Re-plan a copy of the map with the proposals: the rules the real re-plan applies.
    fn check_proposals(&self, agg: &MapAggregate, proposals: &[AddConceptInput]) -> Result<(), String> {
        let mut copy = agg.clone();
        let added = proposals.iter().cloned().map(|p| p.into_added(NodeId(Uuid::now_v7()))).collect();
        let limits = self.limits.for_map(&copy.map);
        curriculum::replan(&mut copy, added, self.now(), limits).map_err(|e| e.to_string())
    }
}
