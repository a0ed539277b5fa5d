//! An exam service elsewhere: a school's own exam system, spoken to over HTTP with JSON. It
//! is the authority on passes and lockouts; Pathwise asks it only about the candidate
//! questions of a turn.
//!
//! The contract (paths under the configured base URL, `Authorization: Bearer <token>` when
//! a token is set):
//! - `POST /statuses` `{"studentId", "courseId", "questionIds": [..]}` ->
//!   `{"statuses": {"<questionId>": {"status": "available|locked|passed", "lockedUntil": "<RFC 3339>"}}}`
//! - `POST /submit` `{"studentId", "courseId", "questionId", "selectedIndex"}` ->
//!   `{"isCorrect": bool, "status": "...", "lockedUntil": "..."}`; `409` with a status body when
//!   the question is locked or already passed
//! - `POST /support-viewed` `{"studentId", "courseId", "questionId", "supportType": "memo|video"}`
//!   -> `{"status": "...", "lockedUntil": "..."}`

use super::exam_service::{locked_error, passed_error, BoxFuture, ExamService, SubmitOutcome, SupportType};
use crate::{AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Utc};
use pathwise_course::{ExamQuestionSpec, ExamStatus, QuestionStatus};
use pathwise_domain::LearnerId;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

pub struct ExternalExamService {
    client: reqwest::Client,
    base_url: String,
    token: Option<String>,
}

#[derive(Deserialize)]
struct StatusesReply {
    statuses: HashMap<String, ExamStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubmitReply {
    is_correct: bool,
    #[serde(flatten)]
    status: ExamStatus,
}

fn unavailable(message: String) -> AppError {
    AppError::new(ErrorKind::Unavailable, ErrorCode::ExamServiceUnavailable, message)
}

impl ExternalExamService {
    pub fn new(base_url: &str, token: Option<String>, timeout: Duration) -> AppResult<Self> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| AppError::internal(format!("exam service client: {e}")))?;
        Ok(ExternalExamService { client, base_url: base_url.trim_end_matches('/').to_string(), token })
    }

    /// POST `body` to `path`; a 409's status body is returned as `Err(Some(status))`.
    async fn post<T: DeserializeOwned>(&self, path: &str, body: Value) -> AppResult<Result<T, ExamStatus>> {
        let url = format!("{}{path}", self.base_url);
        let mut request = self.client.post(&url).json(&body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response =
            request.send().await.map_err(|e| unavailable(format!("the exam service at {url} did not answer: {e}")))?;
        let status = response.status();
        let text =
            response.text().await.map_err(|e| unavailable(format!("the exam service's answer broke off: {e}")))?;
        if status == reqwest::StatusCode::CONFLICT {
            let state: ExamStatus = serde_json::from_str(&text)
                .map_err(|e| unavailable(format!("the exam service's 409 has no status ({e}): {text}")))?;
            return Ok(Err(state));
        }
        if !status.is_success() {
            return Err(unavailable(format!("the exam service answered {status} to {path}: {}", short(&text))));
        }
        serde_json::from_str(&text).map(Ok).map_err(|e| {
            unavailable(format!("the exam service's answer to {path} is not what was expected ({e}): {}", short(&text)))
        })
    }
}

fn short(text: &str) -> String {
    text.chars().take(300).collect()
}

fn refused(question: &str, state: ExamStatus, now: DateTime<Utc>) -> AppError {
    match state.status {
        QuestionStatus::Passed => passed_error(question),
        _ => locked_error(question, state.locked_until.unwrap_or(now)),
    }
}

impl ExamService for ExternalExamService {
    fn statuses<'a>(
        &'a self,
        learner: LearnerId,
        course: &'a str,
        questions: &'a [String],
        _now: DateTime<Utc>,
    ) -> BoxFuture<'a, AppResult<HashMap<String, ExamStatus>>> {
        Box::pin(async move {
            if questions.is_empty() {
                return Ok(HashMap::new());
            }
            let body = json!({ "studentId": learner, "courseId": course, "questionIds": questions });
            match self.post::<StatusesReply>("/statuses", body).await? {
                Ok(reply) => Ok(reply.statuses),
                Err(_) => Err(unavailable("the exam service refused a status lookup with 409".into())),
            }
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
            let body = json!({ "studentId": learner, "courseId": course, "questionId": question.id, "selectedIndex": selected_index });
            match self.post::<SubmitReply>("/submit", body).await? {
                Ok(reply) => Ok(SubmitOutcome { correct: reply.is_correct, status: reply.status }),
                Err(state) => Err(refused(&question.id, state, now)),
            }
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
            let body = json!({ "studentId": learner, "courseId": course, "questionId": question.id, "supportType": support.name() });
            match self.post::<ExamStatus>("/support-viewed", body).await? {
                Ok(status) => Ok(status),
                Err(state) => Err(refused(&question.id, state, now)),
            }
        })
    }

    fn describe(&self) -> String {
        format!("external at {}", self.base_url)
    }
}
