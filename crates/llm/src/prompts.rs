//! Prompts are files in `crates/llm/prompts/`, compiled into the binary and rendered with
//! minijinja, so that they can be read, reviewed and changed without touching code.

use minijinja::Environment;
use serde::Serialize;
use std::sync::LazyLock;

/// Every prompt, by name (the file name without `.md`).
const PROMPTS: &[(&str, &str)] = &[
    ("curriculum_planning", include_str!("../prompts/curriculum_planning.md")),
    ("curriculum_replan", include_str!("../prompts/curriculum_replan.md")),
    ("diagnostic_inventory", include_str!("../prompts/diagnostic_inventory.md")),
    ("diagnostic_question", include_str!("../prompts/diagnostic_question.md")),
    ("teaching", include_str!("../prompts/teaching.md")),
    ("quiz_question", include_str!("../prompts/quiz_question.md")),
    ("review", include_str!("../prompts/review.md")),
    ("grading", include_str!("../prompts/grading.md")),
    ("digest", include_str!("../prompts/digest.md")),
    // Sessions (session-flow.md): the thought partner, its summaries, the learning tutor.
    ("session_thought", include_str!("../prompts/session_thought.md")),
    ("session_summary", include_str!("../prompts/session_summary.md")),
    ("session_learning", include_str!("../prompts/session_learning.md")),
    // The policy tutor (policy-tutor.md PF-3.6): its rules, the student input with the JSON
    // contract, and drill grading.
    ("tutor_system", include_str!("../prompts/tutor_system.md")),
    ("tutor_student", include_str!("../prompts/tutor_student.md")),
    ("tutor_drill_grading", include_str!("../prompts/tutor_drill_grading.md")),
    // A unit of a course drafted from someone's material: its questions and drills.
    ("author_unit", include_str!("../prompts/author_unit.md")),
    ("author_outline", include_str!("../prompts/author_outline.md")),
    // Instructions for an assistant that teaches through Pathwise's MCP tools itself.
    ("assistant_curriculum_planning", include_str!("../prompts/assistant_curriculum_planning.md")),
    ("assistant_diagnostic", include_str!("../prompts/assistant_diagnostic.md")),
    ("assistant_teaching", include_str!("../prompts/assistant_teaching.md")),
    ("assistant_review", include_str!("../prompts/assistant_review.md")),
    ("assistant_tutor_course", include_str!("../prompts/assistant_tutor_course.md")),
    ("assistant_run_evaluation", include_str!("../prompts/assistant_run_evaluation.md")),
];

static ENVIRONMENT: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // A placeholder the code forgot to fill is a bug, not an empty string in a prompt.
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    for (name, text) in PROMPTS {
        env.add_template(name, text).unwrap_or_else(|e| panic!("prompt {name} does not parse: {e}"));
    }
    env
});

/// The named prompt rendered with `context`.
///
/// # Panics
/// On an unknown name or a placeholder missing from `context`: both are mistakes in the
/// code that calls it, which the prompt tests catch.
pub fn render(name: &str, context: impl Serialize) -> String {
    let template = ENVIRONMENT.get_template(name).unwrap_or_else(|_| panic!("no prompt named {name}"));
    template.render(context).unwrap_or_else(|e| panic!("prompt {name} cannot be rendered: {e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_prompt_parses() {
        for (name, _) in PROMPTS {
            assert!(ENVIRONMENT.get_template(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn curriculum_planning_names_the_topic_goal_and_limits() {
        let text = render(
            "curriculum_planning",
            json!({ "topic": "Linear algebra", "goal": "eigenvalues", "max_nodes": 30, "max_depth": 5, "known": ["vectors"] }),
        );
        for expected in ["Linear algebra", "eigenvalues", "30", "5", "vectors"] {
            assert!(text.contains(expected), "missing {expected}: {text}");
        }
        let without_goal = render(
            "curriculum_planning",
            json!({ "topic": "Rust", "goal": null, "max_nodes": 30, "max_depth": 5, "known": [] }),
        );
        assert!(
            !without_goal.contains("The learner's goal") && without_goal.contains("comprehensively"),
            "{without_goal}"
        );
    }
}
