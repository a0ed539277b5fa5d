//! The per-turn policy (policy-tutor.md PF-3.2 to PF-3.4): which unit to tutor, what blocks
//! it, which units the model may touch and which actions it may choose, computed from the
//! snapshot, the course DAG and the exam service's statuses alone.

use crate::course::Course;
use crate::pack::Tier;
use crate::scoring::{unit_priority_score, ScoreInputs};
use crate::snapshot::{MappedUnit, StudentSnapshot};
use crate::tier::{desired_exam_tier, MasteryTier};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A mapping at least this sure makes its unit the turn's target.
pub const CONFIDENT_MAPPING: f64 = 0.55;
/// Below this, a unit does not count as a match at all.
pub const AMBIGUOUS_MAPPING: f64 = 0.1;
/// A unit that is the only match names itself from this confidence.
pub const LONE_MAPPING: f64 = 0.25;
/// At most this many units are in scope for a turn.
pub const MAX_SCOPED_UNITS: usize = 6;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Action {
    SocraticQuestion,
    ConceptCard,
    DrillCard,
    ExamBlock,
}

impl Action {
    pub const ALL: [Action; 4] = [Action::SocraticQuestion, Action::ConceptCard, Action::DrillCard, Action::ExamBlock];

    pub fn name(self) -> &'static str {
        match self {
            Action::SocraticQuestion => "SOCRATIC_QUESTION",
            Action::ConceptCard => "CONCEPT_CARD",
            Action::DrillCard => "DRILL_CARD",
            Action::ExamBlock => "EXAM_BLOCK",
        }
    }

    pub fn parse(text: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.name() == text)
    }
}

/// Whether an exam question of the desired tier can be attempted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Availability {
    Available,
    Locked,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Constraints {
    pub max_concept_words: u32,
    pub max_worked_examples: u32,
    pub drill_max_steps: u32,
}

impl Default for Constraints {
    fn default() -> Constraints {
        Constraints { max_concept_words: 170, max_worked_examples: 1, drill_max_steps: 2 }
    }
}

/// `TutorPolicy`: computed every turn, never stored as such (the turn log keeps its parts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TutorPolicy {
    pub turn_id: String,
    pub focus_unit_id: String,
    pub primary_target_unit_id: String,
    pub prereq_blocking_unit_id: Option<String>,
    pub scoped_unit_ids: Vec<String>,
    pub allowed_actions: Vec<Action>,
    pub stuck: bool,
    pub exam_ready: bool,
    pub desired_exam_tier: Tier,
    pub exam_availability: Availability,
    pub constraints: Constraints,
}

impl TutorPolicy {
    pub fn allows(&self, action: Action) -> bool {
        self.allowed_actions.contains(&action)
    }

    pub fn in_scope(&self, unit: &str) -> bool {
        self.scoped_unit_ids.iter().any(|u| u == unit)
    }

    /// A `REQUEST_EXAM` is for the unit being learned, once this policy opens its exam. A
    /// refusal says why twice: for the client's field, and in words for the learner, since a
    /// stale button (a check pressed after it closed) is the learner's ordinary slip.
    pub fn check_exam_request(&self, course: &Course, unit: &str) -> Result<(), EventRefusal> {
        let title = |u: &str| course.unit(u).map_or_else(|| u.to_string(), |u| u.title.clone());
        let tier = self.desired_exam_tier;
        if unit != self.focus_unit_id {
            return Err(EventRefusal {
                field: "clientEvent.unitId",
                message: format!(
                    "the exam to take now is on '{}' ({}), the unit being learned, not '{unit}'",
                    self.focus_unit_id,
                    title(&self.focus_unit_id)
                ),
                learner_message: format!(
                    "That check was for {}, and we are on {} now, so it is closed.",
                    title(unit),
                    title(&self.focus_unit_id)
                ),
            });
        }
        if !self.allows(Action::ExamBlock) {
            let (why, in_words) = match self.exam_availability {
                Availability::Locked => (
                    format!("every {tier} question on it is locked for now"),
                    format!("every {tier} question on {} is locked for now", title(unit)),
                ),
                _ if self.exam_ready => (
                    format!("it has no open {tier} question"),
                    format!("there is no {tier} question on {} open right now", title(unit)),
                ),
                _ => (
                    "it opens after two right drills in a row since the unit's last check (snapshotLite.examCheck \
                     says when)"
                        .to_string(),
                    format!(
                        "the {tier} check on {} opens after two right drills in a row since your last check",
                        title(unit)
                    ),
                ),
            };
            return Err(EventRefusal {
                field: "clientEvent",
                message: format!("the {tier} check on {} is not open: {why}", title(unit)),
                learner_message: format!("That check is not open: {in_words}."),
            });
        }
        Ok(())
    }
}

