//! The tool table: each tool is a name, a description an assistant can act on, the JSON
//! Schemas of its arguments and result, and one application operation. Every failure a
//! caller can fix (a bad argument, a broken rule, an unknown id or tool) comes back as a
//! tool error whose text says what was wrong and what is allowed; protocol errors are kept
//! for what no call could fix.

use super::{args, shape};
use pathwise_app::idempotency::fingerprint;
use pathwise_app::{App, AppError, ErrorCode};
use pathwise_domain::LearnerId;
use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The largest arguments object a call may carry, serialized.
pub const MAX_ARGUMENT_BYTES: usize = 256 * 1024;

type Outcome = Pin<Box<dyn Future<Output = Result<serde_json::Value, AppError>> + Send>>;
type Handler = Arc<dyn Fn(App, LearnerId, Option<JsonObject>) -> Result<Outcome, String> + Send + Sync>;

pub struct ToolSpec {
    pub tool: Tool,
    handler: Handler,
    keys: KeyHandling,
}

/// How a tool takes an `idempotency_key` argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyHandling {
    /// A read: nothing to repeat.
    None,
    /// The registry keeps the first reply under the key and answers retries with it.
    Registry,
    /// The tool's own input has the key (a response keeps it in its own row).
    Tool,
}

/// The argument every tool that writes takes.
const KEY_ARGUMENT: &str = "idempotency_key";

/// Whether a tool changes anything: assistants may call read-only tools without asking.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Reads,
    Writes,
}

/// A tool running `run` on arguments parsed as `I`, answering with `O`.
pub fn tool<I, O, F, Fut>(name: &'static str, description: &'static str, effect: Effect, run: F) -> ToolSpec
where
    I: DeserializeOwned + JsonSchema + Send + 'static,
    O: Serialize + JsonSchema + 'static,
    F: Fn(App, LearnerId, I) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, AppError>> + Send + 'static,
{
    let mut input_schema =
        schema_for_input::<I>().unwrap_or_else(|e| panic!("the arguments of {name} are not an object: {e}"));
    let keys = match effect {
        Effect::Reads => KeyHandling::None,
        _ if input_schema.get("properties").and_then(|p| p.get(KEY_ARGUMENT)).is_some() => KeyHandling::Tool,
        Effect::Writes => {
            let schema = Arc::make_mut(&mut input_schema);
            let properties = schema.entry("properties").or_insert_with(|| serde_json::json!({}));
            if let Some(properties) = properties.as_object_mut() {
                properties.insert(
                    KEY_ARGUMENT.into(),
                    serde_json::json!({
                        "type": "string",
                        "description": "Optional: a retry with this key gets the first result."
                    }),
                );
            }
            KeyHandling::Registry
        }
    };
    let renamed = Arc::new(shape::input_schema(Arc::make_mut(&mut input_schema)));
    let structured = shape::structured_arguments(&input_schema);
    let mut output_schema = schema_for_output::<O>();
    shape::output_schema(Arc::make_mut(&mut output_schema));
    let mut tool = Tool::new(name, description, input_schema);
    tool.output_schema = Some(output_schema);
    tool.annotations = Some(ToolAnnotations::new().read_only(effect == Effect::Reads).open_world(false));
    let run = Arc::new(run);
    let handler: Handler = Arc::new(move |app, learner, mut arguments| {
        if let Some(arguments) = arguments.as_mut() {
            shape::unstring_arguments(arguments, &structured);
            shape::map_arguments_back(arguments, &renamed);
        }
        let input: I = args::parse(arguments).map_err(|problem| shape::shown_names(&problem, &renamed))?;
        let run = run.clone();
        let renamed = renamed.clone();
        Ok(Box::pin(async move {
            let output = run(app, learner, input).await.map_err(|error| in_shown_names(error, &renamed))?;
            serde_json::to_value(output).map_err(|e| AppError::internal(e.to_string()))
        }))
    });
    ToolSpec { tool, handler, keys }
}

/// A refusal as the assistant was shown the tool: its message and the field it names in the
/// shown (snake_case) names.
fn in_shown_names(mut error: AppError, renamed: &std::collections::HashMap<String, String>) -> AppError {
    error.message = shape::shown_names(&error.message, renamed);
    if let Some(serde_json::Value::String(field)) = error.details.get_mut("field") {
        *field = shape::shown_names(field, renamed);
    }
    error
}

