//! Mastery: the score, the state machine, graduation, self-correction and struggles.

use crate::ids::NodeId;
use crate::model::Node;
use crate::srs::{self, Sm2State};
use crate::status::{MasteryStatus, ResponseType};
use crate::DomainError;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How many recent responses the score looks at.
pub const SCORE_WINDOW: usize = 5;
/// Weights from oldest to newest of a full window.
const WEIGHTS_OLDEST_FIRST: [f64; SCORE_WINDOW] = [1.0, 2.0, 4.0, 8.0, 16.0];
/// How many recent review responses graduation looks at.
pub const GRADUATION_REVIEWS: usize = 3;
pub const GRADUATION_SCORE: f64 = 0.85;
/// Mastered nodes at or above this score are marked skippable by a re-plan.
pub const SKIPPABLE_SCORE: f64 = 0.9;
/// How many recent responses struggle detection needs: three scores, each over a window.
pub const STRUGGLE_HISTORY: usize = SCORE_WINDOW + 2;

/// An SM-2 quality grade, 0 (complete blackout) to 5 (perfect recall). What each kind of
/// evidence earns is decided in [`crate::evidence`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quality(u8);

impl Quality {
    /// The least quality that counts as a recall: 0-2 are failures, 3-5 successes.
    pub const PASS: Quality = Quality(3);
    /// The highest quality, perfect recall.
    pub const MAX: Quality = Quality(5);

    /// A quality the code names itself; above 5 reads as 5.
    pub const fn of(value: u8) -> Quality {
        Quality(if value > 5 { 5 } else { value })
    }

    /// Whether this is a recall (3 or more) rather than a failure.
    pub fn passes(self) -> bool {
        self >= Quality::PASS
    }

    pub fn new(value: i64) -> Result<Self, DomainError> {
        if (0..=5).contains(&value) {
            Ok(Quality(value as u8))
        } else {
            Err(DomainError::invalid("quality", format!("{value} is out of range; quality is an integer from 0 to 5")))
        }
    }

    pub const fn value(self) -> u8 {
        self.0
    }
}

/// The weighted mastery score of responses given newest first; only the first five count.
/// Weights are 16, 8, 4, 2, 1 from newest back; no responses score 0.
pub fn score(newest_first: &[u8]) -> f64 {
    let window = &newest_first[..newest_first.len().min(SCORE_WINDOW)];
    if window.is_empty() {
        return 0.0;
    }
    let (weighted, weights) = window.iter().enumerate().fold((0.0, 0.0), |(sum, total), (k, &q)| {
        let w = WEIGHTS_OLDEST_FIRST[SCORE_WINDOW - 1 - k];
        (sum + f64::from(q) * w, total + w)
    });
    (weighted / (5.0 * weights)).clamp(0.0, 1.0)
}

/// A node's earlier responses, newest first, as much of them as the rules read. Stores
/// keep it with the node, so that a response costs the same however long the history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecentHistory {
    /// Qualities of the latest responses of any type (the score needs the last four,
    /// struggle detection the last six).
    pub qualities: Vec<u8>,
    /// Qualities of the latest `review` responses (graduation needs the last three).
    pub review_qualities: Vec<u8>,
}

impl RecentHistory {
    /// How many responses of any type are kept, the latest included: the score reads the
    /// latest five, struggle detection seven, so that analytics find a node's struggles on
    /// the node itself rather than in its responses.
    pub const KEPT: usize = STRUGGLE_HISTORY;
    /// How many review responses are kept: graduation may read three without a new one.
    pub const KEPT_REVIEWS: usize = GRADUATION_REVIEWS;

    /// The history once a response of `quality` and `response_type` is recorded.
    pub fn after(&self, quality: u8, response_type: ResponseType) -> RecentHistory {
        let newest_first = |list: &[u8]| -> Vec<u8> { std::iter::once(quality).chain(list.iter().copied()).collect() };
        let mut qualities = newest_first(&self.qualities);
        qualities.truncate(Self::KEPT);
        let review_qualities = if response_type == ResponseType::Review {
            let mut reviews = newest_first(&self.review_qualities);
            reviews.truncate(Self::KEPT_REVIEWS);
            reviews
        } else {
            self.review_qualities.iter().copied().take(Self::KEPT_REVIEWS).collect()
        };
        RecentHistory { qualities, review_qualities }
    }
}

/// The mastery and spaced-repetition fields of a node that a response changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MasteryState {
    pub status: MasteryStatus,
    pub score: f64,
    pub sm2: Sm2State,
    pub next_review_at: Option<DateTime<Utc>>,
    pub last_reviewed_at: Option<DateTime<Utc>>,
}

