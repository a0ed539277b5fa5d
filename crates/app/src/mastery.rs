//! Recording responses and reading mastery: history, summaries, struggles, reviews.

use crate::paging::{window, Paged};
use crate::{App, AppError, AppResult, Store};
use pathwise_domain::lifecycle::clean_text;
use pathwise_domain::mastery::{self, MapSummary, MasteryState, Quality, Struggle, STRUGGLE_HISTORY};
use pathwise_domain::model::{Node, QuizResponse};
use pathwise_domain::{DomainError, LearnerId, MapStatus, MindMapId, NodeId, ResponseId, ResponseType};
use pathwise_store::{NewResponse, ResponseDecision, ResponseFilter};
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
    pub question_text: String,
    #[serde(default)]
    pub user_answer: Option<String>,
    /// SM-2 quality: 0 (blackout) to 5 (perfect recall).
    pub quality: i64,
    /// `diagnostic`, `teach` or `review` (the default).
    #[serde(default)]
    pub response_type: Option<ResponseType>,
    #[serde(default)]
    pub session_id: Option<Uuid>,
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

impl<S: Store> App<S> {
    /// `mastery_record_response`: the only way a response is written. The response and the
    /// node's new score, status and SM-2 state are stored in one transaction.
    pub async fn record_response(&self, learner: LearnerId, input: RecordResponse) -> AppResult<RecordedResponse> {
        let quality = Quality::new(input.quality)?;
        let response_type = input.response_type.unwrap_or_default();
        let question_text = clean_text("question_text", &input.question_text, MAX_TEXT_CHARS)?;
        if let Some(answer) = &input.user_answer {
            if answer.chars().count() > MAX_TEXT_CHARS {
                return Err(AppError::invalid("user_answer", format!("must be at most {MAX_TEXT_CHARS} characters")));
            }
        }
        let fsrs = self.fsrs_before(learner, input.node_id, response_type).await?;
        let now = self.now();
        let new = NewResponse {
            id: ResponseId(Self::new_id()),
            node_id: input.node_id,
            mind_map_id: input.mind_map_id,
            question_text,
            user_answer: input.user_answer,
            quality: quality.value(),
            response_type,
            session_id: input.session_id,
            responded_at: now,
        };
        let decide = move |ctx: &pathwise_store::ResponseContext| {
            if matches!(ctx.map_status, MapStatus::Draft | MapStatus::Abandoned) {
                return Err(DomainError::MapNotOpen {
                    status: ctx.map_status,
                    operation: "recording a response",
                    needs: "active or completed",
                });
            }
            let outcome =
                mastery::apply_response(&MasteryState::of(&ctx.node), &ctx.history, quality, response_type, now);
            let mut node = ctx.node.clone();
            outcome.state.write_to(&mut node);
            node.updated_at = now;
            Ok(ResponseDecision { node, became_mastered: outcome.became_mastered, history: outcome.history })
        };
        let (response, node) = self.store.record_response(learner, new, decide).await.map_err(|e| match e {
            pathwise_store::StoreError::NotFound(_) => AppError::not_found("node", input.node_id),
            other => other.into(),
        })?;
        let node = match fsrs {
            Some(before) => self.apply_fsrs(learner, before, quality.value(), node).await?,
            None => node,
        };
        self.review_jobs_changed(learner, response.mind_map_id);
        Ok(RecordedResponse { id: response.id, response, node })
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
        let agg = self.get_map(learner, map).await?;
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
        let agg = self.get_map(learner, map).await?;
        Ok(mastery::summarize(&agg.nodes, &struggles))
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