/// Every tool, by name.
pub struct Registry {
    tools: Vec<Tool>,
    by_name: HashMap<String, (Handler, KeyHandling)>,
}

impl Registry {
    pub fn new(specs: Vec<ToolSpec>) -> Self {
        let mut by_name = HashMap::new();
        let mut tools = Vec::with_capacity(specs.len());
        for spec in specs {
            let previous = by_name.insert(spec.tool.name.to_string(), (spec.handler, spec.keys));
            assert!(previous.is_none(), "two tools named {}", spec.tool.name);
            tools.push(spec.tool);
        }
        Registry { tools, by_name }
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Call a tool; every mistake of the caller's is a tool error, never a protocol error.
    pub async fn call(
        &self,
        app: App,
        learner: LearnerId,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> CallToolResult {
        let Some((handler, keys)) = self.by_name.get(name) else {
            let known: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
            return failure(
                ErrorCode::UnknownTool,
                format!("unknown tool '{name}'; the tools are: {}", known.join(", ")),
            );
        };
        let size = arguments.as_ref().map_or(0, |a| serde_json::to_vec(a).map_or(usize::MAX, |bytes| bytes.len()));
        if size > MAX_ARGUMENT_BYTES {
            return failure(
                ErrorCode::BodyTooLarge,
                format!("arguments: {size} bytes; a call's arguments may be at most {MAX_ARGUMENT_BYTES} bytes"),
            );
        }
        let mut arguments = arguments;
        let kept = match (keys, arguments.as_mut()) {
            (KeyHandling::Registry, Some(args)) => match args.remove(KEY_ARGUMENT) {
                Some(serde_json::Value::String(key)) => {
                    // The arguments without the key, keys in order: what was asked.
                    let asked = serde_json::to_vec(&args).unwrap_or_default();
                    Some((key, fingerprint(&[b"mcp", name.as_bytes(), &asked])))
                }
                Some(_) => {
                    return failure(
                        ErrorCode::Invalid,
                        format!("{name}: bad arguments: {KEY_ARGUMENT}: must be a string"),
                    )
                }
                None => None,
            },
            _ => None,
        };
        if let Some((key, asked)) = &kept {
            match app.kept_reply(learner, key, asked).await {
                Ok(Some(reply)) => {
                    return serde_json::from_str(&reply.body).map(CallToolResult::structured).unwrap_or_else(|_| {
                        failure(ErrorCode::Internal, "internal error; the server log has the details".into())
                    });
                }
                Ok(None) => {}
                Err(error) => return refusal(&error, describe(&error)),
            }
        }
        // Before the handler takes them: the ids the call gave, to say which one was not found.
        let given: Vec<(String, String)> = arguments
            .iter()
            .flatten()
            .filter_map(|(field, value)| value.as_str().map(|id| (field.clone(), id.to_string())))
            .filter(|(_, id)| !id.is_empty())
            .collect();
        let outcome = match handler(app.clone(), learner, arguments) {
            Ok(outcome) => outcome,
            Err(problem) => {
                return failure(
                    ErrorCode::Invalid,
                    format!("{name}: bad arguments: {problem}; see the tool's inputSchema"),
                );
            }
        };
        match outcome.await {
            Ok(value) => {
                if let Some((key, asked)) = &kept {
                    if let Err(error) = app.keep_reply(learner, key, asked, 200, value.to_string()).await {
                        tracing::warn!(%error, tool = name, "a result could not be kept under its idempotency key");
                    }
                }
                CallToolResult::structured(value)
            }
            Err(error) => refusal(&error, naming_the_argument(&error, &given)),
        }
    }
}

/// A not-found names the argument that gave the id, as a refusal of the HTTP API names its
/// path parameter: `thread_id: thread ... not found`; one that names its field already
/// (`course_id: there is no course ...`) is left as it is.
fn naming_the_argument(error: &AppError, given: &[(String, String)]) -> String {
    let message = describe(error);
    if error.kind != pathwise_app::ErrorKind::NotFound || names_its_field(error) {
        return message;
    }
    match given.iter().find(|(_, id)| message.contains(id.as_str())) {
        Some((field, _)) => format!("{field}: {message}"),
        None => message,
    }
}

/// Whether the message begins with the field it is about (`details.field`).
fn names_its_field(error: &AppError) -> bool {
    error
        .details
        .get("field")
        .and_then(|f| f.as_str())
        .is_some_and(|field| error.message.strip_prefix(field).is_some_and(|rest| rest.starts_with(':')))
}

/// What an assistant reads to fix its call: the rule's message, and the facts the rule
/// gives (the cycle's path, the limit) when there are any; a field the message begins
/// with is not said again.
fn describe(error: &AppError) -> String {
    if error.kind == pathwise_app::ErrorKind::Internal {
        tracing::error!(code = error.code.as_str(), message = %error.message, "a tool call failed");
        return "internal error; the server log has the details".into();
    }
    let mut facts = match &error.details {
        serde_json::Value::Object(facts) => facts.clone(),
        _ => serde_json::Map::new(),
    };
    if names_its_field(error) {
        facts.remove("field");
    }
    if facts.is_empty() {
        error.message.clone()
    } else {
        format!("{} ({}: {})", error.message, error.code, serde_json::Value::Object(facts))
    }
}

/// The HTTP routes the application's messages point at (`GET /api/courses lists them`), and
/// the tool that does the same for an assistant; every tool error is read through it.
const ROUTES_AS_TOOLS: &[(&str, &str)] = &[
    ("GET /api/courses", "course_list"),
    ("POST /api/curriculum/generate", "curriculum_generate"),
    ("POST /api/mind-maps/outline", "mind_map_import_outline"),
    ("POST /api/flows/{id}/advance", "teaching_flow_advance"),
];

/// A message as an assistant reads it: the routes it names replaced by their tools.
pub(super) fn in_tools(message: &str) -> String {
    let mut text = message.to_string();
    for (route, tool) in ROUTES_AS_TOOLS {
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(route) {
            let after = &rest[at + route.len()..];
            // `GET /api/courses` is not `GET /api/courses/{id}`.
            let whole = !after.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '/' | '-' | '_' | '{' | '?'));
            out.push_str(&rest[..at]);
            out.push_str(if whole { tool } else { route });
            rest = after;
        }
        out.push_str(rest);
        text = out;
    }
    text
}

