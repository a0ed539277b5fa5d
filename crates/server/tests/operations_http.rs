//! Running the server for a school, as an operator sees it: the metrics (and the dashboard
//! that reads them), readiness, the limits on what one client may ask, and a graceful stop.

mod support;

use pathwise_app::scheduler::WorkerOptions;
use pathwise_app::App;
use pathwise_domain::JobKind;
use pathwise_fake_llm::{FakeLlm, Script};
use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
use pathwise_server::{AppState, Limits};
use pathwise_store::{Job, JobStore};
use pathwise_test_support::TestStore;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const METRICS_TOKEN: &str = "metrics-secret";

fn model(fake: &FakeLlm) -> Llm {
    let config = OpenAiConfig { timeout: Duration::from_secs(20), ..OpenAiConfig::new(fake.base_url(), "tutor") };
    Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 4)
}

/// A model that takes `delay` over every reply (a question, for a thought session).
async fn slow_model(delay: Duration) -> FakeLlm {
    let fake = FakeLlm::start().await;
    fake.respond_with(Arc::new(move |_| {
        Script::Slow(delay, Box::new(Script::Text("What matters most to you?".into())))
    }));
    fake
}

/// The `pathwise_*` metric names an expression reads.
fn metric_names(expr: &str) -> Vec<String> {
    expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|word| word.starts_with("pathwise_"))
        .map(str::to_string)
        .collect()
}

/// Every metric the shipped Grafana dashboard queries, in its panels and its variables.
fn dashboard_metrics() -> BTreeSet<String> {
    let dashboard: Value =
        serde_json::from_str(include_str!("../../../deploy/grafana/pathwise.json")).expect("the dashboard is JSON");
    let mut names = BTreeSet::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        let targets = panel["targets"].as_array().unwrap_or_else(|| panic!("a panel without queries: {panel}"));
        for target in targets {
            names.extend(metric_names(target["expr"].as_str().expect("a query")));
        }
    }
    for variable in dashboard["templating"]["list"].as_array().expect("variables") {
        if let Some(query) = variable["query"].as_str() {
            names.extend(metric_names(query));
        }
    }
    names
}

/// Whether a scrape has a sample of `name` (a histogram's `_bucket`, `_sum` and `_count`
/// are samples of their own names).
fn exported(scrape: &str, name: &str) -> bool {
    scrape
        .lines()
        .any(|line| line.strip_prefix(name).is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' ')))
}

