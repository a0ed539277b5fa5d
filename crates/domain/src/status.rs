//! The closed vocabularies of the learner model, with their wire names.

use crate::DomainError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident, $field:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(&self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The allowed wire names, for error messages.
            pub fn allowed() -> String {
                [$($text),+].join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = DomainError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(DomainError::invalid(
                        $field,
                        format!("'{other}' is not one of: {}", $name::allowed()),
                    )),
                }
            }
        }
    };
}

vocabulary!(
    /// Lifecycle of a mind map: `draft` while its graph is being built, then `active`,
    /// then `completed` (every node mastered) or `abandoned`.
    MapStatus, "status" {
        Draft => "draft",
        Active => "active",
        Completed => "completed",
        Abandoned => "abandoned",
    }
);

vocabulary!(
    /// Where a learner stands on one concept.
    MasteryStatus, "mastery_status" {
        Unseen => "unseen",
        Diagnosed => "diagnosed",
        Learning => "learning",
        Reviewing => "reviewing",
        Mastered => "mastered",
    }
);

vocabulary!(
    /// `prerequisite` edges gate the frontier and must stay acyclic; `related` edges are
    /// informational only.
    EdgeType, "edge_type" {
        Prerequisite => "prerequisite",
        Related => "related",
    }
);

vocabulary!(
    /// Why a response was given: a diagnostic probe, a first-exposure teaching quiz, or a
    /// spaced-repetition review.
    ResponseType, "response_type" {
        Diagnostic => "diagnostic",
        Teach => "teach",
        Review => "review",
    }
);

// The vocabulary macro cannot derive Default for only some of its enums.
#[allow(clippy::derivable_impls)]
impl Default for EdgeType {
    fn default() -> Self {
        EdgeType::Prerequisite
    }
}

#[allow(clippy::derivable_impls)]
impl Default for ResponseType {
    fn default() -> Self {
        ResponseType::Review
    }
}

impl MasteryStatus {
    /// How far along the state machine a status is: unseen 0 ... mastered 4.
    pub fn rank(&self) -> usize {
        MasteryStatus::ALL.iter().position(|s| s == self).expect("every status is in ALL")
    }

    /// Statuses that keep a node on the active frontier until it is mastered.
    pub fn is_open(&self) -> bool {
        matches!(self, MasteryStatus::Unseen | MasteryStatus::Diagnosed | MasteryStatus::Learning)
    }

    /// Partially-known concepts rank before unknown ones in the learning order.
    pub fn is_partially_known(&self) -> bool {
        matches!(self, MasteryStatus::Diagnosed | MasteryStatus::Learning)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_wire_names_are_rejected_with_the_allowed_values() {
        let err = "exam".parse::<ResponseType>().unwrap_err();
        assert_eq!(err.to_string(), "response_type: 'exam' is not one of: diagnostic, teach, review");
    }

    #[test]
    fn wire_names_round_trip() {
        for status in MasteryStatus::ALL {
            assert_eq!(status.as_str().parse::<MasteryStatus>().unwrap(), *status);
        }
        for status in MapStatus::ALL {
            assert_eq!(status.as_str().parse::<MapStatus>().unwrap(), *status);
        }
    }
}

vocabulary!(
    /// Where a learner's teaching flow for one map stands (learning-loop-design.md D3).
    FlowStatus, "status" {
        Pending => "pending",
        Diagnosing => "diagnosing",
        Planning => "planning",
        Teaching => "teaching",
        Quizzing => "quizzing",
        Reviewing => "reviewing",
        Completed => "completed",
        Abandoned => "abandoned",
    }
);

vocabulary!(
    /// What a scheduled job does when it fires.
    JobKind, "kind" {
        Review => "review",
        ReviewBatch => "review_batch",
        NightlyAnalytics => "nightly_analytics",
        WeeklyDigest => "weekly_digest",
        StaleFlows => "stale_flows",
        FsrsFit => "fsrs_fit",
        Noop => "noop",
    }
);

vocabulary!(
    /// How one firing of a job ended.
    JobOutcome, "outcome" {
        Done => "done",
        Failed => "failed",
        Expired => "expired",
    }
);

vocabulary!(
    /// Which scheduler spaces a learner's reviews: SM-2 (the default) or FSRS.
    SrsScheduler, "srs_scheduler" {
        Sm2 => "sm2",
        Fsrs => "fsrs",
    }
);

vocabulary!(
    /// The kinds of session (session-flow.md 10.1); `workflow` has no specification.
    SessionType, "session_type" {
        Thought => "thought",
        Learning => "learning",
        Evaluation => "evaluation",
        Survey => "survey",
    }
);

vocabulary!(
    /// Where a session stands: `created` until its first stream, `running` while the agent
    /// works, `awaiting_response` while a widget waits for the learner, then `completed` or
    /// `terminated`.
    SessionStatus, "status" {
        Created => "created",
        Running => "running",
        AwaitingResponse => "awaiting_response",
        Completed => "completed",
        Terminated => "terminated",
    }
);

vocabulary!(
    /// Why a session ended.
    SessionEndReason, "end_reason" {
        Finished => "finished",
        MaxItems => "max_items",
        TimeLimit => "time_limit",
        Learner => "learner",
        Operator => "operator",
    }
);

impl SessionStatus {
    pub fn is_final(&self) -> bool {
        matches!(self, SessionStatus::Completed | SessionStatus::Terminated)
    }
}
