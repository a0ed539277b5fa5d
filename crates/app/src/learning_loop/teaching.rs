//! A flow's planning and teaching steps (D3). Plan: the model (or the caller) decomposes
//! the topic, the planning rules check it, and the map and the flow are stored in one
//! transaction, so a failed plan leaves no map and the flow as it was. Teach: the next
//! frontier concept is explained (or handed to the caller to explain, with its context).
//! Quiz: a question on it. Answer: graded and recorded as a response, which moves mastery
//! and SM-2. Review: the most overdue concept is asked again. Teaching resumes while the
//! frontier has more; once every concept is mastered the flow completes. What the caller
//! may write instead of the model comes in through `advance.rs`; the rules are the same.

use crate::learning_loop::context::context_block;
use crate::learning_loop::grading::{caller_question, clean_answer, grade_answer, CallerGrade};
use crate::maps::curriculum::{GenerateInput, PlanSummary};
use crate::mastery::RecordResponse;
use crate::stores::TeachingStores;
use crate::{learning_loop::model_tasks, App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::curriculum::Decomposition;
use pathwise_domain::evidence::Evidence;
use pathwise_domain::flow::{AnswerTarget, AnsweredQuestion, Flow, PendingQuestion, Phase};
use pathwise_domain::graph;
use pathwise_domain::mastery::Quality;
use pathwise_domain::model::{MapAggregate, Node};
use pathwise_domain::question::Question;
use pathwise_domain::wording::join_and;
use pathwise_domain::{
    EdgeType, FlowId, FlowStatus, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId, ResponseType,
};
use pathwise_store::ResponseFilter;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

pub use crate::learning_loop::grading::AnswerGrade;

pub const TEACHING: &str = "teaching";
pub const REVIEW: &str = "review";
/// Responses given to a step's context.
const RECENT_RESPONSES: i64 = 8;

#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerInput {
    /// For a choice question the index of the choice, counted from 0 (`"0"`), or its text.
    pub answer: String,
    /// The id of the question answered (the step's `question_id`). An answer is taken only
    /// for the question waiting, once: the same answer sent again gets the first grade and
    /// records nothing.
    #[serde(default)]
    pub question_id: Option<String>,
}

/// What a teaching step produced.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct TeachingStep {
    pub flow: Flow,
    /// The concept at hand.
    pub node: Option<Node>,
    /// The explanation, after `teach` (none when the caller explains).
    pub explanation: Option<String>,
    /// After `teach` with `caller_explains`: the context block the explanation is written
    /// from (topic and goal, progress, the concept with its description and prerequisites,
    /// the frontier, the latest responses), as Pathwise's model would get it.
    pub context: Option<String>,
    /// The question to answer, after `quiz` or `review`.
    pub question: Option<Question>,
    /// The id of the question to answer: an answer names it (`question_id`).
    pub question_id: Option<String>,
    /// The grade, after `answer`.
    pub grade: Option<AnswerGrade>,
    /// The answer was given before: this is its first grade, and nothing was recorded again.
    pub replayed: bool,
    /// After `review` with nothing due: when the next review falls due.
    pub next_review_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The map, after `plan`.
    pub plan: Option<PlanSummary>,
}

impl TeachingStep {
    pub(crate) fn of(flow: &Flow) -> Self {
        let shown = flow.for_learner();
        TeachingStep {
            question: shown.state.question.as_ref().map(|q| q.question.clone()),
            question_id: shown.state.question.as_ref().and_then(|q| q.id.clone()),
            flow: shown,
            node: None,
            explanation: None,
            context: None,
            grade: None,
            replayed: false,
            next_review_at: None,
            plan: None,
        }
    }
}

/// A new question's id: random, so that it says nothing of the question or its answer.
pub(crate) fn new_question_id() -> String {
    format!("q_{}", uuid::Uuid::new_v4().simple())
}

