//! A flow's planning and teaching steps (D3). Plan: the model decomposes the topic, the
//! planning rules check it, and the map and the flow are stored in one transaction, so a
//! failed plan leaves no map and the flow as it was. Teach: the next frontier concept is
//! explained. Quiz: a question on it. Answer: graded and recorded as a response, which
//! moves mastery and SM-2. Review: the most overdue concept is asked again. Teaching
//! resumes while the frontier has more; once every concept is mastered the flow completes.

use crate::context::context_block;
use crate::curriculum::{GenerateInput, PlanSummary};
use crate::mastery::RecordResponse;
use crate::{tutor, App, AppError, AppResult, ErrorKind, Store};
use pathwise_domain::flow::{Flow, PendingQuestion, Phase};
use pathwise_domain::model::{MapAggregate, Node};
use pathwise_domain::question::{self, Question, QuestionKind};
use pathwise_domain::{FlowId, FlowStatus, LearnerId, MapStatus, MindMapId, NodeId, ResponseType};
use pathwise_store::ResponseFilter;
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

pub const TEACHING: &str = "teaching";
pub const GRADING: &str = "grading";
pub const REVIEW: &str = "review";
const MAX_ANSWER_CHARS: usize = 4_000;
/// Responses given to a step's context.
const RECENT_RESPONSES: i64 = 8;

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerInput {
    /// For a choice question, the choice's index (`"1"`) or its text.
    pub answer: String,
}

/// How an answer was graded.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AnswerGrade {
    /// SM-2 quality, 0-5; 3 or more is correct.
    pub quality: u8,
    pub correct: bool,
    pub feedback: String,
    /// How it was graded: `exact` (a choice) or `model` (free text).
    pub graded_by: String,
}

/// What a teaching step produced.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeachingStep {
    pub flow: Flow,
    /// The concept at hand.
    pub node: Option<Node>,
    /// The explanation, after `teach`.
    pub explanation: Option<String>,
    /// The question to answer, after `quiz` or `review`.
    pub question: Option<Question>,
    /// The grade, after `answer`.
    pub grade: Option<AnswerGrade>,
    /// After `review` with nothing due: when the next review falls due.
    pub next_review_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The map, after `plan`.
    pub plan: Option<PlanSummary>,
}

impl TeachingStep {
    fn of(flow: &Flow) -> Self {
        let shown = flow.for_learner();
        TeachingStep {
            question: shown.state.question.as_ref().map(|q| q.question.clone()),
            flow: shown,
            node: None,
            explanation: None,
            grade: None,
            next_review_at: None,
            plan: None,
        }
    }
}

pub(crate) fn clean_answer(answer: &str) -> AppResult<String> {
    let answer = answer.trim();
    if answer.is_empty() {
        return Err(AppError::invalid("answer", "is empty; answer the question (a choice's index or text)"));
    }
    if answer.chars().count() > MAX_ANSWER_CHARS {
        return Err(AppError::invalid("answer", format!("must be at most {MAX_ANSWER_CHARS} characters")));
    }
    Ok(answer.to_string())
}

/// Grade an answer: exactly against the key of a choice question, by the model against the
/// rubric of a free-text one.
pub(crate) async fn grade_answer<S: Store>(
    app: &App<S>,
    learner: LearnerId,
    question: &Question,
    answer: &str,
) -> AppResult<AnswerGrade> {
    if let Some(graded) = question::grade_choice(question, answer) {
        let graded = graded?;
        let feedback = match &question.kind {
            QuestionKind::Choice { choices, correct: Some(key) } if !graded.correct => {
                format!("Not quite: the answer is \"{}\".", choices[*key])
            }
            _ => "Correct.".to_string(),
        };
        return Ok(AnswerGrade {
            quality: graded.quality,
            correct: graded.correct,
            feedback,
            graded_by: "exact".into(),
        });
    }
    let session = app.llm.session(GRADING).await?;
    let graded = tutor::grade(&session, question, answer).await;
    app.record_llm_session(learner, GRADING, &session).await?;
    let graded = graded?;
    let quality = graded.quality as u8;
    Ok(AnswerGrade { quality, correct: quality >= 3, feedback: graded.feedback, graded_by: "model".into() })
}

