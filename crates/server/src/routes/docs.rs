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

/// The document with every operation in it, finished: the bearer scheme, and the errors and
/// headers each operation's shape implies.
pub fn finish(mut document: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    let modifiers: [&dyn Modify; 2] = [&BearerAuth, &CommonErrors];
    for modifier in modifiers {
        modifier.modify(&mut document);
    }
    document
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
pub fn openapi_json(document: &utoipa::openapi::OpenApi) -> MethodRouter<AppState> {
    let body = Bytes::from(serde_json::to_vec(document).expect("the OpenAPI document serializes"));
    get(move || async move { ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body) })
}

pub async fn docs_page() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