/// Everything the dashboard graphs is exported once the server has done each kind of work:
/// requests (one refused by the rate limit, one past its timeout), model calls (one
/// answered unusably, so the tutor fell back), a job, a session stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_queries_only_metrics_the_server_exports() {
    let fake = FakeLlm::start().await;
    let llm = model(&fake);
    let t = spawn_configured(
        TestStore::sqlite().await,
        move |s| App::new(s).with_llm(llm),
        |state| state.with_metrics_token(Some(METRICS_TOKEN)),
    )
    .await;
    import_test_course(&t).await;

    // Requests, and a tutor turn whose model reply is no turn: a model call answered, its
    // tokens, a failure (invalid_reply) and the deterministic tutor's fallback.
    t.get(&t.a, "/api/me").await.expect(200);
    fake.script([Script::Text("this is not a turn".into())]);
    let thread = t.post(&t.a, "/api/tutor/threads", json!({ "courseId": "TEST-ALG" })).await.expect(201);
    let thread = text(&thread["id"]);
    let turn = t.post(&t.a, &format!("/api/tutor/threads/{thread}/turn"), json!({ "messageText": "hi" })).await;
    turn.expect(200);

    // A job run, late.
    let due = chrono::Utc::now() - chrono::Duration::minutes(5);
    t.app.store().insert_jobs(&[Job::one_shot(JobKind::Noop, due, due)]).await.unwrap();
    let run = t.app.run_due_jobs(&WorkerOptions::new("metrics-test")).await.unwrap();
    assert_eq!(run.done, 1, "{run:?}");

    // A session stream (an evaluation, which runs to its first question and suspends).
    let session = t
        .post(
            &t.a,
            "/api/session/",
            json!({ "session_type": "evaluation", "config": { "blueprint_id": "MATH-ARITH-QUIZ-10" } }),
        )
        .await
        .expect(201);
    let stream = t.get(&t.a, &format!("/api/session/{}/stream", text(&session["id"]))).await;
    assert_eq!(stream.status, 200, "{}", stream.text);

    // A server with tight limits: a request over its rate, and one past its timeout.
    let slow = slow_model(Duration::from_secs(5)).await;
    let slow_llm = model(&slow);
    let limits = Limits {
        rate_per_second: Some(1),
        rate_burst: 2,
        request_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let tight = spawn_configured(
        TestStore::sqlite().await,
        move |s| App::new(s).with_llm(slow_llm),
        |state| state.with_limits(limits),
    )
    .await;
    import_test_course(&tight).await;
    let thread = tight.post(&tight.b, "/api/tutor/threads", json!({ "courseId": "TEST-ALG" })).await.expect(201);
    let started = Instant::now();
    let timed_out = tight
        .client
        .post(format!("{}/api/tutor/threads/{}/turn", tight.base, text(&thread["id"])))
        .bearer_auth(&tight.b)
        .json(&json!({ "messageText": "hi" }))
        .send()
        .await
        .unwrap();
    assert_eq!(timed_out.status(), 503);
    let timed_out: Value = timed_out.json().await.unwrap();
    assert_eq!(timed_out["error"]["code"], "request_timeout", "{timed_out}");
    let message = timed_out["error"]["message"].as_str().unwrap();
    assert!(message.contains("1 s") && message.contains("request_timeout_secs"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(4), "cut at its timeout, not at the model's reply");
    let mut limited = None;
    for _ in 0..4 {
        let reply = tight.get(&tight.a, "/api/me").await;
        if reply.status == 429 {
            limited = Some(reply);
            break;
        }
    }
    let limited = limited.expect("a fourth request at once is over a rate of 1/s with a burst of 2");
    limited.expect_error(429, "rate_limited", &["try again in"]);
    let retry: u64 = limited.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "Retry-After: {retry}");
    // Another token has a rate of its own.
    tight.get(&tight.b, "/api/me").await.expect(200);

    // The metrics: the token's, and every series the dashboard reads.
    let anonymous = t.client.get(format!("{}/metrics", t.base)).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let scrape = t.client.get(format!("{}/metrics", t.base)).bearer_auth(METRICS_TOKEN).send().await.unwrap();
    assert_eq!(scrape.status(), 200);
    assert!(scrape.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));
    let scrape = scrape.text().await.unwrap();
    let wanted = dashboard_metrics();
    assert!(wanted.len() >= 15, "the dashboard graphs {wanted:?}");
    let missing: Vec<_> = wanted.iter().filter(|name| !exported(&scrape, name)).collect();
    assert!(missing.is_empty(), "the dashboard queries {missing:?}, which /metrics does not export:\n{scrape}");
    // And the server documents each (its HELP line).
    for (name, _) in pathwise_server::metrics::METRICS {
        assert!(scrape.contains(&format!("# HELP {name} ")), "no HELP for {name}");
    }
    // Requests by route template, never by id.
    assert!(scrape.contains(r#"route="/api/tutor/threads/{thread_id}/turn""#), "{scrape}");
    assert!(!scrape.contains(&thread["id"].as_str().unwrap().to_string()), "an id in a label");
    assert!(scrape.contains(r#"pathwise_tutor_fallbacks_total{reason="model failed"}"#), "{scrape}");
    assert!(
        scrape.contains(r#"pathwise_llm_failures_total{operation="tutor_turn",reason="invalid_reply"}"#),
        "{scrape}"
    );
    assert!(scrape.contains(r#"pathwise_jobs_runs_total{job="noop",outcome="done"}"#), "{scrape}");
    assert!(scrape.contains("pathwise_sqlite_write_queue 0"), "{scrape}");
}

/// `/healthz` is alive; `/readyz` reports the store, its schema and the model, and a model
/// that does not answer is reported without making the server unready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_reports_the_store_its_schema_and_the_model() {
    let offline = spawn_with(TestStore::sqlite().await).await;
    let alive = offline.client.get(format!("{}/healthz", offline.base)).send().await.unwrap();
    assert_eq!((alive.status().as_u16(), alive.text().await.unwrap()), (200, "ok".to_string()));
    let ready = offline.client.get(format!("{}/readyz", offline.base)).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let ready: Value = ready.json().await.unwrap();
    assert_eq!(
        ready,
        json!({ "ready": true, "store": "ok", "migrations": "current", "model": "not_configured", "stopping": false,
            "model_prompt_budget": "everything: no language model is configured" })
    );

    let fake = FakeLlm::start().await;
    let llm = model(&fake);
    let t = spawn_app_made(TestStore::sqlite().await, move |s| App::new(s).with_llm(llm)).await;
    let ready: Value = t.client.get(format!("{}/readyz", t.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(ready["model"], "reachable", "{ready}");
    assert!(
        ready["model_prompt_budget"]
            .as_str()
            .unwrap()
            .starts_with("1000 tokens: the model's speed is not measured yet"),
        "{ready}"
    );

    // A model server that is not there: reported, still ready (the tutor answers without it).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let gone = OpenAiConfig::new(format!("http://{closed}/v1"), "tutor");
    let llm = Llm::new(Arc::new(OpenAiClient::new(gone).unwrap()), 4);
    let t = spawn_app_made(TestStore::sqlite().await, move |s| App::new(s).with_llm(llm)).await;
    let ready = t.client.get(format!("{}/readyz", t.base)).send().await.unwrap();
    assert_eq!(ready.status(), 200);
    let ready: Value = ready.json().await.unwrap();
    assert!(ready["model"].as_str().unwrap().starts_with("unreachable: "), "{ready}");
    assert_eq!(ready["ready"], true);
}

/// Every reply names its request: the id a client sent is kept, and a request without one
/// gets one of its own, another for each request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reply_carries_its_request_id() {
    let t = spawn_with(TestStore::sqlite().await).await;
    let id_of = |reply: &reqwest::Response| {
        reply.headers().get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_string)
    };
    let kept = t
        .client
        .get(format!("{}/api/me", t.base))
        .bearer_auth(&t.a)
        .header("x-request-id", "client-chosen-7")
        .send()
        .await
        .unwrap();
    assert_eq!(id_of(&kept).as_deref(), Some("client-chosen-7"));
    let mut made = BTreeSet::new();
    for path in ["/api/me", "/api/me", "/healthz", "/no-such-route"] {
        let reply = t.client.get(format!("{}{path}", t.base)).bearer_auth(&t.a).send().await.unwrap();
        let id = id_of(&reply).unwrap_or_else(|| panic!("{path} answered without an x-request-id"));
        assert!(id.len() >= 16 && id.is_ascii(), "{id}");
        made.insert(id);
    }
    assert_eq!(made.len(), 4, "each request its own id: {made:?}");
}

/// Bodies, heads and header counts over their limits are refused with the status that
/// says which, and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_and_headers_over_their_limits_are_refused() {
    let t = spawn_app().await;
    let before = t.counts().await;
    let body = format!("{{\"title\": \"{}\"}}", "x".repeat(pathwise_server::MAX_BODY_BYTES + 1));
    let big = t
        .client
        .post(format!("{}/api/mind-maps", t.base))
        .bearer_auth(&t.a)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(big.status(), 413);
    let long = t
        .client
        .get(format!("{}/api/me", t.base))
        .bearer_auth(&t.a)
        .header("x-padding", "y".repeat(2 * pathwise_server::limits::MAX_HEADER_BYTES))
        .send()
        .await;
    // hyper answers 431 and closes; a client may see the close before the answer.
    if let Ok(long) = long {
        assert_eq!(long.status(), 431);
    }
    let mut many = t.client.get(format!("{}/api/me", t.base)).bearer_auth(&t.a);
    for i in 0..=pathwise_server::limits::MAX_HEADERS {
        many = many.header(format!("x-h{i}"), "1");
    }
    if let Ok(many) = many.send().await {
        assert_eq!(many.status(), 431);
    }
    assert_eq!(t.counts().await, before);
    t.get(&t.a, "/api/me").await.expect(200);
}

/// A learner may hold a few session streams open at once; one more is refused with 429
/// naming the limit, another learner is not affected, and a closed stream frees its slot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_learner_holds_at_most_the_streams_allowed() {
    let slow = slow_model(Duration::from_secs(30)).await;
    let llm = model(&slow);
    let limits = Limits { streams_per_learner: 1, ..Limits::default() };
    let t = spawn_configured(
        TestStore::sqlite().await,
        move |s| App::new(s).with_llm(llm),
        |state| state.with_limits(limits),
    )
    .await;
    let thought = |token: String| {
        let t = &t;
        async move {
            let id = t.post(&token, "/api/session/", json!({ "session_type": "thought" })).await.expect(201);
            text(&id["id"])
        }
    };
    let (first, second, others) = (thought(t.a.clone()).await, thought(t.a.clone()).await, thought(t.b.clone()).await);
    let open = |token: &str, id: &str| {
        t.client.get(format!("{}/api/session/{id}/stream", t.base)).bearer_auth(token.to_string()).send()
    };
    // The first stream waits on the slow model, open.
    let mut held = open(&t.a, &first).await.unwrap();
    assert_eq!(held.status(), 200);
    let connected = held.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&connected).contains("connected"));
    let refused = t.get(&t.a, &format!("/api/session/{second}/stream")).await;
    refused.expect_error(429, "too_many_streams", &["1 session streams open", "streams_per_learner"]);
    let theirs = open(&t.b, &others).await.unwrap();
    assert_eq!(theirs.status(), 200, "another learner has streams of their own");
    drop(theirs);
    drop(held);
    // The slot is given back when the server sees the stream closed.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let again = open(&t.a, &second).await.unwrap();
        if again.status() == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the closed stream's slot was never given back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Idle connections and clients that send their headers a byte at a time do not hold the
/// server: it answers other clients all along, and closes theirs at the header timeout.
/// (The latency this keeps is measured by `pathwise bench --only slow_clients`; the bound
/// here only catches a server that stops answering.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_clients_do_not_hold_the_server() {
    let limits = Limits { header_read_timeout: Duration::from_secs(2), ..Limits::default() }.without_rate_limit();
    let t = spawn_configured(TestStore::sqlite().await, App::new, |state| state.with_limits(limits)).await;
    let address = t.base.trim_start_matches("http://").to_string();
    let mut idle = Vec::new();
    for _ in 0..500 {
        idle.push(tokio::net::TcpStream::connect(&address).await.expect("an idle connection"));
    }
    let mut slow = Vec::new();
    for _ in 0..50 {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream.write_all(b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
        slow.push(tokio::spawn(async move {
            // One header byte every 200 ms: the head would take minutes to arrive.
            for byte in b"X-Slow: ".iter().cycle().take(200) {
                if stream.write_all(&[*byte]).await.is_err() {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            false
        }));
    }
    let mut took = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        t.get(&t.a, "/api/me").await.expect(200);
        took.push(started.elapsed());
    }
    took.sort();
    let p99 = took[took.len() * 99 / 100];
    eprintln!("GET /api/me beside 500 idle and 50 slow connections: p50 {:?}, p99 {p99:?}", took[took.len() / 2]);
    assert!(p99 < Duration::from_millis(500), "p99 {p99:?}");

    // Closed at the header timeout: the slow writers find their connection gone, and an
    // idle connection reads its end.
    for writer in slow {
        assert!(tokio::time::timeout(Duration::from_secs(30), writer).await.unwrap().unwrap(), "a slow head was kept");
    }
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(10), idle[0].read(&mut byte)).await.expect("closed in time");
    assert!(matches!(read, Ok(0) | Err(_)), "an idle connection was kept: {read:?}");
}

/// A stopping server ends open session streams with a `shutdown` event and a reconnect
/// delay, finishes the request in flight, and takes no new connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_server_finishes_requests_in_flight_and_ends_streams_with_a_reconnect_hint() {
    let slow = slow_model(Duration::from_secs(3)).await;
    let llm = model(&slow);
    let TestStore { store, database: _database } = TestStore::sqlite().await;
    let app = App::new(store).with_llm(llm);
    app.install_builtin_courses().await.unwrap();
    let token = app.create_learner("Ada").await.unwrap().token;
    let state = AppState::new(app.clone(), Some(OPERATOR_TOKEN));
    let stopping = state.shutdown.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(pathwise_server::serve(listener, state, async {
        stopped.await.ok();
    }));
    let client = reqwest::Client::new();

    let session: Value = client
        .post(format!("{base}/api/session/"))
        .bearer_auth(&token)
        .json(&json!({ "session_type": "thought" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut stream = client
        .get(format!("{base}/api/session/{}/stream", text(&session["id"])))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    stream.chunk().await.unwrap().expect("connected");
    // A request in flight: a tutor turn waiting on the slow model.
    let thread: Value = client
        .post(format!("{base}/api/tutor/threads"))
        .bearer_auth(&token)
        .json(&json!({ "courseId": "MATH-FOUNDATIONS" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let in_flight = tokio::spawn(
        client
            .post(format!("{base}/api/tutor/threads/{}/turn", text(&thread["id"])))
            .bearer_auth(&token)
            .json(&json!({ "messageText": "where do I start?" }))
            .send(),
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.send(()).unwrap();

    let mut rest = String::new();
    let read = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = stream.chunk().await.unwrap() {
            rest.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(read.is_ok(), "the stream stayed open after the stop: {rest}");
    assert!(rest.contains("event: shutdown"), "{rest}");
    assert!(rest.contains("retry: 2000"), "{rest}");
    assert!(rest.contains("Last-Event-ID"), "{rest}");
    assert!(stopping.is_cancelled());
    let answered = in_flight.await.unwrap().expect("the request in flight is answered");
    assert_eq!(answered.status(), 200);
    tokio::time::timeout(Duration::from_secs(15), server).await.expect("the server stops").unwrap().unwrap();
    assert!(client.get(format!("{base}/healthz")).send().await.is_err(), "a stopped server took a connection");
}
