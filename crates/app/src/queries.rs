//! The query inputs of the listing and review operations, each defined once for both
//! doors: the HTTP API reads them from the query string (their `IntoParams`), the MCP tools
//! from their arguments (their `JsonSchema`). A field's description is written once, on the
//! field, and the HTTP parameters take it from there; the limits are the application's
//! constants (`MAX_LIMIT`, `DEFAULT_LIMIT`, `MAX_HORIZON_DAYS`, `MAX_MESSAGES_PAGE`,
//! `MAX_TREND_DAYS`, `MAX_SINCE_DAYS`), in both.

use crate::analytics::{MAX_TREND_DAYS, TREND_DAYS};
use crate::course_tutor::MAX_MESSAGES_PAGE;
use crate::mastery::MAX_HORIZON_DAYS;
use crate::paging::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::usage::MAX_SINCE_DAYS;
use pathwise_domain::{FlowStatus, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId, ResponseType};
use schemars::JsonSchema;
use serde::Deserialize;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::{KnownFormat, ObjectBuilder, Ref, RefOr, Required, Schema, SchemaFormat, Type};
use utoipa::{IntoParams, ToSchema};

/// Which of the learner's maps to list, a page at a time.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMapsQuery {
    /// Only maps in this status.
    pub status: Option<MapStatus>,
    /// How many to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
    #[schemars(description = limit_description(), range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
}

impl IntoParams for ListMapsQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        query_parameters::<Self>([("status", reference::<MapStatus>()), offset(), limit()])
    }
}

/// Which of the learner's teaching flows to list, a page at a time.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFlowsQuery {
    /// Only flows in this status.
    pub status: Option<FlowStatus>,
    /// How many to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
    #[schemars(description = limit_description(), range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
}

impl IntoParams for ListFlowsQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        query_parameters::<Self>([("status", reference::<FlowStatus>()), offset(), limit()])
    }
}

/// Which of a map's nodes to list.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListNodesQuery {
    pub mastery_status: Option<MasteryStatus>,
}

/// Which pending jobs to list.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct JobsQuery {
    /// Only this map's jobs.
    pub mind_map_id: Option<MindMapId>,
    /// With the operator token: this learner's jobs (without it the operator sees the
    /// server's own, global jobs). A learner's token reads only its own.
    pub learner_id: Option<LearnerId>,
}

/// Which job firings to list.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct JobRunsQuery {
    /// With the operator token: only this learner's firings (without it, every firing, the
    /// global jobs' with no `learner_id`). A learner's token reads only its own.
    pub learner_id: Option<LearnerId>,
}

/// How much of a node's response history to read.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct HistoryQuery {
    /// At most this many, newest first; all when absent.
    #[param(minimum = 1)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

/// How far ahead to look for reviews falling due.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PendingReviewsQuery {
    #[schemars(description = horizon_description(), range(min = 0.0, max = MAX_HORIZON_DAYS))]
    pub horizon_days: Option<f64>,
}

impl IntoParams for PendingReviewsQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let horizon = ObjectBuilder::new()
            .schema_type(Type::Number)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Double)))
            .minimum(Some(0))
            .maximum(Some(bound(MAX_HORIZON_DAYS)));
        query_parameters::<Self>([("horizon_days", horizon.into())])
    }
}

/// A page of a listing: how many to skip and how many to return.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// How many to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
    #[schemars(description = limit_description(), range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
}

impl IntoParams for PageQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        query_parameters::<Self>([offset(), limit()])
    }
}

/// Which of the learner's tutor threads to list, a page at a time.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListThreadsQuery {
    /// Only the threads of this course.
    pub course_id: Option<String>,
    /// How many to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
    #[schemars(description = limit_description(), range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
}

impl IntoParams for ListThreadsQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let course = ObjectBuilder::new().schema_type(Type::String);
        query_parameters::<Self>([("courseId", course.into()), offset(), limit()])
    }
}

/// Which of a tutor thread's messages to read.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessagesQuery {
    /// Only messages after this seq (0 for all).
    #[schemars(range(min = 0))]
    pub after: Option<i64>,
    #[schemars(description = messages_limit_description(), range(min = 1, max = MAX_MESSAGES_PAGE))]
    pub limit: Option<i64>,
}

