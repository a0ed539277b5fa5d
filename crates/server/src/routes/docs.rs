//! The OpenAPI 3.1 document and a self-contained page to browse it (no CDN, no build step).

use crate::AppState;
use axum::body::Bytes;
use axum::http::{header, HeaderValue};
use axum::response::Html;
use axum::routing::{get, MethodRouter};
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, Ref, RefOr, Response, ResponseBuilder, Schema};
use utoipa::{Modify, OpenApi};

/// The document's description; its operations are the router's (`crate::operations`), and
/// [`finish`] adds what every operation shares.
#[derive(OpenApi)]
#[openapi(info(
    title = "Pathwise API",
    description = "A learner's concept maps, learning order, mastery and reviews. \
        Every call needs `Authorization: Bearer <token>`; errors are `{\"error\": {\"code\", \"message\", \"details\"}}`, \
        with `details` always an object (`{}` when there is nothing more to say). Each operation lists the statuses \
        it answers with; besides those, any operation may answer 503 `unavailable` when the database is too busy \
        to take the request (try again shortly) or 503 `request_timeout` when the server worked on it longer than \
        its request timeout (`request_timeout_secs`), and 500 `internal` is a bug."
))]
pub struct ApiDoc;

/// The document with every operation in it, finished: the bearer scheme, the errors and
/// headers each operation's shape implies, and the rules of request texts; as JSON, since
/// those rules use JSON Schema (`propertyNames`, recursive `anyOf`) that utoipa's model
/// does not hold.
pub fn finish(mut document: utoipa::openapi::OpenApi) -> serde_json::Value {
    let modifiers: [&dyn Modify; 2] = [&BearerAuth, &CommonErrors];
    for modifier in modifiers {
        modifier.modify(&mut document);
    }
    text_rules(document)
}

/// What no text of a request may hold: a NUL character (PostgreSQL keeps none, so neither
/// store takes one; `unstorable_text`). As a JSON Schema pattern, which is not anchored.
const NO_NUL: &str = "^[^\\u0000]*$";
/// A text the server trims and requires (`minLength` 1 on its field): not blank, no NUL.
/// Blank is Rust's `char::is_whitespace` (Unicode's White_Space), spelled out: `\s`
/// differs between regex dialects, and a generator reading it as ASCII would send a
/// no-break space as a label the server trims to nothing.
const NOT_BLANK: &str = "^[^\\u0000]*[^\\u0000\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000][^\\u0000]*$";

/// The rules every text of a request keeps, stated where a client's generator reads them:
/// each string a request body holds gets a pattern (no NUL; not blank where the field has a
/// `minLength`, since every required text is trimmed before it is checked). Done once over
/// the document's JSON, for the schemas request bodies reach, so that no field can forget.
fn text_rules(document: utoipa::openapi::OpenApi) -> serde_json::Value {
    let mut value = serde_json::to_value(&document).expect("the OpenAPI document serializes");
    request_shapes(&mut value);
    let mut reached = std::collections::BTreeSet::new();
    let mut pending: Vec<String> = Vec::new();
    if let Some(paths) = value.get_mut("paths").and_then(serde_json::Value::as_object_mut) {
        for operation in
            paths.values_mut().filter_map(serde_json::Value::as_object_mut).flat_map(|item| item.values_mut())
        {
            let Some(content) =
                operation.pointer_mut("/requestBody/content").and_then(serde_json::Value::as_object_mut)
            else {
                continue;
            };
            for media in content.values_mut() {
                if let Some(schema) = media.get_mut("schema") {
                    constrain_text(schema);
                    references(schema, &mut pending);
                }
            }
        }
    }
    while let Some(name) = pending.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = value.pointer_mut(&format!("/components/schemas/{name}")) {
            constrain_text(schema);
            references(schema, &mut pending);
        }
    }
    value
}

