//! The adaptive diagnostic (D4) as three operations on a flow: start (the topic's concept
//! inventory, easiest first, and the first probe, on the median concept), answer (graded
//! exactly for choice questions, by the caller's quality or the model for free text; the
//! domain picks the next concept: harder after a correct answer, easier after a wrong one,
//! then targeted probes where the answers are ambiguous), and complete (the findings are
//! kept for planning; asked probes become diagnostic responses once the map exists).
//!
//! The model writes the inventory and the probes, unless the caller writes the inventory:
//! then the caller (an assistant driving the flow) writes every probe too, about the
//! concept the domain names in `next_concept`, and sends it with the learner's answer.

use crate::learning_loop::grading::{caller_question, clean_answer, grade_answer, AnswerGrade, CallerGrade};
use crate::learning_loop::model_tasks;
use crate::learning_loop::teaching::AnswerInput;
use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::flow::{
    AnswerTarget, AnsweredProbe, AnsweredQuestion, DiagnosticState, Flow, InventoryConcept, PendingQuestion, Phase,
};
use pathwise_domain::question::Question;
use pathwise_domain::{FlowId, FlowStatus, LearnerId, ResponseType};
use pathwise_llm::{LlmError, Session};
use pathwise_store::{FlowStore, JobStore, MapStore, UsageStore};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

/// The operation's name in token accounting.
pub const OPERATION: &str = "diagnostic";

/// Start a diagnostic; an empty input has the model write it.
#[derive(Debug, Clone, Default, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartDiagnostic {
    /// The topic's concept inventory, easiest first (10-15 concepts; 5 are enough for a
    /// narrow topic), when the caller writes it; Pathwise's model otherwise. With it, the
    /// caller writes the probes too.
    #[serde(default)]
    #[schema(min_items = 5, max_items = 15)]
    pub inventory: Option<Vec<InventoryConcept>>,
}

/// The learner's answer to a probe.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordProbe {
    /// For a choice question the index of the choice, counted from 0 (`"0"`), or its text; or free text.
    pub answer: String,
    /// The id of the probe answered (the step's `question_id`), when a probe is waiting. An
    /// answer is taken only for the probe waiting, once: the same answer sent again gets the
    /// first grade and records nothing.
    #[serde(default)]
    pub question_id: Option<String>,
    /// The probe the caller asked, about the step's `next_concept`; only when no probe is
    /// waiting (the caller wrote the inventory).
    #[serde(default)]
    pub question: Option<Question>,
    /// For a free-text probe: the caller's grade, SM-2 quality 0-5 (3 or more is correct);
    /// needed for a probe the caller wrote. Refused for a choice, graded by its key.
    #[serde(default)]
    #[schema(maximum = 5)]
    pub quality: Option<u8>,
    /// The caller's feedback, with `quality`.
    #[serde(default)]
    pub feedback: Option<String>,
}

impl RecordProbe {
    fn answer(input: AnswerInput) -> Self {
        RecordProbe {
            answer: input.answer,
            question_id: input.question_id,
            question: None,
            quality: None,
            feedback: None,
        }
    }
}

/// The inventory concept the diagnostic probes next.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct NextConcept {
    pub label: String,
    pub description: Option<String>,
    /// Its place in the inventory, 0 the easiest.
    pub rank: usize,
}

/// Where a diagnostic stands after a step.
#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct DiagnosticStep {
    pub flow: Flow,
    /// The probe to answer next, when the model wrote it; none once the diagnostic has
    /// seen enough (complete it), or when the caller writes the probes.
    pub question: Option<Question>,
    /// The id of the probe to answer: an answer names it (`question_id`).
    pub question_id: Option<String>,
    /// The concept to probe next, whoever writes the probe; none once the diagnostic has
    /// seen enough.
    pub next_concept: Option<NextConcept>,
    pub probes_answered: usize,
    /// The grade of the answer just given.
    pub grade: Option<AnswerGrade>,
    /// The answer was given before: this is its first grade, and nothing was recorded again.
    pub replayed: bool,
}

impl DiagnosticStep {
    fn of(flow: &Flow, grade: Option<AnswerGrade>) -> Self {
        let shown = flow.for_learner();
        let diagnostic = flow.state.diagnostic.as_ref().filter(|_| flow.status == FlowStatus::Diagnosing);
        DiagnosticStep {
            question: shown.state.question.as_ref().map(|q| q.question.clone()),
            question_id: shown.state.question.as_ref().and_then(|q| q.id.clone()),
            replayed: false,
            next_concept: diagnostic.and_then(next_concept),
            probes_answered: flow.state.diagnostic.as_ref().map_or(0, |d| d.probes.len()),
            flow: shown,
            grade,
        }
    }
}