/// The key of a tool error's `_meta` that holds its code, as an HTTP error's `code`.
const CODE_META_KEY: &str = "pathwise/code";

/// A tool error: its text for the assistant, and its code in `_meta` for a client that
/// branches on it, since the text is free to change and the code is not. Every tool error
/// has one, the registry's own refusals (an unknown tool, bad arguments) too.
fn failure(code: ErrorCode, message: String) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(in_tools(&message))]);
    result.meta = Some(MetaObject(JsonObject::from_iter([(CODE_META_KEY.to_string(), code.as_str().into())])));
    result
}

/// A refusal of the application's, with its code.
fn refusal(error: &AppError, message: String) -> CallToolResult {
    failure(error.code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_in_a_message_is_read_as_its_tool() {
        assert_eq!(
            in_tools("there is no course 'X'; GET /api/courses lists them"),
            "there is no course 'X'; course_list lists them"
        );
        assert_eq!(in_tools("see GET /api/courses/{id}"), "see GET /api/courses/{id}", "another route");
        let offline = AppError::topic_needs_model("starting a topic", None);
        let shown = in_tools(&describe(&offline));
        assert!(shown.contains("curriculum_generate with a `decomposition`"), "{shown}");
        assert!(!shown.contains("/api/curriculum") && !shown.contains("/api/mind-maps"), "{shown}");
        let tools: Vec<String> = super::super::tools::all().iter().map(|t| t.tool.name.to_string()).collect();
        for (route, tool) in ROUTES_AS_TOOLS {
            assert!(tools.iter().any(|t| t == tool), "{route} is read as {tool}, which is no tool");
        }
    }

    #[test]
    fn a_refusal_that_names_its_field_names_it_once() {
        let error = AppError::absent("course_id", "there is no course 'NOPE'; GET /api/courses lists them");
        let given = [("course_id".to_string(), "NOPE".to_string())];
        assert_eq!(
            naming_the_argument(&error, &given),
            "course_id: there is no course 'NOPE'; GET /api/courses lists them"
        );
        let missing = AppError::not_found("thread", "T-1");
        let given = [("thread_id".to_string(), "T-1".to_string())];
        assert!(naming_the_argument(&missing, &given).starts_with("thread_id: thread T-1 not found"));
    }
}