/// What the request types' derived schemas cannot say by themselves:
///
/// - `AdvanceFlow` takes, besides `step`, only the fields of that step (`FlowStep::fields`,
///   the rule the server applies): one alternative per step.
/// - A tutor turn needs the learner's words or a client event; a drill sent back, its id;
///   a caller's feedback, the caller's grade; a plan scoped to a goal, the goal's concept.
/// - A new session's config follows its type ([`session_shapes`]).
/// - A free-form object (a map's or a node's `metadata`) holds any JSON but NUL: its values
///   follow `JsonValue`, a recursive schema of JSON without NUL in any text or key.
fn request_shapes(document: &mut serde_json::Value) {
    use pathwise_app::learning_loop::advance::FlowStep;
    use serde_json::{json, Value};
    let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(advance) = schemas.get_mut("AdvanceFlow") {
        let properties = advance["properties"].as_object().cloned().unwrap_or_default();
        let variants: Vec<Value> = FlowStep::ALL
            .iter()
            .map(|step| {
                let mut own = serde_json::Map::new();
                own.insert("step".into(), json!({ "type": "string", "enum": [step.as_str()] }));
                for field in step.fields() {
                    if let Some(schema) = properties.get(*field) {
                        // A field the step cannot go without is not null either.
                        let schema =
                            if step.required().contains(field) { non_null(schema.clone()) } else { schema.clone() };
                        own.insert(field.to_string(), schema);
                    }
                }
                let mut required = vec!["step"];
                required.extend(step.required());
                let mut variant = json!({ "type": "object", "title": step.as_str(), "properties": own,
                    "required": required, "additionalProperties": false });
                if step.fields().contains(&"feedback") {
                    variant["anyOf"] = feedback_needs_quality();
                }
                variant
            })
            .collect();
        let description = advance.get("description").cloned();
        *advance = json!({ "oneOf": variants });
        if let Some(description) = description {
            advance["description"] = description;
        }
    }
    // A drill comes back as its card came (its `type`, `unitId` and the rest are ignored,
    // `drillId` and `questionLatex` read as `drill_id` and `question_latex`), and is graded
    // only by the id it carries.
    if let Some(drill) = schemas.get_mut("DrillText").and_then(Value::as_object_mut) {
        if let Some(Value::Object(properties)) = drill.get_mut("properties") {
            for (alias, field) in [("drillId", "drill_id"), ("questionLatex", "question_latex")] {
                if let Some(schema) = properties.get(field).cloned() {
                    properties.insert(alias.into(), schema);
                }
            }
        }
        drill.insert("additionalProperties".into(), json!({ "$ref": "#/components/schemas/JsonValue" }));
        drill.insert("propertyNames".into(), json!({ "pattern": NO_NUL }));
        // The id, under one of its two names (both at once is a field given twice), not blank.
        let id = json!({ "type": "string", "pattern": NOT_BLANK });
        drill.insert(
            "anyOf".into(),
            json!([
                { "required": ["drill_id"], "properties": { "drill_id": id } },
                { "required": ["drillId"], "properties": { "drillId": id } },
            ]),
        );
        drill.insert(
            "not".into(),
            json!({ "anyOf": [{ "required": ["drill_id", "drillId"] }, { "required": ["question_latex", "questionLatex"] }] }),
        );
    }
    if let Some(probe) = schemas.get_mut("RecordProbe").and_then(Value::as_object_mut) {
        probe.insert("anyOf".into(), feedback_needs_quality());
    }
    // A plan scoped to a goal names the concept that achieves it, and only then.
    for name in ["PlanInput", "GenerateInput"] {
        if let Some(plan) = schemas.get_mut(name).and_then(Value::as_object_mut) {
            plan.insert(
                "if".into(),
                json!({ "required": ["goal"], "properties": { "goal": { "type": "string", "pattern": NOT_BLANK } } }),
            );
            plan.insert(
                "then".into(),
                json!({ "properties": { "decomposition": { "required": ["goal_node"],
                    "properties": { "goal_node": { "type": "string" } } } } }),
            );
            plan.insert(
                "else".into(),
                json!({ "properties": { "decomposition": { "properties": { "goal_node": { "type": "null" } } } } }),
            );
        }
    }
    if let Some(turn) = schemas.get_mut("TurnRequest").and_then(Value::as_object_mut) {
        let words = ["messageText", "messageLatex", "voiceTranscript"].map(
            |field| json!({ "required": [field], "properties": { field: { "type": "string", "pattern": NOT_BLANK } } }),
        );
        let mut needs: Vec<Value> = words.into();
        // `NONE` is no event: a turn of it alone has nothing to answer.
        let event = json!({ "not": { "properties": { "type": { "const": "NONE" } }, "required": ["type"] } });
        needs.push(json!({ "required": ["clientEvent"], "properties": { "clientEvent": event } }));
        turn.insert("anyOf".into(), Value::Array(needs));
    }
    session_shapes(schemas);
    let no_nul = json!({ "pattern": NO_NUL });
    schemas.insert(
        "JsonValue".into(),
        json!({
            "description": "Any JSON value without a NUL character in a text or a key.",
            "anyOf": [
                { "type": ["null", "boolean", "number"] },
                { "type": "string", "pattern": NO_NUL },
                { "type": "array", "items": { "$ref": "#/components/schemas/JsonValue" } },
                { "type": "object", "propertyNames": no_nul, "additionalProperties": { "$ref": "#/components/schemas/JsonValue" } },
            ],
        }),
    );
}