impl<S: TeachingStores> App<S> {
    /// Plan the flow's map from `decomposition`, or the model's when there is none: from a
    /// pending flow (no diagnostic) or after the diagnostic.
    pub(crate) async fn plan_step(
        &self,
        learner: LearnerId,
        id: FlowId,
        decomposition: Option<Decomposition>,
    ) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("plan", &[FlowStatus::Pending, FlowStatus::Planning])?;
        if flow.mind_map_id.is_some() {
            return Err(AppError::new(
                ErrorKind::Conflict,
                ErrorCode::AlreadyPlanned,
                "plan: this flow has its map already; teach",
            ));
        }
        let now = self.now();
        let mut next = match flow.status {
            FlowStatus::Pending => flow.step(FlowStatus::Diagnosing, now)?.step(FlowStatus::Planning, now)?,
            _ => flow.step(FlowStatus::Planning, now)?,
        };
        next.version = flow.version + 1;
        next.session_count = flow.session_count + 1;
        let decomposition = match decomposition {
            Some(decomposition) => {
                flow.fits_goal(&decomposition)?;
                decomposition
            }
            None => self.model_decomposition(learner, &generate_input(&flow)).await?,
        };
        // Concepts the diagnostic asked about are recorded as diagnostic responses below;
        // only those it inferred seed the plan directly.
        let inferred = flow.state.diagnostic.as_ref().map(|d| d.inferred_results()).unwrap_or_default();
        let (planned, changes) =
            self.new_plan(learner, &flow.topic, flow.goal.as_deref(), &inferred, &decomposition)?;
        next.mind_map_id = Some(planned.map.id);
        next.state.question = None;
        self.store.save_flow_with_map(&next, &planned.map, &changes).await?;
        self.record_probes(learner, &next, &planned).await?;
        let mut step = TeachingStep::of(&next);
        step.plan = Some(PlanSummary::of(&planned));
        Ok(step)
    }

    /// Each probe the diagnostic asked, on a concept the plan has, as a diagnostic response.
    async fn record_probes(&self, learner: LearnerId, flow: &Flow, planned: &MapAggregate) -> AppResult<()> {
        let Some(diagnostic) = &flow.state.diagnostic else { return Ok(()) };
        for probe in &diagnostic.probes {
            let Some(node) = planned.nodes.iter().find(|n| n.label.eq_ignore_ascii_case(&probe.concept)) else {
                continue;
            };
            let response = RecordResponse::new(
                node.id,
                planned.map.id,
                probe.question_text.clone(),
                Some(&probe.answer),
                i64::from(probe.quality),
                Some(ResponseType::Diagnostic),
            );
            // Graded when it was answered (exactly, by the model or by the caller), by the
            // same rules: its quality stands.
            let graded = Evidence::Graded(Quality::of(probe.quality));
            self.record_answer(learner, response, graded).await?;
        }
        Ok(())
    }

    /// Explain the next frontier concept (or `chosen`, one the learner picked among those
    /// ready to learn), or leave the explaining to the caller with the concept's context;
    /// completes the flow when nothing is left to learn.
    pub(crate) async fn teach_step(
        &self,
        learner: LearnerId,
        id: FlowId,
        chosen: Option<NodeId>,
        caller_explains: bool,
    ) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("teach", &[FlowStatus::Planning, FlowStatus::Teaching, FlowStatus::Reviewing])?;
        let map = self.get_map(learner, planned_map(&flow)?).await?;
        if map.map.status == MapStatus::Completed {
            return self.complete(&flow).await;
        }
        let node = match chosen {
            Some(chosen) => ready_to_learn(&map, chosen)?,
            None => self.concept_to_teach(learner, &flow, &map).await?,
        };
        let context = self.step_context(learner, &flow, &map, Some(node.id)).await?;
        let explanation = if caller_explains { None } else { Some(self.explain(learner, &node, &context).await?) };
        let mut next = flow.step(FlowStatus::Teaching, self.now())?;
        next.state.current_node_id = Some(node.id);
        next.state.current_phase = Some(Phase::Explaining);
        next.state.question = None;
        self.store.save_flow(&next).await?;
        let mut step = TeachingStep::of(&next);
        step.node = Some(node);
        step.explanation = explanation;
        step.context = caller_explains.then_some(context);
        Ok(step)
    }

    async fn complete(&self, flow: &Flow) -> AppResult<TeachingStep> {
        let mut next = flow.step(FlowStatus::Completed, self.now())?;
        next.state.question = None;
        next.state.current_node_id = None;
        next.state.current_phase = None;
        self.store.save_flow(&next).await?;
        Ok(TeachingStep::of(&next))
    }

    async fn concept_to_teach(&self, learner: LearnerId, flow: &Flow, map: &MapAggregate) -> AppResult<Node> {
        if flow.status == FlowStatus::Teaching {
            // Explaining again keeps to the concept at hand.
            if let Some(node) = flow.state.current_node_id.and_then(|id| map.node(id)) {
                return Ok(node.clone());
            }
        }
        self.next_node(learner, map.map.id).await?.ok_or_else(|| {
            AppError::new(
                ErrorKind::Conflict,
                ErrorCode::NothingToTeach,
                format!("teach: the map is {} and has no concept to learn next", map.map.status),
            )
        })
    }

    async fn explain(&self, learner: LearnerId, node: &Node, context: &str) -> AppResult<String> {
        let session = self.llm.session(TEACHING).await?;
        let explanation = model_tasks::explain(&session, &node.label, context).await;
        self.record_llm_session(learner, TEACHING, &session).await?;
        explanation
    }

    /// Ask `question` on the concept just taught, or the model's when there is none.
    pub(crate) async fn quiz_step(
        &self,
        learner: LearnerId,
        id: FlowId,
        question: Option<Question>,
    ) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("quiz", &[FlowStatus::Teaching, FlowStatus::Quizzing])?;
        let map = self.get_map(learner, planned_map(&flow)?).await?;
        let node = flow.state.current_node_id.and_then(|id| map.node(id).cloned()).ok_or_else(|| {
            AppError::new(ErrorKind::Conflict, ErrorCode::NoConcept, "quiz: no concept is being taught; teach first")
        })?;
        let question = match question {
            Some(question) => caller_question(question, &node.label)?,
            None => {
                let context = self.step_context(learner, &flow, &map, Some(node.id)).await?;
                let asked = json!({ "concept": node.label, "context": context });
                self.model_question(learner, TEACHING, "quiz_question", &node, asked).await?
            }
        };
        self.ask(&flow, FlowStatus::Quizzing, Phase::Questioning, node, question, ResponseType::Teach).await
    }

    /// Answer the waiting quiz or review question: graded, recorded as a response. The
    /// response is recorded under a key made of the flow and the question, before the flow
    /// moves on: a second answer to the same question (at once, or after a crash between
    /// the two writes) finds it and records nothing more.
    pub(crate) async fn answer_step(
        &self,
        learner: LearnerId,
        id: FlowId,
        answer: &str,
        question_id: Option<&str>,
        caller: Option<CallerGrade>,
    ) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        let no_question = || {
            AppError::new(
                ErrorKind::Conflict,
                ErrorCode::NoQuestion,
                "answer: no question is waiting; ask one with quiz or review",
            )
        };
        let target = flow.answer_target(question_id)?;
        if let AnswerTarget::Answered(first) = target {
            let mut step = TeachingStep::of(&flow);
            step.grade = Some(first.grade.clone());
            step.replayed = true;
            return Ok(step);
        }
        flow.expect("answer", &[FlowStatus::Quizzing, FlowStatus::Reviewing])?;
        let pending = match target {
            AnswerTarget::Waiting(pending) if pending.node_id.is_some() => pending.clone(),
            _ => return Err(no_question()),
        };
        let answer = clean_answer(answer)?;
        let grade = grade_answer(self, learner, &pending.question, &answer, caller).await?;
        let map_id = planned_map(&flow)?;
        let node_id = pending.node_id.unwrap_or(NodeId(uuid::Uuid::nil()));
        let mut next = flow.step(FlowStatus::Reviewing, self.now())?;
        next.state.question = None;
        next.state.current_phase = Some(Phase::Reviewing);
        next.state.last_answered =
            pending.id.clone().map(|question_id| AnsweredQuestion { question_id, grade: grade.clone() });
        let shows = grade.shows();
        let response = RecordResponse::new(
            node_id,
            map_id,
            pending.question.text.clone(),
            Some(&answer),
            i64::from(grade.quality),
            Some(pending.response_type),
        );
        let node = match &pending.id {
            Some(question) => {
                let key = format!("flow:{}:{question}", flow.id.0);
                let node = match self.store.response_by_key(learner, &key).await? {
                    Some(_) => self
                        .store
                        .get_node(learner, node_id)
                        .await?
                        .ok_or_else(|| AppError::not_found("node", node_id))?,
                    None => match self
                        .record_answer_once(learner, RecordResponse { idempotency_key: Some(key), ..response }, shows)
                        .await
                    {
                        Ok(recorded) => recorded.recorded.node,
                        // Another answer to the same question was recorded meanwhile.
                        Err(e) if e.code == ErrorCode::IdempotencyKeyReused => {
                            return Err(AppError::new(
                                ErrorKind::Conflict,
                                ErrorCode::AlreadyAnswered,
                                "answer: this question was answered meanwhile; it counts once",
                            ))
                        }
                        Err(e) => return Err(e),
                    },
                };
                self.store.save_flow(&next).await?;
                node
            }
            // A question asked before questions had ids: the step is claimed first, so that a
            // second answer to it loses the compare-and-set and records nothing.
            None => {
                self.store.save_flow(&next).await?;
                self.record_answer(learner, response, shows).await?.node
            }
        };
        let mut step = TeachingStep::of(&next);
        step.node = Some(node);
        step.grade = Some(grade);
        Ok(step)
    }

    /// A question on `node` from the named prompt, with its tokens counted for `operation`.
    pub(crate) async fn model_question(
        &self,
        learner: LearnerId,
        operation: &str,
        prompt: &str,
        node: &Node,
        asked: serde_json::Value,
    ) -> AppResult<Question> {
        let session = self.llm.session(operation).await?;
        let question = model_tasks::question(&session, prompt, &node.label, asked).await;
        self.record_llm_session(learner, operation, &session).await?;
        question
    }

    /// Move the flow on with `question` on `node` waiting for the learner's answer.
    pub(crate) async fn ask(
        &self,
        flow: &Flow,
        to: FlowStatus,
        phase: Phase,
        node: Node,
        question: Question,
        response_type: ResponseType,
    ) -> AppResult<TeachingStep> {
        let mut next = flow.step(to, self.now())?;
        next.state.current_node_id = Some(node.id);
        next.state.current_phase = Some(phase);
        next.state.question = Some(PendingQuestion {
            id: Some(new_question_id()),
            question,
            rank: None,
            node_id: Some(node.id),
            response_type,
            asked_at: self.now(),
        });
        self.store.save_flow(&next).await?;
        let mut step = TeachingStep::of(&next);
        step.node = Some(node);
        Ok(step)
    }

    /// The context block of a step on `focus`, from the flow, the frontier and the latest
    /// responses.
    pub async fn step_context(
        &self,
        learner: LearnerId,
        flow: &Flow,
        map: &MapAggregate,
        focus: Option<NodeId>,
    ) -> AppResult<String> {
        let frontier = self.ordered_frontier(learner, map.map.id).await?;
        let filter = ResponseFilter { mind_map_id: Some(map.map.id), ..Default::default() };
        let recent = self.store.list_responses(learner, &filter, 0, RECENT_RESPONSES).await?.items;
        Ok(context_block(flow, map, &frontier, &recent, focus))
    }
}

