//! The HTTP API's contract: the OpenAPI document the server serves is read back and held to
//! what generated clients rely on (unique operationIds, parameters where they are sent, the
//! errors every operation can answer with), every operation it names is routed, and a body
//! with a field the operation does not take is refused with 422 `unknown_field`, naming the
//! field and those allowed, with nothing stored.

mod support;

use reqwest::Method;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use support::*;

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/// Every operation of the document: (method, path, operation).
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let paths = document["paths"].as_object().expect("the document has paths");
    let mut all = Vec::new();
    for (path, item) in paths {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                all.push((method.to_string(), path.clone(), operation.clone()));
            }
        }
    }
    assert!(all.len() > 50, "only {} operations in the document", all.len());
    all
}

fn parameters(operation: &Value) -> Vec<Value> {
    operation.get("parameters").and_then(Value::as_array).cloned().unwrap_or_default()
}

/// `{name}`s of a path template.
fn template_names(path: &str) -> BTreeSet<String> {
    path.split('{').skip(1).filter_map(|rest| rest.split_once('}')).map(|(name, _)| name.to_string()).collect()
}

/// A schema with its `$ref` followed into the document's components.
fn resolve<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.strip_prefix("#/components/schemas/").expect("a schema reference");
            resolve(document, &document["components"]["schemas"][name])
        }
        None => schema,
    }
}

async fn served_document(t: &TestApp) -> Value {
    let reply = t.client.get(format!("{}/api/openapi.json", t.base)).send().await.expect("the document");
    assert_eq!(reply.status(), 200);
    reply.json().await.expect("the document is JSON")
}

#[tokio::test]
async fn operation_ids_are_unique_and_name_their_module() {
    let t = spawn_app().await;
    let document = served_document(&t).await;
    let mut seen = BTreeMap::new();
    for (method, path, operation) in operations(&document) {
        let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
        assert!(
            id.contains('_') && id.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{method} {path}: operationId {id:?} is not module_action"
        );
        if let Some(other) = seen.insert(id.to_string(), format!("{method} {path}")) {
            panic!("operationId {id} names both {other} and {method} {path}");
        }
    }
}

/// The query parameters a call cannot do without: an upload's file name, which says its
/// format, beside a body that is the file's bytes.
const REQUIRED_QUERY: &[(&str, &str)] = &[("post /api/author/documents", "name")];

#[tokio::test]
async fn parameters_are_declared_where_they_are_sent() {
    let t = spawn_app().await;
    let document = served_document(&t).await;
    for (method, path, operation) in operations(&document) {
        let what = format!("{method} {path}");
        let in_path: BTreeSet<String> = parameters(&operation)
            .iter()
            .filter(|p| p["in"] == "path")
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        // A query-string field declared `in: path` would be missing from the template.
        assert_eq!(in_path, template_names(&path), "{what}: path parameters and the path's template differ");
        for parameter in parameters(&operation) {
            let name = parameter["name"].as_str().unwrap();
            let place = parameter["in"].as_str().unwrap();
            assert!(matches!(place, "path" | "query" | "header"), "{what}: {name} is in {place}");
            let schema = resolve(&document, &parameter["schema"]);
            if place == "path" {
                assert_eq!(parameter["required"], true, "{what}: path parameter {name} is not required");
                // A course's id and its passages' ids are its author's words, not UUIDs.
                if name == "id" || name.ends_with("_id") && !["course_id", "passage_id"].contains(&name) {
                    assert_eq!(schema["format"], "uuid", "{what}: the id {name} is not a UUID: {schema}");
                }
            } else if REQUIRED_QUERY.contains(&(what.as_str(), name)) {
                assert_eq!(parameter["required"], true, "{what}: query parameter {name} is not required");
                assert!(!schema.to_string().contains("null"), "{what}: {name} may be null: {schema}");
            } else {
                // Optional query parameters are not required, and not null either: a client
                // leaves one out rather than sending `null`.
                assert_ne!(parameter["required"], true, "{what}: query parameter {name} is required");
            }
        }
    }
}