/// An evaluation's inline item (`pathwise_items::InlineItem`, whose rules `to_item`
/// applies), written out here since the item library's types carry no OpenAPI schema.
fn inline_item() -> serde_json::Value {
    use serde_json::json;
    let method = |name: &str| json!({ "type": "string", "enum": [name] });
    json!({
        "type": "object",
        "description": "`{\"stem\": \"What is 2+2?\", \"options\": [\"3\", \"4\"], \"correct\": 1}`: with options, \
            `correct` is the right one's index (from 0) or its exact text; without, the answer, text or a number.",
        "required": ["stem", "correct"],
        "additionalProperties": false,
        "properties": {
            "stem": { "type": "string", "minLength": 1 },
            "options": { "type": ["array", "null"], "minItems": 2, "maxItems": 6, "uniqueItems": true,
                "items": { "type": "string", "minLength": 1 } },
            "correct": { "anyOf": [{ "type": "number" }, { "type": "string", "minLength": 1 }] },
            "difficulty": { "type": ["number", "null"], "minimum": 0, "maximum": 1 },
            "a": { "type": ["number", "null"], "exclusiveMinimum": 0, "maximum": 4 },
            "skill_domain": { "type": ["string", "null"] },
            "time_limit_seconds": { "type": ["integer", "null"], "minimum": 1, "maximum": 86400 },
            "evaluation": { "oneOf": [
                { "type": "null" },
                { "type": "object", "required": ["method"], "properties": { "method": method("exact_match"),
                    "case_sensitive": { "type": "boolean" } } },
                { "type": "object", "required": ["method", "tolerance"], "properties": {
                    "method": method("numeric_tolerance"), "tolerance": { "type": "number" } } },
                { "type": "object", "required": ["method"], "properties": { "method": method("equivalent_forms") } },
            ] },
        },
        // A choice's key is an option's index or text.
        "if": { "required": ["options"], "properties": { "options": { "type": "array" } } },
        "then": { "properties": { "correct": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "string" }] } } },
    })
}

/// The caller's feedback comes with the caller's grade: no feedback (or null), or a
/// `quality`.
fn feedback_needs_quality() -> serde_json::Value {
    serde_json::json!([
        { "properties": { "feedback": { "type": "null" } } },
        { "required": ["quality"], "properties": { "quality": { "type": "integer" } } },
    ])
}

