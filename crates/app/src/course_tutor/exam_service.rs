//! The exam service: the authority on a learner's exam questions (attempts, passes and
//! lockouts), behind an interface so that a school's own exam system can take its place
//! (`ExternalExamService`). The built-in one keeps its state in
//! Pathwise's store.

use crate::StoreHandle;
use crate::{AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Duration, Utc};
pub use pathwise_course::SupportType;
use pathwise_course::{ExamQuestionSpec, ExamStatus, QuestionStatus};
use pathwise_domain::LearnerId;
use pathwise_store::TutorStore;
use pathwise_store::{ExamEventRecord, ExamStatusRecord};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The service's verdict on an answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubmitOutcome {
    pub correct: bool,
    /// The question's status after the answer.
    pub status: ExamStatus,
}

pub trait ExamService: Send + Sync {
    /// Statuses of these questions (only the candidates of a turn, never a whole bank); a
    /// question missing from the answer is available.
    fn statuses<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        questions: &'a [String],
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<HashMap<String, ExamStatus>>>;

    /// An answer; refused (409) while the question is locked or once it is passed.
    fn submit<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        question: &'a ExamQuestionSpec,
        selected_index: usize,
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<SubmitOutcome>>;

    /// The memo or video was opened: the question locks (unless already passed).
    fn support_viewed<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        question: &'a ExamQuestionSpec,
        support: SupportType,
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<ExamStatus>>;

    fn describe(&self) -> String;
}

/// A refused submit of a locked question, with when it opens again.
pub fn locked_error(question: &str, until: DateTime<Utc>) -> AppError {
    AppError::new(
        ErrorKind::Conflict,
        ErrorCode::ExamLocked,
        format!("exam question '{question}' is locked until {}; try it again then", until.to_rfc3339()),
    )
    .with_details(serde_json::json!({ "question_id": question, "next_eligible_at": until }))
}

pub fn passed_error(question: &str) -> AppError {
    AppError::new(
        ErrorKind::Conflict,
        ErrorCode::ExamAlreadyPassed,
        format!("exam question '{question}' is already passed; it counts once"),
    )
    .with_details(serde_json::json!({ "question_id": question }))
}

impl<S: StoreHandle + TutorStore> crate::App<S> {
    /// The exam service the tutor asks: the one configured (`with_exam_service`), else the
    /// built-in one over this store with the tutor's lockout.
    pub fn exam_service(&self) -> Arc<dyn ExamService> {
        match &self.exams {
            Some(exams) => exams.clone(),
            None => Arc::new(BuiltinExamService::new(self.store.clone(), self.tutor.lockout)),
        }
    }
}

/// Exam state in Pathwise's own store.
pub struct BuiltinExamService<S> {
    store: S,
    lockout: Duration,
}

impl<S: StoreHandle + TutorStore> BuiltinExamService<S> {
    pub fn new(store: S, lockout: Duration) -> Self {
        BuiltinExamService { store, lockout }
    }

    async fn current(&self, learner: LearnerId, course: &str, question: &str) -> AppResult<Option<ExamStatusRecord>> {
        let rows = self.store.exam_statuses(learner, course, &[question.to_string()]).await?;
        Ok(rows.into_iter().next())
    }

    #[allow(clippy::too_many_arguments)]
    async fn record(
        &self,
        learner: LearnerId,
        course: &str,
        question: &str,
        previous: Option<&ExamStatusRecord>,
        status: ExamStatus,
        kind: &str,
        selected_index: Option<usize>,
        correct: Option<bool>,
        now: DateTime<Utc>,
    ) -> AppResult<()> {
        let record = ExamStatusRecord {
            question_id: question.to_string(),
            status: status_name(status.status).to_string(),
            locked_until: status.locked_until,
            attempts: previous.map_or(0, |p| p.attempts) + 1,
            updated_at: now,
        };
        let event = ExamEventRecord {
            id: uuid::Uuid::now_v7(),
            learner_id: learner,
            course_id: course.to_string(),
            question_id: question.to_string(),
            kind: kind.to_string(),
            selected_index: selected_index.map(|i| i as i32),
            correct,
            locked_until: status.locked_until,
            at: now,
        };
        Ok(self.store.record_exam_event(&event, &record).await?)
    }
}

fn status_name(status: QuestionStatus) -> &'static str {
    match status {
        QuestionStatus::Available => "available",
        QuestionStatus::Locked => "locked",
        QuestionStatus::Passed => "passed",
    }
}

/// A stored status as it stands at `now` (a lockout that has run out is available again).
fn status_at(record: &ExamStatusRecord, now: DateTime<Utc>) -> ExamStatus {
    match record.status.as_str() {
        "passed" => ExamStatus { status: QuestionStatus::Passed, locked_until: None },
        "locked" if record.locked_until.is_some_and(|t| t > now) => {
            ExamStatus { status: QuestionStatus::Locked, locked_until: record.locked_until }
        }
        _ => ExamStatus::AVAILABLE,
    }
}

impl<S: StoreHandle + TutorStore> ExamService for BuiltinExamService<S> {
    fn statuses<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        questions: &'a [String],
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<HashMap<String, ExamStatus>>> {
        Box::pin(async move {
            let rows = self.store.exam_statuses(learner, course, questions).await?;
            Ok(rows.iter().map(|r| (r.question_id.clone(), status_at(r, now))).collect())
        })
    }

    fn submit<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        question: &'a ExamQuestionSpec,
        selected_index: usize,
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<SubmitOutcome>> {
        Box::pin(async move {
            let previous = self.current(learner, course, &question.id).await?;
            let current = previous.as_ref().map_or(ExamStatus::AVAILABLE, |p| status_at(p, now));
            match current.status {
                QuestionStatus::Passed => return Err(passed_error(&question.id)),
                QuestionStatus::Locked => return Err(locked_error(&question.id, current.locked_until.unwrap_or(now))),
                QuestionStatus::Available => {}
            }
            let correct = selected_index == question.correct;
            let status = if correct {
                ExamStatus { status: QuestionStatus::Passed, locked_until: None }
            } else {
                ExamStatus { status: QuestionStatus::Locked, locked_until: Some(now + self.lockout) }
            };
            self.record(
                learner,
                course,
                &question.id,
                previous.as_ref(),
                status,
                "submit",
                Some(selected_index),
                Some(correct),
                now,
            )
            .await?;
            Ok(SubmitOutcome { correct, status })
        })
    }

    fn support_viewed<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        question: &'a ExamQuestionSpec,
        support: SupportType,
        now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<ExamStatus>> {
        Box::pin(async move {
            let previous = self.current(learner, course, &question.id).await?;
            let current = previous.as_ref().map_or(ExamStatus::AVAILABLE, |p| status_at(p, now));
            let status = match current.status {
                QuestionStatus::Passed => current,
                _ => ExamStatus {
                    status: QuestionStatus::Locked,
                    locked_until: Some(current.locked_until.unwrap_or(now).max(now + self.lockout)),
                },
            };
            self.record(learner, course, &question.id, previous.as_ref(), status, support.name(), None, None, now)
                .await?;
            Ok(status)
        })
    }

    fn describe(&self) -> String {
        format!("built-in (lockout {} h)", self.lockout.num_hours())
    }
}
