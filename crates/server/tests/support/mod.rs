//! The harness of the end-to-end tests: a real server on 127.0.0.1 over SQLite, or over
//! PostgreSQL in a schema of its own when `PATHWISE_TEST_DATABASE_URL` is set, with two
//! learners, and the application behind it for checking the tables.
#![allow(dead_code)]

use pathwise_app::{AnyStore, App};
use pathwise_server::AppState;
use pathwise_store::Store;
pub use pathwise_test_support::{TestDatabase, TestStore};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use std::collections::HashMap;

pub const OPERATOR_TOKEN: &str = "operator-secret";

pub fn text(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("{value} is not a string")).to_string()
}

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

/// A running server with two learners, and the application behind it.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    /// Learner A's token.
    pub a: String,
    /// Learner B's token.
    pub b: String,
    pub app: App,
    /// The test's database, removed when the test ends however it ends.
    pub database: TestDatabase,
}

/// Start a server for `app` on 127.0.0.1 and return its base URL. It runs until the test's
/// runtime ends.
pub async fn spawn_server(app: App, operator_token: Option<&str>) -> String {
    serve_state(AppState::new(app, operator_token)).await
}

/// Serve this state on 127.0.0.1 and return the base URL.
pub async fn serve_state(state: AppState) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        pathwise_server::serve(listener, state, std::future::pending()).await.expect("server");
    });
    format!("http://{address}")
}

/// A server over the test store, for the application as `App::new` makes it.
pub async fn spawn_with(test_store: TestStore) -> TestApp {
    spawn_app_made(test_store, App::new).await
}

/// A server for the application `make` builds over the store (with a clock or a model).
pub async fn spawn_app_made(test_store: TestStore, make: impl FnOnce(AnyStore) -> App) -> TestApp {
    spawn_configured(test_store, make, |state| state).await
}

/// A server for the application `make` builds, with the state `configure` makes of the
/// default one (limits, a metrics token).
pub async fn spawn_configured(
    test_store: TestStore,
    make: impl FnOnce(AnyStore) -> App,
    configure: impl FnOnce(AppState) -> AppState,
) -> TestApp {
    let TestStore { store, database } = test_store;
    let app = make(store);
    let a = app.create_learner("Ada").await.expect("learner A").token;
    let b = app.create_learner("Bob").await.expect("learner B").token;
    let base = serve_state(configure(AppState::new(app.clone(), Some(OPERATOR_TOKEN)))).await;
    TestApp { base, client: reqwest::Client::new(), a, b, app, database }
}

/// A server over SQLite in a temporary directory.
pub async fn spawn_app() -> TestApp {
    spawn_with(TestStore::sqlite().await).await
}

pub enum Body {
    Empty,
    Json(Value),
    Raw(String),
    /// A file's bytes, with their media type.
    File(Vec<u8>, &'static str),
}

/// One answer, read in full.
pub struct Reply {
    pub what: String,
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    pub json: Value,
}

impl Reply {
    /// Assert a success status and return the JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "{}: expected {status}, got {}: {}",
            self.what,
            self.status,
            self.text
        );
        self.json.clone()
    }

    /// Assert an error: its status, the `{"error": {"code", "message", "details"}}` shape, the
    /// code, and that the message contains every one of `needles`. Returns the error object.
    #[track_caller]
    pub fn expect_error(&self, status: u16, code: &str, needles: &[&str]) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "{}: expected {status}, got {}: {}",
            self.what,
            self.status,
            self.text
        );
        let content_type = self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
        assert!(content_type.starts_with("application/json"), "{}: error is not JSON ({content_type})", self.what);
        let error = &self.json["error"];
        assert!(error.is_object(), "{}: no error object in {}", self.what, self.text);
        assert_eq!(error["code"], code, "{}: wrong error code in {}", self.what, self.text);
        let message = error["message"].as_str().unwrap_or_else(|| panic!("{}: no message in {}", self.what, self.text));
        assert!(error.get("details").is_some(), "{}: no details in {}", self.what, self.text);
        for needle in needles {
            assert!(message.contains(needle), "{}: message {message:?} does not mention {needle:?}", self.what);
        }
        error.clone()
    }
}

impl TestApp {
    pub async fn call(&self, method: Method, path: &str, token: Option<&str>, body: Body) -> Reply {
        self.send(method, path, token, body, &[]).await
    }

