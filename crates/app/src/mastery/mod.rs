//! Recording responses and reading mastery: history, summaries, struggles, reviews; the
//! learner's preferences, and the review log export. An FSRS learner's response is
//! rescheduled by the FSRS service (`crate::fsrs`).

pub(crate) mod export;
pub mod preferences;

use crate::paging::{window, Paged};
use crate::stores::MasteryStores;
use crate::{App, AppError, AppResult};
use pathwise_domain::evidence::{Earned, Evidence};
use pathwise_domain::lifecycle::clean_text;
use pathwise_domain::mastery::{self, MapSummary, Quality, Struggle, STRUGGLE_HISTORY};
use pathwise_domain::model::{Node, QuizResponse};
use pathwise_domain::recording::ResponseRules;
use pathwise_domain::{LearnerId, MindMapId, NodeId, ResponseId, ResponseType};
use pathwise_store::{NewResponse, ResponseFilter, StoreError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

pub const MAX_TEXT_CHARS: usize = 20_000;
pub const MAX_HORIZON_DAYS: f64 = 3_650.0;

/// One answer to one question about one concept.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordResponse {
    pub node_id: NodeId,
    pub mind_map_id: MindMapId,
    #[schema(min_length = 1, max_length = 20000)]
    pub question_text: String,
    #[serde(default)]
    pub user_answer: Option<String>,
    /// SM-2 quality: 0 (blackout) to 5 (perfect recall), the learner's own rating of their
    /// recall (5 is FSRS's Easy).
    #[schema(minimum = 0, maximum = 5)]
    pub quality: i64,
    /// `diagnostic`, `teach` or `review` (the default).
    #[serde(default)]
    pub response_type: Option<ResponseType>,
    #[serde(default)]
    pub session_id: Option<Uuid>,
    /// A key of the caller's (or the `Idempotency-Key` header): a retry with the same key
    /// and the same response finds the response stored the first time instead of storing
    /// another; the same key with another response is refused. 1-255 printable characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 255, pattern = "^[!-~]+$")]
    pub idempotency_key: Option<String>,
}

impl RecordResponse {
    pub fn new(
        node_id: NodeId,
        mind_map_id: MindMapId,
        question_text: impl Into<String>,
        user_answer: Option<&str>,
        quality: i64,
        response_type: Option<ResponseType>,
    ) -> Self {
        RecordResponse {
            node_id,
            mind_map_id,
            question_text: question_text.into(),
            user_answer: user_answer.map(String::from),
            quality,
            response_type,
            session_id: None,
            idempotency_key: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema, schemars::JsonSchema)]
pub struct RecordedResponse {
    pub id: ResponseId,
    pub response: QuizResponse,
    /// The node after the response: score, status and review schedule.
    pub node: Node,
}

/// A response checked against its request and ready for the store: the row to write and
/// the mastery rules to write it by.
pub(crate) struct PreparedResponse {
    pub new: NewResponse,
    pub rules: ResponseRules,
    pub fsrs: Option<crate::fsrs::FsrsBefore>,
}

/// A response recorded, or found again by its idempotency key.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub recorded: RecordedResponse,
    /// The key had stored this response before: nothing new was written.
    pub replayed: bool,
}

impl<S: MasteryStores> App<S> {
    /// `mastery_record_response`: the only way a response is written. The response and the
    /// node's new score, status and SM-2 state are stored in one transaction.
    pub async fn record_response(&self, learner: LearnerId, input: RecordResponse) -> AppResult<RecordedResponse> {
        Ok(self.record_response_once(learner, input).await?.recorded)
    }

    /// `mastery_record_response`, saying whether the response was stored now or found by its
    /// idempotency key: the key is stored with the response, in its transaction, so a retry
    /// (after a lost reply, a timeout, a crash after the commit) finds that response instead
    /// of storing another. The same key with another response is refused.
    pub async fn record_response_once(&self, learner: LearnerId, input: RecordResponse) -> AppResult<Recorded> {
        let earned = Evidence::OwnRating(Quality::new(input.quality)?).earned();
        self.record_earned_once(learner, input, earned).await
    }

