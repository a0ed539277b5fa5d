//! Tool arguments: parsed from the call's JSON object with the path of the field at fault,
//! and, for operations on one map, node or flow, the application's own input type with the
//! id beside its fields (`{"mind_map_id": ..., "label": ...}`), so that each input keeps
//! one definition and one JSON Schema. An id may also be one the call can leave out (the
//! map pending reviews are narrowed to), where the HTTP API has a route with and without it.

use pathwise_app::error::UnknownField;
use pathwise_domain::{CourseDraftId, FlowId, MindMapId, NodeId, SessionId, SourceDocumentId, ThreadId};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::marker::PhantomData;

/// The id argument an operation acts on.
pub trait IdArgument {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    /// Whether the call must give it; one that may be left out is `null` then.
    const REQUIRED: bool = true;
    type Id: DeserializeOwned + JsonSchema;
}

pub struct MapArg;
impl IdArgument for MapArg {
    const NAME: &'static str = "mind_map_id";
    const DESCRIPTION: &'static str = "The map's id (from mind_map_list).";
    type Id = MindMapId;
}

pub struct NodeArg;
impl IdArgument for NodeArg {
    const NAME: &'static str = "node_id";
    const DESCRIPTION: &'static str = "The node's id (from mind_map_get or mind_map_node_list).";
    type Id = NodeId;
}

pub struct FlowArg;
impl IdArgument for FlowArg {
    const NAME: &'static str = "flow_id";
    const DESCRIPTION: &'static str = "The flow's id (from teaching_flow_list).";
    type Id = FlowId;
}

pub struct SessionArg;
impl IdArgument for SessionArg {
    const NAME: &'static str = "session_id";
    const DESCRIPTION: &'static str = "The session's id (from session_create or session_list).";
    type Id = SessionId;
}

pub struct ThreadArg;
impl IdArgument for ThreadArg {
    const NAME: &'static str = "thread_id";
    const DESCRIPTION: &'static str = "The thread's id (from tutor_thread_list).";
    type Id = ThreadId;
}

pub struct CourseArg;
impl IdArgument for CourseArg {
    const NAME: &'static str = "course_id";
    const DESCRIPTION: &'static str = "The course's id (from course_list), e.g. MATH-FOUNDATIONS.";
    type Id = String;
}

pub struct DocumentArg;
impl IdArgument for DocumentArg {
    const NAME: &'static str = "document_id";
    const DESCRIPTION: &'static str = "The document's id (from author_documents or author_ingest).";
    type Id = SourceDocumentId;
}

pub struct DraftArg;
impl IdArgument for DraftArg {
    const NAME: &'static str = "draft_id";
    const DESCRIPTION: &'static str = "The draft's id (from author_drafts).";
    type Id = CourseDraftId;
}

/// The map a review query may be narrowed to.
pub struct ReviewsMapArg;
impl IdArgument for ReviewsMapArg {
    const NAME: &'static str = "mind_map_id";
    const DESCRIPTION: &'static str = "Only this map's reviews; every active map's when left out.";
    const REQUIRED: bool = false;
    type Id = Option<MindMapId>;
}

/// An application input with the id it applies to.
pub struct With<K: IdArgument, I> {
    pub id: K::Id,
    pub input: I,
    key: PhantomData<K>,
}

impl<'de, K: IdArgument, I: DeserializeOwned> Deserialize<'de> for With<K, I> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut fields = Map::<String, Value>::deserialize(deserializer)?;
        let id = match fields.remove(K::NAME) {
            Some(id) => id,
            None if !K::REQUIRED => Value::Null,
            None => return Err(D::Error::missing_field(K::NAME)),
        };
        let id = serde_json::from_value(id).map_err(|e| D::Error::custom(format!("{}: {e}", K::NAME)))?;
        let input = serde_path_to_error::deserialize(Value::Object(fields)).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            if let Some(mut unknown) = UnknownField::from_serde(&path, &inner) {
                // At the top level the id is taken too, beside the input's own fields.
                if !unknown.field.contains(['.', '[']) {
                    unknown.allowed.insert(0, K::NAME.to_string());
                }
                return D::Error::custom(describe_unknown(&unknown));
            }
            D::Error::custom(if path == "." { inner } else { format!("{path}: {inner}") })
        })?;
        Ok(With { id, input, key: PhantomData })
    }
}

impl<K: IdArgument, I: JsonSchema> JsonSchema for With<K, I> {
    fn schema_name() -> Cow<'static, str> {
        format!("{}_{}", K::NAME, I::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = I::json_schema(generator);
        let mut id = generator.subschema_for::<K::Id>();
        id.insert("description".into(), K::DESCRIPTION.into());
        let object = schema.ensure_object();
        let properties = object.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(properties) = properties {
            // The id first, as an assistant reads it.
            let rest = std::mem::take(properties);
            properties.insert(K::NAME.into(), id.to_value());
            properties.extend(rest);
        }
        if K::REQUIRED {
            let required = object.entry("required").or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(required) = required {
                required.insert(0, K::NAME.into());
            }
        }
        object.insert("type".into(), "object".into());
        schema
    }
}

