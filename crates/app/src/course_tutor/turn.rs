//! A tutor turn (`POST /tutor/threads/{id}/turn`, policy-tutor.md PF-3.1 to PF-3.7): the
//! snapshot, the policy, retrieval, one prompt, one model call, validation, and on any
//! violation (or without a model) the deterministic fallback; then the snapshot, the
//! timeline and the turn's log in one transaction.

use super::catalog::LoadedCourse;
use super::messages::{appended, new_message, with_sources, TutorMessage};
use super::prompt::{build_prompt_within, offered_passages, TurnContext};
use super::request::TurnRequest;
use super::snapshots::VersionedSnapshot;
use crate::stores::MasteryStores;
use crate::{App, AppError, AppResult, ErrorCode};
use pathwise_course::answer::{unit_answer, MaterialAnswer};
use pathwise_course::fallback::{self, fallback_turn, FallbackInput};
use pathwise_course::intent::{self, asks_for_drill, asks_for_exam, QuestionKind, Reading, Request};
use pathwise_course::lite::{revisit_summary, snapshot_lite, RevisitLite, SnapshotLite};
use pathwise_course::notation::{narrow_by_notation, searchable};
use pathwise_course::policy::{
    calibrate_mapping, draft_policy, exam_availability, exam_candidates, named_unit, ranked_candidates,
    ExamAvailability, PolicyDraft, ScoredUnit,
};
use pathwise_course::response::{validate, OfferedContext};
use pathwise_course::shown::Shown;
use pathwise_course::{
    Action, Availability, ClientEvent, ExamStatus, MappedUnit, Tier, TurnAnalysis, TutorCard, TutorPolicy,
};
use pathwise_domain::{LearnerId, ThreadId, TurnId};
use pathwise_llm::{parse_json_reply, Usage};
use pathwise_retrieval::Query;
use pathwise_store::{ThreadRecord, TurnRecord, TutorMessageRecord, TutorStep};
use serde::Serialize;

use std::collections::HashMap;

/// Retrieval sizes (policy-tutor.md PF-3.5).
const ANCHORS_K: usize = 6;
const CHUNKS_K: usize = 8;
const SUPPORT_K: usize = 4;
const MAPPED_K: usize = 3;
/// How far back a `CHOOSE_UNIT` looks for the card that offered it.
const RECENT_MESSAGES: i64 = 6;
/// How far back the deterministic tutor looks for what it showed, so as not to repeat it.
const SHOWN_MESSAGES: i64 = 24;
/// How many other units "something else" offers.
const OPEN_UNITS: usize = 3;

#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnReply {
    pub turn_id: TurnId,
    /// The messages this turn added to the timeline (the learner's, then the tutor's).
    pub messages: Vec<TutorMessage>,
    pub snapshot_lite: SnapshotLite,
    /// Present when the `tutor_debug` setting is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub debug: Option<TurnDebug>,
}

/// The debug drawer's payload (PF-7.2).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnDebug {
    pub policy: TutorPolicy,
    pub candidate_scores: Vec<ScoredUnit>,
    pub mapped_units: Vec<MappedUnit>,
    pub validated: bool,
    pub fallback_reason: Option<String>,
    pub exam_next_eligible_at: Option<chrono::DateTime<chrono::Utc>>,
    pub prompt_tokens: u64,
}

/// What the tutor decided to show.
struct Decision {
    action: Action,
    target: String,
    text: String,
    card: Option<TutorCard>,
    analysis: Option<TurnAnalysis>,
    validated: bool,
    fallback_reason: Option<String>,
    violation: Option<&'static str>,
    usage: Usage,
    /// The passages of the course's material the reply cites, by id.
    sources: Vec<String>,
}

/// What the turn log keeps of a turn (PF-3.7): the policy's parts, what was decided and
/// why, and what it cost.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnLog<'a> {
    turn_id: TurnId,
    client_event: &'a str,
    mapped_units: &'a [MappedUnit],
    mapping_source: &'a str,
    focus_unit_id: &'a str,
    primary_target_unit_id: &'a str,
    prereq_blocking_unit_id: Option<&'a str>,
    scoped_unit_ids: &'a [String],
    allowed_actions: &'a [Action],
    stuck: bool,
    exam_ready: bool,
    desired_exam_tier: Tier,
    exam_availability: Availability,
    next_eligible_at: Option<chrono::DateTime<chrono::Utc>>,
    exam_candidate_ids: &'a [String],
    action: Action,
    target_unit_id: &'a str,
    /// The passages the reply cites.
    sources: &'a [String],
    validated: bool,
    fallback_reason: Option<&'a str>,
    violation: Option<&'static str>,
    model: Option<String>,
    retrieval: &'static str,
    prompt_tokens: u64,
    completion_tokens: u64,
}

