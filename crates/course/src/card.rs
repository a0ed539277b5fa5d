//! What a turn can show: the cards of the chat timeline (policy-tutor.md `TutorCard`).

use crate::pack::Tier;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// An interactive card in the chat timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TutorCard {
    /// Key ideas and at most one worked example.
    #[serde(rename_all = "camelCase")]
    Concept {
        unit_id: String,
        key_ideas: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worked_example: Option<WorkedExample>,
        /// The passages of the course's material the card draws on.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        sources: Vec<Source>,
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

/// A passage a card draws on: its id in the course and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub passage_id: String,
    /// The file, page and headings (`notes.pdf, p. 3, Masks`).
    pub citation: String,
}

/// A unit offered on a `CHOICES` card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
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