impl IntoParams for MessagesQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let limit = integer().minimum(Some(1)).maximum(Some(MAX_MESSAGES_PAGE));
        query_parameters::<Self>([("after", integer().minimum(Some(0)).into()), ("limit", limit.into())])
    }
}

/// Which of the learner's recorded responses to list, newest first, a page at a time.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResponsesQuery {
    /// Only the responses of this map.
    pub mind_map_id: Option<MindMapId>,
    /// Only the responses of this node.
    pub node_id: Option<NodeId>,
    pub response_type: Option<ResponseType>,
    /// How many to skip (default 0).
    #[schemars(range(min = 0))]
    pub offset: Option<i64>,
    #[schemars(description = limit_description(), range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<i64>,
}

impl IntoParams for ResponsesQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        query_parameters::<Self>([
            ("mind_map_id", reference::<MindMapId>()),
            ("node_id", reference::<NodeId>()),
            ("response_type", reference::<ResponseType>()),
            offset(),
            limit(),
        ])
    }
}

/// The window of a map's analytics.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyticsQuery {
    #[schemars(description = trend_days_description(), range(min = 1, max = MAX_TREND_DAYS))]
    pub days: Option<u32>,
}

impl IntoParams for AnalyticsQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let days = integer32().minimum(Some(1)).maximum(Some(MAX_TREND_DAYS));
        query_parameters::<Self>([("days", days.into())])
    }
}

/// How far back to count the learner's use of the model.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UsageQuery {
    #[schemars(description = since_days_description(), range(max = MAX_SINCE_DAYS))]
    pub since_days: Option<u32>,
}

impl IntoParams for UsageQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let since = integer32().minimum(Some(0)).maximum(Some(MAX_SINCE_DAYS));
        query_parameters::<Self>([("since_days", since.into())])
    }
}

fn messages_limit_description() -> String {
    format!("At most this many (default and maximum {MAX_MESSAGES_PAGE}).")
}

fn trend_days_description() -> String {
    format!("The window in days, 1 to {MAX_TREND_DAYS} (default {TREND_DAYS}: the last week).")
}

fn since_days_description() -> String {
    format!("Only the last this many days, at most {MAX_SINCE_DAYS} (default: all).")
}

fn limit_description() -> String {
    format!("How many to return, 1-{MAX_LIMIT} (default {DEFAULT_LIMIT}).")
}

fn horizon_description() -> String {
    format!("Also include reviews due within this many days, 0-{MAX_HORIZON_DAYS} (default 0: due now).")
}

fn offset() -> (&'static str, RefOr<Schema>) {
    ("offset", integer().minimum(Some(0)).into())
}

fn limit() -> (&'static str, RefOr<Schema>) {
    ("limit", integer().minimum(Some(1)).maximum(Some(MAX_LIMIT)).into())
}

fn integer() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::Integer).format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
}

fn integer32() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::Integer).format(Some(SchemaFormat::KnownFormat(KnownFormat::Int32)))
}

fn reference<T: ToSchema>() -> RefOr<Schema> {
    Ref::from_schema_name(T::name()).into()
}

/// A bound as written: a whole number without a fraction.
fn bound(value: f64) -> utoipa::Number {
    if value.fract() == 0.0 {
        utoipa::Number::Int(value as isize)
    } else {
        utoipa::Number::Float(value)
    }
}