impl<S: Store> App<S> {
    /// Plan the flow's map: from a pending flow (no diagnostic) or after the diagnostic.
    pub async fn flow_plan(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("plan", &[FlowStatus::Pending, FlowStatus::Planning])?;
        if flow.mind_map_id.is_some() {
            return Err(AppError::new(
                ErrorKind::Conflict,
                "already_planned",
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
        let input = GenerateInput {
            topic: flow.topic.clone(),
            goal: flow.goal.clone(),
            diagnostic_results: flow.state.diagnostic_results.clone(),
            decomposition: None,
        };
        let decomposition = self.model_decomposition(learner, &input).await?;
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
            self.record_response(learner, response).await?;
        }
        Ok(())
    }

    /// Explain the next frontier concept; completes the flow when nothing is left to learn.
    pub async fn flow_teach(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("teach", &[FlowStatus::Planning, FlowStatus::Teaching, FlowStatus::Reviewing])?;
        let map_id = planned_map(&flow)?;
        let map = self.get_map(learner, map_id).await?;
        if map.map.status == MapStatus::Completed {
            let mut next = flow.step(FlowStatus::Completed, self.now())?;
            next.state.question = None;
            next.state.current_node_id = None;
            next.state.current_phase = None;
            self.store.save_flow(&next).await?;
            return Ok(TeachingStep::of(&next));
        }
        let node = match flow.status {
            // Explaining again keeps to the concept at hand.
            FlowStatus::Teaching => flow.state.current_node_id.and_then(|id| map.node(id).cloned()),
            _ => None,
        };
        let node = match node {
            Some(node) => node,
            None => self.next_node(learner, map_id).await?.ok_or_else(|| {
                AppError::new(
                    ErrorKind::Conflict,
                    "nothing_to_teach",
                    format!("teach: the map is {} and has no concept to learn next", map.map.status),
                )
            })?,
        };
        let context = self.step_context(learner, &flow, &map, Some(node.id)).await?;
        let session = self.llm.session(TEACHING).await?;
        let explanation = tutor::explain(&session, &node.label, &context).await;
        self.record_llm_session(learner, TEACHING, &session).await?;
        let explanation = explanation?;
        let mut next = flow.step(FlowStatus::Teaching, self.now())?;
        next.state.current_node_id = Some(node.id);
        next.state.current_phase = Some(Phase::Explaining);
        next.state.question = None;
        self.store.save_flow(&next).await?;
        let mut step = TeachingStep::of(&next);
        step.node = Some(node);
        step.explanation = Some(explanation);
        Ok(step)
    }

    /// Ask a question on the concept just taught.
    pub async fn flow_quiz(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("quiz", &[FlowStatus::Teaching, FlowStatus::Quizzing])?;
        let map = self.get_map(learner, planned_map(&flow)?).await?;
        let node = flow.state.current_node_id.and_then(|id| map.node(id).cloned()).ok_or_else(|| {
            AppError::new(ErrorKind::Conflict, "no_concept", "quiz: no concept is being taught; teach first")
        })?;
        let context = self.step_context(learner, &flow, &map, Some(node.id)).await?;
        let session = self.llm.session(TEACHING).await?;
        let question = tutor::question(
            &session,
            "quiz_question",
            &node.label,
            json!({ "concept": node.label, "context": context }),
        )
        .await;
        self.record_llm_session(learner, TEACHING, &session).await?;
        self.ask(&flow, FlowStatus::Quizzing, Phase::Questioning, node, question?, ResponseType::Teach).await
    }

    /// Answer the waiting quiz or review question: graded, recorded as a response.
    pub async fn flow_answer(&self, learner: LearnerId, id: FlowId, input: AnswerInput) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("answer", &[FlowStatus::Quizzing, FlowStatus::Reviewing])?;
        let pending = flow.state.question.clone().filter(|q| q.node_id.is_some()).ok_or_else(|| {
            AppError::new(
                ErrorKind::Conflict,
                "no_question",
                "answer: no question is waiting; ask one with quiz or review",
            )
        })?;
        let answer = clean_answer(&input.answer)?;
        let grade = grade_answer(self, learner, &pending.question, &answer).await?;
        let map_id = planned_map(&flow)?;
        let node_id = pending.node_id.unwrap_or(NodeId(uuid::Uuid::nil()));
        // The step is claimed before the response is written: a second answer to the same
        // question loses the compare-and-set and records nothing.
        let mut next = flow.step(FlowStatus::Reviewing, self.now())?;
        next.state.question = None;
        next.state.current_phase = Some(Phase::Reviewing);
        self.store.save_flow(&next).await?;
        let response = RecordResponse::new(
            node_id,
            map_id,
            pending.question.text.clone(),
            Some(&answer),
            i64::from(grade.quality),
            Some(pending.response_type),
        );
        let recorded = self.record_response(learner, response).await?;
        let mut step = TeachingStep::of(&next);
        step.node = Some(recorded.node);
        step.grade = Some(grade);
        Ok(step)
    }

    /// Ask the most overdue review of the flow's map, if any is due.
    pub async fn flow_review(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("review", &[FlowStatus::Quizzing, FlowStatus::Reviewing])?;
        let map_id = planned_map(&flow)?;
        let now = self.now();
        let mut due = self.store.pending_reviews(learner, Some(map_id), now).await?;
        if self.reviews_left_today(learner).await? == Some(0) {
            // Today's reviews are done: the rest wait for tomorrow.
            due.clear();
        }
        let Some(node) = due.into_iter().next() else {
            let mut next = flow.step(FlowStatus::Reviewing, now)?;
            next.state.question = None;
            self.store.save_flow(&next).await?;
            let map = self.get_map(learner, map_id).await?;
            let mut step = TeachingStep::of(&next);
            step.next_review_at = map.nodes.iter().filter_map(|n| n.next_review_at).min();
            return Ok(step);
        };
        let map = self.get_map(learner, map_id).await?;
        let context = self.step_context(learner, &flow, &map, Some(node.id)).await?;
        let session = self.llm.session(REVIEW).await?;
        let question = tutor::question(
            &session,
            "review",
            &node.label,
            json!({ "concept": node.label, "context": context, "repetitions": node.repetitions,
                    "ease_factor": format!("{:.2}", node.ease_factor) }),
        )
        .await;
        self.record_llm_session(learner, REVIEW, &session).await?;
        self.ask(&flow, FlowStatus::Reviewing, Phase::Reviewing, node, question?, ResponseType::Review).await
    }

    /// Move the flow on with `question` on `node` waiting for the learner's answer.
    async fn ask(
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
        next.state.question =
            Some(PendingQuestion { question, rank: None, node_id: Some(node.id), response_type, asked_at: self.now() });
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

fn planned_map(flow: &Flow) -> AppResult<MindMapId> {
    flow.mind_map_id
        .ok_or_else(|| AppError::new(ErrorKind::Conflict, "not_planned", "the flow has no map yet; plan it first"))
}