/// How the turn reads the learner's input: the units it is about and the policy drafted
/// from them, before exam availability.
struct Planned {
    draft: PolicyDraft,
    /// Where the mapping came from: `client_event`, `exam_request` or `retrieval`.
    mapping_source: &'static str,
    /// The learner named a unit in their own words.
    named: bool,
    /// The tutor's action on the turn before.
    previous_action: Option<Action>,
}

/// Mapping (PF-3.2) and the policy's draft: a button names its unit; words are mapped by
/// retrieval over the anchors, except a request for an exam, which is about the unit being
/// learned. Words that answer the tutor's own question are about the focus (they map to it,
/// or to nothing); other words the mapping is unsure of are clarified first.
fn plan_turn(
    loaded: &LoadedCourse,
    snap: &VersionedSnapshot,
    thread: &ThreadRecord,
    request: &TurnRequest,
    query: &Query<'_>,
    reading: Reading,
    answer: Option<&MaterialAnswer>,
) -> Planned {
    let course = &loaded.course;
    let asks_exam = request.words().is_some_and(asks_for_exam);
    let asks_drill = !asks_exam && request.words().is_some_and(asks_for_drill);
    let (mapped, mapping_source) = match request.client_event.unit_id() {
        Some(unit) => (vec![MappedUnit { unit_id: unit.to_string(), confidence: 1.0 }], "client_event"),
        None if asks_exam => (Vec::new(), "exam_request"),
        None => {
            // What the words write with symbols narrows the units they can be about.
            let words = request.words().unwrap_or("");
            let mapped =
                calibrate_mapping(course, &narrow_by_notation(course, words, &loaded.index.map_units(query, MAPPED_K)));
            // A question about what the material does not hold names no unit to work on.
            let unanswered =
                matches!(reading, Reading::Question(_)) && answer.is_some_and(|a| !a.answers && !a.missing.is_empty());
            let mapped = if unanswered { Vec::new() } else { mapped };
            // "Give me a drill" names no unit: it is practice on the one being learned, not
            // words to map ("drill" matches anchors that mention drills).
            if asks_drill && named_unit(&mapped).is_none() {
                (Vec::new(), "practice_request")
            } else {
                (mapped, "retrieval")
            }
        }
    };
    let previous_action = thread.last_action.as_deref().and_then(Action::parse);
    let focus_now = snap.snapshot.focus_unit_id.as_str();
    let answers_tutor = asks_exam
        || (asks_drill && mapped.is_empty())
        || previous_action == Some(Action::SocraticQuestion)
            && (mapped.is_empty() || mapped.iter().any(|m| m.unit_id == focus_now));
    // A request the tutor understands ("what next?", "an example") or a question is never
    // clarified: it is answered; only talk the mapping is unsure of is.
    let request_or_question = !matches!(reading, Reading::Talk);
    let answers_tutor = answers_tutor && !matches!(reading, Reading::Question(_) | Reading::Request(Request::Explain));
    let own_words = request.client_event == ClientEvent::None && !answers_tutor;
    // Words answering the tutor's own question are about the unit it asked about: they keep
    // the goal the learner set, whatever else they happen to mention. So are requests ("what
    // next?", "I'm stuck", "an example"): about the unit being learned, not a new goal.
    let about_focus = answers_tutor || matches!(reading, Reading::Request(r) if r != Request::Explain);
    let mapped = if about_focus && request.client_event == ClientEvent::None { Vec::new() } else { mapped };
    let mut draft = draft_policy(course, &snap.snapshot, &mapped, own_words && !request_or_question);
    // A learner who says they are stuck, or asks for an example, a hint or a simpler word, is
    // helped with a concept card as one the drills show stuck is.
    if matches!(reading, Reading::Request(Request::Stuck | Request::Example | Request::Hint | Request::Simpler)) {
        draft.stuck = true;
    }
    let named = own_words && named_unit(&draft.mapped).is_some();
    Planned { draft, mapping_source, named, previous_action }
}

