//! What an assistant reads of each tool, kept small and in one dialect, since it loads every
//! tool's schemas into its context before the first call:
//!
//! - **One casing.** Arguments are snake_case in every tool. The policy tutor's requests
//!   are camelCase in the HTTP API (the specification's field names), so their schemas are
//!   shown in snake_case and a call's argument names are mapped back before parsing; the
//!   camelCase names are still read, so a client written against the HTTP API works too.
//! - **Standard formats only.** schemars marks integer widths as `format: uint8`, `int64`
//!   and the like, which are not JSON Schema formats (clients warn on each); the bounds a
//!   width implies are stated as `minimum`/`maximum` already, so such formats are dropped.
//! - **One dialect, unstated.** Tool schemas are JSON Schema 2020-12 unless they say
//!   otherwise, so no schema repeats `$schema`.
//! - **Results described once, shallowly.** A result's own fields keep their types and
//!   descriptions, and what they hold (a map's nodes, a card) is left open: the result
//!   itself is what an assistant reads, and inlining every nested type in every tool made
//!   the list several times larger than all the arguments together.
//! - **Nothing said twice in arguments.** An optional argument's `"default": null` and an id
//!   type's own description on each item of a list of ids are dropped: leaving the argument
//!   out, and the list's own description, say as much.

use serde_json::{Map, Value};
use std::collections::HashMap;

/// The formats JSON Schema defines (2020-12, format vocabulary).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// An input schema as shown: snake_case property names, standard formats only. Returns
/// the names to map back (shown name to the type's own), empty when the type is snake_case.
pub fn input_schema(schema: &mut Map<String, Value>) -> HashMap<String, String> {
    schema.remove("$schema");
    let mut renamed = HashMap::new();
    let mut value = Value::Object(std::mem::take(schema));
    collect_renames(&value, &mut renamed);
    // A name the type uses as it is must not also stand for another.
    let native = native_names(&value);
    renamed.retain(|shown, _| !native.contains(shown));
    rename_properties(&mut value, &renamed);
    rename_in_descriptions(&mut value, &renamed);
    drop_nonstandard_formats(&mut value);
    drop_listed_id_descriptions(&mut value);
    drop_null_defaults(&mut value);
    if let Value::Object(map) = value {
        *schema = map;
    }
    renamed
}

/// `change` applied to every schema object in `value`, outermost first.
fn each_object(value: &mut Value, change: &mut impl FnMut(&mut Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            change(map);
            map.values_mut().for_each(|v| each_object(v, change));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| each_object(v, change)),
        _ => {}
    }
}

fn is_id(schema: &Map<String, Value>) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("uuid")
}

/// `"default": null` on an optional argument says what leaving it out says already.
fn drop_null_defaults(value: &mut Value) {
    each_object(value, &mut |map| {
        if map.get("default") == Some(&Value::Null) {
            map.remove("default");
        }
    });
}

/// A list of ids is described by its field (`chunks`: the passages a unit teaches): the id
/// type's own description on each item says less, again.
fn drop_listed_id_descriptions(value: &mut Value) {
    each_object(value, &mut |map| {
        if let Some(Value::Object(item)) = map.get_mut("items") {
            if is_id(item) {
                item.remove("description");
            }
        }
    });
}

/// Descriptions that name a field (`the unit of unitId`) name it as shown.
fn rename_in_descriptions(value: &mut Value, renamed: &HashMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => *text = shown_names(text, renamed),
                    other => rename_in_descriptions(other, renamed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_in_descriptions(v, renamed)),
        _ => {}
    }
}

/// An output schema as shown: the result's own fields with their types, what they hold left
/// open (every `$ref` becomes a schema that accepts anything), titles, non-standard formats,
/// the list of required fields and the descriptions of ids dropped.
pub fn output_schema(schema: &mut Map<String, Value>) {
    schema.remove("$schema");
    // Which fields a result always has is for a validator, not for the assistant reading it.
    schema.remove("required");
    schema.remove("$defs");
    schema.remove("definitions");
    let mut value = Value::Object(std::mem::take(schema));
    open_references(&mut value);
    drop_nonstandard_formats(&mut value);
    drop_id_descriptions(&mut value);
    if let Value::Object(map) = value {
        *schema = map;
    }
}

/// A result's ids are named by their fields (`mind_map_id`, `document_id`): the id type's
/// own description beside each one says it again.
fn drop_id_descriptions(value: &mut Value) {
    each_object(value, &mut |map| {
        if is_id(map) {
            map.remove("description");
        }
    });
}