#[tokio::test]
async fn every_operation_lists_the_errors_its_shape_allows() {
    let t = spawn_app().await;
    let document = served_document(&t).await;
    for (method, path, operation) in operations(&document) {
        let what = format!("{method} {path}");
        let responses = operation["responses"].as_object().expect("responses");
        let listed = |status: &str| responses.contains_key(status);
        let secured = operation.get("security").and_then(Value::as_array).is_some_and(|s| !s.is_empty());
        if secured {
            assert!(listed("401"), "{what} needs a token but does not list 401");
        }
        let places: BTreeSet<String> = parameters(&operation).iter().map(|p| text(&p["in"])).collect();
        if places.contains("path") {
            assert!(listed("400") && listed("404"), "{what} has path ids but does not list 400 and 404");
        }
        if places.contains("query") {
            assert!(listed("400"), "{what} reads a query string but does not list 400");
        }
        if let Some(body) = operation.get("requestBody") {
            assert!(listed("413") && listed("422"), "{what} takes a body but does not list 413 and 422");
            if body["content"].get("application/json").is_some() {
                assert!(listed("400"), "{what} takes JSON but does not list 400");
            }
        }
        assert!(responses.keys().any(|s| s.starts_with('2')), "{what} lists no success");
        // Every operation is behind the rate limit, which says when to come back.
        assert!(listed("429"), "{what} does not list 429");
        assert_eq!(responses["429"]["headers"]["Retry-After"]["schema"]["type"], "integer", "{what} 429");
        for (status, response) in responses {
            assert!(response["description"].as_str().is_some(), "{what} {status} has no description");
            if status.starts_with('4') || status.starts_with('5') {
                assert_eq!(
                    response["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/ErrorBody",
                    "{what} {status} is not the error body"
                );
            }
        }
    }
    // The error shape: details always an object, never null.
    let detail = &document["components"]["schemas"]["ErrorDetail"];
    assert_eq!(detail["properties"]["details"]["type"], "object", "{detail}");
    let required: Vec<&str> = detail["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(required, ["code", "message", "details"]);
    // The code is one of a listed set a client can generate a type from, every code the server sends.
    assert_eq!(detail["properties"]["code"]["$ref"], "#/components/schemas/ErrorCode", "{detail}");
    let codes = &document["components"]["schemas"]["ErrorCode"];
    assert_eq!(codes["type"], "string", "{codes}");
    let listed: Vec<&str> =
        codes["enum"].as_array().expect("the codes are an enum").iter().filter_map(Value::as_str).collect();
    let all: Vec<&str> = pathwise_app::ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
    assert_eq!(listed, all);
    for code in ["cycle", "max_depth", "invalid", "not_found", "unknown_field", "rate_limited", "llm_not_configured"] {
        assert!(listed.contains(&code), "{code} is not listed");
    }
}

#[tokio::test]
async fn content_types_are_what_is_sent() {
    let t = spawn_app().await;
    let document = served_document(&t).await;
    let ok = |path: &str, method: &str| document["paths"][path][method]["responses"]["200"]["content"].clone();
    assert!(ok("/api/me/review-log.csv", "get").get("text/csv").is_some());
    assert!(ok("/api/session/{id}/stream", "get").get("text/event-stream").is_some());
    let import = &document["paths"]["/api/courses"]["post"]["requestBody"]["content"];
    assert!(import.get("application/toml").is_some() && import.get("application/json").is_some(), "{import}");
    let transcribe = &document["paths"]["/api/transcribe"]["post"]["requestBody"]["content"];
    assert!(transcribe.as_object().unwrap().keys().all(|k| k.starts_with("audio/")), "{transcribe}");

    // And what the server sends agrees.
    let csv = t.get(&t.a, "/api/me/review-log.csv").await;
    assert!(csv.headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    let math = t.post(&t.a, "/api/math", json!({ "latex": ["x^2"] })).await;
    assert!(math.headers["content-type"].to_str().unwrap().starts_with("application/json"));
}

/// Each path of the document with ids that exist nowhere: the router must know it (a 401
/// without a token, a 404 from the operation and not the router's "no route").
#[tokio::test]
async fn every_documented_operation_is_routed() {
    let t = spawn_app().await;
    let document = served_document(&t).await;
    for (method, path, operation) in operations(&document) {
        let concrete = template_names(&path).iter().fold(path.clone(), |p, name| {
            p.replace(&format!("{{{name}}}"), if name == "course_id" { "NO-SUCH-COURSE" } else { NOWHERE })
        });
        let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let secured = operation.get("security").and_then(Value::as_array).is_some_and(|s| !s.is_empty());
        let reply = t.call(method.clone(), &concrete, None, Body::Empty).await;
        assert_ne!(reply.status, 405, "{method} {path} is documented but not routed");
        assert_ne!(reply.json["error"]["code"], "not_found", "{method} {path} is documented but not routed");
        if secured {
            reply.expect_error(401, "unauthorized", &[]);
        }
    }
}

const NOWHERE: &str = "00000000-0000-7000-8000-000000000000";

// ---------------------------------------------------------------------------------------
// Unknown fields
// ---------------------------------------------------------------------------------------

/// A refusal for an unknown field: 422 `unknown_field`, the field and those allowed in the
/// details, the message saying both, nothing stored.
async fn unknown_field(t: &TestApp, method: Method, path: &str, body: Value, field: &str, allowed: &[&str]) {
    let message = format!("{field}: unknown field; allowed: {}", allowed.join(", "));
    let error = t.refused(method, path, Some(&t.a), Body::Json(body), (422, "unknown_field"), &[&message]).await;
    assert_eq!(error["details"]["field"], field, "{error}");
    assert_eq!(error["details"]["allowed"], json!(allowed), "{error}");
}

async fn unknown_fields_are_named_with_those_allowed(t: &TestApp) {
    t.app.install_builtin_courses().await.expect("the shipped courses");
    let a = t.a.as_str();
    let map = text(&t.post(a, "/api/mind-maps", json!({ "title": "Sets" })).await.expect(201)["id"]);
    let node =
        text(&t.post(a, &format!("/api/mind-maps/{map}/nodes"), json!({ "label": "Sets" })).await.expect(201)["id"]);
    let thread = text(&t.post(a, "/api/tutor/threads", json!({ "courseId": "NET-IPV4" })).await.expect(201)["id"]);

    unknown_field(
        t,
        Method::POST,
        "/api/mind-maps",
        json!({ "title": "x", "colour": "red" }),
        "colour",
        &["title", "metadata"],
    )
    .await;
    unknown_field(
        t,
        Method::PATCH,
        &format!("/api/nodes/{node}"),
        json!({ "lable": "Sets" }),
        "lable",
        &["label", "description", "effort_minutes", "metadata", "mastery_status", "mastery_score"],
    )
    .await;
    unknown_field(
        t,
        Method::POST,
        &format!("/api/tutor/threads/{thread}/exam/mcq-submit"),
        json!({ "unitId": "NET-BIN", "questionId": "Q", "selectedIndex": 0, "isCorrect": true }),
        "isCorrect",
        &["courseId", "unitId", "questionId", "difficultyTier", "selectedIndex"],
    )
    .await;
    // Deep in a body, the field's whole path.
    let generate = json!({ "topic": "Sets", "decomposition": {
        "root": "Sets", "nodes": [{ "label": "Sets", "effort_minutes": 10, "colour": "red" }], "edges": [] } });
    let error = t
        .refused(
            Method::POST,
            "/api/curriculum/generate",
            Some(a),
            Body::Json(generate),
            (422, "unknown_field"),
            &["decomposition.nodes[0].colour: unknown field; allowed: label"],
        )
        .await;
    assert_eq!(error["details"]["field"], "decomposition.nodes[0].colour", "{error}");
    // A body that may be left out is held to the same rule when it is there.
    let error = t
        .refused(
            Method::POST,
            &format!("/api/mind-maps/{map}/replan"),
            Some(a),
            Body::Json(json!({ "why": "x" })),
            (422, "unknown_field"),
            &["why: unknown field"],
        )
        .await;
    assert_eq!(error["details"]["field"], "why");

    // Malformed JSON, and JSON of the wrong shape, stay 400 `malformed_json`.
    t.refused(
        Method::POST,
        "/api/mind-maps",
        Some(a),
        Body::Raw("{\"title\": ".into()),
        (400, "malformed_json"),
        &["line 1"],
    )
    .await;
    t.refused(
        Method::POST,
        "/api/mind-maps",
        Some(a),
        Body::Json(json!({ "title": 3 })),
        (400, "malformed_json"),
        &["title"],
    )
    .await;
}

/// An error with nothing more to say still has an object as its details.
async fn error_details_are_always_objects(t: &TestApp) {
    let a = t.a.as_str();
    let flow = text(
        &t.post(a, "/api/flows", json!({ "topic": "Graphs", "caller_writes_steps": true })).await.expect(201)["id"],
    );
    t.post(a, &format!("/api/flows/{flow}/abandon"), json!({})).await.expect(200);
    let replies = [
        t.post(a, &format!("/api/flows/{flow}/abandon"), json!({})).await,
        t.post(a, &format!("/api/flows/{flow}/teach"), json!({})).await,
        t.call(Method::GET, "/api/me", None, Body::Empty).await,
        t.get(a, "/api/mind-maps/not-a-uuid").await,
        t.get(a, "/api/nowhere").await,
        t.call(Method::POST, "/api/mind-maps", Some(a), Body::Raw(String::new())).await,
    ];
    for reply in replies {
        assert!(reply.status.is_client_error(), "{}: {}", reply.what, reply.text);
        assert!(reply.json["error"]["details"].is_object(), "{}: details not an object: {}", reply.what, reply.text);
    }
}

on_both_stores!(unknown_fields_are_named_with_those_allowed, error_details_are_always_objects);
