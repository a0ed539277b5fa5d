//! The review step of a flow: a concept of its map that SM-2 says is due is asked again,
//! the most overdue unless the caller names one, within the learner's daily cap. With
//! nothing due, the flow says when the next review falls due.

use crate::learning_loop::grading::caller_question;
use crate::learning_loop::teaching::{planned_map, TeachingStep, REVIEW};
use crate::stores::TeachingStores;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::flow::{Flow, Phase};
use pathwise_domain::model::Node;
use pathwise_domain::question::Question;
use pathwise_domain::{FlowId, FlowStatus, LearnerId, MindMapId, NodeId, ResponseType};
use serde_json::json;

impl<S: TeachingStores> App<S> {
    /// Ask a review of the flow's map, if any is due: of `node_id` (which must be due), or
    /// the most overdue; with `question`, or the model's when there is none.
    pub(crate) async fn review_step(
        &self,
        learner: LearnerId,
        id: FlowId,
        node_id: Option<NodeId>,
        question: Option<Question>,
    ) -> AppResult<TeachingStep> {
        let flow = self.load_flow(learner, id).await?;
        flow.expect("review", &[FlowStatus::Quizzing, FlowStatus::Reviewing])?;
        let map_id = planned_map(&flow)?;
        let due = self.due_reviews(learner, map_id).await?;
        let node = match node_id {
            Some(wanted) => Some(due.pick(wanted)?),
            None => due.nodes.into_iter().next(),
        };
        let Some(node) = node else {
            return self.nothing_due(learner, &flow, map_id).await;
        };
        let question = match question {
            Some(question) => caller_question(question, &node.label)?,
            None => {
                let map = self.get_map(learner, map_id).await?;
                let context = self.step_context(learner, &flow, &map, Some(node.id)).await?;
                let asked = json!({ "concept": node.label, "context": context, "repetitions": node.repetitions,
                                    "ease_factor": format!("{:.2}", node.ease_factor) });
                self.model_question(learner, REVIEW, "review", &node, asked).await?
            }
        };
        self.ask(&flow, FlowStatus::Reviewing, Phase::Reviewing, node, question, ResponseType::Review).await
    }

    /// The map's concepts due for review now, most overdue first; none once today's cap is
    /// reached.
    async fn due_reviews(&self, learner: LearnerId, map_id: MindMapId) -> AppResult<DueReviews> {
        let mut nodes = self.store.pending_reviews(learner, Some(map_id), self.now()).await?;
        let capped = self.reviews_left_today(learner).await? == Some(0);
        if capped {
            // Today's reviews are done: the rest wait for tomorrow.
            nodes.clear();
        }
        Ok(DueReviews { nodes, capped })
    }

    async fn nothing_due(&self, learner: LearnerId, flow: &Flow, map_id: MindMapId) -> AppResult<TeachingStep> {
        let mut next = flow.step(FlowStatus::Reviewing, self.now())?;
        next.state.question = None;
        self.store.save_flow(&next).await?;
        let map = self.get_map(learner, map_id).await?;
        let mut step = TeachingStep::of(&next);
        step.next_review_at = map.nodes.iter().filter_map(|n| n.next_review_at).min();
        Ok(step)
    }
}

/// Reviews due in a map now.
struct DueReviews {
    nodes: Vec<Node>,
    /// Today's reviews are done (the learner's daily cap).
    capped: bool,
}

impl DueReviews {
    /// The due concept `wanted`, or an error naming what is due.
    fn pick(mut self, wanted: NodeId) -> AppResult<Node> {
        match self.nodes.iter().position(|n| n.id == wanted) {
            Some(at) => Ok(self.nodes.swap_remove(at)),
            None => Err(self.not_due(wanted)),
        }
    }

    fn not_due(&self, wanted: NodeId) -> AppError {
        let due: Vec<String> = self.nodes.iter().take(5).map(|n| format!("'{}' ({})", n.label, n.id)).collect();
        let why = match (self.capped, due.is_empty()) {
            (true, _) => {
                "today's reviews are done (the daily review cap is reached); the rest wait for tomorrow".into()
            }
            (false, true) => "nothing is due now; leave node_id out to see when the next review falls due".into(),
            (false, false) => format!("due now, most overdue first: {}", due.join(", ")),
        };
        let ids: Vec<NodeId> = self.nodes.iter().map(|n| n.id).collect();
        AppError::new(
            ErrorKind::Conflict,
            ErrorCode::NotDue,
            format!("review: node_id {wanted} is not due for review in this flow's map; {why}"),
        )
        .with_details(json!({ "field": "node_id", "due": ids }))
    }
}