/// A client event the policy refuses: the request's field at fault, and what is allowed,
/// for the client; the same in words for the learner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRefusal {
    pub field: &'static str,
    pub message: String,
    pub learner_message: String,
}

/// An exam question's state for one learner, as the exam service keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExamStatus {
    pub status: QuestionStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked_until: Option<DateTime<Utc>>,
}

impl ExamStatus {
    pub const AVAILABLE: ExamStatus = ExamStatus { status: QuestionStatus::Available, locked_until: None };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuestionStatus {
    Available,
    Locked,
    Passed,
}

/// The outcome of `computeExamAvailabilityForTier`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExamAvailability {
    pub availability: Availability,
    /// The candidates that can be attempted now, in the order given.
    pub candidate_ids: Vec<String>,
    /// When the first locked candidate opens again, when none is available.
    pub next_eligible_at: Option<DateTime<Utc>>,
}

impl ExamAvailability {
    pub fn none() -> ExamAvailability {
        ExamAvailability { availability: Availability::None, candidate_ids: Vec::new(), next_eligible_at: None }
    }
}

/// Availability from the statuses of the candidate questions only (a question the service
/// does not know is available: it has never been attempted).
pub fn exam_availability(candidates: &[String], statuses: &HashMap<String, ExamStatus>) -> ExamAvailability {
    if candidates.is_empty() {
        return ExamAvailability::none();
    }
    let status = |q: &String| statuses.get(q).copied().unwrap_or(ExamStatus::AVAILABLE);
    let available: Vec<String> =
        candidates.iter().filter(|q| status(q).status == QuestionStatus::Available).cloned().collect();
    if !available.is_empty() {
        return ExamAvailability {
            availability: Availability::Available,
            candidate_ids: available,
            next_eligible_at: None,
        };
    }
    let next = candidates
        .iter()
        .map(status)
        .filter(|s| s.status == QuestionStatus::Locked)
        .filter_map(|s| s.locked_until)
        .min();
    match next {
        Some(at) => ExamAvailability {
            availability: Availability::Locked,
            candidate_ids: Vec::new(),
            next_eligible_at: Some(at),
        },
        None => ExamAvailability::none(),
    }
}

/// Exam questions a turn considers at most (policy-tutor.md PF-3.5).
pub const EXAM_CANDIDATES_K: usize = 10;

/// The exam questions whose statuses a turn asks the exam service for: none unless the
/// learner is exam ready; else the focus unit's questions at the desired tier that wait in
/// the revisit queue, then the bank's best fits, each once, at most [`EXAM_CANDIDATES_K`].
/// `search(unit, tier, k)` is the bank's search, best fit first; it runs only when needed.
pub fn exam_candidates(
    snapshot: &StudentSnapshot,
    draft: &PolicyDraft,
    search: impl FnOnce(&str, Tier, usize) -> Vec<String>,
) -> Vec<String> {
    if !draft.exam_ready {
        return Vec::new();
    }
    let mut ids: Vec<String> = snapshot
        .revisit_queue
        .iter()
        .filter(|(_, e)| e.unit_id == draft.focus_unit_id && e.tier == draft.desired_exam_tier)
        .map(|(q, _)| q.clone())
        .collect();
    for hit in search(&draft.focus_unit_id, draft.desired_exam_tier, EXAM_CANDIDATES_K) {
        if !ids.contains(&hit) {
            ids.push(hit);
        }
    }
    ids.truncate(EXAM_CANDIDATES_K);
    ids
}

/// A unit is stuck when the drills show it: two or more attempts and no current streak.
pub fn is_stuck(snapshot: &StudentSnapshot, unit: &str) -> bool {
    snapshot.progress(unit).is_some_and(|p| p.drill.attempts >= 2 && p.drill.streak_correct == 0)
}

/// A unit is blocked while a prerequisite has no mastery tier.
pub fn is_blocked(course: &Course, snapshot: &StudentSnapshot, unit: &str) -> bool {
    course.prerequisites(unit).iter().any(|p| snapshot.tier(p) == MasteryTier::None)
}