/// The turn's messages on the timeline: the learner's words, if any, then the tutor's reply.
fn timeline(
    loaded: &LoadedCourse,
    request: &TurnRequest,
    decision: &Decision,
    card: Option<&TutorCard>,
    turn: TurnId,
    now: At,
) -> Vec<TutorMessageRecord> {
    let mut records = Vec::new();
    if let Some(words) = request.words() {
        let latex = request.message_latex.clone().filter(|l| !l.trim().is_empty());
        records.push(new_message("user", words.to_string(), latex, None, Some(turn), now));
    }
    let reply = new_message("assistant", decision.text.clone(), None, card, Some(turn), now);
    records.push(with_sources(reply, &shown_sources(loaded, decision)));
    records
}

/// The sources a reply shows: those of an explanation or a question, not of a drill or an
/// exam question, whose passage would hold the answer.
fn shown_sources(loaded: &LoadedCourse, decision: &Decision) -> Vec<pathwise_course::Source> {
    match decision.action {
        Action::ConceptCard | Action::SocraticQuestion => {
            decision.sources.iter().filter_map(|id| loaded.course.source(id)).collect()
        }
        Action::DrillCard | Action::ExamBlock => Vec::new(),
    }
}

/// What the turn decided, with the policy it kept to: the turn log's facts.
struct Decided<'a> {
    turn_id: TurnId,
    request: &'a TurnRequest,
    planned: &'a Planned,
    policy: &'a TutorPolicy,
    exam: &'a ExamAvailability,
    candidate_ids: &'a [String],
    decision: &'a Decision,
}

impl Decided<'_> {
    fn log(&self, model: Option<String>, retrieval: &'static str) -> TurnLog<'_> {
        let (policy, decision) = (self.policy, self.decision);
        TurnLog {
            turn_id: self.turn_id,
            client_event: self.request.client_event.name(),
            mapped_units: &self.planned.draft.mapped,
            mapping_source: self.planned.mapping_source,
            focus_unit_id: &policy.focus_unit_id,
            primary_target_unit_id: &policy.primary_target_unit_id,
            prereq_blocking_unit_id: policy.prereq_blocking_unit_id.as_deref(),
            scoped_unit_ids: &policy.scoped_unit_ids,
            allowed_actions: &policy.allowed_actions,
            stuck: policy.stuck,
            exam_ready: policy.exam_ready,
            desired_exam_tier: policy.desired_exam_tier,
            exam_availability: policy.exam_availability,
            next_eligible_at: self.exam.next_eligible_at,
            exam_candidate_ids: self.candidate_ids,
            action: decision.action,
            target_unit_id: &decision.target,
            sources: &decision.sources,
            validated: decision.validated,
            fallback_reason: decision.fallback_reason.as_deref(),
            violation: decision.violation,
            model,
            retrieval,
            prompt_tokens: decision.usage.prompt_tokens,
            completion_tokens: decision.usage.completion_tokens,
        }
    }
}

type At = chrono::DateTime<chrono::Utc>;

