//! The teaching flow of one map (learning-loop-design.md D3): pending -> diagnosing ->
//! planning -> teaching -> quizzing -> reviewing, back to teaching while the frontier has
//! more, completed once every node is mastered; abandoned from any unfinished state. Each
//! session reads the flow, does one step and moves it on; the store guards each move with
//! the version read (compare-and-set), so two sessions cannot both take the same step.

use crate::status::FlowStatus;
use crate::DomainError;

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
pub fn is_stale(
    status: FlowStatus,
    last_activity: chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> bool {
    !allowed_from(status).is_empty() && now - last_activity > chrono::Duration::days(STALE_AFTER_DAYS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone, Utc};
    use FlowStatus::*;

    const ALL: [FlowStatus; 8] = [Pending, Diagnosing, Planning, Teaching, Quizzing, Reviewing, Completed, Abandoned];

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