    /// A response to a question Pathwise asked, with what its `evidence` earns (its
    /// `quality` is set from that).
    pub(crate) async fn record_answer(
        &self,
        learner: LearnerId,
        input: RecordResponse,
        evidence: Evidence,
    ) -> AppResult<RecordedResponse> {
        Ok(self.record_answer_once(learner, input, evidence).await?.recorded)
    }

    /// [`App::record_answer`], saying whether the response was stored now or found by its
    /// idempotency key.
    pub(crate) async fn record_answer_once(
        &self,
        learner: LearnerId,
        input: RecordResponse,
        evidence: Evidence,
    ) -> AppResult<Recorded> {
        let earned = evidence.earned();
        let input = RecordResponse { quality: i64::from(earned.quality.value()), ..input };
        self.record_earned_once(learner, input, earned).await
    }

    async fn record_earned_once(
        &self,
        learner: LearnerId,
        input: RecordResponse,
        earned: Earned,
    ) -> AppResult<Recorded> {
        let key = input.idempotency_key.clone();
        if let Some(key) = &key {
            crate::idempotency::check_key(key)?;
        }
        // No lookup first: the key is unique in the store, so a retry is refused by the
        // write itself and then found; a first request (nearly all of them) pays nothing. The
        // request is kept only where a duplicate is possible, to compare it with the first.
        let asked = key.as_ref().map(|_| input.clone());
        let node = input.node_id;
        let PreparedResponse { new, rules, fsrs } = self.prepare_response(learner, input, earned).await?;
        let written = self.store.record_response(learner, new, move |ctx| rules.decide(ctx)).await;
        let written = match (written, key, asked) {
            // Another request with the same key got there first.
            (Err(StoreError::Duplicate(_)), Some(key), Some(asked)) => {
                let found =
                    self.store.response_by_key(learner, &key).await?.ok_or_else(|| {
                        AppError::internal("a response refused as a duplicate is not found by its key")
                    })?;
                return self.replayed(learner, &asked, found).await;
            }
            (Err(StoreError::NotFound(_)), _, _) => return Err(AppError::not_found("node", node)),
            (other, _, _) => other?,
        };
        let recorded = self.finish_response(learner, fsrs, written).await?;
        Ok(Recorded { recorded, replayed: false })
    }

    /// Check a response's request and make it ready for the store, with what it earned.
    pub(crate) async fn prepare_response(
        &self,
        learner: LearnerId,
        input: RecordResponse,
        earned: Earned,
    ) -> AppResult<PreparedResponse> {
        let Earned { quality, rating } = earned;
        let response_type = input.response_type.unwrap_or_default();
        let question_text = clean_text("question_text", &input.question_text, MAX_TEXT_CHARS)?;
        if let Some(answer) = &input.user_answer {
            if answer.chars().count() > MAX_TEXT_CHARS {
                return Err(AppError::invalid("user_answer", format!("must be at most {MAX_TEXT_CHARS} characters")));
            }
        }
        if let Some(session) = input.session_id {
            // A response may cite only the learner's own session, thread or flow.
            if !self.store.owns_session(learner, session).await? {
                return Err(AppError::not_found("session", session)
                    .with_details(serde_json::json!({ "field": "session_id", "session_id": session })));
            }
        }
        let fsrs = self.fsrs.before(learner, input.node_id, response_type).await?;
        let now = self.now();
        let new = NewResponse {
            response: QuizResponse {
                id: ResponseId(Self::new_id()),
                node_id: input.node_id,
                mind_map_id: input.mind_map_id,
                question_text,
                user_answer: input.user_answer,
                quality: quality.value(),
                rating,
                response_type,
                session_id: input.session_id,
                responded_at: now,
            },
            idempotency_key: input.idempotency_key,
        };
        Ok(PreparedResponse { new, rules: ResponseRules { quality, response_type, now, floor: None }, fsrs })
    }

    /// What follows a stored response: FSRS's schedule for a learner who chose it, and the
    /// map's review jobs.
    pub(crate) async fn finish_response(
        &self,
        learner: LearnerId,
        fsrs: Option<crate::fsrs::FsrsBefore>,
        (response, node): (QuizResponse, Node),
    ) -> AppResult<RecordedResponse> {
        let node = match fsrs {
            Some(before) => self.fsrs.apply(learner, before, response.rating, node).await?,
            None => node,
        };
        self.review_jobs.changed(learner, response.mind_map_id);
        Ok(RecordedResponse { id: response.id, response, node })
    }