/// `schema` without null among its values: a nullable type loses `null`, an alternative of
/// null is dropped.
fn non_null(mut schema: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    if let Some(Value::Array(kinds)) = schema.get_mut("type") {
        kinds.retain(|kind| kind != "null");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alternatives)) = schema.get_mut(key) {
            alternatives.retain(|alternative| alternative.get("type") != Some(&Value::from("null")));
        }
    }
    schema
}

/// A new session's `config` is the configuration of its `session_type` (the rule
/// `SessionConfig::parse` applies): one alternative per type, each naming its config's
/// schema, and an evaluation's one source of items (a blueprint, inline items, or the
/// missed items of an earlier evaluation).
fn session_shapes(schemas: &mut serde_json::Map<String, serde_json::Value>) {
    use pathwise_app::sessions::config::{
        EvaluationConfig, LearningConfig, SurveyConfig, ThoughtConfig, MAX_INLINE_ITEMS,
    };
    use pathwise_domain::SessionType;
    use serde_json::{json, Value};
    use utoipa::ToSchema;
    let Some(create) = schemas.get("CreateSession").cloned() else {
        return;
    };
    fn add<T: ToSchema>(schemas: &mut serde_json::Map<String, Value>) -> String {
        let mut found = vec![(T::name().into_owned(), T::schema())];
        T::schemas(&mut found);
        for (name, schema) in found {
            let schema = serde_json::to_value(schema).expect("a schema serializes");
            schemas.entry(name).or_insert(schema);
        }
        T::name().into_owned()
    }
    let config_of = |session_type: SessionType, schemas: &mut serde_json::Map<String, Value>| match session_type {
        SessionType::Thought => add::<ThoughtConfig>(schemas),
        SessionType::Learning => add::<LearningConfig>(schemas),
        SessionType::Evaluation => add::<EvaluationConfig>(schemas),
        SessionType::Survey => add::<SurveyConfig>(schemas),
    };
    let title = create.pointer("/properties/title").cloned().unwrap_or(json!({ "type": ["string", "null"] }));
    let variants: Vec<Value> = SessionType::ALL
        .iter()
        .map(|&session_type| {
            let config = json!({ "$ref": format!("#/components/schemas/{}", config_of(session_type, schemas)) });
            // A thought needs nothing configured; every other type needs its config.
            let (config, required) = if session_type == SessionType::Thought {
                (json!({ "oneOf": [config, { "type": "null" }] }), json!(["session_type"]))
            } else {
                (config, json!(["session_type", "config"]))
            };
            json!({
                "type": "object", "title": session_type.as_str(), "additionalProperties": false,
                "properties": {
                    "session_type": { "type": "string", "enum": [session_type.as_str()] },
                    "title": title, "config": config,
                },
                "required": required,
            })
        })
        .collect();
    let mut shaped = json!({ "oneOf": variants });
    if let Some(description) = create.get("description") {
        shaped["description"] = description.clone();
    }
    schemas.insert("CreateSession".into(), shaped);
    schemas.insert("InlineItem".into(), inline_item());
    // A rating's scale: its lowest and highest values, each a byte.
    if let Some(scale) = schemas.get_mut("SurveyQuestion").and_then(|q| q.pointer_mut("/properties/scale")) {
        *scale = json!({ "type": ["array", "null"], "minItems": 2, "maxItems": 2,
            "items": { "type": "integer", "minimum": 0, "maximum": 255 },
            "description": "For `rating`: the lowest and highest values (default 1-5, at most 6 values)." });
    }
    // A learning session names at least one concept to practise.
    if let Some(templates) = schemas.get_mut("LearningConfig").and_then(|c| c.pointer_mut("/properties/item_templates"))
    {
        templates["minProperties"] = json!(1);
    }
    if let Some(evaluation) = schemas.get_mut("EvaluationConfig").and_then(Value::as_object_mut) {
        let sources = ["blueprint_id", "items", "missed_in"];
        let one_source: Vec<Value> = sources
            .iter()
            .map(|given| {
                let properties: serde_json::Map<String, Value> = sources
                    .iter()
                    .map(|source| {
                        let kind = if source == given {
                            json!({ "not": { "type": "null" } })
                        } else {
                            json!({ "type": "null" })
                        };
                        (source.to_string(), kind)
                    })
                    .collect();
                json!({ "required": [given], "properties": properties })
            })
            .collect();
        evaluation.insert("oneOf".into(), Value::Array(one_source));
        if let Some(items) = evaluation.get_mut("properties").and_then(|p| p.get_mut("items")) {
            let description = items.get("description").cloned();
            *items = json!({ "type": ["array", "null"], "minItems": 1, "maxItems": MAX_INLINE_ITEMS,
                "items": { "$ref": "#/components/schemas/InlineItem" } });
            if let Some(description) = description {
                items["description"] = description;
            }
        }
        if let Some(bank) = evaluation.get_mut("properties").and_then(|p| p.get_mut("item_bank_id")) {
            let description = bank.get("description").cloned();
            *bank = json!({ "type": ["string", "null"], "enum": ["library", null] });
            if let Some(description) = description {
                bank["description"] = description;
            }
        }
    }
}

