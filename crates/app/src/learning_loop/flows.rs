//! Teaching flows (D3): start one for a topic, read and list them, abandon one. Every step
//! of a flow (the diagnostic in `diagnostics.rs`, planning and teaching in `teaching.rs`)
//! reads the flow, does its work, and stores the flow moved on with compare-and-set: two
//! sessions stepping the same flow at once cannot both succeed.

use crate::paging::{window, Paged};
use crate::StoreHandle;
use crate::{App, AppError, AppResult};
use pathwise_domain::flow::Flow;
use pathwise_domain::lifecycle::{clean_text, MAX_TITLE_CHARS};
use pathwise_domain::{FlowId, FlowStatus, LearnerId, MapStatus};
use pathwise_store::{FlowStore, JobStore, MapStore};
use serde::Deserialize;
use utoipa::ToSchema;

/// Start learning a topic.
#[derive(Debug, Clone, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartFlow {
    #[schema(min_length = 1, max_length = 200)]
    pub topic: String,
    /// What the learner wants to be able to do; scopes the plan.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub goal: Option<String>,
    /// Whether the caller writes each step's content itself (the decomposition, the
    /// explanations, the questions, the grades of free text, with `advance`), so that the
    /// flow needs no language model. Otherwise (the default over HTTP and the CLI; over MCP,
    /// where the caller is an assistant, the default is true) a flow is refused when no
    /// model is configured, since its first step would fail.
    #[serde(default)]
    pub caller_writes_steps: Option<bool>,
}

const MAX_GOAL_CHARS: usize = 500;

impl<S: StoreHandle + FlowStore + JobStore + MapStore> App<S> {
    /// A new flow for a topic, pending: nothing asked or planned yet. Refused, storing
    /// nothing, when its steps would need a language model and none is configured.
    pub async fn flow_start(&self, learner: LearnerId, input: StartFlow) -> AppResult<Flow> {
        let topic = clean_text("topic", &input.topic, MAX_TITLE_CHARS)?;
        // A blank goal is no goal, as a form's empty field sends it.
        let goal = input.goal.as_deref().filter(|g| !g.trim().is_empty());
        let goal = goal.map(|g| clean_text("goal", g, MAX_GOAL_CHARS)).transpose()?;
        if !input.caller_writes_steps.unwrap_or(false) && !self.llm.is_configured() {
            return Err(AppError::topic_needs_model(
                "starting a topic",
                Some(
                    "start the flow with caller_writes_steps = true and write each step yourself (POST \
                     /api/flows/{id}/advance)",
                ),
            ));
        }
        let flow = Flow::start(FlowId(Self::new_id()), learner, topic, goal, self.now());
        self.store.insert_flow(&flow).await?;
        Ok(flow)
    }

    pub async fn flow_get(&self, learner: LearnerId, id: FlowId) -> AppResult<Flow> {
        Ok(self.load_flow(learner, id).await?.for_learner())
    }

    pub async fn flow_list(
        &self,
        learner: LearnerId,
        status: Option<FlowStatus>,
        offset: Option<i64>,
        limit: Option<i64>,
    ) -> AppResult<Paged<Flow>> {
        let (offset, limit) = window(offset, limit)?;
        let page = self.store.list_flows(learner, status, offset, limit).await?;
        Ok(Paged { items: page.items.iter().map(Flow::for_learner).collect(), total: page.total, offset, limit })
    }

    /// Abandon a flow, and its map if it is active; the map's pending reviews go with it.
    pub async fn flow_abandon(&self, learner: LearnerId, id: FlowId) -> AppResult<Flow> {
        let flow = self.load_flow(learner, id).await?;
        let mut next = flow.step(FlowStatus::Abandoned, self.now())?;
        next.state.question = None;
        self.store.save_flow(&next).await?;
        if let Some(map) = next.mind_map_id {
            let found = self.store.get_map(learner, map).await?;
            if found.is_some_and(|m| m.status == MapStatus::Active) {
                self.update_map_status(learner, map, MapStatus::Abandoned).await?;
            }
            self.review_jobs.sync(learner, map).await?;
        }
        Ok(next.for_learner())
    }

    pub(crate) async fn load_flow(&self, learner: LearnerId, id: FlowId) -> AppResult<Flow> {
        self.store.get_flow(learner, id).await?.ok_or_else(|| AppError::not_found("flow", id))
    }
}
