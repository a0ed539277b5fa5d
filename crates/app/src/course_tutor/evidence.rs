//! Hard evidence (a graded drill, an exam answer, viewed support): the snapshot moves, the
//! thread records it, and the answer becomes a quiz response on the unit's node through the
//! mastery rules, all in one transaction: a crash leaves all of it or none. Mastery,
//! reviews and analytics see the evidence as they see every other response.

use super::catalog::LoadedCourse;
use super::messages::{appended, TutorMessage};
use super::snapshots::VersionedSnapshot;
use crate::mastery::{PreparedResponse, RecordResponse};
use crate::stores::MasteryStores;
use crate::{App, AppResult, ErrorCode};
use pathwise_course::StudentSnapshot;
use pathwise_domain::recording::ResponseRules;
use pathwise_domain::{LearnerId, ResponseType, ThreadId};
use pathwise_store::{StepResponse, TutorMessageRecord, TutorStep};
use serde_json::Value;

/// An answer to record as a response on the unit's node.
pub(crate) struct Evidence<'a> {
    pub unit: &'a str,
    pub question: &'a str,
    pub answer: &'a str,
    /// What the answer shows, which decides what it earns.
    pub shows: pathwise_domain::evidence::Evidence,
}

/// What a piece of evidence stores besides its messages.
#[derive(Default)]
pub(crate) struct EvidenceWrite<'a> {
    /// The answer, recorded as a response on the unit's node.
    pub evidence: Option<Evidence<'a>>,
    /// The drill graded (its offer id) with the grading kept for replays.
    pub graded: Option<(&'a str, &'a Value)>,
}

impl<S: MasteryStores> App<S> {
    /// Apply `change` to the learner's snapshot, append `records` to the thread, mark the
    /// drill graded and record the evidence as a response on the unit's node, in one
    /// transaction (re-read and re-applied if the snapshot changed meanwhile). A map the
    /// learner abandoned takes no more responses: then the snapshot and thread alone move.
    pub(crate) async fn record_evidence(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        loaded: &LoadedCourse,
        records: &[TutorMessageRecord],
        write: EvidenceWrite<'_>,
        change: impl Fn(&mut StudentSnapshot),
    ) -> AppResult<(VersionedSnapshot, Vec<TutorMessage>)> {
        let snap = self.course_snapshot(learner, loaded).await?;
        let prepared = match &write.evidence {
            Some(evidence) => self.evidence_response(learner, thread, &snap, evidence).await?,
            None => None,
        };
        // The unit's tier as this evidence leaves it puts its node at least where the tier
        // says (ARCHITECTURE.md, "One picture of progress").
        let floor = write.evidence.as_ref().and_then(|evidence| {
            let mut after = snap.snapshot.clone();
            change(&mut after);
            after.tier(evidence.unit).node_floor()
        });
        let decide = prepared.as_ref().map(|p| {
            let rules = ResponseRules { floor, ..p.rules };
            move |ctx: &pathwise_store::ResponseContext| rules.decide(ctx)
        });
        let step = TutorStep {
            thread: Some(thread),
            messages: records,
            at: Some(self.now()),
            graded: write.graded,
            response: prepared.as_ref().zip(decide.as_ref()).map(|(p, decide)| StepResponse {
                learner,
                new: &p.new,
                decide,
            }),
            ..TutorStep::default()
        };
        let committed = self.commit_with_snapshot(learner, loaded, snap.clone(), step.clone(), &change).await;
        let (snap, commit) = match committed {
            Err(e) if prepared.is_some() && e.code == ErrorCode::MapNotOpen => {
                tracing::info!(%thread, "tutor evidence kept in the snapshot only: the course's map is not open");
                let without = TutorStep { response: None, ..step };
                self.commit_with_snapshot(learner, loaded, snap, without, &change).await?
            }
            other => other?,
        };
        if let (Some(prepared), Some(written)) = (prepared, commit.response) {
            self.finish_response(learner, prepared.fsrs, written).await?;
        }
        Ok((snap, appended(thread, commit.first_seq, records.to_vec())))
    }

    /// The evidence as a response on the unit's node, if the learner's map of the course has one.
    async fn evidence_response(
        &self,
        learner: LearnerId,
        thread: ThreadId,
        snap: &VersionedSnapshot,
        evidence: &Evidence<'_>,
    ) -> AppResult<Option<PreparedResponse>> {
        let Some((map, node)) = self.unit_node(learner, snap, evidence.unit).await? else { return Ok(None) };
        let earned = evidence.shows.earned();
        let response = RecordResponse {
            node_id: node,
            mind_map_id: map,
            question_text: evidence.question.chars().take(2_000).collect(),
            user_answer: Some(evidence.answer.chars().take(2_000).collect()),
            quality: i64::from(earned.quality.value()),
            response_type: Some(ResponseType::Teach),
            session_id: Some(thread.0),
            idempotency_key: None,
        };
        self.prepare_response(learner, response, earned).await.map(Some)
    }
}