impl MasteryState {
    pub fn of(node: &Node) -> Self {
        MasteryState {
            status: node.mastery_status,
            score: node.mastery_score,
            sm2: Sm2State {
                ease_factor: node.ease_factor,
                repetitions: node.repetitions,
                interval_days: node.interval_days,
            },
            next_review_at: node.next_review_at,
            last_reviewed_at: node.last_reviewed_at,
        }
    }

    pub fn write_to(&self, node: &mut Node) {
        node.mastery_status = self.status;
        node.mastery_score = self.score;
        node.ease_factor = self.sm2.ease_factor;
        node.repetitions = self.sm2.repetitions;
        node.interval_days = self.sm2.interval_days;
        node.next_review_at = self.next_review_at;
        node.last_reviewed_at = self.last_reviewed_at;
    }
}

/// What recording one response does to its node.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseOutcome {
    pub state: MasteryState,
    /// The node went to `mastered` with this response; its map may now be complete.
    pub became_mastered: bool,
    /// The node's recent history including this response, for the store to keep.
    pub history: RecentHistory,
}

/// Apply one response to a node: recompute the score from the last five responses, move
/// the state machine, and (for `teach` and `review` responses) run SM-2.
pub fn apply_response(
    before: &MasteryState,
    history: &RecentHistory,
    quality: Quality,
    response_type: ResponseType,
    now: DateTime<Utc>,
) -> ResponseOutcome {
    let q = quality.value();
    let mut qualities = Vec::with_capacity(SCORE_WINDOW);
    qualities.push(q);
    qualities.extend(history.qualities.iter().take(SCORE_WINDOW - 1));
    let score = score(&qualities);

    let mut reviews = Vec::with_capacity(GRADUATION_REVIEWS);
    if response_type == ResponseType::Review {
        reviews.push(q);
    }
    reviews.extend(history.review_qualities.iter().take(GRADUATION_REVIEWS - reviews.len()));

    let status = next_status(before.status, response_type, q, score, &reviews);
    let mut state = MasteryState { status, score, ..*before };
    if response_type != ResponseType::Diagnostic {
        state.sm2 = srs::review(before.sm2, q);
        state.next_review_at = Some(srs::due_at(now, state.sm2.interval_days));
        state.last_reviewed_at = Some(now);
    }
    ResponseOutcome {
        state,
        became_mastered: before.status != MasteryStatus::Mastered && status == MasteryStatus::Mastered,
        history: history.after(q, response_type),
    }
}

/// Graduation: a score of at least 0.85 and the three latest review responses all 4 or 5.
pub fn graduates(score: f64, review_qualities_newest_first: &[u8]) -> bool {
    score >= GRADUATION_SCORE
        && review_qualities_newest_first.len() >= GRADUATION_REVIEWS
        && review_qualities_newest_first[..GRADUATION_REVIEWS].iter().all(|&q| q >= 4)
}

fn next_status(
    current: MasteryStatus,
    response_type: ResponseType,
    quality: u8,
    score: f64,
    review_qualities: &[u8],
) -> MasteryStatus {
    use MasteryStatus::*;
    match current {
        // Mastered nodes are never demoted by a response.
        Mastered => Mastered,
        Unseen => match response_type {
            ResponseType::Diagnostic => Diagnosed,
            ResponseType::Teach => Learning,
            ResponseType::Review => Unseen,
        },
        // Self-correction: a weak answer of any type shows the diagnosis was optimistic.
        Diagnosed if response_type == ResponseType::Teach || quality < Quality::PASS.value() => Learning,
        Diagnosed => Diagnosed,
        Learning if quality >= Quality::PASS.value() => Reviewing,
        Learning => Learning,
        Reviewing if quality < Quality::PASS.value() => Learning,
        Reviewing if graduates(score, review_qualities) => Mastered,
        Reviewing => Reviewing,
    }
}

/// Status changes a caller may make by hand: the edges of the state machine.
pub fn allowed_manual_transitions(from: MasteryStatus) -> &'static [MasteryStatus] {
    use MasteryStatus::*;
    match from {
        Unseen => &[Diagnosed, Learning],
        Diagnosed => &[Learning],
        Learning => &[Reviewing],
        Reviewing => &[Mastered, Learning],
        Mastered => &[],
    }
}