/// The top-level arguments whose values are objects or lists: a client that can only send
/// text (the MCP Inspector's `--tool-arg key=value`, a model that writes JSON as a string)
/// sends them as JSON text, which [`unstring_arguments`] reads back.
pub fn structured_arguments(schema: &Map<String, Value>) -> Vec<String> {
    let Some(Value::Object(properties)) = schema.get("properties") else { return Vec::new() };
    properties
        .iter()
        .filter(|(_, property)| {
            let kinds = match property.get("type") {
                Some(Value::String(kind)) => vec![kind.as_str()],
                Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
                // A reference or a union of shapes: one of the structured types.
                _ => return true,
            };
            kinds.iter().any(|kind| matches!(*kind, "object" | "array")) && !kinds.contains(&"string")
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// Each of `structured` given as text that reads as a JSON object or list, read as that
/// value; anything else is left for the parser to refuse with its own message.
pub fn unstring_arguments(arguments: &mut Map<String, Value>, structured: &[String]) {
    for name in structured {
        if let Some(Value::String(text)) = arguments.get(name) {
            let text = text.trim();
            if text.starts_with('{') || text.starts_with('[') {
                if let Ok(value @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(text) {
                    arguments.insert(name.clone(), value);
                }
            }
        }
    }
}

/// A call's arguments with shown names mapped back to the type's own, at any depth.
pub fn map_arguments_back(arguments: &mut Map<String, Value>, renamed: &HashMap<String, String>) {
    if renamed.is_empty() {
        return;
    }
    let taken = std::mem::take(arguments);
    for (key, mut value) in taken {
        map_value_back(&mut value, renamed);
        let key = renamed.get(&key).cloned().unwrap_or(key);
        arguments.insert(key, value);
    }
}

fn map_value_back(value: &mut Value, renamed: &HashMap<String, String>) {
    match value {
        Value::Object(map) => map_arguments_back(map, renamed),
        Value::Array(items) => items.iter_mut().for_each(|v| map_value_back(v, renamed)),
        _ => {}
    }
}

/// `text` (a refusal's message) with each of the type's own field names that were shown
/// renamed written as shown: `clientEvent.unitId: ...` reads `client_event.unit_id: ...`
/// to an assistant that was only ever shown the snake_case names.
pub fn shown_names(text: &str, renamed: &HashMap<String, String>) -> String {
    if renamed.is_empty() {
        return text.to_string();
    }
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| is_word(c)) {
        out.push_str(&rest[..start]);
        let word_end = rest[start..].find(|c: char| !is_word(c)).map_or(rest.len(), |end| start + end);
        let word = &rest[start..word_end];
        match renamed.iter().find(|(_, native)| native.as_str() == word) {
            Some((shown, _)) => out.push_str(shown),
            None => out.push_str(word),
        }
        rest = &rest[word_end..];
    }
    out.push_str(rest);
    out
}

/// `courseId` -> `course_id`; a name without capitals is itself.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn collect_renames(value: &Value, renamed: &mut HashMap<String, String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                for name in properties.keys() {
                    let shown = snake_case(name);
                    if shown != *name {
                        renamed.insert(shown, name.clone());
                    }
                }
            }
            map.values().for_each(|v| collect_renames(v, renamed));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_renames(v, renamed)),
        _ => {}
    }
}

fn native_names(value: &Value) -> Vec<String> {
    let mut names = Vec::new();
    fn walk(value: &Value, names: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    names.extend(properties.keys().filter(|k| snake_case(k) == **k).cloned());
                }
                map.values().for_each(|v| walk(v, names));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, names)),
            _ => {}
        }
    }
    walk(value, &mut names);
    names
}

fn rename_properties(value: &mut Value, renamed: &HashMap<String, String>) {
    let back: HashMap<&str, &str> = renamed.iter().map(|(shown, own)| (own.as_str(), shown.as_str())).collect();
    fn walk(value: &mut Value, back: &HashMap<&str, &str>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get_mut("properties") {
                    let taken = std::mem::take(properties);
                    for (name, schema) in taken {
                        let shown = back.get(name.as_str()).map_or(name.clone(), |s| s.to_string());
                        properties.insert(shown, schema);
                    }
                }
                if let Some(Value::Array(required)) = map.get_mut("required") {
                    for name in required.iter_mut() {
                        if let Some(shown) = name.as_str().and_then(|n| back.get(n)) {
                            *name = Value::String(shown.to_string());
                        }
                    }
                }
                map.values_mut().for_each(|v| walk(v, back));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, back)),
            _ => {}
        }
    }
    walk(value, &back);
}