impl<S: MasteryStores> App<S> {
    /// A tutor turn, in steps: check the request, read the learner's input (mapping and
    /// policy), ask the exam service, retrieve, decide (the model within the policy, or the
    /// fallback), then store the timeline, the turn's log and the snapshot together.
    pub async fn tutor_turn(
        &self,
        learner: LearnerId,
        thread_id: ThreadId,
        request: TurnRequest,
    ) -> AppResult<TurnReply> {
        request.check()?;
        let thread = self.thread_record(learner, thread_id).await?;
        check_course(&thread, request.course_id.as_deref())?;
        let loaded = self.course(&thread.course_id).await?;
        self.check_event(learner, &thread, &loaded, &request.client_event).await?;
        let course = &loaded.course;
        let snap = self.course_snapshot(learner, &loaded).await?;
        let now = self.now();
        let turn_id = TurnId(Self::new_id());
        let words = request.words().unwrap_or("");
        // Arithmetic written with symbols ("7+8") is searched by its operation's name too.
        let searched = searchable(words);
        let vector = self.query_vector(&loaded, words).await;
        let query = Query { text: &searched, vector: vector.as_deref() };

        let reading = request.words().map_or(Reading::Talk, intent::read);
        let answer = material_answer(&loaded, reading, words);
        let planned = plan_turn(&loaded, &snap, &thread, &request, &query, reading, answer.as_ref());
        let answer = named_answer(&loaded, &planned, reading, words, answer.as_ref()).or(answer);
        let draft = &planned.draft;
        let (exam, candidate_ids, statuses) = self.exam_state(learner, &loaded, &snap, draft, &query, now).await?;
        let policy = draft.finish(&turn_id.to_string(), &exam);
        // A check pressed after it closed (a button left on an earlier card, another tab) is
        // answered, not refused: the learner hears why, and gets the next step the policy
        // allows (the deterministic turn takes an exam asked for too early as a wish to
        // practise).
        let stale = match &request.client_event {
            ClientEvent::RequestExam { unit_id } => policy.check_exam_request(course, unit_id).err(),
            _ => None,
        };

        let revisit = self.revisit(learner, course.id(), &snap, now).await?;
        let mut context = TurnContext::retrieve(
            &loaded,
            &policy,
            &query,
            &exam,
            &snap.snapshot,
            &revisit,
            &request.client_event,
            SUPPORT_K,
            ANCHORS_K,
            CHUNKS_K,
        );
        // The passage that answers the learner's question leads what the model reads (and
        // is the last the prompt budget cuts), so a model's answer can quote and cite it.
        if let Some(hit) = answer.as_ref().and_then(|a| a.chunk).and_then(|i| loaded.index.content_chunk(i)) {
            context.lead_with(hit, CHUNKS_K);
        }
        let shown = self.shown(learner, &thread).await?;
        let open_units = open_units(course, &snap, &policy.focus_unit_id);
        let fallback = FallbackInput {
            policy: &policy,
            course,
            event: &request.client_event,
            words: request.words(),
            mapped: &draft.mapped,
            named: planned.named,
            previous_action: planned.previous_action,
            focus_tier: draft.focus_tier,
            focus_streak: snap.snapshot.progress(&draft.focus_unit_id).map_or(0, |p| p.drill.streak_correct),
            exam_candidates: &exam.candidate_ids,
            seed: seed_of(turn_id),
            reading,
            answer: answer.as_ref(),
            shown: &shown,
            open_units: &open_units,
        };
        let mut decision = self
            .decide(learner, &loaded, &policy, &context, &request, &exam.candidate_ids, &statuses, &fallback)
            .await?;
        // A model's reply to a question the material answers leads with that answer, quoted and
        // cited: what the learner asked is never left to a small model's paraphrase.
        if let Some(answer) = answer.as_ref().filter(|a| decision.validated && a.answers && !a.sentences.is_empty()) {
            if !decision.text.contains(answer.sentences[0].as_str()) {
                decision.text = format!(
                    "Your material says: {} {}",
                    pathwise_course::answer::quoted(&answer.sentences),
                    decision.text
                );
            }
            let passage = answer.chunk.and_then(|i| course.passage_id_at(i)).map(str::to_string);
            if let Some(passage) = passage.filter(|p| !decision.sources.contains(p)) {
                decision.sources.insert(0, passage);
            }
        }
        if let Some(refusal) = stale {
            decision.text = format!("{} {}", refusal.learner_message, decision.text);
            decision.fallback_reason = Some(format!("stale event: {}", refusal.message));
        }
        // A drill card carries an opaque id of its own, recorded with the turn.
        let mut card = decision.card.clone();
        let offers: Vec<_> =
            card.as_mut().and_then(|card| self.offer_drill(learner, thread_id, card, now)).into_iter().collect();
        let records = timeline(&loaded, &request, &decision, card.as_ref(), turn_id, now);

        let decided = Decided {
            turn_id,
            request: &request,
            planned: &planned,
            policy: &policy,
            exam: &exam,
            candidate_ids: &candidate_ids,
            decision: &decision,
        };
        // The model's name only: the log is the learner's to read, and the server's address
        // is the operator's.
        let model = self.llm.model_name();
        let log = decided.log(model, if vector.is_some() { "bm25+embeddings" } else { "bm25" });
        let turn = TurnRecord {
            id: turn_id,
            thread_id,
            learner_id: learner,
            course_id: course.id().to_string(),
            action: decision.action.name().to_string(),
            validated: decision.validated,
            fallback_reason: decision.fallback_reason.clone(),
            log: serde_json::to_value(&log).map_err(|e| AppError::internal(format!("a turn's log: {e}")))?,
            created_at: now,
        };
        if let Some(reason) = &decision.fallback_reason {
            // The reason's code only (`model failed`, `policy violation`, ...): its detail
            // would make a series per learner's turn.
            let code = reason.split(':').next().unwrap_or_default().trim().to_string();
            metrics::counter!("pathwise_tutor_fallbacks_total", "reason" => code).increment(1);
        }
        tracing::debug!(
            turn = %turn_id, focus = %policy.focus_unit_id, blocker = ?policy.prereq_blocking_unit_id,
            allowed = ?policy.allowed_actions, tier = %policy.desired_exam_tier, availability = ?policy.exam_availability,
            action = decision.action.name(), validated = decision.validated, fallback = ?decision.fallback_reason,
            "tutor turn"
        );

        let step = TutorStep {
            thread: Some(thread_id),
            messages: &records,
            last_action: Some(decision.action.name()),
            turn: Some(&turn),
            at: Some(now),
            offers: &offers,
            ..TutorStep::default()
        };
        let (focus, goal) = (policy.focus_unit_id.clone(), policy.primary_target_unit_id.clone());
        let analysis = decision.analysis.clone();
        let (snap, commit) = self
            .commit_with_snapshot(learner, &loaded, snap, step, |s| s.record_turn(&focus, &goal, analysis.clone(), now))
            .await?;

        let lite = turn_lite(&loaded, &snap, &policy, &decision, revisit);
        let debug = self.tutor.debug.then(|| TurnDebug {
            candidate_scores: ranked_candidates(course, &snap.snapshot, &draft.mapped, now),
            mapped_units: draft.mapped.clone(),
            validated: decision.validated,
            fallback_reason: decision.fallback_reason.clone(),
            exam_next_eligible_at: exam.next_eligible_at,
            prompt_tokens: decision.usage.prompt_tokens,
            policy: policy.clone(),
        });
        Ok(TurnReply { turn_id, messages: appended(thread_id, commit.first_seq, records), snapshot_lite: lite, debug })
    }

