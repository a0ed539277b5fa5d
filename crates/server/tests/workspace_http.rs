//! The web workspace's files and start-up calls over a real server on 127.0.0.1: the page and
//! its assets embedded in the binary, with content types, ETags and compression; the local
//! learner's sign-in only through a one-time link, only for pages loaded from a loopback
//! name; what the server offers.

mod support;

use pathwise_server::{AppState, LocalLearner};
use serde_json::Value;
use support::*;

async fn workspace() -> (TestApp, String) {
    let (t, base, _) = workspace_with_links().await;
    (t, base)
}

/// A workspace server whose local learner is A, the first sign-in code, and the codes the
/// server announces after each use.
async fn workspace_with_links() -> (TestApp, String, (String, std::sync::mpsc::Receiver<String>)) {
    let t = spawn_app().await;
    let (announced, next_codes) = std::sync::mpsc::channel();
    let local = LocalLearner::new(t.a.clone(), "Ada".into(), move |code| announced.send(code.to_string()).unwrap());
    let first = local.signin_code();
    let base =
        serve_state(AppState::new(t.app.clone(), Some(OPERATOR_TOKEN)).with_workspace("pathwise", Some(local))).await;
    (t, base, (first, next_codes))
}

#[tokio::test]
async fn the_page_and_its_files_are_served_from_the_binary() {
    let (t, base) = workspace().await;
    let page = t.client.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let etag = page.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(page.headers()["cache-control"], "no-cache");
    let html = page.text().await.unwrap();
    assert!(html.contains("<html"), "{html}");
    // Revalidation answers 304 without the body.
    let again = t.client.get(format!("{base}/")).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(again.status(), 304);
    // Compressed when the browser accepts it.
    let raw = reqwest::Client::builder().no_gzip().build().unwrap();
    let zipped = raw.get(format!("{base}/")).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(zipped.headers().get("content-encoding").map(|v| v.to_str().unwrap()), Some("gzip"));
    // Every referenced asset exists.
    for path in html.split("/assets/").skip(1).filter_map(|rest| rest.split('"').next()) {
        let asset = t.client.get(format!("{base}/assets/{path}")).send().await.unwrap();
        assert_eq!(asset.status(), 200, "/assets/{path}");
    }
    let missing = t.client.get(format!("{base}/assets/nope.js")).send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
    let escape = t.client.get(format!("{base}/assets/..%2FCargo.toml")).send().await.unwrap();
    assert_eq!(escape.status(), 404);
}

#[tokio::test]
async fn the_local_learner_is_signed_in_once_per_link_and_only_from_a_loopback_name() {
    let (t, base, (first, next_codes)) = workspace_with_links().await;
    let sign_in = |code: Value, host: Option<&'static str>| {
        let mut request =
            t.client.post(format!("{base}/api/workspace/signin")).json(&serde_json::json!({ "code": code }));
        if let Some(host) = host {
            request = request.header("host", host);
        }
        async move {
            let reply = request.send().await.unwrap();
            let status = reply.status().as_u16();
            (status, reply.json::<Value>().await.unwrap())
        }
    };
    // Nothing hands the token to a request that proves nothing.
    let asked = t.client.get(format!("{base}/api/workspace/session")).send().await.unwrap();
    assert_eq!(asked.status(), 404);
    assert!(!asked.text().await.unwrap().contains(&t.a), "the token does not leak");
    let (status, body) = sign_in(serde_json::json!("not-the-code"), None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("signin_link_used")), "{body}");
    assert!(!body.to_string().contains(&t.a), "the token does not leak");
    // A page of another site reaching this server by DNS rebinding names its own host: even
    // with the right code it is refused, and the code stays good for the real page.
    let (status, body) = sign_in(serde_json::json!(first), Some("evil.example:8080")).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("no_local_session")), "{body}");
    assert!(!body.to_string().contains(&t.a));
    let (status, session) = sign_in(serde_json::json!(first), None).await;
    assert_eq!(status, 200, "{session}");
    assert_eq!((session["token"].as_str(), session["name"].as_str()), (Some(t.a.as_str()), Some("Ada")));
    // Once: the same link again is refused; the server announced the next one, which works.
    let (status, body) = sign_in(serde_json::json!(first), None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("signs in once"), "{body}");
    let next = next_codes.try_recv().expect("the next link is announced");
    assert_ne!(next, first);
    assert_eq!(sign_in(serde_json::json!(next), None).await.0, 200);
    // A body without a code names the field.
    let missing =
        t.client.post(format!("{base}/api/workspace/signin")).json(&serde_json::json!({})).send().await.unwrap();
    assert_eq!(missing.status(), 400);
    // A server with no local learner (not on loopback) signs no one in.
    let plain = t.post(&t.a, "/api/workspace/signin", serde_json::json!({ "code": first })).await;
    plain.expect_error(404, "no_local_session", &["sign in"]);
    let config = t.get(&t.a, "/api/workspace/config").await.expect(200);
    assert_eq!(config["model"], false);
    assert_eq!(config["voice"], false);
    t.call(reqwest::Method::GET, "/api/workspace/config", None, Body::Empty).await.expect_error(
        401,
        "unauthorized",
        &["token"],
    );
}