/// What the model is asked to plan: the flow's topic and goal, and what the diagnostic found.
fn generate_input(flow: &Flow) -> GenerateInput {
    GenerateInput {
        topic: flow.topic.clone(),
        goal: flow.goal.clone(),
        diagnostic_results: flow.state.diagnostic_results.clone(),
        decomposition: None,
        // Not used: a flow's plan is stored with the flow, beside any map of the same title.
        on_existing: Default::default(),
    }
}

/// The concept a learner chose to study next, if the rules let it be taught now: a concept
/// of the map still to learn whose prerequisites are all mastered (the frontier). Pathwise
/// still decides what is ready; the learner picks among it, as a review picks among what is due.
fn ready_to_learn(map: &MapAggregate, chosen: NodeId) -> AppResult<Node> {
    let node = map.node(chosen).ok_or_else(|| {
        AppError::invalid("node_id", format!("{chosen} is not a concept of this flow's map '{}'", map.map.title))
    })?;
    if graph::frontier(map).iter().any(|n| n.id == chosen) {
        return Ok(node.clone());
    }
    let ready: Vec<String> = graph::frontier(map).iter().take(5).map(|n| format!("'{}'", n.label)).collect();
    let ready = match ready.as_slice() {
        [] => "nothing else is ready to learn".to_string(),
        some => format!("ready to learn now: {}", join_and(some)),
    };
    if !node.mastery_status.is_open() {
        return Err(AppError::new(
            ErrorKind::Conflict,
            ErrorCode::AlreadyLearned,
            format!(
                "teach: '{}' is learned already ({}); reviews bring it back; {ready}",
                node.label, node.mastery_status
            ),
        )
        .with_details(json!({ "field": "node_id" })));
    }
    let waiting: Vec<&Node> = map
        .edges
        .iter()
        .filter(|e| e.child_node_id == chosen && e.edge_type == EdgeType::Prerequisite)
        .filter_map(|e| map.node(e.parent_node_id))
        .filter(|p| p.mastery_status != MasteryStatus::Mastered)
        .collect();
    let names: Vec<String> = waiting.iter().map(|p| format!("'{}'", p.label)).collect();
    Err(AppError::new(
        ErrorKind::Conflict,
        ErrorCode::NotReady,
        format!("teach: '{}' needs {} mastered first; {ready}", node.label, join_and(&names)),
    )
    .with_details(json!({ "field": "node_id", "prerequisites": waiting.iter().map(|p| p.id).collect::<Vec<_>>() })))
}

pub(crate) fn planned_map(flow: &Flow) -> AppResult<MindMapId> {
    flow.mind_map_id.ok_or_else(|| {
        AppError::new(ErrorKind::Conflict, ErrorCode::NotPlanned, "the flow has no map yet; plan it first")
    })
}
