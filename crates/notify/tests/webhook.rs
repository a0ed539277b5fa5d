//! The webhook notifier against a real receiver on 127.0.0.1 that records every request and
//! answers from a script.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use chrono::{TimeZone, Utc};
use hmac::{Hmac, Mac};
use pathwise_notify::{build, Message, NotifierConfig, NotifyError, Recipient, Secret, WebhookConfig};
use serde_json::json;
use sha2::Sha256;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

struct Answer {
    status: u16,
    body: String,
    delay: Duration,
}

fn answer(status: u16, body: &str) -> Answer {
    Answer { status, body: body.to_owned(), delay: Duration::ZERO }
}

struct Recorded {
    headers: HeaderMap,
    body: Bytes,
}

#[derive(Default)]
struct Receiver {
    /// Answered in order; 200 once they run out.
    script: VecDeque<Answer>,
    requests: Vec<Recorded>,
}

type Shared = Arc<Mutex<Receiver>>;

async fn record(State(receiver): State<Shared>, headers: HeaderMap, body: Bytes) -> (StatusCode, String) {
    let answer = {
        let mut receiver = receiver.lock().unwrap();
        receiver.requests.push(Recorded { headers, body });
        receiver.script.pop_front().unwrap_or_else(|| answer(200, "ok"))
    };
    tokio::time::sleep(answer.delay).await;
    (StatusCode::from_u16(answer.status).unwrap(), answer.body)
}

