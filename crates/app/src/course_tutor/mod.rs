//! The policy tutor on authored courses (policy-tutor.md): courses and their index,
//! learner snapshots, threads, the turn (policy, retrieval, one model call, validation,
//! deterministic fallback), drills, exams with lockouts behind an exam service, and the
//! evidence each of them records as mastery.

pub mod voice;

pub mod catalog;
mod drills;
mod evidence;
pub mod exam_service;
mod exams;
pub mod external_exam;
mod messages;
pub(crate) mod prompt;
mod request;
mod snapshots;
mod threads;
mod turn;

pub use catalog::{CourseOutline, CoursePassage, CourseSummary, ImportedCourse, LoadedCourse, UnitOutline};
pub use drills::{DrillGradeReply, DrillGradeRequest, DrillGrader, DrillText};
pub use exam_service::{BuiltinExamService, ExamService, SubmitOutcome, SupportType};
pub use exams::{McqSubmitReply, McqSubmitRequest, SupportViewedReply, SupportViewedRequest};
pub use external_exam::ExternalExamService;
pub use messages::{CardOutcome, Thread, TutorMessage};
pub use request::{TurnRequest, MAX_MESSAGE_CHARS};
pub use threads::MAX_MESSAGES_PAGE;
pub use threads::{CreateThread, SnapshotView, TurnLog};
pub use turn::{TurnDebug, TurnReply};

/// How the tutor behaves, from the configuration.
#[derive(Debug, Clone)]
pub struct TutorSettings {
    /// Turn replies carry the debug payload (policy, candidate scores).
    pub debug: bool,
    /// How the tutor introduces itself to the model.
    pub tutor_name: String,
    /// How long a wrong exam answer or opened support locks a question (built-in exam
    /// service).
    pub lockout: chrono::Duration,
    /// The most tokens a turn's prompt may have (`llm_prompt_tokens`), for a small local
    /// model whose time goes on reading the prompt: the retrieved context is cut down to
    /// fit, content chunks first, then passed questions' memos, then anchors beyond the
    /// first. `None`: sized from the model's measured speed to answer within
    /// `target_turn` ([`App::tutor_prompt_budget`]).
    pub prompt_tokens: Option<usize>,
    /// How long a turn with the model should take (`llm_turn_target_secs`): what a learner
    /// waits for a reply, which the prompt is sized to; the deadline is only the limit.
    pub target_turn: std::time::Duration,
    /// How long a turn waits for the model, its wait for a free slot included, before the
    /// tutor answers without it (`llm_turn_deadline_secs`). The workspace tells the learner.
    pub model_deadline: std::time::Duration,
}

impl Default for TutorSettings {
    fn default() -> Self {
        TutorSettings {
            debug: false,
            tutor_name: "Pathwise Tutor".into(),
            lockout: chrono::Duration::hours(24),
            prompt_tokens: None,
            target_turn: std::time::Duration::from_secs(10),
            model_deadline: std::time::Duration::from_secs(30),
        }
    }
}

/// What a turn sends before any call has shown the model's speed: a CPU model such as
/// SmolLM2-135M reads it in 5-10 s even on a busy machine, so the first turn of a slow model
/// answers in time (sent whole, its 2,600-3,900 tokens took most of the 30 s before the
/// first word; at 1,500 the turn took 25 s, too near the deadline when the machine was busy),
/// and a fast model, measured on that call, is sent everything from the next turn on.
pub const UNMEASURED_PROMPT_TOKENS: usize = 1_000;

/// How many prompt tokens a tutor turn sends, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct TutorPromptBudget {
    /// `None`: everything the turn retrieves is sent.
    pub tokens: Option<usize>,
    pub why: String,
}

impl<S: crate::StoreHandle> crate::App<S> {
    /// The prompt a tutor turn may send: `llm_prompt_tokens` when it is set; else what the
    /// model, at the speed measured from its replies so far, reads in time to answer within
    /// the target turn time; else (nothing measured yet) [`UNMEASURED_PROMPT_TOKENS`].
    pub fn tutor_prompt_budget(&self) -> TutorPromptBudget {
        if let Some(tokens) = self.tutor.prompt_tokens {
            return TutorPromptBudget { tokens: Some(tokens), why: "llm_prompt_tokens, as configured".into() };
        }
        if !self.llm.is_configured() {
            return TutorPromptBudget { tokens: None, why: "no language model is configured".into() };
        }
        match self.llm.prompt_budget(self.tutor.target_turn, self.tutor.model_deadline) {
            Some(budget) => TutorPromptBudget { tokens: Some(budget.tokens), why: budget.why },
            None => TutorPromptBudget {
                tokens: Some(UNMEASURED_PROMPT_TOKENS),
                why: format!(
                    "the model's speed is not measured yet: the next turn sends at most {UNMEASURED_PROMPT_TOKENS} \
                     tokens, which a model on a CPU reads in time, and is timed"
                ),
            },
        }
    }
}