pub fn check_manual_transition(from: MasteryStatus, to: MasteryStatus) -> Result<(), DomainError> {
    let allowed = allowed_manual_transitions(from);
    if from == to || allowed.contains(&to) {
        return Ok(());
    }
    Err(DomainError::invalid_transition("mastery_status", from, to, allowed))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StruggleReason {
    /// The last three responses were all quality 2 or lower.
    ConsecutiveLowQuality,
    /// The score after each of the last three responses went strictly down.
    DecliningScore,
}

impl StruggleReason {
    pub fn as_str(&self) -> &'static str {
        match self {
            StruggleReason::ConsecutiveLowQuality => "consecutive_low_quality",
            StruggleReason::DecliningScore => "declining_score",
        }
    }
}

/// Why a node is struggling, from its latest qualities newest first; empty if it is not.
pub fn struggle_reasons(status: MasteryStatus, newest_first: &[u8]) -> Vec<StruggleReason> {
    if status == MasteryStatus::Mastered || newest_first.len() < 3 {
        return Vec::new();
    }
    let mut reasons = Vec::new();
    if newest_first[..3].iter().all(|&q| q < Quality::PASS.value()) {
        reasons.push(StruggleReason::ConsecutiveLowQuality);
    }
    let latest = score(newest_first);
    let previous = score(&newest_first[1..]);
    let before_that = score(&newest_first[2..]);
    if before_that > previous && previous > latest {
        reasons.push(StruggleReason::DecliningScore);
    }
    reasons
}

/// A node flagged by struggle detection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct Struggle {
    pub id: NodeId,
    pub label: String,
    pub mastery_score: f64,
    pub mastery_status: MasteryStatus,
    /// `consecutive_low_quality`, `declining_score`, or both joined by `+`.
    pub reason: String,
    pub reasons: Vec<StruggleReason>,
}

impl Struggle {
    pub fn new(node: &Node, reasons: Vec<StruggleReason>) -> Self {
        Struggle {
            id: node.id,
            label: node.label.clone(),
            mastery_score: node.mastery_score,
            mastery_status: node.mastery_status,
            reason: reasons.iter().map(|r| r.as_str()).collect::<Vec<_>>().join("+"),
            reasons,
        }
    }
}

/// Aggregate mastery of one map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct MapSummary {
    pub total_nodes: usize,
    pub unseen_count: usize,
    pub diagnosed_count: usize,
    pub learning_count: usize,
    pub reviewing_count: usize,
    pub mastered_count: usize,
    pub avg_mastery_score: f64,
    pub struggling_node_ids: Vec<NodeId>,
    /// On a course's map: the course's units at each tier (exactly), as the tutor counts
    /// them. Bronze and silver put a unit's concept in review, gold makes it mastered, so a
    /// course's progress shows here before `mastered_count` moves. Absent on other maps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<TierCounts>,
}

/// A course's units at each mastery tier, of all its units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct TierCounts {
    pub bronze: u32,
    pub silver: u32,
    pub gold: u32,
    pub total: u32,
}