    /// A request with extra headers (an `Idempotency-Key`, say).
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Body,
        headers: &[(&str, &str)],
    ) -> Reply {
        let what = format!("{method} {path}");
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request = match body {
            Body::Empty => request,
            Body::Json(value) => request.json(&value),
            Body::Raw(text) => request.header("content-type", "application/json").body(text),
            Body::File(bytes, media_type) => request.header("content-type", media_type).body(bytes),
        };
        let response = request.send().await.unwrap_or_else(|e| panic!("{what}: {e}"));
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap_or_else(|e| panic!("{what}: reading the body: {e}"));
        assert!(!status.is_server_error(), "{what} answered {status}: {text}");
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply { what, status, headers, text, json }
    }

    pub async fn get(&self, token: &str, path: &str) -> Reply {
        self.call(Method::GET, path, Some(token), Body::Empty).await
    }

    pub async fn post(&self, token: &str, path: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(token), Body::Json(body)).await
    }

    pub async fn patch(&self, token: &str, path: &str, body: Value) -> Reply {
        self.call(Method::PATCH, path, Some(token), Body::Json(body)).await
    }

    pub async fn delete(&self, token: &str, path: &str) -> Reply {
        self.call(Method::DELETE, path, Some(token), Body::Empty).await
    }

    pub async fn counts(&self) -> Vec<(String, i64)> {
        self.app.store().table_counts().await.expect("table counts")
    }

    /// A write that must be refused: checks the error and that no table changed.
    pub async fn refused(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Body,
        (status, code): (u16, &str),
        needles: &[&str],
    ) -> Value {
        let before = self.counts().await;
        let reply = self.call(method, path, token, body).await;
        let error = reply.expect_error(status, code, needles);
        assert_eq!(self.counts().await, before, "{} was refused but changed the tables", reply.what);
        error
    }

    /// Plan a new active map from a decomposition; returns the plan summary.
    pub async fn generate(&self, token: &str, topic: &str, decomposition: Value) -> Value {
        self.post(token, "/api/curriculum/generate", json!({ "topic": topic, "decomposition": decomposition }))
            .await
            .expect(201)
    }

    /// Node ids of a map by label.
    pub async fn ids(&self, token: &str, map: &str) -> HashMap<String, String> {
        let agg = self.get(token, &format!("/api/mind-maps/{map}")).await.expect(200);
        agg["nodes"].as_array().unwrap().iter().map(|n| (text(&n["label"]), text(&n["id"]))).collect()
    }
}

/// The test course of the app's tests (units, blueprints, an exam bank), imported by the
/// operator.
pub async fn import_test_course(t: &TestApp) {
    let reply = t
        .client
        .post(format!("{}/api/courses", t.base))
        .bearer_auth(OPERATOR_TOKEN)
        .header("content-type", "application/toml")
        .body(include_str!("../../../app/tests/fixtures/test-course.toml"))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 201, "{}", reply.text().await.unwrap());
}

/// The blueprint item behind a drill card a thread offered (the card carries only an opaque
/// id): the test's oracle for the right answer.
pub async fn offered_item(t: &TestApp, thread: &str, card: &Value) -> pathwise_items::Item {
    offered_item_of(t, "TEST-ALG", thread, card).await
}

/// The item a drill card of `course` offers (a blueprint's or a written drill's), as its
/// library makes it again.
pub async fn offered_item_of(t: &TestApp, course: &str, thread: &str, card: &Value) -> pathwise_items::Item {
    use pathwise_store::TutorStore;
    let learner = t.app.authenticate(&t.a).await.unwrap().id;
    let thread = pathwise_domain::ThreadId(thread.parse().unwrap());
    let offer = t.app.store().drill_offer(learner, thread, card["drillId"].as_str().unwrap()).await.unwrap();
    let item = offer.expect("an offered drill").item_ref.expect("an item's drill");
    t.app.course(course).await.unwrap().course.library().regenerate(&item).unwrap()
}

/// Run a scenario `async fn name(t: &TestApp)` on SQLite, and on PostgreSQL when a test
/// database is configured.
#[macro_export]
macro_rules! on_both_stores {
    ($($scenario:ident),* $(,)?) => {
        pathwise_test_support::conformance!($crate::support::spawn_with; $($scenario),*);
    };
}