    /// An event's unit must be the course's; a `CHOOSE_UNIT` must answer a card's choices.
    async fn check_event(
        &self,
        learner: LearnerId,
        thread: &ThreadRecord,
        loaded: &LoadedCourse,
        event: &ClientEvent,
    ) -> AppResult<()> {
        if let Some(unit) = event.unit_id() {
            require_unit(loaded, "clientEvent.unitId", unit)?;
        }
        if let ClientEvent::ChooseUnit { unit_id } = event {
            self.check_choice_offered(learner, thread, unit_id).await?;
        }
        Ok(())
    }

    /// The model's turn if it keeps every rule, the deterministic fallback otherwise (and
    /// always when no model is configured). Never a second call.
    #[allow(clippy::too_many_arguments)]
    async fn decide(
        &self,
        learner: LearnerId,
        loaded: &LoadedCourse,
        policy: &TutorPolicy,
        context: &TurnContext,
        request: &TurnRequest,
        candidates: &[String],
        statuses: &HashMap<String, ExamStatus>,
        fallback: &FallbackInput<'_>,
    ) -> AppResult<Decision> {
        let course = &loaded.course;
        let fall_back = |reason: String, violation: Option<&'static str>, usage: Usage| -> Decision {
            let turn = fallback_turn(fallback);
            let sources = turn.sources.iter().map(|s| s.passage_id.clone()).collect();
            Decision {
                sources,
                action: turn.action,
                target: turn.target_unit_id,
                text: turn.tutor_text,
                card: turn.card,
                analysis: None,
                validated: false,
                fallback_reason: Some(reason),
                violation,
                usage,
            }
        };
        if !self.llm.is_configured() {
            return Ok(fall_back("offline: no language model is configured".into(), None, Usage::default()));
        }
        if let ClientEvent::RequestExam { .. } = request.client_event {
            // The question is the policy's to choose; the model has nothing to add.
            return Ok(fall_back("exam requested: the policy chooses the question".into(), None, Usage::default()));
        }
        let budget = self.tutor_prompt_budget().tokens;
        let prompt = build_prompt_within(&self.tutor.tutor_name, policy, context, request, budget);
        // The learner waits no longer than the deadline, for a free slot and the reply
        // together; past it the tutor answers without the model.
        let deadline = self.tutor.model_deadline;
        let asked = std::time::Instant::now();
        let session = match tokio::time::timeout(deadline, self.llm.session("tutor_turn")).await {
            Ok(session) => session?,
            Err(_) => {
                tracing::warn!(
                    operation = "tutor_turn",
                    reason = "busy",
                    "no model slot came free before the turn's deadline"
                );
                return Ok(fall_back("model failed: busy".into(), Some("model_error"), Usage::default()));
            }
        };
        let reply = session.chat_within(&prompt, deadline.saturating_sub(asked.elapsed())).await;
        self.record_llm_session(learner, "tutor_turn", &session).await?;
        let usage = session.usage();
        // The turn records the reason code only; the session logged what the server said.
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) => return Ok(fall_back(format!("model failed: {}", e.reason()), Some("model_error"), usage)),
        };
        let value = match parse_json_reply(reply.content.as_deref().unwrap_or("")) {
            Ok(value) => value,
            Err(e) => {
                let e = session.failed(e);
                return Ok(fall_back(format!("model failed: {}", e.reason()), Some("malformed"), usage));
            }
        };
        let passages = offered_passages(context, &prompt);
        let shown: String = prompt.messages.iter().skip(1).map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
        let offered = OfferedContext {
            exam_candidates: candidates,
            exam_statuses: statuses,
            passages: &passages,
            shown: &shown,
            now: self.now(),
        };
        match validate(&value, policy, offered, course) {
            Ok(valid) => {
                let card = match (valid.action, &valid.exam_question_id) {
                    (Action::ExamBlock, Some(question)) => Some(exam_card(loaded, question, &valid.target_unit_id)?),
                    _ => valid.card,
                };
                Ok(Decision {
                    action: valid.action,
                    target: valid.target_unit_id,
                    text: valid.tutor_text,
                    card,
                    analysis: Some(valid.analysis),
                    validated: true,
                    fallback_reason: None,
                    violation: None,
                    usage,
                    sources: valid.sources,
                })
            }
            Err(violation) => Ok(fall_back(format!("policy violation: {violation}"), Some(violation.code()), usage)),
        }
    }

    /// The learner's words embedded, when the course has embeddings; a failing embedding
    /// model leaves the turn to BM25.
    async fn query_vector(&self, loaded: &LoadedCourse, words: &str) -> Option<Vec<f32>> {
        let embedder = self.embedder.as_ref()?;
        if words.is_empty() || loaded.index.embedding_dimension().is_none() {
            return None;
        }
        match embedder.embed(&[words.to_string()]).await {
            Ok(mut vectors) => vectors.pop(),
            Err(e) => {
                tracing::warn!(error = %e, "embedding the learner's words failed; retrieval uses BM25 alone");
                None
            }
        }
    }

    /// The revisit queue's state, from the exam service.
    pub(crate) async fn revisit(
        &self,
        learner: LearnerId,
        course: &str,
        snap: &VersionedSnapshot,
        now: chrono::DateTime<chrono::Utc>,
    ) -> AppResult<RevisitLite> {
        let ids: Vec<String> = snap.snapshot.revisit_queue.keys().cloned().collect();
        let statuses = if ids.is_empty() {
            HashMap::new()
        } else {
            self.exam_service().statuses(learner, course, &ids, now).await?
        };
        Ok(revisit_summary(&snap.snapshot, &statuses, now))
    }

    pub(crate) async fn thread_record(&self, learner: LearnerId, id: ThreadId) -> AppResult<ThreadRecord> {
        self.store.get_thread(learner, id).await?.ok_or_else(|| AppError::not_found("thread", id))
    }

    /// SnapshotLite as it stands outside a turn: what the next turn without words would
    /// work on, and the exam it would open.
    pub(crate) async fn current_lite(
        &self,
        learner: LearnerId,
        loaded: &LoadedCourse,
        snap: &VersionedSnapshot,
    ) -> AppResult<SnapshotLite> {
        let course = &loaded.course;
        let now = self.now();
        let revisit = self.revisit(learner, course.id(), snap, now).await?;
        let draft = draft_policy(course, &snap.snapshot, &[], false);
        let query = Query { text: "", vector: None };
        let (exam, _, _) = self.exam_state(learner, loaded, snap, &draft, &query, now).await?;
        let policy = draft.finish("", &exam);
        let exam_check =
            policy.allows(Action::ExamBlock).then_some((policy.focus_unit_id.as_str(), policy.desired_exam_tier));
        let target = policy.primary_target_unit_id.as_str();
        let nudge = (policy.focus_unit_id != target).then_some(policy.focus_unit_id.as_str());
        Ok(snapshot_lite(course, &snap.snapshot, target, nudge, revisit, exam_check))
    }

    /// Exam availability from the exam service, for the focus unit's candidate questions
    /// only (none asked when the learner is not exam ready): the availability, the candidates
    /// asked about, and their statuses.
    async fn exam_state(
        &self,
        learner: LearnerId,
        loaded: &LoadedCourse,
        snap: &VersionedSnapshot,
        draft: &PolicyDraft,
        query: &Query<'_>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> AppResult<(ExamAvailability, Vec<String>, HashMap<String, ExamStatus>)> {
        let ids = exam_candidates(&snap.snapshot, draft, |unit, tier, k| {
            loaded.index.exam_candidates(query, unit, tier, k).into_iter().map(|hit| hit.question_id).collect()
        });
        if ids.is_empty() {
            return Ok((ExamAvailability::none(), ids, HashMap::new()));
        }
        let statuses = self.exam_service().statuses(learner, loaded.course.id(), &ids, now).await?;
        Ok((exam_availability(&ids, &statuses), ids, statuses))
    }

    /// What the thread's latest messages showed the learner.
    async fn shown(&self, learner: LearnerId, thread: &ThreadRecord) -> AppResult<Shown> {
        let after = i64::from(thread.message_count).saturating_sub(SHOWN_MESSAGES).max(0);
        let recent = self.store.thread_messages(learner, thread.id, after, SHOWN_MESSAGES).await?;
        let cards: Vec<Option<TutorCard>> =
            recent.iter().map(|m| m.card.as_ref().and_then(|c| serde_json::from_value(c.clone()).ok())).collect();
        Ok(Shown::from_messages(recent.iter().zip(cards).map(|(m, card)| (m.role.as_str(), m.text.as_str(), card))))
    }

    /// A `CHOOSE_UNIT` must pick a unit of the thread's latest card, which must offer choices.
    async fn check_choice_offered(&self, learner: LearnerId, thread: &ThreadRecord, unit: &str) -> AppResult<()> {
        let after = i64::from(thread.message_count).saturating_sub(RECENT_MESSAGES).max(0);
        let recent = self.store.thread_messages(learner, thread.id, after, RECENT_MESSAGES).await?;
        let latest_card = recent.iter().rev().find_map(|m| m.card.as_ref());
        let card: Option<TutorCard> = latest_card.and_then(|c| serde_json::from_value(c.clone()).ok());
        match card {
            Some(card) if card.offers_choice(unit) => Ok(()),
            _ => Err(AppError::invalid(
                "clientEvent.unitId",
                format!(
                    "unit '{unit}' was not offered: CHOOSE_UNIT answers the choices of the tutor's latest card; \
                     send the learner's words or REQUEST_DRILL instead"
                ),
            )),
        }
    }
}

