//! The teaching flow of one map (learning-loop-design.md D3): pending -> diagnosing ->
//! planning -> teaching -> quizzing -> reviewing, back to teaching while the frontier has
//! more, completed once every node is mastered; abandoned from any unfinished state. Each
//! session reads the flow, does one step and moves it on; the store guards each move with
//! the version read (compare-and-set), so two sessions cannot both take the same step.

use crate::curriculum::{Decomposition, DiagnosticResult, GoalFit};
use crate::diagnostic::Probe;
use crate::edit::{MAX_DESCRIPTION_CHARS, MAX_LABEL_CHARS};
use crate::question::{AnswerGrade, Question};
use crate::status::{FlowStatus, ResponseType};
use crate::{DomainError, FlowId, LearnerId, MindMapId, NodeId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The states a flow may move to from `from`.
pub fn allowed_from(from: FlowStatus) -> &'static [FlowStatus] {
    use FlowStatus::*;
    match from {
        Pending => &[Diagnosing, Abandoned],
        Diagnosing => &[Planning, Abandoned],
        Planning => &[Teaching, Abandoned],
        Teaching => &[Quizzing, Abandoned],
        Quizzing => &[Reviewing, Abandoned],
        Reviewing => &[Teaching, Completed, Abandoned],
        Completed | Abandoned => &[],
    }
}

/// Check one move of a flow: only the transitions of the state machine are allowed.
pub fn transition(from: FlowStatus, to: FlowStatus) -> Result<FlowStatus, DomainError> {
    let allowed = allowed_from(from);
    if allowed.contains(&to) {
        return Ok(to);
    }
    Err(DomainError::invalid_transition("status", from, to, allowed))
}

/// Flows idle longer than this are abandoned by the weekly stale-flow check.
pub const STALE_AFTER_DAYS: i64 = 30;

/// Whether a flow last active at `last_activity` is stale at `now`.
pub fn is_stale(status: FlowStatus, last_activity: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    !allowed_from(status).is_empty() && now - last_activity > chrono::Duration::days(STALE_AFTER_DAYS)
}

/// One learner's way through one topic (D3's state value): its status and version for
/// compare-and-set, the map once planned, and what the current step needs to continue.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct Flow {
    pub id: FlowId,
    #[serde(skip)]
    pub learner_id: LearnerId,
    pub topic: String,
    pub goal: Option<String>,
    pub mind_map_id: Option<MindMapId>,
    pub status: FlowStatus,
    /// Incremented by every stored change; a change read at another version is refused.
    pub version: i64,
    pub session_count: i64,
    pub state: FlowState,
    pub started_at: DateTime<Utc>,
    pub last_session_at: DateTime<Utc>,
}

/// What a flow's next step needs to know.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct FlowState {
    pub current_node_id: Option<NodeId>,
    pub current_phase: Option<Phase>,
    /// The diagnostic, once started: its inventory and the probes answered so far.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub diagnostic: Option<DiagnosticState>,
    /// What the diagnostic found, as handed to planning.
    #[serde(default)]
    pub diagnostic_results: Vec<DiagnosticResult>,
    /// The question waiting for the learner's answer, with its key.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub question: Option<PendingQuestion>,
    /// The question answered last and its grade: the same answer sent again is answered
    /// with that grade, and counts once.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub last_answered: Option<AnsweredQuestion>,
}

/// A question answered, by its id, with the grade it got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct AnsweredQuestion {
    pub question_id: String,
    pub grade: AnswerGrade,
}

/// What an answer naming `question_id` answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AnswerTarget<'a> {
    /// The question waiting.
    Waiting(&'a PendingQuestion),
    /// The question answered last: the answer is a replay of that one.
    Answered(&'a AnsweredQuestion),
    /// No question waits (one of the caller's own may be answered, where the flow allows).
    Nothing,
}

/// Where within a step the flow is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Probing,
    Explaining,
    Questioning,
    Reviewing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct PendingQuestion {
    /// The question's id, which an answer names (`question_id`): an answer is taken only for
    /// the question waiting, once. Questions asked before ids existed have none.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub id: Option<String>,
    #[serde(flatten)]
    pub question: Question,
    /// The inventory rank a diagnostic probe asks about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rank: Option<usize>,
    /// The node a quiz or review question asks about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub node_id: Option<NodeId>,
    pub response_type: ResponseType,
    pub asked_at: DateTime<Utc>,
}

/// A diagnostic inventory spans the topic in this many concepts (D4: 10-15; fewer are
/// accepted for narrow topics, as long as a search has room to move).
pub const MIN_INVENTORY: usize = 5;
pub const MAX_INVENTORY: usize = 15;

/// A concept of the diagnostic's inventory, ranked easiest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct InventoryConcept {
    #[schema(min_length = 1, max_length = 200)]
    pub label: String,
    #[serde(default)]
    #[schema(max_length = 4000)]
    pub description: Option<String>,
}