/// Mapped units, most confident first (ties by unit id, for determinism).
pub fn sorted_mapping(mapped: &[MappedUnit]) -> Vec<MappedUnit> {
    let mut sorted = mapped.to_vec();
    sorted.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then_with(|| a.unit_id.cmp(&b.unit_id)));
    sorted
}

/// `computeCandidateUnits`: the top three mapped units, the focus, three units in
/// progress, and the direct prerequisites of all of them.
pub fn candidate_units(course: &Course, snapshot: &StudentSnapshot, mapped: &[MappedUnit]) -> Vec<String> {
    let mut set: Vec<String> = Vec::new();
    let add = |u: &str, set: &mut Vec<String>| {
        if !set.iter().any(|s| s == u) {
            set.push(u.to_string());
        }
    };
    for m in sorted_mapping(mapped).iter().take(3) {
        add(&m.unit_id, &mut set);
    }
    add(&snapshot.focus_unit_id, &mut set);
    for u in snapshot.units_in_progress.iter().take(3) {
        add(u, &mut set);
    }
    for u in set.clone() {
        for p in course.prerequisites(&u) {
            add(p, &mut set);
        }
    }
    set
}

/// `computeScopedUnitIds`: at most [`MAX_SCOPED_UNITS`], in a fixed order: focus, blocker,
/// target, the two best-mapped units, the target's prerequisites, units in progress, then
/// the blocker's prerequisites.
pub fn scoped_unit_ids(
    course: &Course,
    focus: &str,
    primary_target: &str,
    blocker: Option<&str>,
    mapped: &[MappedUnit],
    units_in_progress: &[String],
) -> Vec<String> {
    fn add(u: &str, list: &mut Vec<String>) {
        if !list.iter().any(|s| s == u) {
            list.push(u.to_string());
        }
    }
    let top_mapped: Vec<String> = sorted_mapping(mapped).into_iter().take(2).map(|m| m.unit_id).collect();
    let mut set = Vec::new();
    add(focus, &mut set);
    add(primary_target, &mut set);
    if let Some(b) = blocker {
        add(b, &mut set);
        for p in course.prerequisites(b) {
            add(p, &mut set);
        }
    }
    for u in &top_mapped {
        add(u, &mut set);
    }
    for p in course.prerequisites(primary_target) {
        add(p, &mut set);
    }
    for u in units_in_progress.iter().take(2) {
        add(u, &mut set);
    }

    let mut ordered = Vec::new();
    let mut push = |u: &str| {
        if set.iter().any(|s| s == u) {
            add(u, &mut ordered);
        }
    };
    push(focus);
    if let Some(b) = blocker {
        push(b);
    }
    push(primary_target);
    for u in &top_mapped {
        push(u);
    }
    for p in course.prerequisites(primary_target) {
        push(p);
    }
    for u in units_in_progress {
        push(u);
    }
    for u in &set {
        push(u);
    }
    ordered.truncate(MAX_SCOPED_UNITS);
    ordered
}

/// The policy up to exam availability, which needs the exam service's statuses for the
/// focus unit's candidate questions (asked only when the learner is exam ready).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyDraft {
    /// The turn's mapping, most confident first.
    pub mapped: Vec<MappedUnit>,
    pub focus_unit_id: String,
    pub primary_target_unit_id: String,
    pub prereq_blocking_unit_id: Option<String>,
    pub stuck: bool,
    pub focus_tier: MasteryTier,
    pub desired_exam_tier: Tier,
    pub exam_ready: bool,
    /// The message is about nothing the mapping is sure of: clarify before anything else.
    pub clarify: bool,
    pub scoped_unit_ids: Vec<String>,
}

