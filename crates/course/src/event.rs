//! What a turn carries besides the learner's words (`clientEvent`): the button the learner
//! pressed, with the result it reports.

use serde::{Deserialize, Serialize};

/// A button the learner pressed, sent with (or instead of) a message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE", deny_unknown_fields)]
pub enum ClientEvent {
    #[default]
    None,
    /// "Try a Drill" on a concept card, or "Try another" after a drill.
    #[serde(rename_all = "camelCase")]
    RequestDrill { unit_id: String },
    /// "Continue" after a graded drill.
    #[serde(rename_all = "camelCase")]
    DrillContinue { unit_id: String, last_result: DrillResult },
    /// "I'm stuck" on a drill: a hint, not an answer.
    #[serde(rename_all = "camelCase")]
    DrillStuck { unit_id: String },
    /// "Continue" after an exam question.
    #[serde(rename_all = "camelCase")]
    ExamContinue { unit_id: String, question_id: String, result: ExamResult },
    /// "Take the bronze check" (or silver, gold): an exam question on the focus unit, which
    /// the policy must allow (the snapshot's `examCheck` says when it does).
    #[serde(rename_all = "camelCase")]
    RequestExam { unit_id: String },
    /// One of the units a `CHOICES` card offered, picked: the learner's new target.
    #[serde(rename_all = "camelCase")]
    ChooseUnit { unit_id: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DrillResult {
    Correct,
    Incorrect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExamResult {
    Passed,
    Locked,
}

impl ClientEvent {
    /// The unit the button was about.
    pub fn unit_id(&self) -> Option<&str> {
        match self {
            ClientEvent::None => None,
            ClientEvent::RequestDrill { unit_id }
            | ClientEvent::DrillContinue { unit_id, .. }
            | ClientEvent::DrillStuck { unit_id }
            | ClientEvent::ExamContinue { unit_id, .. }
            | ClientEvent::RequestExam { unit_id }
            | ClientEvent::ChooseUnit { unit_id } => Some(unit_id),
        }
    }

    /// The learner asked to practise: a drill is the fitting answer.
    pub fn asks_for_practice(&self) -> bool {
        matches!(
            self,
            ClientEvent::RequestDrill { .. } | ClientEvent::DrillContinue { .. } | ClientEvent::ExamContinue { .. }
        )
    }

    pub fn name(&self) -> &'static str {
        match self {
            ClientEvent::None => "NONE",
            ClientEvent::RequestDrill { .. } => "REQUEST_DRILL",
            ClientEvent::DrillContinue { .. } => "DRILL_CONTINUE",
            ClientEvent::DrillStuck { .. } => "DRILL_STUCK",
            ClientEvent::ExamContinue { .. } => "EXAM_CONTINUE",
            ClientEvent::RequestExam { .. } => "REQUEST_EXAM",
            ClientEvent::ChooseUnit { .. } => "CHOOSE_UNIT",
        }
    }

    /// The event carries on with the unit the tutor is on (a button of its own card), rather
    /// than naming a unit to work on next.
    pub fn continues_focus(&self) -> bool {
        !matches!(self, ClientEvent::None | ClientEvent::ChooseUnit { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_read_as_the_document_writes_them() {
        let e: ClientEvent = serde_json::from_value(json!({"type": "REQUEST_DRILL", "unitId": "ALG-01"})).unwrap();
        assert_eq!(e, ClientEvent::RequestDrill { unit_id: "ALG-01".into() });
        let e: ClientEvent =
            serde_json::from_value(json!({"type": "DRILL_CONTINUE", "unitId": "ALG-01", "lastResult": "correct"}))
                .unwrap();
        assert!(e.asks_for_practice());
        let e: ClientEvent = serde_json::from_value(
            json!({"type": "EXAM_CONTINUE", "unitId": "ALG-01", "questionId": "EX-1", "result": "locked"}),
        )
        .unwrap();
        assert_eq!(e.unit_id(), Some("ALG-01"));
        let e: ClientEvent = serde_json::from_value(json!({"type": "NONE"})).unwrap();
        assert_eq!(e, ClientEvent::None);
        assert!(serde_json::from_value::<ClientEvent>(json!({"type": "DANCE"})).is_err());
    }
}