/// The thread's course must be the one the request names, if it names one.
/// A unit the request names (in `field`) must be one of the course's: a 404 otherwise.
pub(crate) fn require_unit(loaded: &LoadedCourse, field: &str, unit: &str) -> AppResult<()> {
    if loaded.course.has_unit(unit) {
        return Ok(());
    }
    Err(AppError::absent(field, format!("unit '{unit}' is not in course '{}'", loaded.course.id())))
}

pub(crate) fn check_course(thread: &ThreadRecord, course: Option<&str>) -> AppResult<()> {
    match course {
        Some(c) if c != thread.course_id => Err(AppError::new(
            crate::ErrorKind::Conflict,
            ErrorCode::OtherCourse,
            format!("courseId: thread {} is about course '{}', not '{c}'", thread.id, thread.course_id),
        )
        .with_details(serde_json::json!({ "field": "courseId", "course_id": thread.course_id }))),
        _ => Ok(()),
    }
}

/// An EXAM card for a question of the bank: what may be shown before it is answered.
pub(crate) fn exam_card(loaded: &LoadedCourse, question: &str, unit: &str) -> AppResult<TutorCard> {
    fallback::exam_card(&loaded.course, question, unit)
        .ok_or_else(|| AppError::internal(format!("candidate {question} is not in the bank")))
}