/// A map's nodes summed up; a node that only groups others (an Anki deck's root) is not a
/// concept, so it is not counted.
pub fn summarize(nodes: &[Node], struggles: &[Struggle]) -> MapSummary {
    let concepts: Vec<&Node> = nodes.iter().filter(|n| !n.is_grouping()).collect();
    let nodes = concepts.as_slice();
    let count = |status: MasteryStatus| nodes.iter().filter(|n| n.mastery_status == status).count();
    let avg =
        if nodes.is_empty() { 0.0 } else { nodes.iter().map(|n| n.mastery_score).sum::<f64>() / nodes.len() as f64 };
    MapSummary {
        total_nodes: nodes.len(),
        unseen_count: count(MasteryStatus::Unseen),
        diagnosed_count: count(MasteryStatus::Diagnosed),
        learning_count: count(MasteryStatus::Learning),
        reviewing_count: count(MasteryStatus::Reviewing),
        mastered_count: count(MasteryStatus::Mastered),
        avg_mastery_score: avg,
        struggling_node_ids: struggles.iter().map(|s| s.id).collect(),
        tiers: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MasteryStatus::*;

    fn state(status: MasteryStatus) -> MasteryState {
        MasteryState { status, score: 0.0, sm2: Sm2State::default(), next_review_at: None, last_reviewed_at: None }
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-03-01T10:00:00Z").unwrap().with_timezone(&Utc)
    }

    fn q(v: i64) -> Quality {
        Quality::new(v).unwrap()
    }

    #[test]
    fn recent_history_keeps_the_newest_seven_and_the_newest_three_reviews() {
        use ResponseType::{Diagnostic, Review, Teach};
        let mut history = RecentHistory::default();
        for (quality, kind) in [(1, Review), (2, Teach), (3, Review), (4, Diagnostic), (5, Review), (0, Review)] {
            history = history.after(quality, kind);
        }
        assert_eq!(history.qualities, vec![0, 5, 4, 3, 2, 1]);
        assert_eq!(history.review_qualities, vec![0, 5, 3]);
        let after_teach = history.after(2, Teach);
        assert_eq!(after_teach.qualities, vec![2, 0, 5, 4, 3, 2, 1]);
        assert_eq!(after_teach.review_qualities, vec![0, 5, 3], "only reviews enter the review history");
        let after_two = after_teach.after(3, Teach).after(4, Teach);
        assert_eq!(after_two.qualities, vec![4, 3, 2, 0, 5, 4, 3], "enough for struggle detection, no more");
        assert_eq!(after_two.qualities.len(), STRUGGLE_HISTORY);
    }

    #[test]
    fn score_weights_recent_responses_more() {
        assert_eq!(score(&[4]), 0.8);
        // [2, 3, 4, 4, 5] oldest to newest.
        let s = score(&[5, 4, 4, 3, 2]);
        assert!((s - 136.0 / 155.0).abs() < 1e-12);
        assert!(s > 0.72);
        assert_eq!(score(&[5, 5, 5, 5, 5]), 1.0);
        assert_eq!(score(&[0, 0, 0, 0, 0]), 0.0);
        assert_eq!(score(&[]), 0.0);
        // Only the five newest count.
        assert_eq!(score(&[5, 5, 5, 5, 5, 0, 0, 0]), 1.0);
    }

    #[test]
    fn quality_outside_zero_to_five_names_the_rule() {
        assert_eq!(
            Quality::new(6).unwrap_err().to_string(),
            "quality: 6 is out of range; quality is an integer from 0 to 5"
        );
        assert!(Quality::new(-1).is_err());
    }

    #[test]
    fn diagnostic_responses_do_not_drive_sm2() {
        let out = apply_response(&state(Unseen), &RecentHistory::default(), q(4), ResponseType::Diagnostic, now());
        assert_eq!(out.state.status, Diagnosed);
        assert_eq!(out.state.sm2, Sm2State::default());
        assert_eq!(out.state.next_review_at, None);
    }

    #[test]
    fn teach_and_review_responses_schedule_the_next_review() {
        let out = apply_response(&state(Unseen), &RecentHistory::default(), q(4), ResponseType::Teach, now());
        assert_eq!(out.state.status, Learning);
        assert_eq!(out.state.sm2.repetitions, 1);
        assert_eq!(out.state.next_review_at, Some(now() + chrono::Duration::days(1)));
        assert_eq!(out.state.last_reviewed_at, Some(now()));
    }

    #[test]
    fn graduation_needs_three_reviews_of_four_or_more_and_the_score() {
        assert!(graduates(0.9, &[4, 5, 4]));
        assert!(!graduates(0.88, &[4, 3, 4]));
        assert!(!graduates(0.8, &[4, 4, 4]));
        assert!(!graduates(1.0, &[5, 5]));
    }

    #[test]
    fn manual_transitions_follow_the_state_machine() {
        assert!(check_manual_transition(Unseen, Learning).is_ok());
        let err = check_manual_transition(Unseen, Mastered).unwrap_err();
        assert_eq!(
            err.to_string(),
            "mastery_status: cannot go from 'unseen' to 'mastered'; from 'unseen' the allowed values are: diagnosed, learning"
        );
        assert!(check_manual_transition(Mastered, Learning).is_err());
    }

    #[test]
    fn declining_needs_three_strictly_falling_scores() {
        // Newest first: 1 after 3 after 5: scores fall each time.
        assert_eq!(struggle_reasons(Learning, &[1, 3, 5]), vec![StruggleReason::DecliningScore]);
        assert_eq!(
            struggle_reasons(Learning, &[0, 1, 2, 5, 5]),
            vec![StruggleReason::ConsecutiveLowQuality, StruggleReason::DecliningScore]
        );
        assert!(struggle_reasons(Learning, &[0, 0]).is_empty());
        assert!(struggle_reasons(Mastered, &[1, 1, 1]).is_empty());
        // Flat low qualities: low, but not declining.
        assert_eq!(struggle_reasons(Learning, &[1, 1, 1, 1, 1, 1, 1]), vec![StruggleReason::ConsecutiveLowQuality]);
    }
}