/// An inventory as a diagnostic can use it, whoever wrote it: labels trimmed, present and
/// distinct, and enough concepts for the search to move. The error completes "the
/// inventory ...".
pub fn checked_inventory(mut concepts: Vec<InventoryConcept>) -> Result<Vec<InventoryConcept>, String> {
    for concept in &mut concepts {
        concept.label = concept.label.trim().to_string();
    }
    if !(MIN_INVENTORY..=MAX_INVENTORY).contains(&concepts.len()) {
        return Err(format!(
            "has {} concepts; a diagnostic needs {MIN_INVENTORY} to {MAX_INVENTORY}, easiest first",
            concepts.len()
        ));
    }
    let mut labels: Vec<String> = concepts.iter().map(|c| c.label.to_lowercase()).collect();
    if labels.iter().any(|l| l.is_empty()) {
        return Err("has a concept without a label".into());
    }
    // Bounded like a node's: they stay in the flow's state and are matched to the plan's labels.
    if let Some(long) = concepts.iter().find(|c| c.label.chars().count() > MAX_LABEL_CHARS) {
        return Err(format!("has a label longer than {MAX_LABEL_CHARS} characters: '{}...'", short(&long.label)));
    }
    if concepts.iter().any(|c| c.description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS)) {
        return Err(format!("has a description longer than {MAX_DESCRIPTION_CHARS} characters"));
    }
    labels.sort();
    labels.dedup();
    if labels.len() != concepts.len() {
        return Err("names a concept twice (labels are compared without case)".into());
    }
    Ok(concepts)
}

fn short(text: &str) -> String {
    text.chars().take(40).collect()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct DiagnosticState {
    pub inventory: Vec<InventoryConcept>,
    pub probes: Vec<AnsweredProbe>,
    /// The caller (an assistant driving the flow) wrote the inventory and writes the probes;
    /// Pathwise's model is not asked for them. Flows stored before it existed read `false`.
    #[serde(default)]
    pub caller_writes: bool,
}

/// A probe asked and graded, kept until the probes are recorded as diagnostic responses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct AnsweredProbe {
    pub rank: usize,
    pub concept: String,
    pub question_text: String,
    pub answer: String,
    pub quality: u8,
    pub answered_at: DateTime<Utc>,
}

impl DiagnosticState {
    pub fn probes(&self) -> Vec<Probe> {
        self.probes.iter().map(|p| Probe { rank: p.rank, quality: p.quality }).collect()
    }

    /// The rank to probe next, or `None` once the diagnostic has seen enough.
    pub fn next_rank(&self) -> Option<usize> {
        crate::diagnostic::next_probe(self.inventory.len(), &self.probes())
    }

    /// Results for the concepts the diagnostic inferred without asking (known, below the
    /// boundary); asked concepts are recorded as diagnostic responses instead.
    pub fn inferred_results(&self) -> Vec<DiagnosticResult> {
        let labels: Vec<String> = self.inventory.iter().map(|c| c.label.clone()).collect();
        let asked: Vec<&str> = self.probes.iter().map(|p| p.concept.as_str()).collect();
        crate::diagnostic::results(&labels, &self.probes())
            .into_iter()
            .filter(|r| !asked.contains(&r.node_label.as_str()))
            .collect()
    }

    /// Everything the diagnostic found, asked and inferred.
    pub fn results(&self) -> Vec<DiagnosticResult> {
        let labels: Vec<String> = self.inventory.iter().map(|c| c.label.clone()).collect();
        crate::diagnostic::results(&labels, &self.probes())
    }
}