fn next_concept(diagnostic: &DiagnosticState) -> Option<NextConcept> {
    let rank = diagnostic.next_rank()?;
    let concept = &diagnostic.inventory[rank];
    Some(NextConcept { label: concept.label.clone(), description: concept.description.clone(), rank })
}

fn no_probe_waiting() -> AppError {
    AppError::new(
        ErrorKind::Conflict,
        ErrorCode::NoQuestion,
        "diagnostic_answer: no probe is waiting for an answer, and the diagnostic has seen enough; complete it",
    )
}

impl<S: StoreHandle + FlowStore + JobStore + MapStore + UsageStore> App<S> {
    /// Start the diagnostic of a pending flow with the model's inventory and first probe.
    pub async fn diagnostic_start(&self, learner: LearnerId, id: FlowId) -> AppResult<DiagnosticStep> {
        self.diagnostic_begin(learner, id, StartDiagnostic::default()).await
    }

    /// Start the diagnostic of a pending flow: from the caller's inventory (no model is
    /// asked; the caller writes the probes), or the model's with its first probe.
    pub async fn diagnostic_begin(
        &self,
        learner: LearnerId,
        id: FlowId,
        input: StartDiagnostic,
    ) -> AppResult<DiagnosticStep> {
        let caller = input.inventory.map(caller_diagnostic).transpose()?;
        let flow = self.load_flow(learner, id).await?;
        flow.expect("diagnostic_start", &[FlowStatus::Pending])?;
        let (diagnostic, question) = match caller {
            Some(diagnostic) => (diagnostic, None),
            None => self.model_diagnostic(learner, &flow).await?,
        };
        let mut next = flow.step(FlowStatus::Diagnosing, self.now())?;
        next.state.diagnostic = Some(diagnostic);
        next.state.question = question;
        next.state.current_phase = Some(Phase::Probing);
        self.store.save_flow(&next).await?;
        Ok(DiagnosticStep::of(&next, None))
    }

    async fn model_diagnostic(
        &self,
        learner: LearnerId,
        flow: &Flow,
    ) -> AppResult<(DiagnosticState, Option<PendingQuestion>)> {
        let session = self.llm.session(OPERATION).await.map_err(|error| {
            let offline = matches!(error, LlmError::NotConfigured { .. });
            let mut error = AppError::from(error);
            if offline {
                // The caller can run the diagnostic without one: say how.
                error.message.push_str(&format!(
                    "; or, without a model, pass `inventory` ({} to {} of the topic's concepts, easiest \
                     first) and write each probe yourself about the step's next_concept",
                    pathwise_domain::flow::MIN_INVENTORY,
                    pathwise_domain::flow::MAX_INVENTORY
                ));
            }
            error
        })?;
        let outcome = async {
            let inventory = model_tasks::inventory(&session, &flow.topic, flow.goal.as_deref()).await?;
            let diagnostic = DiagnosticState { inventory, probes: Vec::new(), caller_writes: false };
            let question = self.probe_question(&session, flow, &diagnostic).await?;
            Ok::<_, AppError>((diagnostic, question))
        }
        .await;
        self.record_llm_session(learner, OPERATION, &session).await?;
        outcome
    }

    /// Grade the answer to the waiting probe and ask the next one, if any.
    pub async fn diagnostic_answer(
        &self,
        learner: LearnerId,
        id: FlowId,
        input: AnswerInput,
    ) -> AppResult<DiagnosticStep> {
        self.diagnostic_record_probe(learner, id, RecordProbe::answer(input)).await
    }

    /// Grade the answer to a probe (the waiting one, or the caller's own about
    /// `next_concept`) and move the diagnostic on: the model's next probe when the model
    /// writes them, else just the next concept.
    pub async fn diagnostic_record_probe(
        &self,
        learner: LearnerId,
        id: FlowId,
        input: RecordProbe,
    ) -> AppResult<DiagnosticStep> {
        let caller = CallerGrade::from_fields(input.quality, input.feedback)?;
        let flow = self.load_flow(learner, id).await?;
        if let AnswerTarget::Answered(first) = flow.answer_target(input.question_id.as_deref())? {
            let mut step = DiagnosticStep::of(&flow, Some(first.grade.clone()));
            step.replayed = true;
            return Ok(step);
        }
        flow.expect("diagnostic_answer", &[FlowStatus::Diagnosing])?;
        let mut diagnostic = flow.state.diagnostic.clone().unwrap_or_default();
        let waiting_id = flow.state.question.as_ref().and_then(|q| q.id.clone());
        let (question, rank) = probe_to_grade(&flow, &diagnostic, input.question)?;
        if diagnostic.caller_writes && !question.is_choice() && caller.is_none() {
            return Err(AppError::invalid(
                "quality",
                "is missing: the caller writes this diagnostic's probes and grades their free-text answers; \
                 give quality 0-5 (3 or more is correct)",
            ));
        }
        let answer = clean_answer(&input.answer)?;
        let grade = grade_answer(self, learner, &question, &answer, caller).await?;
        diagnostic.probes.push(AnsweredProbe {
            rank,
            concept: question.concept.clone(),
            question_text: question.text.clone(),
            answer,
            quality: grade.quality,
            answered_at: self.now(),
        });
        let question = self.next_probe(learner, &flow, &diagnostic).await?;
        let mut next = flow.step(FlowStatus::Diagnosing, self.now())?;
        next.state.diagnostic = Some(diagnostic);
        next.state.question = question;
        next.state.last_answered = waiting_id.map(|question_id| AnsweredQuestion { question_id, grade: grade.clone() });
        self.store.save_flow(&next).await?;
        Ok(DiagnosticStep::of(&next, Some(grade)))
    }

