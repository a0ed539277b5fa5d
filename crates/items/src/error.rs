//! Errors. Each message says what was wrong and what is allowed, since most of them reach a
//! course author editing a pack or a caller sending a request.

use thiserror::Error;

/// Generating, regenerating, checking and planning items.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ItemError {
    #[error("unknown skill blueprint '{skill_id}'")]
    UnknownSkill { skill_id: String },
    #[error("unknown assessment '{assessment_id}'")]
    UnknownAssessment { assessment_id: String },
    #[error("item id '{id}' is malformed: {reason}; expected '<skill_id>~s=<seed>~d=<target>' or 'inline~<hash>'")]
    MalformedId { id: String, reason: String },
    #[error("unknown inline item '{id}': the library knows only the inline items of its assessments' pools")]
    UnknownInlineItem { id: String },
    #[error("target '{given}' is not a difficulty; allowed: 0-1 or easy, medium, hard")]
    BadTarget { given: String },
    #[error("choice {choice} is out of range; allowed: 0-{}", .options.saturating_sub(1))]
    ChoiceOutOfRange { choice: usize, options: usize },
    #[error("item '{item_id}' takes a typed answer, not a choice (choice {choice} given)")]
    ChoiceForTextItem { item_id: String, choice: usize },
    #[error("item '{item_id}' is a code task: run its {tests} tests and score the result with check_tests")]
    NeedsExecution { item_id: String, tests: usize },
    #[error("item '{item_id}' is not a code task; answer it with a choice or text")]
    NotACodeItem { item_id: String },
    #[error("item '{item_id}' has {expected} tests; {passed} passed of {total} is not a result for it")]
    TestCount { item_id: String, passed: usize, total: usize, expected: usize },
    #[error(
        "skill '{skill_id}' has no item left that is new to this session at target {target} after {attempts} attempts; \
         its item space is exhausted (use another skill or another target)"
    )]
    SpaceExhausted { skill_id: String, target: String, attempts: u32 },
    #[error("skill '{skill_id}' made only {made} distinct options of the {needed} needed; give it more distractor strategies or fewer options")]
    TooFewOptions { skill_id: String, needed: usize, made: usize },
    #[error("assessment '{assessment_id}': {problem}")]
    Planning { assessment_id: String, problem: String },
}

/// A skill blueprint that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("skill '{skill_id}': {problem}")]
pub struct BlueprintError {
    pub skill_id: String,
    pub problem: BlueprintProblem,
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum BlueprintProblem {
    #[error("option_count {value} is out of range; allowed: 2-6")]
    OptionCount { value: u32 },
    #[error("multiple_choice needs option_count (2-6)")]
    MissingOptionCount,
    #[error("{field} applies to {applies_to} items only, and this one is {item_type}")]
    NotApplicable { field: &'static str, applies_to: &'static str, item_type: &'static str },
    #[error("stem_templates is empty; give at least one")]
    NoTemplates,
    #[error("stem_templates[{index}] {problem}; placeholders of {generator}: {available}")]
    Template { index: usize, problem: String, generator: String, available: String },
    #[error("distractor strategy '{name}' is not known for {generator}; allowed: {allowed}")]
    UnknownStrategy { name: String, generator: String, allowed: String },
    #[error("multiple_choice needs at least one distractor strategy; allowed for {generator}: {allowed}")]
    NoStrategies { generator: String, allowed: String },
    #[error("difficulty factor '{name}' is not known for {generator}; allowed: {allowed}")]
    UnknownFactor { name: String, generator: String, allowed: String },
    #[error("difficulty factor '{name}' cannot occur: {reason}")]
    ImpossibleFactor { name: String, reason: String },
    #[error(
        "difficulty factor '{name}' came up in none of {trials} trial generations; these parameters make it too rare"
    )]
    RareFactor { name: String, trials: u32 },
    #[error("difficulty factor '{name}' has weight {weight}; allowed: 0-1")]
    FactorWeight { name: String, weight: f64 },
    #[error("no difficulty factor of {generator} can occur with these parameters")]
    NoFactors { generator: String },
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
}

/// An assessment blueprint that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("assessment '{assessment_id}': {problem}")]
pub struct AssessmentError {
    pub assessment_id: String,
    pub problem: String,
}

/// An inline item (session-flow.md D4, option A) that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum InlineError {
    #[error("stem is empty")]
    EmptyStem,
    #[error("{count} options given; allowed: 2-6")]
    OptionCount { count: usize },
    #[error("options[{index}] is empty")]
    EmptyOption { index: usize },
    #[error("options[{first}] and options[{second}] are the same ('{text}')")]
    DuplicateOption { first: usize, second: usize, text: String },
    #[error("correct index {index} is out of range; allowed: 0-{}", .options.saturating_sub(1))]
    CorrectOutOfRange { index: i64, options: usize },
    #[error("correct '{text}' is not one of the options; give its index (0-{}) or its exact text", .options.saturating_sub(1))]
    CorrectNotAnOption { text: String, options: usize },
    #[error("correct must be {expected}, not {found}")]
    CorrectType { expected: &'static str, found: String },
    #[error("correct is empty")]
    EmptyCorrect,
    #[error("difficulty {value} is out of range; allowed: 0-1")]
    Difficulty { value: f64 },
    #[error("a (discrimination) {value} is out of range; allowed: above 0, at most 4")]
    Discrimination { value: f64 },
    #[error("time_limit_seconds {value} is out of range; allowed: 1-86400")]
    TimeLimit { value: u32 },
    #[error("repeats items[{first}]")]
    Repeated { first: usize },
}

/// An inline item of a list, by position.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("items[{index}]: {source}")]
pub struct InlineItemsError {
    pub index: usize,
    pub source: InlineError,
}

/// An item pack that cannot be added to a library. Nothing of a refused pack is added.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PackError {
    #[error("{format} pack does not parse: {message}")]
    Parse { format: &'static str, message: String },
    #[error("skills[{index}]: skill id '{skill_id}' is already taken{}", if *.in_pack { " earlier in this pack" } else { " in the library" })]
    DuplicateSkill { index: usize, skill_id: String, in_pack: bool },
    #[error("assessments[{index}]: assessment id '{assessment_id}' is already taken{}", if *.in_pack { " earlier in this pack" } else { " in the library" })]
    DuplicateAssessment { index: usize, assessment_id: String, in_pack: bool },
    #[error("skills[{index}]: {source}")]
    Skill { index: usize, source: BlueprintError },
    #[error("assessments[{index}]: {source}")]
    Assessment { index: usize, source: AssessmentError },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_is_allowed() {
        let e = ItemError::ChoiceOutOfRange { choice: 5, options: 4 };
        assert_eq!(e.to_string(), "choice 5 is out of range; allowed: 0-3");
        let e = BlueprintError { skill_id: "X".into(), problem: BlueprintProblem::OptionCount { value: 9 } };
        assert_eq!(e.to_string(), "skill 'X': option_count 9 is out of range; allowed: 2-6");
        let e = PackError::DuplicateSkill { index: 2, skill_id: "X".into(), in_pack: false };
        assert_eq!(e.to_string(), "skills[2]: skill id 'X' is already taken in the library");
        let e = InlineItemsError { index: 1, source: InlineError::CorrectOutOfRange { index: 4, options: 4 } };
        assert_eq!(e.to_string(), "items[1]: correct index 4 is out of range; allowed: 0-3");
    }
}