/// `computePolicy` up to exam availability. `mapped` is the turn's mapping of the learner's
/// input onto units (a button's unit at confidence 1); `clarify_if_unsure` says whether a
/// mapping that is sure of nothing must be clarified (the learner's own words, not a button's
/// event, and not an answer to the tutor's question, which is about the focus).
///
/// Two departures from the document's sketch keep a learner without a model moving: the
/// target is remembered (`goalUnitId`), so a button pressed on a prerequisite's card carries
/// on towards the unit the learner asked for instead of making the prerequisite the new
/// target (which sent a struggling learner to ever-earlier units and never back); and the
/// focus is the first unit on the way there whose own prerequisites all have a tier, where
/// an exam can be earned (exam readiness needs an unblocked focus, so a focus that is itself
/// blocked could never earn the tier that unblocks it).
pub fn draft_policy(
    course: &Course,
    snapshot: &StudentSnapshot,
    mapped: &[MappedUnit],
    clarify_if_unsure: bool,
) -> PolicyDraft {
    let mapped: Vec<MappedUnit> = sorted_mapping(mapped).into_iter().filter(|m| course.has_unit(&m.unit_id)).collect();
    let focus_now =
        if course.has_unit(&snapshot.focus_unit_id) { snapshot.focus_unit_id.as_str() } else { course.entry_unit() };
    let confident = named_unit(&mapped);
    let primary = target_unit(course, snapshot, focus_now, confident).to_string();
    let blocker = first_missing_prerequisite(course, snapshot, &primary).map(str::to_string);
    let focus = blocker.as_deref().map_or_else(|| primary.clone(), |b| frontier(course, snapshot, b).to_string());
    let stuck = is_stuck(snapshot, &focus);
    let focus_tier = snapshot.tier(&focus);
    let drills_ready = snapshot.progress(&focus).is_some_and(|p| p.drill.ready_for_check());
    let exam_ready = !is_blocked(course, snapshot, &focus) && drills_ready;
    let scoped = scoped_unit_ids(course, &focus, &primary, blocker.as_deref(), &mapped, &snapshot.units_in_progress);
    PolicyDraft {
        clarify: clarify_if_unsure && confident.is_none(),
        mapped,
        focus_unit_id: focus,
        primary_target_unit_id: primary,
        prereq_blocking_unit_id: blocker,
        stuck,
        focus_tier,
        desired_exam_tier: desired_exam_tier(focus_tier),
        exam_ready,
        scoped_unit_ids: scoped,
    }
}

/// The unit a mapping names: its best unit, when it is sure enough (the specification's
/// rule; retrieval's scores are made comparable to it by [`calibrate_mapping`]).
pub fn named_unit(mapped: &[MappedUnit]) -> Option<&str> {
    mapped.first().filter(|top| top.confidence >= CONFIDENT_MAPPING).map(|top| top.unit_id.as_str())
}

/// Retrieval's mapping of the learner's words, read as a learner means them. Its scores
/// measure how well words match a unit's anchors, not how sure the match is: a unit that is
/// the only match at all names itself from [`LONE_MAPPING`]; and when several units match,
/// the one all the others build on is meant ("fractions" matches every fractions unit, and
/// "7+8" every unit that adds: the learner means the first of them). Either is raised to
/// [`CONFIDENT_MAPPING`] and put first; otherwise the mapping is left as it is, unsure.
pub fn calibrate_mapping(course: &Course, mapped: &[MappedUnit]) -> Vec<MappedUnit> {
    let mut mapped = sorted_mapping(mapped);
    let Some(top) = mapped.first() else { return mapped };
    if top.confidence >= CONFIDENT_MAPPING {
        return mapped;
    }
    let contenders: Vec<&str> =
        mapped.iter().filter(|m| m.confidence >= AMBIGUOUS_MAPPING).map(|m| m.unit_id.as_str()).collect();
    let meant = match contenders.as_slice() {
        [] => None,
        [only] => (top.confidence >= LONE_MAPPING).then(|| only.to_string()),
        several => several
            .iter()
            .find(|base| several.iter().all(|other| other == *base || builds_on(course, other, base)))
            .map(|base| base.to_string()),
    };
    if let Some(meant) = meant {
        let at = mapped.iter().position(|m| m.unit_id == meant).expect("a contender is mapped");
        let mut unit = mapped.remove(at);
        unit.confidence = unit.confidence.max(CONFIDENT_MAPPING);
        mapped.insert(0, unit);
    }
    mapped
}

/// Whether `unit` needs `base`, directly or through other prerequisites.
pub fn builds_on(course: &Course, unit: &str, base: &str) -> bool {
    let mut stack: Vec<&str> = vec![unit];
    let mut seen: Vec<&str> = Vec::new();
    while let Some(u) = stack.pop() {
        for p in course.prerequisites(u) {
            if p == base {
                return true;
            }
            if !seen.contains(&p.as_str()) {
                seen.push(p);
                stack.push(p);
            }
        }
    }
    false
}

