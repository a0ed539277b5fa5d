//! Tutor threads: creating and listing them, their timeline, their turn log, and the
//! learner's snapshot of a course.

use super::messages::{Thread, TutorMessage};
use crate::paging::{window, Paged};
use crate::queries::{ListThreadsQuery, MessagesQuery, PageQuery};
use crate::stores::MasteryStores;
use crate::{App, AppError, AppResult};
use pathwise_course::lite::SnapshotLite;
use pathwise_course::StudentSnapshot;
use pathwise_domain::{LearnerId, ThreadId, TurnId};
use pathwise_store::ThreadRecord;
use serde::{Deserialize, Serialize};

const MAX_TITLE_CHARS: usize = 200;
/// Messages returned at most per request.
pub const MAX_MESSAGES_PAGE: i64 = 500;

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateThread {
    pub course_id: String,
    #[serde(default)]
    pub title: Option<String>,
}

/// One logged turn (PF-7.1).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnLog {
    pub turn_id: TurnId,
    pub action: String,
    pub validated: bool,
    pub fallback_reason: Option<String>,
    /// Mapped units, focus, blocker, allowed actions, desired tier, exam availability, next
    /// eligible time, candidate questions, tokens.
    #[schema(value_type = Object)]
    pub log: serde_json::Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotView {
    pub snapshot: StudentSnapshot,
    pub snapshot_lite: SnapshotLite,
    /// The learner's map of the course, where drill and exam evidence lands.
    pub mind_map_id: Option<pathwise_domain::MindMapId>,
}

impl<S: MasteryStores> App<S> {
    pub async fn create_thread(&self, learner: LearnerId, input: CreateThread) -> AppResult<Thread> {
        let loaded = self.course_for(learner, &input.course_id).await.map_err(|e| {
            if e.kind == crate::ErrorKind::NotFound {
                AppError::absent(
                    "courseId",
                    format!("there is no course '{}'; GET /api/courses lists them", input.course_id),
                )
            } else {
                e
            }
        })?;
        let title = match input.title.as_deref().map(str::trim) {
            Some(t) if t.chars().count() > MAX_TITLE_CHARS => {
                return Err(AppError::invalid("title", format!("must be at most {MAX_TITLE_CHARS} characters")))
            }
            Some(t) if !t.is_empty() => t.to_string(),
            _ => loaded.course.title().to_string(),
        };
        // The snapshot (and the learner's map of the course) exist from the first thread on.
        self.course_snapshot(learner, &loaded).await?;
        let now = self.now();
        let record = ThreadRecord {
            id: ThreadId(Self::new_id()),
            learner_id: learner,
            course_id: input.course_id,
            title,
            last_action: None,
            message_count: 0,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_thread(&record).await?;
        Ok(Thread::from(record))
    }

    pub async fn list_threads(&self, learner: LearnerId, query: &ListThreadsQuery) -> AppResult<Paged<Thread>> {
        let (offset, limit) = window(query.offset, query.limit)?;
        let page = self.store.list_threads(learner, query.course_id.as_deref(), offset, limit).await?;
        Ok(Paged { items: page.items.into_iter().map(Thread::from).collect(), total: page.total, offset, limit })
    }

    pub async fn get_thread(&self, learner: LearnerId, id: ThreadId) -> AppResult<Thread> {
        Ok(Thread::from(self.thread_record(learner, id).await?))
    }

    /// A thread's messages after `after` (a seq), oldest first.
    pub async fn thread_messages(
        &self,
        learner: LearnerId,
        id: ThreadId,
        query: &MessagesQuery,
    ) -> AppResult<Vec<TutorMessage>> {
        let thread = self.thread_record(learner, id).await?;
        let after = query.after.unwrap_or(0);
        if after < 0 {
            return Err(AppError::invalid(
                "after",
                format!("{after} is negative; after is a message's seq, 0 or more"),
            ));
        }
        let limit = query.limit.unwrap_or(MAX_MESSAGES_PAGE);
        if !(1..=MAX_MESSAGES_PAGE).contains(&limit) {
            return Err(AppError::invalid(
                "limit",
                format!("{limit} is not allowed; limit is from 1 to {MAX_MESSAGES_PAGE}"),
            ));
        }
        let records = self.store.thread_messages(learner, id, after, limit).await?;
        let mut messages: Vec<TutorMessage> = records.into_iter().map(|r| TutorMessage::from_record(id, r)).collect();
        // Exam cards carry their question's lockout as the exam service has it now, so that a
        // reloaded timeline shows what can be answered.
        let mut questions: Vec<String> =
            messages.iter().filter_map(|m| m.card.as_ref()?.exam_question_id().map(str::to_string)).collect();
        questions.sort();
        questions.dedup();
        if !questions.is_empty() {
            let now = self.now();
            let statuses = self.exam_service().statuses(learner, &thread.course_id, &questions, now).await?;
            for message in &mut messages {
                if let Some(pathwise_course::TutorCard::Exam { question_id, locked_until, .. }) = &mut message.card {
                    *locked_until = statuses
                        .get(question_id.as_str())
                        .filter(|s| s.status == pathwise_course::QuestionStatus::Locked)
                        .and_then(|s| s.locked_until)
                        .filter(|t| *t > now);
                }
            }
        }
        Ok(messages)
    }

    pub async fn thread_turns(&self, learner: LearnerId, id: ThreadId, query: &PageQuery) -> AppResult<Paged<TurnLog>> {
        let (offset, limit) = window(query.offset, query.limit)?;
        self.thread_record(learner, id).await?;
        let page = self.store.list_turns(learner, id, offset, limit).await?;
        let items = page
            .items
            .into_iter()
            .map(|t| TurnLog {
                turn_id: t.id,
                action: t.action,
                validated: t.validated,
                fallback_reason: t.fallback_reason,
                log: t.log,
                created_at: t.created_at,
            })
            .collect();
        Ok(Paged { items, total: page.total, offset, limit })
    }

    /// The learner's snapshot of a course (made on first use) and its summary.
    pub async fn tutor_snapshot(&self, learner: LearnerId, course: &str) -> AppResult<SnapshotView> {
        let loaded = self.course_for(learner, course).await?;
        let snap = self.course_snapshot(learner, &loaded).await?;
        let snapshot_lite = self.current_lite(learner, &loaded, &snap).await?;
        Ok(SnapshotView { mind_map_id: snap.map(), snapshot: snap.snapshot, snapshot_lite })
    }
}