impl Flow {
    /// Whether a caller's decomposition fits the goal the flow was started with: with a
    /// goal it names the concept that achieves it (`goal_node`), without one it names none.
    /// The goal is the flow's, not the request's, so a mismatch is at odds with the flow
    /// (409) rather than a malformed request.
    pub fn fits_goal(&self, decomposition: &Decomposition) -> Result<(), DomainError> {
        match decomposition.goal_fit(self.goal.as_deref()) {
            GoalFit::GoalWithoutNode { goal } => Err(DomainError::conflict_at(
                "decomposition.goal_node",
                format!("this flow's goal is '{goal}': name the concept that achieves it (goal_node)"),
            )),
            GoalFit::NodeWithoutGoal => Err(DomainError::conflict_at(
                "decomposition.goal_node",
                "this flow was started without a goal; leave goal_node out",
            )),
            GoalFit::Both { .. } | GoalFit::Neither => Ok(()),
        }
    }

    /// A new flow for a topic: pending, nothing asked yet.
    pub fn start(id: FlowId, learner_id: LearnerId, topic: String, goal: Option<String>, now: DateTime<Utc>) -> Self {
        Flow {
            id,
            learner_id,
            topic,
            goal,
            mind_map_id: None,
            status: FlowStatus::Pending,
            version: 0,
            session_count: 0,
            state: FlowState::default(),
            started_at: now,
            last_session_at: now,
        }
    }

    /// The flow after one more session step, moved to `to` (which may be where it is).
    pub fn step(&self, to: FlowStatus, now: DateTime<Utc>) -> Result<Flow, DomainError> {
        if to != self.status {
            transition(self.status, to)?;
        } else if allowed_from(self.status).is_empty() {
            return Err(DomainError::Conflict {
                message: format!(
                    "the flow is {}; {} takes no more steps",
                    self.status,
                    crate::wording::with_article(&format!("{} flow", self.status))
                ),
            });
        }
        let mut next = self.clone();
        next.status = to;
        next.version += 1;
        next.session_count += 1;
        next.last_session_at = now;
        Ok(next)
    }

    /// The flow as the learner may see it: a waiting question without its key.
    pub fn for_learner(&self) -> Flow {
        let mut shown = self.clone();
        if let Some(pending) = &mut shown.state.question {
            pending.question = pending.question.for_learner();
        }
        shown
    }

