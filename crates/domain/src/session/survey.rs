//! Surveys (session-flow.md 10.2 SURVEY): questions asked in order, with skip logic that
//! jumps forward on an answer. There are no correct answers; every answer is data.

use crate::session::widgets::{ClientAction, ClientResponse, MAX_OPTIONS, MIN_OPTIONS};
use crate::DomainError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Where a skip rule may jump besides a later question.
pub const END: &str = "end";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurveyDefinition {
    pub survey_id: String,
    pub title: String,
    #[schema(min_items = 1)]
    pub questions: Vec<SurveyQuestion>,
    /// Per question id, the rules applied after it is answered; the first that matches wins.
    #[serde(default)]
    pub skip_logic: BTreeMap<String, Vec<SkipRule>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurveyQuestion {
    #[schema(min_length = 1)]
    pub question_id: String,
    #[schema(min_length = 1)]
    pub text: String,
    pub question_type: SurveyQuestionType,
    /// For `multiple_choice`: 2-6 options.
    #[serde(default)]
    pub options: Option<Vec<String>>,
    /// For `rating`: the lowest and highest values (default 1-5, at most 6 values).
    #[serde(default)]
    pub scale: Option<(u8, u8)>,
    #[serde(default = "yes")]
    pub required: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SurveyQuestionType {
    MultipleChoice,
    Rating,
    FreeText,
}

/// After the question it belongs to: if the answer is one of `answer_in` (or the question
/// was skipped and `when_skipped`), continue at `skip_to` (a later question id, or `end`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkipRule {
    #[serde(default)]
    pub answer_in: Vec<String>,
    #[serde(default)]
    pub when_skipped: bool,
    pub skip_to: String,
}

/// Which question comes next, and which ones skip logic passed over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
pub struct SurveyCursor {
    /// Index of the next question to ask; none when the survey is done.
    pub next: Option<usize>,
    pub answered: usize,
    pub skipped_questions: Vec<String>,
    pub total_questions: usize,
}

impl SurveyDefinition {
    pub fn validate(&self) -> Result<(), DomainError> {
        if self.questions.is_empty() {
            return Err(DomainError::invalid("questions", "a survey needs at least one question"));
        }
        let mut index = HashMap::new();
        for (i, q) in self.questions.iter().enumerate() {
            let field = |name: &str| format!("questions[{i}].{name}");
            if q.question_id.trim().is_empty() || q.question_id == END {
                return Err(DomainError::invalid(field("question_id"), format!("must be non-empty and not '{END}'")));
            }
            if index.insert(q.question_id.as_str(), i).is_some() {
                return Err(DomainError::invalid(field("question_id"), format!("'{}' is repeated", q.question_id)));
            }
            if q.text.trim().is_empty() {
                return Err(DomainError::invalid(field("text"), "must not be empty"));
            }
            match q.question_type {
                SurveyQuestionType::MultipleChoice => {
                    let n = q.options.as_ref().map_or(0, Vec::len);
                    if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&n) {
                        return Err(DomainError::invalid(
                            field("options"),
                            format!("{n} options given; a multiple_choice question takes {MIN_OPTIONS}-{MAX_OPTIONS}"),
                        ));
                    }
                }
                SurveyQuestionType::Rating => {
                    let (low, high) = q.scale.unwrap_or((1, 5));
                    if high <= low || usize::from(high - low) + 1 > MAX_OPTIONS {
                        return Err(DomainError::invalid(
                            field("scale"),
                            format!("[{low}, {high}] is not a scale of 2-{MAX_OPTIONS} values"),
                        ));
                    }
                }
                SurveyQuestionType::FreeText => {}
            }
        }
        for (question_id, rules) in &self.skip_logic {
            let from = *index.get(question_id.as_str()).ok_or_else(|| {
                DomainError::invalid(format!("skip_logic.{question_id}"), "names no question of this survey")
            })?;
            let question = &self.questions[from];
            for (r, rule) in rules.iter().enumerate() {
                let field = format!("skip_logic.{question_id}[{r}]");
                if rule.skip_to != END {
                    let to = index.get(rule.skip_to.as_str()).ok_or_else(|| {
                        DomainError::invalid(
                            format!("{field}.skip_to"),
                            format!("'{}' is not a question id (or '{END}')", rule.skip_to),
                        )
                    })?;
                    if *to <= from {
                        return Err(DomainError::invalid(
                            format!("{field}.skip_to"),
                            format!(
                                "'{}' does not come after '{question_id}'; skip logic only jumps forward",
                                rule.skip_to
                            ),
                        ));
                    }
                }
                if let Some(allowed) = question.answer_values() {
                    if let Some(bad) = rule.answer_in.iter().find(|a| !allowed.contains(a)) {
                        return Err(DomainError::invalid(
                            format!("{field}.answer_in"),
                            format!("'{bad}' is not an answer of '{question_id}'; allowed: {}", allowed.join(", ")),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Where the survey stands after these answers (question id and answer, in the order
    /// given). Pure: the same answers always give the same cursor.
    pub fn cursor(&self, answers: &[(String, ClientResponse)]) -> SurveyCursor {
        let answer_of: HashMap<&str, &ClientResponse> = answers.iter().map(|(q, a)| (q.as_str(), a)).collect();
        let mut skipped_questions = Vec::new();
        let mut i = 0;
        while i < self.questions.len() {
            let question = &self.questions[i];
            let Some(answer) = answer_of.get(question.question_id.as_str()) else {
                return SurveyCursor {
                    next: Some(i),
                    answered: answers.len(),
                    skipped_questions,
                    total_questions: self.questions.len(),
                };
            };
            match self.jump(question, answer) {
                Some(target) if target == END => {
                    skipped_questions.extend(self.questions[i + 1..].iter().map(|q| q.question_id.clone()));
                    break;
                }
                Some(target) => {
                    let to = self.questions.iter().position(|q| q.question_id == target).unwrap_or(i + 1);
                    skipped_questions.extend(self.questions[i + 1..to].iter().map(|q| q.question_id.clone()));
                    i = to;
                }
                None => i += 1,
            }
        }
        SurveyCursor { next: None, answered: answers.len(), skipped_questions, total_questions: self.questions.len() }
    }

    fn jump<'a>(&'a self, question: &SurveyQuestion, answer: &ClientResponse) -> Option<&'a str> {
        let rules = self.skip_logic.get(&question.question_id)?;
        let rule = rules.iter().find(|rule| match answer {
            ClientResponse::Skipped => rule.when_skipped,
            other => rule.answer_in.iter().any(|a| a.trim().eq_ignore_ascii_case(other.as_text().trim())),
        })?;
        Some(rule.skip_to.as_str())
    }
}

impl SurveyQuestion {
    /// The widget that asks this question, verbatim.
    pub fn action(&self) -> ClientAction {
        let optional = !self.required;
        match self.question_type {
            SurveyQuestionType::MultipleChoice => ClientAction::PresentChoices {
                prompt: self.text.clone(),
                options: self.options.clone().unwrap_or_default(),
                optional,
            },
            SurveyQuestionType::Rating => ClientAction::PresentChoices {
                prompt: self.text.clone(),
                options: self.answer_values().unwrap_or_default(),
                optional,
            },
            SurveyQuestionType::FreeText => {
                ClientAction::RequestFreeText { prompt: self.text.clone(), placeholder: None, optional }
            }
        }
    }

    /// The answers a choice or rating question allows.
    fn answer_values(&self) -> Option<Vec<String>> {
        match self.question_type {
            SurveyQuestionType::MultipleChoice => self.options.clone(),
            SurveyQuestionType::Rating => {
                let (low, high) = self.scale.unwrap_or((1, 5));
                Some((low..=high).map(|v| v.to_string()).collect())
            }
            SurveyQuestionType::FreeText => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn survey() -> SurveyDefinition {
        serde_json::from_value(json!({
            "survey_id": "course-feedback",
            "title": "Course feedback",
            "questions": [
                {"question_id": "took", "text": "Did you finish the course?", "question_type": "multiple_choice", "options": ["Yes", "No"]},
                {"question_id": "rating", "text": "How useful was it?", "question_type": "rating"},
                {"question_id": "best", "text": "What was best?", "question_type": "free_text", "required": false},
                {"question_id": "why_not", "text": "Why not?", "question_type": "free_text"},
                {"question_id": "again", "text": "Would you take another?", "question_type": "multiple_choice", "options": ["Yes", "No"]}
            ],
            "skip_logic": {
                "took": [{"answer_in": ["No"], "skip_to": "why_not"}],
                "best": [{"answer_in": [], "when_skipped": true, "skip_to": "again"}],
                "rating": [{"answer_in": ["1"], "skip_to": "end"}]
            }
        }))
        .unwrap()
    }

    fn choice(option: &str) -> ClientResponse {
        ClientResponse::Choice { selected_index: 0, option: option.into() }
    }

    #[test]
    fn a_no_skips_to_why_not() {
        let s = survey();
        s.validate().unwrap();
        assert_eq!(s.cursor(&[]).next, Some(0));
        let cursor = s.cursor(&[("took".into(), choice("No"))]);
        assert_eq!(cursor.next, Some(3));
        assert_eq!(cursor.skipped_questions, vec!["rating", "best"]);
    }

    #[test]
    fn yes_goes_in_order_and_a_skipped_optional_question_jumps() {
        let s = survey();
        let answers = vec![
            ("took".to_string(), choice("Yes")),
            ("rating".to_string(), choice("4")),
            ("best".to_string(), ClientResponse::Skipped),
        ];
        let cursor = s.cursor(&answers);
        assert_eq!(cursor.next, Some(4));
        assert_eq!(cursor.skipped_questions, vec!["why_not"]);
    }

    #[test]
    fn skip_to_end_finishes_the_survey() {
        let s = survey();
        let cursor = s.cursor(&[("took".into(), choice("Yes")), ("rating".into(), choice("1"))]);
        assert_eq!(cursor.next, None);
        assert_eq!(cursor.skipped_questions, vec!["best", "why_not", "again"]);
    }

    #[test]
    fn backward_jumps_and_unknown_answers_are_refused() {
        let mut s = survey();
        s.skip_logic
            .insert("again".into(), vec![SkipRule { answer_in: vec![], when_skipped: false, skip_to: "took".into() }]);
        assert!(s.validate().unwrap_err().to_string().contains("only jumps forward"));
        let mut s = survey();
        s.skip_logic.insert(
            "took".into(),
            vec![SkipRule { answer_in: vec!["Maybe".into()], when_skipped: false, skip_to: "end".into() }],
        );
        assert_eq!(
            s.validate().unwrap_err().to_string(),
            "skip_logic.took[0].answer_in: 'Maybe' is not an answer of 'took'; allowed: Yes, No"
        );
    }

    #[test]
    fn rating_questions_become_choices_of_their_scale() {
        let s = survey();
        match s.questions[1].action() {
            ClientAction::PresentChoices { options, .. } => assert_eq!(options, vec!["1", "2", "3", "4", "5"]),
            other => panic!("{other:?}"),
        }
    }
}