/// A free-form object, as the derived schemas write one: any keys, any values.
fn free_form(map: &serde_json::Map<String, serde_json::Value>) -> bool {
    has_type(map, "object")
        && !map.contains_key("properties")
        && !map.contains_key("$ref")
        && map
            .get("additionalProperties")
            .is_none_or(|extra| extra == &serde_json::Value::Bool(true) || extra == &serde_json::json!({}))
}

/// Whether a schema's `type` (one, or a list such as `["string", "null"]`) is `kind`.
fn has_type(map: &serde_json::Map<String, serde_json::Value>, kind: &str) -> bool {
    match map.get("type") {
        Some(serde_json::Value::String(one)) => one == kind,
        Some(serde_json::Value::Array(kinds)) => kinds.iter().any(|k| k == kind),
        _ => false,
    }
}

/// The component names `schema` refers to.
fn references(schema: &serde_json::Value, names: &mut Vec<String>) {
    match schema {
        serde_json::Value::Object(map) => {
            if let Some(name) =
                map.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                names.push(name.to_string());
            }
            map.values().for_each(|v| references(v, names));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| references(v, names)),
        _ => {}
    }
}

/// Give every free text in `schema` its pattern.
fn constrain_text(schema: &mut serde_json::Value) {
    use serde_json::Value;
    match schema {
        Value::Object(map) => {
            let is_text = has_type(map, "string");
            let free = ["format", "enum", "const", "pattern", "contentMediaType"].iter().all(|k| !map.contains_key(*k));
            if is_text && free {
                let required = map.get("minLength").and_then(Value::as_u64).is_some_and(|n| n >= 1);
                map.insert("pattern".into(), Value::from(if required { NOT_BLANK } else { NO_NUL }));
            } else if is_text && map.contains_key("pattern") && !map.contains_key("allOf") {
                // A field's own pattern (an outline's headings) says what it must hold; NUL
                // is refused besides.
                map.insert("allOf".into(), serde_json::json!([{ "pattern": NO_NUL }]));
            }
            // A request object takes the fields it names: the server refuses others
            // (`unknown_field`) or ignores them, and a key with a NUL is refused either way.
            // (Not a bare `properties` of an alternative or condition, which constrains the
            // fields it names of an object described elsewhere.)
            if has_type(map, "object") && map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            if free_form(map) {
                map.insert("propertyNames".into(), serde_json::json!({ "pattern": NO_NUL }));
                map.insert(
                    "additionalProperties".into(),
                    serde_json::json!({ "$ref": "#/components/schemas/JsonValue" }),
                );
            }
            map.values_mut().for_each(constrain_text);
        }
        Value::Array(items) => items.iter_mut().for_each(constrain_text),
        _ => {}
    }
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// The errors that follow from an operation's shape rather than from its rules, added to
/// every operation they apply to, so that no annotation can forget one: 401 where a token is
/// needed; 400 and 404 where there are path ids; 400 where there is a query string; 400, 413
/// and 422 where there is a body; 429 everywhere (every operation is rate-limited, see
/// `crate::limits`). The statuses that come from an operation's own rules (409
/// for a conflict, 502 and 503 for the model, 403) stay in its annotation. An operation that
/// already lists one of these keeps its own description.
struct CommonErrors;

impl Modify for CommonErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
                &mut item.head,
                &mut item.options,
                &mut item.trace,
            ];
            for operation in operations.into_iter().flatten() {
                add_common_errors(operation);
                describe_rule_errors(operation);
            }
            if let Some(post) = item.post.as_mut().filter(|p| p.security.as_ref().is_some_and(|s| !s.is_empty())) {
                add_idempotency_key(post);
            }
        }
    }
}

