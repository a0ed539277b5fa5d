//! The adaptive diagnostic (D4) as three operations on a flow: start (the model lists the
//! topic's concept inventory, easiest first, and writes the first probe, on the median
//! concept), answer (graded exactly for choice questions and by the model for free text;
//! the domain picks the next concept: harder after a correct answer, easier after a wrong
//! one, then targeted probes where the answers are ambiguous), and complete (the findings
//! are kept for planning; asked probes become diagnostic responses once the map exists).

use crate::teaching::{grade_answer, AnswerGrade, AnswerInput};
use crate::tutor;
use crate::{App, AppError, AppResult, ErrorKind, Store};
use pathwise_domain::flow::{AnsweredProbe, DiagnosticState, Flow, PendingQuestion, Phase};
use pathwise_domain::question::Question;
use pathwise_domain::{FlowId, FlowStatus, LearnerId, ResponseType};
use pathwise_llm::Session;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

/// The operation's name in token accounting.
pub const OPERATION: &str = "diagnostic";

/// Where a diagnostic stands after a step.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DiagnosticStep {
    pub flow: Flow,
    /// The probe to answer next; none once the diagnostic has seen enough (complete it).
    pub question: Option<Question>,
    pub probes_answered: usize,
    /// The grade of the answer just given.
    pub grade: Option<AnswerGrade>,
}

impl DiagnosticStep {
    fn of(flow: &Flow, grade: Option<AnswerGrade>) -> Self {
        let shown = flow.for_learner();
        DiagnosticStep {
            question: shown.state.question.as_ref().map(|q| q.question.clone()),
            probes_answered: flow.state.diagnostic.as_ref().map_or(0, |d| d.probes.len()),
            flow: shown,
            grade,
        }
    }
}

impl<S: Store> App<S> {
    /// Start the diagnostic of a pending flow.
    pub async fn diagnostic_start(&self, learner: LearnerId, id: FlowId) -> AppResult<DiagnosticStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("diagnostic_start", &[FlowStatus::Pending])?;
        let session = self.llm.session(OPERATION).await?;
        let outcome = async {
            let inventory = tutor::inventory(&session, &flow.topic, flow.goal.as_deref()).await?;
            let diagnostic = DiagnosticState { inventory, probes: Vec::new() };
            let question = self.probe_question(&session, &flow, &diagnostic).await?;
            Ok::<_, AppError>((diagnostic, question))
        }
        .await;
        self.record_llm_session(learner, OPERATION, &session).await?;
        let (diagnostic, question) = outcome?;
        let mut next = flow.step(FlowStatus::Diagnosing, self.now())?;
        next.state.diagnostic = Some(diagnostic);
        next.state.question = question;
        next.state.current_phase = Some(Phase::Probing);
        self.store.save_flow(&next).await?;
        Ok(DiagnosticStep::of(&next, None))
    }

    /// Grade the answer to the waiting probe and ask the next one, if any.
    pub async fn diagnostic_answer(
        &self,
        learner: LearnerId,
        id: FlowId,
        input: AnswerInput,
    ) -> AppResult<DiagnosticStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("diagnostic_answer", &[FlowStatus::Diagnosing])?;
        let pending = flow.state.question.clone().filter(|q| q.rank.is_some()).ok_or_else(|| {
            AppError::new(
                ErrorKind::Conflict,
                "no_question",
                "diagnostic_answer: no probe is waiting for an answer; complete the diagnostic",
            )
        })?;
        let answer = crate::teaching::clean_answer(&input.answer)?;
        let mut diagnostic = flow.state.diagnostic.clone().unwrap_or_default();
        let grade = grade_answer(self, learner, &pending.question, &answer).await?;
        diagnostic.probes.push(AnsweredProbe {
            rank: pending.rank.unwrap_or_default(),
            concept: pending.question.concept.clone(),
            question_text: pending.question.text.clone(),
            answer,
            quality: grade.quality,
            answered_at: self.now(),
        });
        let question = if diagnostic.next_rank().is_some() {
            let session = self.llm.session(OPERATION).await?;
            let question = self.probe_question(&session, &flow, &diagnostic).await;
            self.record_llm_session(learner, OPERATION, &session).await?;
            question?
        } else {
            None
        };
        let mut next = flow.step(FlowStatus::Diagnosing, self.now())?;
        next.state.diagnostic = Some(diagnostic);
        next.state.question = question;
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
        let question = tutor::question(
            session,
            "diagnostic_question",
            &concept.label,
            json!({ "topic": flow.topic, "concept": concept.label, "description": concept.description,
                    "rank": rank, "inventory": diagnostic.inventory.len() }),
        )
        .await?;
        Ok(Some(PendingQuestion {
            question,
            rank: Some(rank),
            node_id: None,
            response_type: ResponseType::Diagnostic,
            asked_at: self.now(),
        }))
    }
}
