//! A session's state as stored with it (`sessions.state`), changed only by a step that
//! commits it with compare-and-set. It holds what the server must know and the learner must
//! not see before scoring (which items were planned, how each answer scored), so it is
//! never returned as is: views and context projections are built from it.

use chrono::{DateTime, Utc};
use pathwise_domain::session::widgets::{ClientAction, ClientResponse};
use pathwise_domain::{NodeId, SessionEndReason};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// The seq the next event and the next message will get.
    pub next_event: i64,
    pub next_message: i64,
    /// Drawn when the session is created; every generated item follows from it.
    pub seed: u64,
    pub started_at: Option<DateTime<Utc>>,
    /// Answers after this are refused, and the session ends when it passes.
    pub deadline: Option<DateTime<Utc>>,
    pub max_items: Option<u32>,
    /// The widget waiting for the learner.
    pub pending: Option<PendingCall>,
    /// Every answered widget, for idempotent repeats of a respond.
    pub answered: Vec<AnsweredCall>,
    /// An answer recorded by respond that the agent has not acted on yet.
    pub unprocessed: Option<String>,
    pub items_presented: u32,
    pub end_reason: Option<SessionEndReason>,
    /// What the completion reported (scores, answers), once the session completed.
    pub results: Option<serde_json::Value>,
    pub evaluation: Option<EvaluationState>,
    pub survey: Option<SurveyState>,
    pub learning: Option<LearningState>,
    pub thought: Option<ThoughtState>,
    /// Every item shown, by the opaque id the learner saw and its own id. An item's own id
    /// holds the seed it is generated from, which would tell its answer, so it never leaves
    /// the session's state.
    #[serde(default)]
    pub shown: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    pub tool_call_id: String,
    pub action: ClientAction,
    /// The item or survey question the widget asks.
    pub item_id: Option<String>,
    pub asked_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnsweredCall {
    pub tool_call_id: String,
    pub item_id: Option<String>,
    pub response: ClientResponse,
    pub asked_at: DateTime<Utc>,
    pub at: DateTime<Utc>,
}

/// How one answer scored; kept server-side until the evaluation is scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    pub item_id: String,
    pub answer: String,
    pub correct: bool,
    pub credit: f64,
    /// The canonical correct answer.
    pub expected: String,
    pub seconds: f64,
    /// Code items: tests passed, tests run and the limit that stopped the run, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationState {
    /// The planned form (fixed and random selection), in order; empty for adaptive ones.
    pub form: Vec<String>,
    /// Adaptive selection: the candidates' ids; the ability estimate follows from results.
    pub candidates: Vec<String>,
    pub results: Vec<ItemResult>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SurveyState {
    pub answers: Vec<(String, ClientResponse)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LearningState {
    /// The concepts practised and the skill blueprints for each, as resolved at creation.
    pub templates: Vec<(NodeId, Vec<String>)>,
    /// Content keys of the items presented, so that none repeats.
    pub presented_keys: Vec<String>,
    /// Concepts already introduced in this session.
    pub introduced: Vec<NodeId>,
    /// The item presented and the concept it practises.
    pub current: Option<(NodeId, String)>,
    pub results: Vec<LearningResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearningResult {
    pub node_id: NodeId,
    pub item_id: String,
    pub correct: bool,
    pub quality: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThoughtState {
    /// What the model wrote about the turns before `summarized_through` (a message seq).
    pub summary: Option<String>,
    pub summarized_through: i64,
    pub turns: u32,
}

impl SessionState {
    pub fn new(seed: u64) -> Self {
        SessionState { next_event: 1, next_message: 1, seed, ..SessionState::default() }
    }

    /// The item behind an id the learner saw (sessions stored before items had opaque ids
    /// showed the item's own id).
    pub fn item_behind<'a>(&'a self, shown: &'a str) -> &'a str {
        self.shown.iter().find(|(public, _)| public == shown).map_or(shown, |(_, item)| item.as_str())
    }

    /// The id the learner saw for an item.
    pub fn shown_id<'a>(&'a self, item: &'a str) -> &'a str {
        self.shown.iter().find(|(_, own)| own == item).map_or(item, |(public, _)| public.as_str())
    }

    pub fn answered(&self, tool_call_id: &str) -> Option<&AnsweredCall> {
        self.answered.iter().find(|a| a.tool_call_id == tool_call_id)
    }

    /// Seconds left before the deadline, if there is one (0 once it passed).
    pub fn seconds_left(&self, now: DateTime<Utc>) -> Option<i64> {
        self.deadline.map(|d| (d - now).num_seconds().max(0))
    }
}
