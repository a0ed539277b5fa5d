//! Hard evidence (a graded drill, an exam answer, viewed support): the snapshot moves, the
//! thread records it, and the answer becomes a quiz response on the unit's node through the
//! one write path for responses, so mastery, reviews and analytics see it too.

use super::catalog::LoadedCourse;
use super::messages::{appended, TutorMessage};
use super::snapshots::Snapshot;
use crate::mastery::RecordResponse;
use crate::{App, AppResult};
use pathwise_course::StudentSnapshot;
use pathwise_domain::{LearnerId, ResponseType, ThreadId};
use pathwise_store::{Store, TutorMessageRecord, TutorStep};

/// An answer to record as a response on the unit's node.
pub(crate) struct Evidence<'a> {
    pub unit: &'a str,
    pub question: &'a str,
    pub answer: &'a str,
    /// SM-2 quality, 0-5.
    pub quality: i64,
}

impl<S: Store> App<S> {
    /// Apply `change` to the learner's snapshot and append `records` to the thread, in one
    /// transaction (re-read and re-applied if the snapshot changed meanwhile); then record
    /// the evidence, if any, as a response on the unit's node.
    pub(crate) async fn record_evidence(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        loaded: &LoadedCourse,
        records: &[TutorMessageRecord],
        evidence: Option<Evidence<'_>>,
        change: impl Fn(&mut StudentSnapshot),
    ) -> AppResult<(Snapshot, Vec<TutorMessage>)> {
        let snap = self.course_snapshot(learner, loaded).await?;
        let step = TutorStep { thread: Some(thread), messages: records, at: Some(self.now()), ..TutorStep::default() };
        let (snap, first_seq) = self.commit_with_snapshot(learner, loaded, snap, step, change).await?;
        let Some(evidence) = evidence else {
            return Ok((snap, appended(thread, first_seq, records.to_vec())));
        };
        if let Some((map, node)) = self.unit_node(learner, &snap, evidence.unit).await? {
            let response = RecordResponse {
                node_id: node,
                mind_map_id: map,
                question_text: evidence.question.chars().take(2_000).collect(),
                user_answer: Some(evidence.answer.chars().take(2_000).collect()),
                quality: evidence.quality,
                response_type: Some(ResponseType::Teach),
                session_id: Some(thread.0),
            };
            if let Err(e) = self.record_response(learner, response).await {
                // The snapshot holds the evidence either way; a map the learner abandoned
                // takes no more responses.
                tracing::warn!(error = %e, unit = evidence.unit, "tutor evidence not recorded as a response");
            }
        }
        Ok((snap, appended(thread, first_seq, records.to_vec())))
    }
}