    /// A response found by its key: the same request answers it again (with the node as it
    /// is now); another request with the same key is refused.
    async fn replayed(&self, learner: LearnerId, input: &RecordResponse, found: QuizResponse) -> AppResult<Recorded> {
        let same = found.node_id == input.node_id
            && found.mind_map_id == input.mind_map_id
            && found.question_text == input.question_text.trim()
            && found.user_answer == input.user_answer
            && i64::from(found.quality) == input.quality
            && found.response_type == input.response_type.unwrap_or_default()
            && found.session_id == input.session_id;
        if !same {
            return Err(crate::idempotency::reused_key_error());
        }
        let node = self
            .store
            .get_node(learner, found.node_id)
            .await?
            .ok_or_else(|| AppError::not_found("node", found.node_id))?;
        Ok(Recorded { recorded: RecordedResponse { id: found.id, response: found, node }, replayed: true })
    }

    /// `mastery_get_node_history`: newest first, all of it unless `limit` is given.
    pub async fn node_history(
        &self,
        learner: LearnerId,
        node: NodeId,
        limit: Option<i64>,
    ) -> AppResult<Vec<QuizResponse>> {
        if let Some(limit) = limit {
            if limit < 1 {
                return Err(AppError::invalid("limit", format!("{limit} is not allowed; limit is 1 or more")));
            }
        }
        self.store.node_history(learner, node, limit).await?.ok_or_else(|| AppError::not_found("node", node))
    }

    /// `mastery_detect_struggles`, in learning order.
    pub async fn detect_struggles(&self, learner: LearnerId, map: MindMapId) -> AppResult<Vec<Struggle>> {
        let agg = self.whole_map(learner, map).await?;
        let recent = self.store.recent_qualities(learner, map, STRUGGLE_HISTORY as i64).await?;
        Ok(agg
            .nodes
            .iter()
            .filter_map(|node| {
                let qualities = recent.get(&node.id)?;
                let reasons = mastery::struggle_reasons(node.mastery_status, qualities);
                (!reasons.is_empty()).then(|| Struggle::new(node, reasons))
            })
            .collect())
    }

    /// `mastery_get_map_summary`, computed from the current state.
    pub async fn map_summary(&self, learner: LearnerId, map: MindMapId) -> AppResult<MapSummary> {
        let struggles = self.detect_struggles(learner, map).await?;
        let agg = self.whole_map(learner, map).await?;
        let mut summary = mastery::summarize(&agg.nodes, &struggles);
        summary.tiers = self.course_tiers(learner, &agg.map).await?;
        Ok(summary)
    }

    /// Nodes of active maps due for review now, or within `horizon_days`.
    pub async fn pending_reviews(
        &self,
        learner: LearnerId,
        map: Option<MindMapId>,
        horizon_days: Option<f64>,
    ) -> AppResult<Vec<Node>> {
        let horizon = horizon_days.unwrap_or(0.0);
        if !(0.0..=MAX_HORIZON_DAYS).contains(&horizon) {
            return Err(AppError::invalid(
                "horizon_days",
                format!("{horizon} is not allowed; the horizon is from 0 to {MAX_HORIZON_DAYS} days"),
            ));
        }
        if let Some(map) = map {
            self.store.get_map(learner, map).await?.ok_or_else(|| AppError::not_found("mind map", map))?;
        }
        let until = pathwise_domain::srs::due_at(self.now(), horizon);
        let mut due = self.store.pending_reviews(learner, map, until).await?;
        if let Some(left) = self.reviews_left_today(learner).await? {
            due.truncate(left);
        }
        Ok(due)
    }

    pub async fn list_responses(
        &self,
        learner: LearnerId,
        filter: ResponseFilter,
        offset: Option<i64>,
        limit: Option<i64>,
    ) -> AppResult<Paged<QuizResponse>> {
        let (offset, limit) = window(offset, limit)?;
        let page = self.store.list_responses(learner, &filter, offset, limit).await?;
        Ok(Paged { items: page.items, total: page.total, offset, limit })
    }
}