/// Starts a receiver; returns the URL to post to and what it has seen.
async fn start_receiver(script: Vec<Answer>) -> (String, Shared) {
    let receiver: Shared = Arc::new(Mutex::new(Receiver { script: script.into(), requests: Vec::new() }));
    let app = Router::new().route("/hooks/pathwise", post(record)).with_state(receiver.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/hooks/pathwise"), receiver)
}

fn fast(url: &str) -> WebhookConfig {
    WebhookConfig { retry_backoff_ms: 5, ..WebhookConfig::new(url) }
}

fn digest() -> Message {
    Message::new(
        "Your week in Pathwise",
        "You mastered 3 concepts this week.",
        Recipient::new("Ada Lovelace").with_id("0193a7d2-learner"),
    )
    .with_html("<p>You mastered <b>3</b> concepts this week.</p>")
    .with_sent_at(Utc.with_ymd_and_hms(2025, 6, 2, 8, 0, 0).unwrap())
}

fn request_count(receiver: &Shared) -> usize {
    receiver.lock().unwrap().requests.len()
}

#[tokio::test]
async fn posts_the_message_as_json_with_the_configured_headers() {
    let (url, receiver) = start_receiver(vec![]).await;
    let config = WebhookConfig {
        bearer_token: Some(Secret::new("token-123")),
        headers: [("X-Api-Key".to_owned(), Secret::new("gateway-key"))].into(),
        ..fast(&url)
    };
    let notifier = build(&NotifierConfig::Webhook(config)).unwrap();

    let delivery = notifier.send(&digest()).await.unwrap();

    assert_eq!(delivery.attempts, 1);
    assert_eq!(delivery.response, "HTTP 200 OK");
    assert_eq!(delivery.notifier, notifier.describe());
    let receiver = receiver.lock().unwrap();
    let [request] = &receiver.requests[..] else { panic!("expected one request, got {}", receiver.requests.len()) };
    let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(
        body,
        json!({
            "subject": "Your week in Pathwise",
            "text": "You mastered 3 concepts this week.",
            "html": "<p>You mastered <b>3</b> concepts this week.</p>",
            "learner_name": "Ada Lovelace",
            "learner_id": "0193a7d2-learner",
            "sent_at": "2025-06-02T08:00:00Z",
        })
    );
    assert_eq!(request.headers["authorization"], "Bearer token-123");
    assert_eq!(request.headers["x-api-key"], "gateway-key");
    assert_eq!(request.headers["content-type"], "application/json");
    assert!(request.headers.get("x-pathwise-signature").is_none(), "no secret, no signature");
}

#[tokio::test]
async fn absent_optional_fields_are_sent_as_null() {
    let (url, receiver) = start_receiver(vec![]).await;
    let notifier = build(&NotifierConfig::Webhook(fast(&url))).unwrap();

    notifier.send(&Message::new("Hi", "Plain", Recipient::new("Bo"))).await.unwrap();

    let body: serde_json::Value = serde_json::from_slice(&receiver.lock().unwrap().requests[0].body).unwrap();
    assert_eq!(
        body,
        json!({"subject": "Hi", "text": "Plain", "html": null, "learner_name": "Bo", "learner_id": null, "sent_at": null})
    );
}

#[tokio::test]
async fn the_signature_is_an_hmac_of_the_exact_body() {
    let (url, receiver) = start_receiver(vec![]).await;
    let config = WebhookConfig { secret: Some(Secret::new("shared-secret")), ..fast(&url) };
    let notifier = build(&NotifierConfig::Webhook(config)).unwrap();

    notifier.send(&digest()).await.unwrap();

    let receiver = receiver.lock().unwrap();
    let request = &receiver.requests[0];
    let header = request.headers["x-pathwise-signature"].to_str().unwrap();
    let signature = header.strip_prefix("sha256=").expect("the signature names its algorithm");
    let verify = |key: &[u8]| {
        let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
        mac.update(&request.body);
        mac.verify_slice(&hex::decode(signature).unwrap()).is_ok()
    };
    assert!(verify(b"shared-secret"));
    assert!(!verify(b"another-secret"));
}

#[tokio::test]
async fn a_server_error_is_retried_and_the_same_body_is_sent_again() {
    let (url, receiver) = start_receiver(vec![answer(500, "database restarting")]).await;
    let config = WebhookConfig { secret: Some(Secret::new("s")), ..fast(&url) };
    let notifier = build(&NotifierConfig::Webhook(config)).unwrap();

    let delivery = notifier.send(&digest()).await.unwrap();

    assert_eq!(delivery.attempts, 2);
    let receiver = receiver.lock().unwrap();
    let [first, second] = &receiver.requests[..] else { panic!("expected two requests") };
    assert_eq!(first.body, second.body);
    assert_eq!(first.headers["x-pathwise-signature"], second.headers["x-pathwise-signature"]);
}

#[tokio::test]
async fn server_errors_until_the_last_attempt_are_reported_with_the_last_answer() {
    let script = vec![answer(500, "one"), answer(502, "two"), answer(503, "still down"), answer(200, "too late")];
    let (url, receiver) = start_receiver(script).await;
    let notifier = build(&NotifierConfig::Webhook(fast(&url))).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    match &error {
        NotifyError::Status { status: 503, attempts: 3, body, .. } => assert_eq!(body, "still down"),
        other => panic!("expected a 503 after 3 attempts, got {other:?}"),
    }
    assert_eq!(request_count(&receiver), 3);
    assert!(error.to_string().contains("HTTP 503"), "{error}");
}

#[tokio::test]
async fn a_client_error_is_not_retried_and_quotes_the_start_of_the_body() {
    let long_body = format!("invalid learner_id: {}", "x".repeat(400));
    let (url, receiver) = start_receiver(vec![answer(400, &long_body)]).await;
    let notifier = build(&NotifierConfig::Webhook(fast(&url))).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Status { status, attempts, body, notifier: name } = &error else { panic!("{error:?}") };
    assert_eq!((*status, *attempts), (400, 1));
    assert_eq!(body.chars().count(), 200);
    assert!(body.starts_with("invalid learner_id: xxx"));
    assert_eq!(name, &notifier.describe());
    assert!(error.to_string().contains("HTTP 400"), "{error}");
    assert_eq!(request_count(&receiver), 1);
}

#[tokio::test]
async fn an_unreachable_receiver_is_retried_then_reported() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let notifier = build(&NotifierConfig::Webhook(fast(&format!("http://127.0.0.1:{port}/hook")))).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Transport { attempts, problem, notifier: name } = &error else { panic!("{error:?}") };
    assert_eq!(*attempts, 3);
    assert!(problem.to_lowercase().contains("connect"), "{problem}");
    assert_eq!(name, &format!("webhook http://127.0.0.1:{port}/hook"));
}

#[tokio::test]
async fn a_receiver_slower_than_the_timeout_is_reported() {
    let slow = Answer { status: 200, body: "late".into(), delay: Duration::from_secs(3) };
    let (url, _receiver) = start_receiver(vec![slow]).await;
    let config = WebhookConfig { timeout_secs: 1, max_attempts: 1, ..fast(&url) };
    let notifier = build(&NotifierConfig::Webhook(config)).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Transport { attempts: 1, problem, .. } = &error else { panic!("{error:?}") };
    assert!(problem.contains("no answer within 1s"), "{problem}");
}

#[tokio::test]
async fn the_description_leaves_out_credentials_and_the_query() {
    let config = WebhookConfig {
        secret: Some(Secret::new("shared-secret")),
        ..WebhookConfig::new("https://user:password@hooks.example.com:8443/pathwise?token=abc")
    };
    let notifier = build(&NotifierConfig::Webhook(config)).unwrap();

    assert_eq!(notifier.describe(), "webhook https://hooks.example.com:8443/pathwise");
}
