//! The JSON Schemas of model replies, derived from the Rust types the replies are read
//! into (`schemars`), so that a reply's contract is declared once.
//!
//! A reply is described twice over, from the one type: strictly, as OpenAI's strict
//! structured output takes it (every object closed, every property required, an optional
//! value nullable, no string lengths or item counts), and for decoding, as a server that
//! turns the schema into a grammar takes it (llama.cpp), with the type's bounds kept so that
//! even a small model cannot write past them. Bounds come from the type's
//! `#[schemars(length(..), range(..))]` attributes.
//!
//! A tool's parameters are derived from the type its arguments are read into, the same way,
//! except that its fields' doc comments are kept (they are the model's guide to the tool)
//! and an optional field may be left out.

use crate::types::{OutputSchema, Tool};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// Keywords strict structured output refuses or that only describe: dropped from both forms.
const DESCRIPTIVE: [&str; 6] = ["$schema", "title", "description", "format", "default", "examples"];
/// Bounds a grammar enforces but strict structured output refuses.
const DECODING_BOUNDS: [&str; 5] = ["minLength", "maxLength", "minItems", "maxItems", "pattern"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Form {
    Strict,
    Decoding,
    Tool,
    /// A tool whose arguments' bounds are part of its contract (a widget the learner sees).
    BoundedTool,
}

impl Form {
    fn is_tool(self) -> bool {
        matches!(self, Form::Tool | Form::BoundedTool)
    }

    fn keeps_bounds(self) -> bool {
        matches!(self, Form::Decoding | Form::BoundedTool)
    }
}

/// A tool whose arguments are read into `T`.
pub fn tool<T: JsonSchema>(name: &str, description: &str) -> Tool {
    let mut parameters = derived::<T>();
    tidy(&mut parameters, Form::Tool);
    if let Value::Object(root) = &mut parameters {
        // The type's own doc comment is for the code; the tool's description is above.
        root.remove("description");
    }
    Tool { name: name.into(), description: description.into(), parameters }
}

/// A tool whose arguments are one form of `T`, an adjacently tagged enum (`#[serde(tag =
/// "…", content = "…")]`): the form whose `tag` is `name`, its `content` with its bounds (the
/// arguments are parsed into `T`, which checks them), less the fields in `withheld`, which
/// are not the model's to set. Panics if `T` has no such form: a programming error.
pub fn tagged_form_tool<T: JsonSchema>(
    (tag, content): (&str, &str),
    name: &str,
    description: &str,
    withheld: &[&str],
) -> Tool {
    let schema = derived::<T>();
    let forms = schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array);
    let form = forms
        .into_iter()
        .flatten()
        .find(|form| {
            let tagged = &form["properties"][tag];
            tagged.get("const").and_then(Value::as_str) == Some(name)
                || tagged.get("enum").and_then(Value::as_array).is_some_and(|values| values == &[Value::from(name)])
        })
        .unwrap_or_else(|| panic!("{} has no form tagged {tag} = {name}", T::schema_name()));
    let mut parameters = form["properties"][content].clone();
    if let Value::Object(arguments) = &mut parameters {
        if let Some(Value::Object(properties)) = arguments.get_mut("properties") {
            properties.retain(|field, _| !withheld.contains(&field.as_str()));
        }
        if let Some(Value::Array(required)) = arguments.get_mut("required") {
            required.retain(|field| !withheld.iter().any(|w| field == w));
        }
    }
    tidy(&mut parameters, Form::BoundedTool);
    Tool { name: name.into(), description: description.into(), parameters }
}

/// The schema of `T` in strict form, named `name` for the server.
pub fn output_schema<T: JsonSchema>(name: &str) -> OutputSchema {
    OutputSchema { name: name.into(), schema: strict_schema::<T>() }
}

/// The schema of `T` in strict form: see the module's documentation.
pub fn strict_schema<T: JsonSchema>() -> Value {
    let mut schema = derived::<T>();
    tidy(&mut schema, Form::Strict);
    schema
}

/// The schema of `T` with its bounds, for a server that decodes by grammar.
pub fn decoding_schema<T: JsonSchema>() -> Value {
    let mut schema = derived::<T>();
    tidy(&mut schema, Form::Decoding);
    schema
}

fn derived<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