/// SnapshotLite after the turn: the exam stays on offer beside the chat until it is the card
/// just shown.
fn turn_lite(
    loaded: &LoadedCourse,
    snap: &VersionedSnapshot,
    policy: &TutorPolicy,
    decision: &Decision,
    revisit: RevisitLite,
) -> SnapshotLite {
    let exam_check = (policy.allows(Action::ExamBlock) && decision.action != Action::ExamBlock)
        .then_some((policy.focus_unit_id.as_str(), policy.desired_exam_tier));
    snapshot_lite(
        &loaded.course,
        &snap.snapshot,
        &policy.primary_target_unit_id,
        (policy.focus_unit_id != policy.primary_target_unit_id).then_some(policy.focus_unit_id.as_str()),
        revisit,
        exam_check,
    )
}

/// The material's answer to the learner's question, or to the topic they asked to be taught.
fn material_answer(loaded: &LoadedCourse, reading: Reading, words: &str) -> Option<MaterialAnswer> {
    match reading {
        Reading::Question(kind) => loaded.index.answer(&searchable(words), kind, None),
        Reading::Request(Request::Explain) => {
            let topic = intent::explained_topic(words)?;
            loaded.index.answer(&topic, intent::explained_kind(&topic), None)
        }
        _ => None,
    }
}