/// The turn's target: a unit the learner names, except the focus itself (a button on the
/// focus's card carries on towards the remembered goal); else the goal; else the focus. A
/// target reached at gold, when nothing new was named, gives way to the next unit to learn.
fn target_unit<'a>(
    course: &'a Course,
    snapshot: &'a StudentSnapshot,
    focus_now: &'a str,
    named: Option<&'a str>,
) -> &'a str {
    let goal = snapshot.goal_unit_id.as_deref().filter(|g| course.has_unit(g));
    let carrying_on = named.is_none_or(|u| u == focus_now);
    let target = match named {
        Some(unit) if unit != focus_now => unit,
        _ => goal.unwrap_or(focus_now),
    };
    if carrying_on && snapshot.tier(target) == MasteryTier::Gold {
        return next_unit(course, snapshot).unwrap_or(target);
    }
    target
}

/// The first prerequisite of `unit` with no mastery tier (`prereqBlockingUnitId`).
pub fn first_missing_prerequisite<'c>(course: &'c Course, snapshot: &StudentSnapshot, unit: &str) -> Option<&'c str> {
    course.prerequisites(unit).iter().find(|p| snapshot.tier(p) == MasteryTier::None).map(String::as_str)
}

/// Where work on `unit` can start: following first missing prerequisites down to a unit whose
/// prerequisites all have a tier.
pub fn frontier<'c>(course: &'c Course, snapshot: &StudentSnapshot, unit: &'c str) -> &'c str {
    let mut current = unit;
    // The prerequisites form a DAG; the bound only guards against a course that does not.
    for _ in 0..course.units().len() {
        match first_missing_prerequisite(course, snapshot, current) {
            Some(next) => current = next,
            None => break,
        }
    }
    current
}

/// The next unit to learn once the target is gold: the first, in learning order, short of gold.
pub fn next_unit<'c>(course: &'c Course, snapshot: &StudentSnapshot) -> Option<&'c str> {
    course.learning_order().into_iter().find(|u| snapshot.tier(&u.id) != MasteryTier::Gold).map(|u| u.id.as_str())
}

impl PolicyDraft {
    /// The policy, given the exam availability for the focus unit at the desired tier
    /// ([`ExamAvailability::none`] when not exam ready).
    pub fn finish(&self, turn_id: &str, exam: &ExamAvailability) -> TutorPolicy {
        let availability = if self.exam_ready { exam.availability } else { Availability::None };
        let mut allowed = vec![Action::SocraticQuestion];
        if !self.clarify {
            allowed.push(Action::DrillCard);
            if self.stuck {
                allowed.push(Action::ConceptCard);
            }
            if self.exam_ready && availability == Availability::Available {
                allowed.push(Action::ExamBlock);
            }
        }
        TutorPolicy {
            turn_id: turn_id.to_string(),
            focus_unit_id: self.focus_unit_id.clone(),
            primary_target_unit_id: self.primary_target_unit_id.clone(),
            prereq_blocking_unit_id: self.prereq_blocking_unit_id.clone(),
            scoped_unit_ids: self.scoped_unit_ids.clone(),
            allowed_actions: allowed,
            stuck: self.stuck,
            exam_ready: self.exam_ready,
            desired_exam_tier: self.desired_exam_tier,
            exam_availability: availability,
            constraints: Constraints::default(),
        }
    }
}

/// A candidate unit with its priority score, for the debug payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoredUnit {
    pub unit_id: String,
    pub score: f64,
}

/// The candidate units ranked by priority score (ties by unit id).
pub fn ranked_candidates(
    course: &Course,
    snapshot: &StudentSnapshot,
    mapped: &[MappedUnit],
    now: DateTime<Utc>,
) -> Vec<ScoredUnit> {
    let mut scored: Vec<ScoredUnit> = candidate_units(course, snapshot, mapped)
        .into_iter()
        .map(|unit| {
            let progress = snapshot.progress(&unit);
            let hours = progress
                .and_then(|p| p.last_touched_at)
                .map_or(f64::INFINITY, |t| (now - t).num_milliseconds() as f64 / 3_600_000.0);
            let score = unit_priority_score(ScoreInputs {
                mapped_confidence: mapped
                    .iter()
                    .filter(|m| m.unit_id == unit)
                    .map(|m| m.confidence)
                    .fold(0.0, f64::max),
                is_focus: unit == snapshot.focus_unit_id,
                is_in_progress: snapshot.units_in_progress.contains(&unit),
                recency_hours: hours,
                mastery_tier: snapshot.tier(&unit),
                drill_streak: progress.map_or(0, |p| p.drill.streak_correct),
            });
            ScoredUnit { unit_id: unit, score }
        })
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.unit_id.cmp(&b.unit_id)));
    scored
}