fn drop_nonstandard_formats(value: &mut Value) {
    each_object(value, &mut |map| {
        let standard = map.get("format").and_then(Value::as_str).is_none_or(|f| STANDARD_FORMATS.contains(&f));
        if !standard {
            map.remove("format");
        }
    });
}

fn open_references(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("title");
            if map.remove("$ref").is_some() {
                // What it referred to is left open; a description beside it stays.
                map.retain(|k, _| k == "description");
                return;
            }
            map.values_mut().for_each(open_references);
        }
        Value::Array(items) => items.iter_mut().for_each(open_references),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_sent_as_json_text_is_read_as_the_object() {
        let schema = serde_json::json!({ "type": "object", "properties": {
            "thread_id": { "type": "string" },
            "client_event": { "$ref": "#/$defs/ClientEvent" },
            "tags": { "type": ["array", "null"] },
        } });
        let structured = structured_arguments(schema.as_object().unwrap());
        assert_eq!(structured.len(), 2, "{structured:?}");
        let mut arguments = serde_json::json!({
            "thread_id": "{\"looks\": \"like JSON\"}",
            "client_event": "{\"type\": \"REQUEST_DRILL\", \"unit_id\": \"ALG-01\"}",
            "tags": "not JSON",
        });
        unstring_arguments(arguments.as_object_mut().unwrap(), &structured);
        assert_eq!(arguments["client_event"]["unit_id"], "ALG-01");
        assert!(arguments["thread_id"].is_string(), "a text argument stays text");
        assert_eq!(arguments["tags"], "not JSON", "left for the parser to refuse");
    }

    #[test]
    fn a_refusal_names_the_fields_as_they_were_shown() {
        let renamed: HashMap<String, String> = [("client_event", "clientEvent"), ("unit_id", "unitId")]
            .map(|(s, n)| (s.to_string(), n.to_string()))
            .into();
        assert_eq!(
            shown_names("clientEvent.unitId: the exam to take now is on unitIds' ALG-01", &renamed),
            "client_event.unit_id: the exam to take now is on unitIds' ALG-01"
        );
        assert_eq!(shown_names("nothing to rename", &HashMap::new()), "nothing to rename");
    }

    #[test]
    fn camel_case_arguments_are_shown_in_snake_case_and_mapped_back() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "thread_id": { "type": "string" },
                "unitId": { "type": "string" },
                "clientEvent": { "oneOf": [{ "properties": { "type": {}, "unitId": {} }, "required": ["unitId"] }] },
                "count": { "type": "integer", "format": "uint32", "minimum": 0 },
                "at": { "type": "string", "format": "date-time" }
            },
            "required": ["thread_id", "unitId"]
        })
        .as_object()
        .cloned()
        .unwrap();
        let renamed = input_schema(&mut schema);
        let shown = Value::Object(schema);
        assert_eq!(shown["required"], json!(["thread_id", "unit_id"]));
        assert!(shown["properties"]["client_event"]["oneOf"][0]["properties"]["unit_id"].is_object(), "{shown}");
        assert_eq!(shown["properties"]["count"], json!({ "type": "integer", "minimum": 0 }));
        assert_eq!(shown["properties"]["at"]["format"], "date-time");
        let mut call = json!({ "thread_id": "t", "unit_id": "U1", "client_event": { "type": "X", "unit_id": "U1" } })
            .as_object()
            .cloned()
            .unwrap();
        map_arguments_back(&mut call, &renamed);
        assert_eq!(
            Value::Object(call),
            json!({ "thread_id": "t", "unitId": "U1", "clientEvent": { "type": "X", "unitId": "U1" } })
        );
        let mut own = json!({ "unitId": "U1" }).as_object().cloned().unwrap();
        map_arguments_back(&mut own, &renamed);
        assert_eq!(Value::Object(own), json!({ "unitId": "U1" }), "the type's own names are still read");
    }

    #[test]
    fn a_results_nested_types_are_left_open() {
        let mut schema = json!({
            "title": "Nodes",
            "type": "object",
            "properties": { "nodes": { "type": "array", "items": { "$ref": "#/$defs/Node" } },
                "total": { "type": "integer", "format": "uint64", "description": "How many." } },
            "$defs": { "Node": { "type": "object" } }
        })
        .as_object()
        .cloned()
        .unwrap();
        output_schema(&mut schema);
        assert_eq!(
            Value::Object(schema),
            json!({ "type": "object", "properties": { "nodes": { "type": "array", "items": {} },
                "total": { "type": "integer", "description": "How many." } } })
        );
    }
}