    /// Which question an answer naming `question_id` answers: the one waiting, or, sent
    /// again, the one answered last (a replay, answered with its first grade). An answer to
    /// a question with an id must name it; any other id is refused as at odds with the
    /// flow's state (409): the request is well formed, the question is not waiting.
    pub fn answer_target(&self, question_id: Option<&str>) -> Result<AnswerTarget<'_>, DomainError> {
        let waiting = self.state.question.as_ref();
        let answered = self.state.last_answered.as_ref();
        match question_id.map(str::trim) {
            Some(id) if waiting.and_then(|q| q.id.as_deref()) == Some(id) => {
                Ok(AnswerTarget::Waiting(waiting.expect("matched")))
            }
            Some(id) if answered.is_some_and(|a| a.question_id == id) => {
                Ok(AnswerTarget::Answered(answered.expect("matched")))
            }
            Some(id) => Err(DomainError::conflict_at(
                "question_id",
                match waiting.and_then(|q| q.id.as_deref()) {
                    Some(current) => format!("'{id}' is not the question waiting for an answer; that is '{current}'"),
                    None => format!("'{id}' is not a question waiting for an answer here"),
                },
            )),
            None => match waiting {
                Some(PendingQuestion { id: Some(current), .. }) => Err(DomainError::conflict_at(
                    "question_id",
                    format!("is missing: name the question you answer, '{current}' (the step's question_id)"),
                )),
                Some(q) => Ok(AnswerTarget::Waiting(q)),
                None => Ok(AnswerTarget::Nothing),
            },
        }
    }

    /// Refuse a step unless the flow is in one of `expected`.
    pub fn expect(&self, operation: &str, expected: &[FlowStatus]) -> Result<(), DomainError> {
        if expected.contains(&self.status) {
            return Ok(());
        }
        let names: Vec<&str> = expected.iter().map(FlowStatus::as_str).collect();
        Err(DomainError::Conflict {
            message: format!("{operation}: the flow is {}; this step needs it {}", self.status, names.join(" or ")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone, Utc};
    use FlowStatus::*;

    const ALL: [FlowStatus; 8] = [Pending, Diagnosing, Planning, Teaching, Quizzing, Reviewing, Completed, Abandoned];

    fn inventory(labels: &[&str]) -> Vec<InventoryConcept> {
        labels.iter().map(|l| InventoryConcept { label: l.to_string(), description: None }).collect()
    }

    #[test]
    fn a_callers_decomposition_names_the_goals_concept_only_when_the_flow_has_a_goal() {
        use crate::curriculum::{ConceptSpec, Decomposition};
        use crate::error::ErrorKind;
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let graph = |goal_node: Option<&str>| Decomposition {
            root: "Graphs".into(),
            nodes: vec![ConceptSpec { label: "Graphs".into(), description: None, effort_minutes: 10 }],
            edges: vec![],
            goal_node: goal_node.map(str::to_string),
        };
        let with_goal = Flow::start(
            FlowId(uuid::Uuid::nil()),
            LearnerId(uuid::Uuid::nil()),
            "Graphs".into(),
            Some("trace a BFS".into()),
            now,
        );
        let without = Flow::start(
            FlowId(uuid::Uuid::nil()),
            LearnerId(uuid::Uuid::nil()),
            "Graphs".into(),
            Some("  ".into()),
            now,
        );
        assert_eq!(with_goal.fits_goal(&graph(Some("Graphs"))), Ok(()));
        assert_eq!(without.fits_goal(&graph(None)), Ok(()));
        for (flow, graph, says) in [
            (&with_goal, graph(None), "this flow's goal is 'trace a BFS'"),
            (&without, graph(Some("Graphs")), "started without a goal"),
        ] {
            let refused = flow.fits_goal(&graph).unwrap_err();
            assert_eq!(refused.kind(), ErrorKind::Conflict, "{refused}");
            assert_eq!(refused.details()["field"], "decomposition.goal_node");
            assert!(refused.to_string().contains(says), "{refused}");
        }
    }

    #[test]
    fn an_inventory_is_trimmed_and_refused_when_too_short_unlabelled_or_repeated() {
        let checked = checked_inventory(inventory(&[" Counting ", "Adding", "Carrying", "Subtracting", "Borrowing"]));
        assert_eq!(checked.unwrap()[0].label, "Counting");
        let short = checked_inventory(inventory(&["Counting", "Adding"])).unwrap_err();
        assert!(short.contains("has 2 concepts") && short.contains("5 to 15"), "{short}");
        let blank =
            checked_inventory(inventory(&["Counting", " ", "Carrying", "Subtracting", "Borrowing"])).unwrap_err();
        assert!(blank.contains("without a label"), "{blank}");
        let twice =
            checked_inventory(inventory(&["Counting", "adding", "Adding ", "Subtracting", "Borrowing"])).unwrap_err();
        assert!(twice.contains("twice"), "{twice}");
        let long = "x".repeat(MAX_LABEL_CHARS + 1);
        let too_long =
            checked_inventory(inventory(&["Counting", &long, "Carrying", "Subtracting", "Borrowing"])).unwrap_err();
        assert!(too_long.contains("longer than 200"), "{too_long}");
    }

    #[test]
    fn the_happy_path_runs_from_pending_to_completed_through_a_teaching_loop() {
        let path =
            [Pending, Diagnosing, Planning, Teaching, Quizzing, Reviewing, Teaching, Quizzing, Reviewing, Completed];
        for step in path.windows(2) {
            assert_eq!(transition(step[0], step[1]), Ok(step[1]), "{} -> {}", step[0], step[1]);
        }
    }

    #[test]
    fn every_unfinished_flow_can_be_abandoned_and_finished_ones_are_final() {
        for from in ALL {
            let finished = matches!(from, Completed | Abandoned);
            assert_eq!(transition(from, Abandoned).is_ok(), !finished, "{from}");
            if finished {
                assert!(ALL.iter().all(|&to| transition(from, to).is_err()));
            }
        }
    }

    #[test]
    fn a_skipped_step_is_refused_naming_what_is_allowed() {
        let error = transition(Pending, Teaching).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("pending") && message.contains("teaching") && message.contains("diagnosing"),
            "{message}"
        );
        assert!(transition(Teaching, Completed).is_err(), "completion comes after a review");
        assert!(transition(Completed, Teaching).unwrap_err().to_string().contains("final"));
    }

    #[test]
    fn flows_idle_for_more_than_thirty_days_are_stale_unless_finished() {
        let last = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        assert!(!is_stale(Teaching, last, last + Duration::days(30)));
        assert!(is_stale(Teaching, last, last + Duration::days(31)));
        assert!(!is_stale(Completed, last, last + Duration::days(400)));
        assert!(!is_stale(Abandoned, last, last + Duration::days(400)));
    }
}
