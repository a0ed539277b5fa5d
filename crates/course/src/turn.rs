//! What a turn carries besides the learner's words (`clientEvent`), and what it can show:
//! the cards of the chat timeline (policy-tutor.md `TutorCard`).

use crate::pack::Tier;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A button the learner pressed, sent with (or instead of) a message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DrillResult {
    Correct,
    Incorrect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
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

/// An interactive card in the chat timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TutorCard {
    /// Key ideas and at most one worked example.
    #[serde(rename_all = "camelCase")]
    Concept {
        unit_id: String,
        key_ideas: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worked_example: Option<WorkedExample>,
    },
    /// A drill, generated for this turn and never stored as an entity: what the learner
    /// sends back for grading is this card.
    #[serde(rename_all = "camelCase")]
    Drill {
        unit_id: String,
        prompt: String,
        question_latex: String,
        /// A blueprint drill's item id (the item is regenerated from it to grade exactly);
        /// none for a drill the model wrote.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        drill_id: Option<String>,
        /// Choices, for a multiple-choice drill; answer with one of them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        options: Vec<String>,
    },
    /// An exam question from the course's bank (never its key or memo).
    #[serde(rename_all = "camelCase")]
    Exam {
        unit_id: String,
        question_id: String,
        tier: Tier,
        stem: String,
        options: Vec<String>,
        has_memo: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        video: Option<String>,
        /// Set when the question cannot be attempted until then.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        locked_until: Option<DateTime<Utc>>,
    },
    /// Units to pick from, when the learner's words could mean several (or none) of them:
    /// each is answered with a `CHOOSE_UNIT` event. `unitId` is the unit the tutor is on.
    #[serde(rename_all = "camelCase")]
    Choices { unit_id: String, choices: Vec<UnitChoice> },
}

/// A unit offered on a `CHOICES` card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnitChoice {
    pub unit_id: String,
    pub title: String,
}

impl TutorCard {
    pub fn unit_id(&self) -> &str {
        match self {
            TutorCard::Concept { unit_id, .. }
            | TutorCard::Drill { unit_id, .. }
            | TutorCard::Exam { unit_id, .. }
            | TutorCard::Choices { unit_id, .. } => unit_id,
        }
    }

    /// Whether a `CHOICES` card offered this unit.
    pub fn offers_choice(&self, unit: &str) -> bool {
        matches!(self, TutorCard::Choices { choices, .. } if choices.iter().any(|c| c.unit_id == unit))
    }

    pub fn exam_question_id(&self) -> Option<&str> {
        match self {
            TutorCard::Exam { question_id, .. } => Some(question_id),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkedExample {
    pub problem_latex: String,
    pub final_answer_latex: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps_latex: Vec<String>,
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

    #[test]
    fn cards_serialize_with_their_type() {
        let card = TutorCard::Drill {
            unit_id: "ALG-01".into(),
            prompt: "Solve for x".into(),
            question_latex: "2x+3=11".into(),
            drill_id: None,
            options: vec![],
        };
        assert_eq!(
            serde_json::to_value(&card).unwrap(),
            json!({"type": "DRILL", "unitId": "ALG-01", "prompt": "Solve for x", "questionLatex": "2x+3=11"})
        );
    }
}
