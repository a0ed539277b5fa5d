//! The teaching, diagnostic, review and curriculum-planning instructions as MCP prompts, so
//! that an assistant with no Pathwise-side model can run a whole topic itself. The texts
//! are files beside the model's own prompts (`crates/llm/prompts/assistant_*.md`).

use pathwise_domain::graph::GraphLimits;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value};

struct PromptSpec {
    name: &'static str,
    template: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str, bool)],
}

const PROMPTS: &[PromptSpec] = &[
    PromptSpec {
        name: "curriculum_planning",
        template: "assistant_curriculum_planning",
        description: "Decompose a topic into a concept graph and create the planned map with curriculum_generate.",
        arguments: &[
            ("topic", "What to learn, e.g. 'Linear algebra'.", true),
            ("goal", "What the learner wants to be able to do; scopes the plan.", false),
        ],
    },
    PromptSpec {
        name: "diagnostic",
        template: "assistant_diagnostic",
        description: "Run the adaptive diagnostic of a teaching flow: 3-7 probes that find what the learner knows.",
        arguments: &[("topic", "The flow's topic.", true), ("flow_id", "The flow, from teaching_flow_start.", true)],
    },
    PromptSpec {
        name: "teaching",
        template: "assistant_teaching",
        description: "Teach a topic concept by concept: explain, quiz, record, review; with a flow_id through \
                      the teaching flow, otherwise on a planned map.",
        arguments: &[
            ("topic", "What is being learned.", true),
            ("flow_id", "A teaching flow to step through (leave out to teach from a map directly).", false),
        ],
    },
    PromptSpec {
        name: "review",
        template: "assistant_review",
        description: "Run the spaced-repetition reviews that are due, and record each answer.",
        arguments: &[("mind_map_id", "Only this map's reviews (leave out for every map).", false)],
    },
    PromptSpec {
        name: "tutor_course",
        template: "assistant_tutor_course",
        description: "Tutor the learner through a course with the policy tutor: turns, drills graded by Pathwise, \
                      exam questions with their lockouts, the tiers reached.",
        arguments: &[
            ("course_id", "The course, from course_list (e.g. MATH-FOUNDATIONS).", true),
            ("thread_id", "A thread to continue (leave out to start one).", false),
        ],
    },
    PromptSpec {
        name: "run_evaluation",
        template: "assistant_run_evaluation",
        description: "Run an evaluation session item by item with session_create, session_run and \
                      session_respond, and show the score at the end.",
        arguments: &[(
            "blueprint_id",
            "The assessment, from library_assessments (leave out to let the learner choose).",
            false,
        )],
    },
];

pub fn list() -> Vec<Prompt> {
    PROMPTS
        .iter()
        .map(|p| {
            let arguments = p
                .arguments
                .iter()
                .map(|(name, description, required)| {
                    PromptArgument::new(*name).with_description(*description).with_required(*required)
                })
                .collect();
            Prompt::new(p.name, Some(p.description), Some(arguments))
        })
        .collect()
}

/// The prompt rendered with its arguments; the error says what is missing or unknown.
pub fn get(name: &str, arguments: Option<Map<String, Value>>) -> Result<GetPromptResult, String> {
    let spec = PROMPTS.iter().find(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = PROMPTS.iter().map(|p| p.name).collect();
        format!("unknown prompt '{name}'; the prompts are: {}", known.join(", "))
    })?;
    let given = arguments.unwrap_or_default();
    let mut context = Map::new();
    for (argument, _, required) in spec.arguments {
        match given.get(*argument).and_then(Value::as_str).map(str::trim).filter(|v| !v.is_empty()) {
            Some(value) => {
                context.insert((*argument).into(), value.into());
            }
            None if *required => return Err(format!("prompt '{name}' needs the argument '{argument}'")),
            None => {
                context.insert((*argument).into(), Value::Null);
            }
        }
    }
    if let Some(unknown) = given.keys().find(|k| !spec.arguments.iter().any(|(a, _, _)| a == k)) {
        let allowed: Vec<&str> = spec.arguments.iter().map(|(a, _, _)| *a).collect();
        return Err(format!("prompt '{name}' has no argument '{unknown}'; it takes: {}", allowed.join(", ")));
    }
    let limits = GraphLimits::SINGLE_TOPIC;
    context.insert("max_nodes".into(), limits.max_nodes.into());
    context.insert("max_depth".into(), limits.max_depth.into());
    let text = pathwise_llm::prompts::render(spec.template, Value::Object(context));
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).with_description(spec.description))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(result: &GetPromptResult) -> String {
        serde_json::to_value(&result.messages[0]).unwrap()["content"]["text"].as_str().unwrap().to_string()
    }

    #[test]
    fn every_prompt_renders_with_its_required_arguments() {
        for spec in PROMPTS {
            let arguments: Map<String, Value> = spec
                .arguments
                .iter()
                .filter(|(_, _, required)| *required)
                .map(|(a, _, _)| ((*a).to_string(), json!("Graph theory")))
                .collect();
            let result = get(spec.name, Some(arguments)).unwrap();
            assert!(text(&result).len() > 200, "{}", spec.name);
        }
    }

    #[test]
    fn planning_states_the_limits_and_the_goal() {
        let result =
            get("curriculum_planning", json!({ "topic": "Calculus", "goal": "integrals" }).as_object().cloned())
                .unwrap();
        let text = text(&result);
        for expected in ["Calculus", "integrals", "goal_node", "at most 30 concepts", "5 edges"] {
            assert!(text.contains(expected), "{expected} missing from:\n{text}");
        }
    }

    #[test]
    fn a_missing_or_unknown_argument_is_named() {
        assert!(get("diagnostic", None).unwrap_err().contains("topic"));
        let unknown = get("review", json!({ "map": "x" }).as_object().cloned()).unwrap_err();
        assert!(unknown.contains("'map'") && unknown.contains("mind_map_id"), "{unknown}");
        assert!(get("nope", None).unwrap_err().contains("teaching"));
    }
}
