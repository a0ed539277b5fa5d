//! Exam events (policy-tutor.md EPIC F): an answer to an exam question offered in the
//! thread, and opened support (memo or video). The exam service decides passes and
//! lockouts; the snapshot keeps what was touched, the revisit queue and the tiers.

use super::catalog::LoadedCourse;
use super::evidence::{Evidence, EvidenceWrite};
use super::exam_service::SupportType;
use super::messages::{new_message, with_outcome, CardOutcome, TutorMessage};
use super::turn::check_course;
use crate::stores::MasteryStores;
use crate::{App, AppError, AppResult};
use chrono::{DateTime, Utc};
use pathwise_course::lite::SnapshotLite;
use pathwise_course::{ExamQuestionSpec, MasteryTier, QuestionStatus, Tier};
use pathwise_domain::evidence::{Evidence as DomainEvidence, Form, Outcome};
use pathwise_domain::{LearnerId, ThreadId};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McqSubmitRequest {
    #[serde(default)]
    pub course_id: Option<String>,
    #[schema(min_length = 1)]
    pub unit_id: String,
    #[schema(min_length = 1)]
    pub question_id: String,
    /// The question's tier, if the client states it; checked against the bank.
    #[serde(default)]
    pub difficulty_tier: Option<Tier>,
    /// The chosen option, counting from 0. The exam service grades it: a client's own
    /// verdict (`isCorrect`) is not taken.
    #[schema(maximum = 99)]
    pub selected_index: usize,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McqSubmitReply {
    pub is_correct: bool,
    /// `passed` or `locked`.
    pub status: QuestionStatus,
    pub locked_until: Option<DateTime<Utc>>,
    pub mastery_tier: MasteryTier,
    /// The unit's tier went up with this answer.
    pub tier_changed: bool,
    pub messages: Vec<TutorMessage>,
    pub snapshot_lite: SnapshotLite,
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SupportViewedRequest {
    #[serde(default)]
    pub course_id: Option<String>,
    #[schema(min_length = 1)]
    pub unit_id: String,
    #[schema(min_length = 1)]
    pub question_id: String,
    pub support_type: SupportType,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SupportViewedReply {
    pub support_type: SupportType,
    /// The worked solution (for a memo).
    pub memo: Option<String>,
    /// The video's link (for a video), and what it says if the course has that.
    pub video: Option<String>,
    pub video_transcript: Option<String>,
    pub status: QuestionStatus,
    pub locked_until: Option<DateTime<Utc>>,
    pub snapshot_lite: SnapshotLite,
}

impl<S: MasteryStores> App<S> {
    /// The question of an exam event, checked: in the course, offered in this thread, about
    /// the unit named.
    async fn offered_question<'c>(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        loaded: &'c LoadedCourse,
        unit: &str,
        question: &str,
    ) -> AppResult<&'c ExamQuestionSpec> {
        let course = &loaded.course;
        super::turn::require_unit(loaded, "unitId", unit)?;
        let q = course.question(question).ok_or_else(|| {
            AppError::absent("questionId", format!("question '{question}' is not in course '{}'", course.id()))
        })?;
        if !self.store.thread_offered_question(learner, thread, question).await? {
            return Err(AppError::absent(
                "questionId",
                format!(
                    "question '{question}' was not offered in this thread; answer the exam questions the tutor offers"
                ),
            ));
        }
        if !q.units.iter().any(|u| u == unit) {
            return Err(AppError::invalid(
                "unitId",
                format!("question '{question}' examines {}, not '{unit}'", q.units.join(", ")),
            ));
        }
        Ok(q)
    }

    pub async fn exam_mcq_submit(
        &self,
        learner: LearnerId,
        thread_id: ThreadId,
        request: McqSubmitRequest,
    ) -> AppResult<McqSubmitReply> {
        let thread = self.thread_record(learner, thread_id).await?;
        check_course(&thread, request.course_id.as_deref())?;
        let loaded = self.course(&thread.course_id).await?;
        let question =
            self.offered_question(learner, thread_id, &loaded, &request.unit_id, &request.question_id).await?;
        if let Some(tier) = request.difficulty_tier {
            if tier != question.tier {
                return Err(AppError::invalid(
                    "difficultyTier",
                    format!("question '{}' is {}, not {tier}", question.id, question.tier),
                ));
            }
        }
        if request.selected_index >= question.options.len() {
            return Err(AppError::invalid(
                "selectedIndex",
                format!("{} is out of range; allowed: 0-{}", request.selected_index, question.options.len() - 1),
            ));
        }
        let now = self.now();
        let outcome =
            self.exam_service().submit(learner, loaded.course.id(), question, request.selected_index, now).await?;
        let current = self.course_snapshot(learner, &loaded).await?;
        let before = current.snapshot.tier(&request.unit_id);
        // The tier the answer earns, for the reply kept on the timeline (written with the
        // evidence below, which applies the same change to the snapshot it finds).
        let mut preview = current.snapshot;
        preview.record_exam(&request.unit_id, question, outcome.correct, now);
        let earned = Some(preview.tier(&request.unit_id)).filter(|tier| *tier > before);
        let choice = &question.options[request.selected_index];
        let verdict = crate::learning_loop::feedback::exam_verdict(
            outcome.correct,
            question.tier.name(),
            outcome.status.locked_until,
        );
        let answered = CardOutcome::Exam {
            unit_id: request.unit_id.clone(),
            question_id: question.id.clone(),
            selected_index: request.selected_index,
            is_correct: outcome.correct,
            tier_earned: earned,
        };
        let records = vec![
            new_message("user", format!("Answer: {choice}"), None, None, None, now),
            with_outcome(new_message("assistant", verdict, None, None, None, now), &answered),
        ];
        let unit = request.unit_id.clone();
        let evidence = Evidence {
            unit: &unit,
            question: &question.stem,
            answer: choice,
            // An exam question's options are shown: the answer is recognised, not recalled.
            shows: DomainEvidence::Checked {
                form: Form::Recognised,
                outcome: if outcome.correct { Outcome::Right } else { Outcome::Wrong },
            },
        };
        let correct = outcome.correct;
        let write = EvidenceWrite { evidence: Some(evidence), graded: None };
        let (snap, messages) = self
            .record_evidence(learner, thread_id, &loaded, &records, write, |s| {
                s.record_exam(&unit, question, correct, now)
            })
            .await?;
        let tier = snap.snapshot.tier(&unit);
        let snapshot_lite = self.current_lite(learner, &loaded, &snap).await?;
        Ok(McqSubmitReply {
            is_correct: outcome.correct,
            status: outcome.status.status,
            locked_until: outcome.status.locked_until,
            mastery_tier: tier,
            tier_changed: tier > before,
            messages,
            snapshot_lite,
        })
    }

    pub async fn exam_support_viewed(
        &self,
        learner: LearnerId,
        thread_id: ThreadId,
        request: SupportViewedRequest,
    ) -> AppResult<SupportViewedReply> {
        let thread = self.thread_record(learner, thread_id).await?;
        check_course(&thread, request.course_id.as_deref())?;
        let loaded = self.course(&thread.course_id).await?;
        let question =
            self.offered_question(learner, thread_id, &loaded, &request.unit_id, &request.question_id).await?;
        if request.support_type == SupportType::Video && question.video.is_none() {
            return Err(AppError::invalid(
                "supportType",
                format!("question '{}' has no video; its memo is available", question.id),
            ));
        }
        let now = self.now();
        let status = self
            .exam_service()
            .support_viewed(learner, loaded.course.id(), question, request.support_type, now)
            .await?;
        let unit = request.unit_id.clone();
        // A passed question is not locked by its memo, nor queued to revisit.
        let passed = status.status == QuestionStatus::Passed;
        let (snap, _) = self
            .record_evidence(learner, thread_id, &loaded, &[], EvidenceWrite::default(), |s| {
                if !passed {
                    s.record_support_viewed(&unit, question, now)
                }
            })
            .await?;
        let snapshot_lite = self.current_lite(learner, &loaded, &snap).await?;
        let (memo, video, transcript) = match request.support_type {
            SupportType::Memo => (Some(question.memo.clone()), None, None),
            SupportType::Video => (None, question.video.clone(), question.video_transcript.clone()),
        };
        Ok(SupportViewedReply {
            support_type: request.support_type,
            memo,
            video,
            video_transcript: transcript,
            status: status.status,
            locked_until: status.locked_until,
            snapshot_lite,
        })
    }
}