/// Every POST a learner makes takes an `Idempotency-Key` (see `crate::idempotency`).
fn add_idempotency_key(operation: &mut Operation) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::path::ParameterBuilder;
    use utoipa::openapi::{ObjectBuilder, Required, Type};
    let key = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(pathwise_app::idempotency::MAX_IDEMPOTENCY_KEY_CHARS))
        .pattern(Some("^[!-~]+$"));
    let parameter = ParameterBuilder::new()
        .name("Idempotency-Key")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(
            "A key of the caller's for this request (a UUID, say). Sent again with the same key and body, the \
             request is answered with its first reply and stores nothing; the same key with another request is a \
             422 (`idempotency_key_reused`). Keys are each learner's own, kept at least a day.",
        ))
        .schema(Some(key))
        .build();
    operation.parameters.get_or_insert_with(Vec::new).push(parameter);
    let responses = &mut operation.responses.responses;
    for (status, response) in responses.iter_mut() {
        if let (true, RefOr::T(response)) = (status.starts_with('2'), response) {
            let header = HeaderBuilder::new()
                .schema(ObjectBuilder::new().schema_type(Type::String).enum_values(Some(["true", "false"])))
                .description(Some("`true` when this reply repeats the first reply to the request's Idempotency-Key."))
                .build();
            response.headers.insert("Idempotent-Replayed".into(), header);
        }
    }
    let bad_key = "`bad_idempotency_key` (an Idempotency-Key that is not 1-255 printable ASCII characters)";
    let entry = responses.entry("400".into()).or_insert_with(|| error_response(String::new()));
    append_description(entry, &format!("A malformed request: {bad_key}."), bad_key);
    let reused = "`idempotency_key_reused` (the Idempotency-Key was used for another request)";
    let entry = responses.entry("422".into()).or_insert_with(|| error_response(String::new()));
    append_description(entry, &format!("The request cannot be taken: {reused}."), reused);
}

/// Give a response `description` if it has none, or add `also` to the one it has.
fn append_description(response: &mut RefOr<Response>, description: &str, also: &str) {
    if let RefOr::T(response) = response {
        if response.description.is_empty() {
            response.description = description.to_string();
        } else {
            response.description = format!("{} Also {also}.", response.description.trim_end());
        }
    }
}