/// The query parameters of `T`, with these schemas, each described and required as `T`'s
/// own JSON Schema says: the description is the field's, written once.
fn query_parameters<T: JsonSchema>(
    parameters: impl IntoIterator<Item = (&'static str, RefOr<Schema>)>,
) -> Vec<Parameter> {
    let own = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let required = own.get("required").and_then(|r| r.as_array()).cloned().unwrap_or_default();
    parameters
        .into_iter()
        .map(|(name, schema)| {
            let description = own
                .get("properties")
                .and_then(|properties| properties.get(name))
                .and_then(|property| property.get("description"))
                .and_then(|description| description.as_str())
                .map(str::to_string);
            let required = if required.iter().any(|field| field == name) { Required::True } else { Required::False };
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Query)
                .description(description)
                .required(required)
                .schema(Some(schema))
                .build()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::collections::BTreeSet;

    fn parameters<T: IntoParams>() -> Value {
        serde_json::to_value(T::into_params(|| None)).unwrap()
    }

    fn schema<T: JsonSchema>() -> Value {
        schemars::schema_for!(T).to_value()
    }

    /// Each query's parameters are its fields, with the fields' descriptions.
    #[test]
    fn the_parameters_are_the_fields() {
        fn check<T: IntoParams + JsonSchema>() {
            let (parameters, schema) = (parameters::<T>(), schema::<T>());
            let names: BTreeSet<&str> =
                parameters.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
            let fields: BTreeSet<&str> = schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(names, fields, "{parameters}");
            for parameter in parameters.as_array().unwrap() {
                let name = parameter["name"].as_str().unwrap();
                assert_eq!(parameter["in"], "query");
                assert_eq!(parameter["required"], false, "{name}");
                assert_eq!(parameter.get("description"), schema["properties"][name].get("description"), "{name}");
            }
        }
        check::<ListMapsQuery>();
        check::<ListFlowsQuery>();
        check::<ListNodesQuery>();
        check::<HistoryQuery>();
        check::<PendingReviewsQuery>();
        check::<PageQuery>();
        check::<ListThreadsQuery>();
        check::<MessagesQuery>();
        check::<ResponsesQuery>();
        check::<AnalyticsQuery>();
        check::<UsageQuery>();
        check::<JobsQuery>();
    }

    /// Both doors state the application's limits.
    #[test]
    fn the_limits_are_the_applications() {
        for (parameters, schema) in [
            (parameters::<ListMapsQuery>(), schema::<ListMapsQuery>()),
            (parameters::<ListFlowsQuery>(), schema::<ListFlowsQuery>()),
            (parameters::<PageQuery>(), schema::<PageQuery>()),
            (parameters::<ListThreadsQuery>(), schema::<ListThreadsQuery>()),
            (parameters::<ResponsesQuery>(), schema::<ResponsesQuery>()),
        ] {
            let limit = parameters.as_array().unwrap().iter().find(|p| p["name"] == "limit").unwrap();
            assert_eq!(limit["schema"]["maximum"], json!(MAX_LIMIT), "{limit}");
            assert_eq!(schema["properties"]["limit"]["maximum"], json!(MAX_LIMIT), "{schema}");
            let described = format!("1-{MAX_LIMIT} (default {DEFAULT_LIMIT})");
            assert!(limit["description"].as_str().unwrap().contains(&described), "{limit}");
        }
        let horizon = &parameters::<PendingReviewsQuery>()[0];
        assert_eq!(horizon["schema"]["maximum"].as_f64(), Some(MAX_HORIZON_DAYS), "{horizon}");
        assert!(horizon["description"].as_str().unwrap().contains(&format!("0-{MAX_HORIZON_DAYS}")), "{horizon}");
        let schema = schema::<PendingReviewsQuery>();
        assert_eq!(schema["properties"]["horizon_days"]["maximum"].as_f64(), Some(MAX_HORIZON_DAYS), "{schema}");
        for (parameter, maximum) in [
            (&parameters::<MessagesQuery>()[1], MAX_MESSAGES_PAGE),
            (&parameters::<AnalyticsQuery>()[0], i64::from(MAX_TREND_DAYS)),
            (&parameters::<UsageQuery>()[0], i64::from(MAX_SINCE_DAYS)),
        ] {
            assert_eq!(parameter["schema"]["maximum"], json!(maximum), "{parameter}");
            assert!(parameter["description"].as_str().unwrap().contains(&maximum.to_string()), "{parameter}");
        }
    }

    #[test]
    fn unknown_parameters_are_refused() {
        let refused = serde_json::from_value::<ListMapsQuery>(json!({ "limt": 3 })).unwrap_err().to_string();
        assert!(refused.contains("limt"), "{refused}");
        let query: PendingReviewsQuery = serde_json::from_value(json!({})).unwrap();
        assert_eq!(query.horizon_days, None);
    }
}