#[tokio::test]
async fn latex_is_rendered_as_mathml() {
    let (t, _) = workspace().await;
    let reply =
        t.post(&t.a, "/api/math", serde_json::json!({ "latex": ["\\frac{3}{4} + x^2", "\\frac{"] })).await.expect(200);
    let mathml = reply["items"][0]["mathml"].as_str().unwrap();
    assert!(mathml.starts_with("<math") && mathml.contains("<mfrac>"), "{mathml}");
    assert!(reply["items"][1]["mathml"].is_null() && reply["items"][1]["error"].is_string(), "{reply}");
    let many: Vec<String> = (0..201).map(|i| i.to_string()).collect();
    t.refused(
        reqwest::Method::POST,
        "/api/math",
        Some(&t.a),
        Body::Json(serde_json::json!({ "latex": many })),
        (422, "invalid"),
        &["200"],
    )
    .await;
}

#[tokio::test]
async fn voice_input_is_transcribed_when_a_model_is_configured() {
    let (t, _) = workspace().await;
    // Without a transcription model: the page hides the button; a call says what to set.
    let reply = t
        .client
        .post(format!("{}/api/transcribe", t.base))
        .bearer_auth(&t.a)
        .header("content-type", "audio/webm")
        .body(vec![1u8; 64])
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 503);
    let body: Value = reply.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("transcription_base_url"), "{body}");

    let fake = pathwise_fake_llm::FakeLlm::start().await;
    fake.set_transcript("x equals four");
    let transcriber =
        pathwise_llm::Transcriber::new(pathwise_llm::OpenAiConfig::new(fake.base_url(), "whisper-1")).unwrap();
    let app = t.app.clone().with_transcriber(std::sync::Arc::new(transcriber));
    let base = serve_state(AppState::new(app, None)).await;
    let config_at = |base: String| {
        let request = t.client.get(format!("{base}/api/workspace/config")).bearer_auth(&t.a);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let config = config_at(base.clone()).await;
    assert_eq!(config["voice"], true);
    assert!(config.get("model_name").is_none(), "no model, no name: {config}");
    // With a model, the workspace says which one answers (its name, not where it runs).
    let model = pathwise_llm::OpenAiClient::new(pathwise_llm::OpenAiConfig::new(fake.base_url(), "smollm2")).unwrap();
    let with_model = t.app.clone().with_llm(pathwise_llm::Llm::new(std::sync::Arc::new(model), 1));
    let config = config_at(serve_state(AppState::new(with_model, None)).await).await;
    assert_eq!((config["model"].clone(), config["model_name"].clone()), (Value::Bool(true), Value::from("smollm2")));
    assert!(!config.to_string().contains("127.0.0.1"), "{config}");
    let reply = t
        .client
        .post(format!("{base}/api/transcribe"))
        .bearer_auth(&t.a)
        .header("content-type", "audio/webm;codecs=opus")
        .body(vec![7u8; 2048])
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let body: Value = reply.json().await.unwrap();
    assert_eq!(body["text"], "x equals four");
    assert_eq!(fake.recordings().len(), 1);
    for (content_type, bytes, field) in [("text/plain", 10, "content-type"), ("audio/webm", 0, "body")] {
        let reply = t
            .client
            .post(format!("{base}/api/transcribe"))
            .bearer_auth(&t.a)
            .header("content-type", content_type)
            .body(vec![1u8; bytes])
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 422, "{content_type}");
        let body: Value = reply.json().await.unwrap();
        assert_eq!(body["error"]["details"]["field"], field, "{body}");
    }
}