fn add_common_errors(operation: &mut Operation) {
    let parameters = operation.parameters.as_deref().unwrap_or_default();
    let has_path = parameters.iter().any(|p| p.parameter_in == ParameterIn::Path);
    let has_query = parameters.iter().any(|p| p.parameter_in == ParameterIn::Query);
    let has_body = operation.request_body.is_some();
    let has_json_body =
        operation.request_body.as_ref().is_some_and(|body| body.content.contains_key("application/json"));
    let needs_token = operation.security.as_ref().is_some_and(|s| !s.is_empty());

    let mut malformed = Vec::new();
    if has_path {
        malformed.push("`bad_path` (an id that is not a UUID)");
    }
    if has_query {
        malformed.push("`bad_query` (a query parameter that is unknown or not of its type)");
    }
    if has_json_body {
        malformed.push(
            "`malformed_json` (a body that is not a JSON object, or a field missing or not of its type; \
             `details.field` names it)",
        );
    }
    let responses = &mut operation.responses.responses;
    let mut add = |status: &str, description: String| {
        let response = responses.entry(status.to_string()).or_insert_with(|| error_response(String::new()));
        describe_if_blank(response, description);
    };
    if needs_token {
        add("401", "No bearer token, or one that is not valid (`unauthorized`).".into());
    }
    if !malformed.is_empty() {
        add("400", format!("A malformed request: {}.", malformed.join("; ")));
    }
    if has_path {
        add(
            "404",
            "No such resource of the caller's (`not_found`); another learner's ids are not found either.".into(),
        );
    }
    if has_body {
        add("413", format!("The body is larger than {} bytes (`body_too_large`).", crate::MAX_BODY_BYTES));
    }
    if has_json_body {
        add(
            "422",
            "The body breaks a rule (`details.field` names the field at fault), or has a field the operation \
             does not take (`unknown_field`, with `details.allowed`)."
                .into(),
        );
    } else if has_body {
        add("422", "The body breaks a rule; `details.field` names what is at fault.".into());
    }
    add_rate_limited(responses);
}

/// 429: the caller's token (or address, without one) went over the server's rate limit.
fn add_rate_limited(responses: &mut std::collections::BTreeMap<String, RefOr<Response>>) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::{ObjectBuilder, Type};
    let response = responses.entry("429".into()).or_insert_with(|| {
        error_response(
            "Too many requests from this token, or from this address without one (`rate_limited`; \
             `details.retry_after_secs`); the server's `rate_limit_per_second` and `rate_limit_burst` set the rate."
                .into(),
        )
    });
    if let RefOr::T(response) = response {
        let seconds = HeaderBuilder::new()
            .schema(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)))
            .description(Some("Seconds to wait before trying again."))
            .build();
        response.headers.insert("Retry-After".into(), seconds);
    }
}

/// What the statuses that come from an operation's rules mean, for annotations that list
/// them without saying more.
fn describe_rule_errors(operation: &mut Operation) {
    for (status, response) in operation.responses.responses.iter_mut() {
        let description = match status.as_str() {
            "403" => "Not the caller's to do; `code` says why.",
            "409" => {
                "The resource is not in a state that allows this (a lifecycle or state-machine rule, a \
                      duplicate, a lock); `code` names the rule, and nothing was stored."
            }
            "502" => "The language model failed or gave an unusable answer (`llm_*`); nothing was stored.",
            "503" => {
                "Something this operation needs is not configured or not reachable (`llm_not_configured`, \
                      ...); the message names the setting."
            }
            _ => continue,
        };
        describe_if_blank(response, description.to_string());
    }
}

fn describe_if_blank(response: &mut RefOr<Response>, description: String) {
    if let RefOr::T(response) = response {
        if response.description.is_empty() {
            response.description = description;
        }
    }
}

/// An error reply: the error body, as JSON.
fn error_response(description: String) -> RefOr<Response> {
    let content = Content::new(Some(RefOr::<Schema>::Ref(Ref::from_schema_name("ErrorBody"))));
    RefOr::T(ResponseBuilder::new().description(description).content("application/json", content).build())
}

/// `/api/openapi.json`: the document, serialized once, when the router is made.
pub fn openapi_json(document: &serde_json::Value) -> MethodRouter<AppState> {
    let body = Bytes::from(serde_json::to_vec(document).expect("the OpenAPI document serializes"));
    get(move || async move { ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body) })
}

pub async fn docs_page() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