/// When the words name a unit, what that unit's material answers: its first sentences for a
/// request to be taught it; for a question of what it is, does or how it goes, its passages'
/// answer, else (when the whole course's passages do not answer it either) its first
/// sentences.
fn named_answer(
    loaded: &LoadedCourse,
    planned: &Planned,
    reading: Reading,
    words: &str,
    whole: Option<&MaterialAnswer>,
) -> Option<MaterialAnswer> {
    if !planned.named {
        return None;
    }
    let unit = named_unit(&planned.draft.mapped)?;
    match reading {
        Reading::Request(Request::Explain) => {
            unit_answer(&loaded.course, unit, intent::explained_kind(&intent::explained_topic(words)?))
        }
        Reading::Question(kind @ (QuestionKind::Definition | QuestionKind::Process | QuestionKind::Function)) => {
            let own = loaded.index.answer(&searchable(words), kind, Some(unit)).filter(|a| a.answers);
            // Passages that do not answer it, or none: the unit's own statement of what it is.
            own.or_else(|| {
                (!whole.is_some_and(|w| w.answers)).then(|| unit_answer(&loaded.course, unit, kind)).flatten()
            })
        }
        _ => None,
    }
}

/// Units other than the focus that the learner can start now (every prerequisite with a
/// tier, short of gold themselves), in learning order, a few.
fn open_units(course: &pathwise_course::Course, snap: &VersionedSnapshot, focus: &str) -> Vec<String> {
    let snapshot = &snap.snapshot;
    course
        .learning_order()
        .into_iter()
        .filter(|u| u.id != focus && snapshot.tier(&u.id) != pathwise_course::MasteryTier::Gold)
        .filter(|u| u.prerequisites.iter().all(|p| snapshot.tier(p) != pathwise_course::MasteryTier::None))
        .take(OPEN_UNITS)
        .map(|u| u.id.clone())
        .collect()
}

/// A turn's seed for the deterministic drill: from its id's random bits.
fn seed_of(turn: TurnId) -> u64 {
    let bytes = turn.0.as_bytes();
    u64::from_le_bytes(bytes[8..16].try_into().unwrap_or([0; 8]))
}