fn tidy(schema: &mut Value, form: Form) {
    let Value::Object(map) = schema else { return };
    for key in DESCRIPTIVE {
        if !(form.is_tool() && key == "description") {
            map.remove(key);
        }
    }
    if !form.keeps_bounds() {
        for key in DECODING_BOUNDS {
            map.remove(key);
        }
    }
    if form.is_tool() {
        // An argument may be left out rather than given as null.
        not_nullable(map);
    } else {
        nullable_as_any_of(map);
    }
    // A tagged enum's forms exclude each other by their tag: `anyOf` says as much, and is
    // what grammar converters and strict structured output read.
    if let Some(forms) = map.remove("oneOf") {
        map.insert("anyOf".into(), forms);
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        if !form.is_tool() {
            let every: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
            map.insert("required".into(), Value::Array(every));
        }
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(|p| tidy(p, form));
    }
    if let Some(items) = map.get_mut("items") {
        tidy(items, form);
    }
    for key in ["anyOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get_mut(key) {
            branches.iter_mut().for_each(|b| tidy(b, form));
        }
    }
}

/// `{"type": ["string", "null"]}` as `{"type": "string"}`.
fn not_nullable(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
}

/// `{"type": ["string", "null"], ...}` as `{"anyOf": [{"type": "string", ...}, {"type":
/// "null"}]}`: the form every server's schema reader (and grammar converter) takes.
fn nullable_as_any_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else { return };
    let null = Value::String("null".into());
    if types.len() != 2 || !types.contains(&null) {
        return;
    }
    let other = types.iter().find(|t| **t != null).cloned().unwrap_or(null.clone());
    let mut value = std::mem::take(map);
    value.insert("type".into(), other);
    // An enum that allows null lists null among its values; the value's branch does not.
    if let Some(Value::Array(values)) = value.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    map.insert("anyOf".into(), Value::Array(vec![Value::Object(value), serde_json::json!({ "type": "null" })]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Reply {
        /// A doc comment is for whoever reads the code, not for the model.
        #[schemars(length(min = 1, max = 200))]
        label: String,
        #[schemars(range(min = 0, max = 5))]
        quality: i64,
        #[serde(default)]
        note: Option<String>,
        #[schemars(length(min = 2, max = 6))]
        parts: Vec<Part>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Part {
        name: String,
    }

    #[test]
    fn the_strict_form_closes_every_object_requires_every_property_and_drops_lengths() {
        let schema = strict_schema::<Reply>();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "label": { "type": "string" },
                    "quality": { "type": "integer", "minimum": 0, "maximum": 5 },
                    "note": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
                    "parts": { "type": "array", "items": {
                        "type": "object", "properties": { "name": { "type": "string" } },
                        "required": ["name"], "additionalProperties": false } },
                },
                "required": ["label", "note", "parts", "quality"],
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn the_decoding_form_keeps_the_types_bounds() {
        let schema = decoding_schema::<Reply>();
        assert_eq!(schema["properties"]["label"], json!({ "type": "string", "minLength": 1, "maxLength": 200 }));
        assert_eq!(schema["properties"]["parts"]["minItems"], 2);
        assert_eq!(schema["properties"]["parts"]["maxItems"], 6);
        assert_eq!(schema["properties"]["parts"]["items"]["additionalProperties"], false);
        assert_eq!(schema["required"], json!(["label", "note", "parts", "quality"]));
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Tagged {
        One { a: String },
        Two { b: i64 },
    }

    #[test]
    fn a_tagged_enum_is_any_of_its_closed_forms() {
        let schema = decoding_schema::<Tagged>();
        let forms = schema["anyOf"].as_array().expect("anyOf");
        assert_eq!(forms.len(), 2);
        assert_eq!(forms[0]["properties"]["kind"]["const"], "one");
        assert_eq!(forms[0]["required"], json!(["a", "kind"]));
        assert_eq!(forms[1]["additionalProperties"], false);
        assert!(schema.get("oneOf").is_none());
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    /// Arguments of a tool.
    struct Args {
        /// The concept's name.
        label: String,
        #[serde(default)]
        note: Option<String>,
        #[schemars(range(min = 1))]
        minutes: i64,
    }

    #[test]
    fn a_tools_parameters_keep_their_guidance_and_leave_optional_ones_out() {
        let tool = tool::<Args>("add", "Add a concept.");
        assert_eq!(tool.description, "Add a concept.");
        assert_eq!(
            tool.parameters,
            json!({
                "type": "object",
                "properties": {
                    "label": { "type": "string", "description": "The concept's name." },
                    "note": { "type": "string" },
                    "minutes": { "type": "integer", "minimum": 1 },
                },
                "required": ["label", "minutes"],
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn a_nullable_enum_is_the_enum_or_null() {
        let mut map = json!({ "type": ["string", "null"], "enum": ["a", "b", null] }).as_object().unwrap().clone();
        nullable_as_any_of(&mut map);
        assert_eq!(
            Value::Object(map),
            json!({ "anyOf": [{ "type": "string", "enum": ["a", "b"] }, { "type": "null" }] })
        );
    }
}