/// Just the id.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Nothing {}

/// The tool-error text for an argument the tool does not take: the same words as the HTTP
/// API's `unknown_field` error.
fn describe_unknown(unknown: &UnknownField) -> String {
    pathwise_app::AppError::unknown_field(unknown).message
}

/// Parse a call's arguments; the message names the field at fault and what the tool takes.
pub fn parse<T: DeserializeOwned>(arguments: Option<Map<String, Value>>) -> Result<T, String> {
    let value = Value::Object(arguments.unwrap_or_default());
    pathwise_app::curriculum::refuse_nul_text(&value).map_err(|e| e.message)?;
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if let Some(unknown) = UnknownField::from_serde(&path, &inner) {
            return describe_unknown(&unknown);
        }
        if path == "." || inner.starts_with(&path) {
            inner
        } else {
            format!("{path}: {inner}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema, Debug)]
    #[serde(deny_unknown_fields)]
    struct Label {
        label: String,
    }

    fn args(value: Value) -> Option<Map<String, Value>> {
        value.as_object().cloned()
    }

    #[test]
    fn the_id_sits_beside_the_inputs_fields() {
        let parsed: With<MapArg, Label> =
            parse(args(json!({ "mind_map_id": "0190a0a0-0000-7000-8000-000000000001", "label": "Sets" }))).unwrap();
        assert_eq!(parsed.input.label, "Sets");
        assert_eq!(parsed.id.to_string(), "0190a0a0-0000-7000-8000-000000000001");
    }

    #[test]
    fn a_missing_id_a_bad_id_and_an_unknown_field_are_named() {
        let missing = parse::<With<MapArg, Label>>(args(json!({ "label": "Sets" }))).err().expect("refused");
        assert!(missing.contains("mind_map_id"), "{missing}");
        let bad =
            parse::<With<MapArg, Label>>(args(json!({ "mind_map_id": "x", "label": "Sets" }))).err().expect("refused");
        assert!(bad.contains("mind_map_id") && bad.contains("UUID"), "{bad}");
        let unknown = parse::<With<MapArg, Label>>(args(
            json!({ "mind_map_id": "0190a0a0-0000-7000-8000-000000000001", "label": "Sets", "lable": 1 }),
        ))
        .err()
        .expect("refused");
        assert_eq!(unknown, "lable: unknown field; allowed: mind_map_id, label");
        let unknown = parse::<Label>(args(json!({ "label": "Sets", "lable": 1 }))).expect_err("refused");
        assert_eq!(unknown, "lable: unknown field; allowed: label");
        let nul = parse::<Label>(args(json!({ "label": "Se\u{0}ts" }))).expect_err("refused");
        assert!(nul.starts_with("label: holds a NUL character"), "{nul}");
        let mistyped = parse::<Label>(args(json!({ "label": 3 }))).expect_err("refused");
        assert!(mistyped.contains("label") && mistyped.contains("string"), "{mistyped}");
    }

    #[test]
    fn an_optional_id_may_be_left_out_and_is_not_required() {
        let parsed: With<ReviewsMapArg, Label> = parse(args(json!({ "label": "Sets" }))).unwrap();
        assert!(parsed.id.is_none());
        let parsed: With<ReviewsMapArg, Label> =
            parse(args(json!({ "mind_map_id": "0190a0a0-0000-7000-8000-000000000001", "label": "Sets" }))).unwrap();
        assert_eq!(parsed.id.map(|id| id.to_string()).as_deref(), Some("0190a0a0-0000-7000-8000-000000000001"));
        let unknown =
            parse::<With<ReviewsMapArg, Label>>(args(json!({ "label": "Sets", "lable": 1 }))).err().expect("refused");
        assert_eq!(unknown, "lable: unknown field; allowed: mind_map_id, label");
        let schema = schemars::schema_for!(With<ReviewsMapArg, Label>).to_value();
        assert_eq!(schema["required"], json!(["label"]));
        assert_eq!(schema["type"], "object");
        let id = schema["properties"]["mind_map_id"].to_string();
        assert!(id.contains("uuid") && id.contains("null") && id.contains("every active map"), "{id}");
    }

    #[test]
    fn the_schema_requires_the_id_and_keeps_the_inputs_fields() {
        let schema = schemars::schema_for!(With<NodeArg, Label>).to_value();
        assert_eq!(schema["required"], json!(["node_id", "label"]));
        assert_eq!(schema["properties"]["node_id"]["format"], "uuid");
        assert_eq!(schema["properties"]["label"]["type"], "string");
    }
}