    /// End the diagnostic (early, too): its findings are kept for planning.
    pub async fn diagnostic_complete(&self, learner: LearnerId, id: FlowId) -> AppResult<DiagnosticStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("diagnostic_complete", &[FlowStatus::Diagnosing])?;
        let mut next = flow.step(FlowStatus::Planning, self.now())?;
        next.state.diagnostic_results =
            flow.state.diagnostic.as_ref().map(DiagnosticState::results).unwrap_or_default();
        next.state.question = None;
        next.state.current_phase = None;
        self.store.save_flow(&next).await?;
        Ok(DiagnosticStep::of(&next, None))
    }

    /// The model's probe on the concept the diagnostic probes next, when the model writes
    /// the probes and one is due.
    async fn next_probe(
        &self,
        learner: LearnerId,
        flow: &Flow,
        diagnostic: &DiagnosticState,
    ) -> AppResult<Option<PendingQuestion>> {
        if diagnostic.caller_writes || diagnostic.next_rank().is_none() {
            return Ok(None);
        }
        let session = self.llm.session(OPERATION).await?;
        let question = self.probe_question(&session, flow, diagnostic).await;
        self.record_llm_session(learner, OPERATION, &session).await?;
        question
    }

    /// The question for the concept the diagnostic probes next, or none when it is done.
    async fn probe_question(
        &self,
        session: &Session,
        flow: &Flow,
        diagnostic: &DiagnosticState,
    ) -> AppResult<Option<PendingQuestion>> {
        let Some(rank) = diagnostic.next_rank() else {
            return Ok(None);
        };
        let concept = &diagnostic.inventory[rank];
        let question = model_tasks::question(
            session,
            "diagnostic_question",
            &concept.label,
            json!({ "topic": flow.topic, "concept": concept.label, "description": concept.description,
                    "rank": rank, "inventory": diagnostic.inventory.len() }),
        )
        .await?;
        Ok(Some(PendingQuestion {
            id: Some(crate::learning_loop::teaching::new_question_id()),
            question,
            rank: Some(rank),
            node_id: None,
            response_type: ResponseType::Diagnostic,
            asked_at: self.now(),
        }))
    }
}

/// The caller's inventory, checked as the model's is.
fn caller_diagnostic(inventory: Vec<InventoryConcept>) -> AppResult<DiagnosticState> {
    let inventory = pathwise_domain::flow::checked_inventory(inventory)
        .map_err(|problem| AppError::invalid("inventory", problem))?;
    Ok(DiagnosticState { inventory, probes: Vec::new(), caller_writes: true })
}

/// The probe an answer answers, with its rank: the one waiting, or else the caller's own on
/// the concept due next.
fn probe_to_grade(
    flow: &Flow,
    diagnostic: &DiagnosticState,
    question: Option<Question>,
) -> AppResult<(Question, usize)> {
    let waiting = flow.state.question.as_ref().filter(|q| q.rank.is_some());
    match (waiting, question) {
        (Some(waiting), Some(_)) => Err(AppError::invalid(
            "question",
            format!(
                "is not taken: a probe on '{}' is waiting; answer it without a question of your own",
                waiting.question.concept
            ),
        )),
        (Some(waiting), None) => Ok((waiting.question.clone(), waiting.rank.unwrap_or_default())),
        (None, question) => {
            let concept = next_concept(diagnostic).filter(|_| diagnostic.caller_writes).ok_or_else(no_probe_waiting)?;
            let question = question.ok_or_else(|| {
                AppError::invalid(
                    "question",
                    format!(
                        "is missing: no probe is waiting, and the caller writes this diagnostic's probes; \
                         send the probe you asked, about '{}' (next_concept)",
                        concept.label
                    ),
                )
            })?;
            Ok((caller_question(question, &concept.label)?, concept.rank))
        }
    }
}
