//! One step of a teaching flow as one input (`flow_advance`), so that a caller which is a
//! model itself (an assistant over MCP) can run a whole flow with no model configured in
//! Pathwise: it may supply the decomposition, the explanation (by taking the context),
//! the questions and the grades of free-text answers. Pathwise keeps the rules: the state
//! machine and its compare-and-set, which concept comes next, the checks a question
//! passes, exact grading of choices, recording responses, SM-2. Each step takes only its
//! own fields, so a misplaced one is refused rather than silently ignored.

use crate::learning_loop::grading::CallerGrade;
use crate::learning_loop::teaching::{AnswerInput, TeachingStep};
use crate::stores::TeachingStores;
use crate::{App, AppError, AppResult};
use pathwise_domain::curriculum::Decomposition;
use pathwise_domain::question::Question;
use pathwise_domain::{FlowId, LearnerId, NodeId};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The steps of a teaching flow after the diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowStep {
    Plan,
    Teach,
    Quiz,
    Answer,
    Review,
}

impl FlowStep {
    pub const ALL: [FlowStep; 5] =
        [FlowStep::Plan, FlowStep::Teach, FlowStep::Quiz, FlowStep::Answer, FlowStep::Review];

    /// The fields a step cannot go without, besides `step`.
    pub fn required(self) -> &'static [&'static str] {
        match self {
            FlowStep::Answer => &["answer"],
            _ => &[],
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FlowStep::Plan => "plan",
            FlowStep::Teach => "teach",
            FlowStep::Quiz => "quiz",
            FlowStep::Answer => "answer",
            FlowStep::Review => "review",
        }
    }

    /// The fields of [`AdvanceFlow`] the step takes, besides `step`.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            FlowStep::Plan => &["decomposition"],
            FlowStep::Teach => &["node_id", "caller_explains"],
            FlowStep::Quiz => &["question"],
            FlowStep::Answer => &["answer", "question_id", "quality", "feedback"],
            FlowStep::Review => &["node_id", "question"],
        }
    }
}

/// One step of a flow as one input: Pathwise's model writes what the step needs unless the
/// caller supplies it.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdvanceFlow {
    pub step: FlowStep,
    /// answer: the learner's answer (for a choice question the index of the choice, counted from 0, or its text; or free text).
    #[serde(default)]
    pub answer: Option<String>,
    /// answer: the id of the question answered (the quiz or review step's `question_id`). An
    /// answer is taken only for the question waiting, once; the same answer sent again gets
    /// the first grade and records nothing.
    #[serde(default)]
    pub question_id: Option<String>,
    /// plan: the concept graph, when the caller decomposes the topic itself.
    #[serde(default)]
    pub decomposition: Option<Decomposition>,
    /// quiz / review: the question, when the caller writes it (its `concept` must be the
    /// node's label, case aside; it is stored under the label).
    #[serde(default)]
    pub question: Option<Question>,
    /// teach: which concept to teach, one ready to learn (not learned yet, its prerequisites
    /// mastered); default the next in the learning order. review: which due concept to ask
    /// about; default the most overdue.
    #[serde(default)]
    pub node_id: Option<NodeId>,
    /// answer to a free-text question: the caller's grade, SM-2 quality 0-5 (3 or more is
    /// correct). Refused for a choice question, which is graded by its key.
    #[serde(default)]
    #[schema(maximum = 5)]
    pub quality: Option<u8>,
    /// answer: the caller's feedback, with `quality`.
    #[serde(default)]
    pub feedback: Option<String>,
    /// teach: return the concept and its context block for the caller to explain, instead
    /// of the model's explanation.
    #[serde(default)]
    pub caller_explains: bool,
}

impl AdvanceFlow {
    /// The step with nothing from the caller: Pathwise's model writes what it needs.
    pub fn new(step: FlowStep) -> Self {
        AdvanceFlow {
            step,
            answer: None,
            question_id: None,
            decomposition: None,
            question: None,
            node_id: None,
            quality: None,
            feedback: None,
            caller_explains: false,
        }
    }

    /// The names of the fields given, besides `step`.
    fn given(&self) -> Vec<&'static str> {
        [
            ("answer", self.answer.is_some()),
            ("question_id", self.question_id.is_some()),
            ("decomposition", self.decomposition.is_some()),
            ("question", self.question.is_some()),
            ("node_id", self.node_id.is_some()),
            ("quality", self.quality.is_some()),
            ("feedback", self.feedback.is_some()),
            ("caller_explains", self.caller_explains),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect()
    }

    /// Refuse a field the step does not take: ignoring it would hide the caller's mistake.
    fn check_fields(&self) -> AppResult<()> {
        let step = self.step;
        match self.given().into_iter().find(|field| !step.fields().contains(field)) {
            Some(field) => Err(AppError::invalid(
                field,
                format!(
                    "does not belong to the {} step, which takes only: {}",
                    step.as_str(),
                    step.fields().join(", ")
                ),
            )),
            None => Ok(()),
        }
    }
}

impl<S: TeachingStores> App<S> {
    /// Take one step of a flow, with whatever the caller wrote for it.
    pub async fn flow_advance(&self, learner: LearnerId, id: FlowId, input: AdvanceFlow) -> AppResult<TeachingStep> {
        input.check_fields()?;
        match input.step {
            FlowStep::Plan => self.plan_step(learner, id, input.decomposition).await,
            FlowStep::Teach => self.teach_step(learner, id, input.node_id, input.caller_explains).await,
            FlowStep::Quiz => self.quiz_step(learner, id, input.question).await,
            FlowStep::Answer => {
                let answer = input.answer.ok_or_else(|| {
                    AppError::invalid(
                        "answer",
                        "is missing; the answer step takes the learner's answer (a choice's index or text, or free text)",
                    )
                })?;
                let caller = CallerGrade::from_fields(input.quality, input.feedback)?;
                self.answer_step(learner, id, &answer, input.question_id.as_deref(), caller).await
            }
            FlowStep::Review => self.review_step(learner, id, input.node_id, input.question).await,
        }
    }

    /// Plan the flow's map with the model: from a pending flow (no diagnostic) or after the
    /// diagnostic.
    pub async fn flow_plan(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        self.flow_advance(learner, id, AdvanceFlow::new(FlowStep::Plan)).await
    }

    /// Explain the next frontier concept; completes the flow when nothing is left to learn.
    pub async fn flow_teach(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        self.flow_advance(learner, id, AdvanceFlow::new(FlowStep::Teach)).await
    }

    /// Ask the model's question on the concept just taught.
    pub async fn flow_quiz(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        self.flow_advance(learner, id, AdvanceFlow::new(FlowStep::Quiz)).await
    }

    /// Answer the waiting quiz or review question: graded, recorded as a response.
    pub async fn flow_answer(&self, learner: LearnerId, id: FlowId, input: AnswerInput) -> AppResult<TeachingStep> {
        let step = AdvanceFlow {
            answer: Some(input.answer),
            question_id: input.question_id,
            ..AdvanceFlow::new(FlowStep::Answer)
        };
        self.flow_advance(learner, id, step).await
    }

    /// Ask the most overdue review of the flow's map, if any is due.
    pub async fn flow_review(&self, learner: LearnerId, id: FlowId) -> AppResult<TeachingStep> {
        self.flow_advance(learner, id, AdvanceFlow::new(FlowStep::Review)).await
    }
}
