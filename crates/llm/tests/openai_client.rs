//! The OpenAI-compatible client against a fake model server over real HTTP on 127.0.0.1.

use pathwise_fake_llm::{FakeLlm, Script, Supports};
use pathwise_llm::{
    Llm, LlmError, Message, OpenAiClient, OpenAiConfig, OutputSchema, Request, StructuredOutput, Tool, Usage,
};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

fn config(base_url: &str) -> OpenAiConfig {
    OpenAiConfig {
        api_key: Some("sk-test".into()),
        timeout: Duration::from_millis(800),
        max_retries: 2,
        backoff: Duration::from_millis(10),
        ..OpenAiConfig::new(base_url, "test-model")
    }
}

fn llm(base_url: &str, sessions: usize) -> Llm {
    Llm::new(Arc::new(OpenAiClient::new(config(base_url)).unwrap()), sessions)
}

#[derive(Debug, Deserialize, PartialEq)]
struct Concept {
    label: String,
    minutes: u32,
}

fn concept_request() -> Request {
    Request {
        output: Some(OutputSchema {
            name: "concept".into(),
            schema: json!({ "type": "object", "properties": { "label": { "type": "string" }, "minutes": { "type": "integer" } },
                            "required": ["label", "minutes"], "additionalProperties": false }),
        }),
        ..Request::new(vec![Message::system("You name concepts."), Message::user("One concept of algebra, please.")])
    }
}

#[tokio::test]
async fn structured_output_is_asked_for_with_a_json_schema_and_parsed() {
    let fake = FakeLlm::start().await;
    fake.script([Script::json(json!({ "label": "Variables", "minutes": 15 }))]);
    let session = llm(fake.base_url(), 2).session("naming a concept").await.unwrap();
    let (concept, reply): (Concept, _) = session.structured(&concept_request()).await.unwrap();
    assert_eq!(concept, Concept { label: "Variables".into(), minutes: 15 });
    let sent = &fake.requests()[0];
    assert_eq!(sent["model"], "test-model");
    assert_eq!(sent["response_format"]["type"], "json_schema");
    assert_eq!(sent["response_format"]["json_schema"]["schema"]["required"], json!(["label", "minutes"]));
    assert_eq!(sent["messages"][0], json!({ "role": "system", "content": "You name concepts." }));
    assert!(reply.usage.prompt_tokens > 0 && reply.usage.completion_tokens > 0);
    assert_eq!(session.usage(), reply.usage);
}

#[tokio::test]
async fn a_server_without_json_schema_is_asked_for_json_object_and_then_plainly() {
    let fake = FakeLlm::start().await;
    fake.supports(Supports::JsonObjectOnly);
    fake.script([Script::json(json!({ "label": "Sets", "minutes": 10 }))]);
    let llm = llm(fake.base_url(), 1);
    let (concept, _): (Concept, _) = llm.session("t").await.unwrap().structured(&concept_request()).await.unwrap();
    assert_eq!(concept.label, "Sets");
    let kinds: Vec<Value> = fake.requests().iter().map(|r| r["response_format"]["type"].clone()).collect();
    assert_eq!(kinds, vec![json!("json_schema"), json!("json_object")]);

    // The client remembers; a server with no structured output at all gets the schema in
    // the conversation, and a reply wrapped in prose still parses.
    fake.supports(Supports::Nothing);
    fake.script([Script::Text("Sure! ```json\n{\"label\": \"Maps\", \"minutes\": 20}\n```".into())]);
    let (concept, _): (Concept, _) = llm.session("t").await.unwrap().structured(&concept_request()).await.unwrap();
    assert_eq!(concept.label, "Maps");
    let requests = fake.requests();
    assert_eq!(requests[2]["response_format"]["type"], "json_object");
    let plain = &requests[3];
    assert!(plain.get("response_format").is_none());
    let last = plain["messages"].as_array().unwrap().last().unwrap();
    assert!(last["content"].as_str().unwrap().contains("JSON Schema"), "{last}");
}

#[tokio::test]
async fn malformed_json_and_the_wrong_shape_are_malformed_errors() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Text("{\"label\": \"Broken\", ".into()), Script::json(json!({ "label": "No minutes" }))]);
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let error = session.structured::<Concept>(&concept_request()).await.unwrap_err();
    assert!(matches!(&error, LlmError::Malformed(m) if m.contains("not valid JSON")), "{error}");
    let error = session.structured::<Concept>(&concept_request()).await.unwrap_err();
    assert!(matches!(&error, LlmError::Malformed(m) if m.contains("minutes")), "{error}");
    assert_eq!(session.turns().len(), 2, "tokens are counted for unusable replies too");
}

#[tokio::test]
async fn an_http_error_is_reported_once_without_retrying() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Status(503, "overloaded".into())]);
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let error = session.chat(&concept_request()).await.unwrap_err();
    assert_eq!(error, LlmError::Status { status: 503, body: error_body("overloaded") });
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(session.turns(), vec![Usage::default()], "a failed call still counts as a call, with no tokens");
}

#[tokio::test]
async fn a_call_given_up_at_the_callers_deadline_counts_as_a_call() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Slow(Duration::from_secs(3), Box::new(Script::Text("late".into())))]);
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let error = session.chat_within(&concept_request(), Duration::from_millis(100)).await.unwrap_err();
    assert_eq!(error, LlmError::Timeout(Duration::from_millis(100)));
    assert_eq!(session.turns(), vec![Usage::default()]);
}

fn error_body(message: &str) -> String {
    json!({ "error": { "message": message, "type": "invalid_request_error", "param": null } }).to_string()
}

#[tokio::test]
async fn a_slow_model_times_out_with_the_limit_in_the_error() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Slow(Duration::from_secs(3), Box::new(Script::Text("late".into())))]);
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let error = session.chat(&concept_request()).await.unwrap_err();
    assert_eq!(error, LlmError::Timeout(Duration::from_millis(800)));
    assert_eq!(session.turns().len(), 1, "a call given up still counts");
    assert!(error.to_string().contains("800ms"), "{error}");
    assert_eq!(fake.requests().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn an_unreachable_server_is_retried_with_backoff_then_reported() {
    // A port that was free a moment ago: connections are refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let started = std::time::Instant::now();
    let error = llm(&url, 1).session("t").await.unwrap().chat(&concept_request()).await.unwrap_err();
    assert!(matches!(&error, LlmError::Transport { url: u, .. } if u.contains(&port.to_string())), "{error}");
    assert!(started.elapsed() >= Duration::from_millis(30), "two retries after 10 ms and 20 ms");
}

#[tokio::test]
async fn tool_calls_come_back_parsed_and_their_results_go_back_to_the_model() {
    let fake = FakeLlm::start().await;
    fake.script([
        Script::ToolCalls(vec![
            ("create_node".into(), json!({ "label": "Vectors" })),
            ("create_node".into(), json!({ "label": "Matrices" })),
        ]),
        Script::Text("done".into()),
    ]);
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let tool = Tool {
        name: "create_node".into(),
        description: "Add a concept".into(),
        parameters: json!({ "type": "object", "properties": { "label": { "type": "string" } }, "required": ["label"] }),
    };
    let mut request = Request { tools: vec![tool], ..Request::new(vec![Message::user("Plan linear algebra")]) };
    let reply = session.chat(&request).await.unwrap();
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
    let labels: Vec<Value> = reply
        .tool_calls
        .iter()
        .map(|c| serde_json::from_str::<Value>(&c.arguments).unwrap()["label"].clone())
        .collect();
    assert_eq!(labels, vec![json!("Vectors"), json!("Matrices")]);

    request.messages.push(Message::assistant(&reply));
    for call in &reply.tool_calls {
        request.messages.push(Message::tool_result(call, "created"));
    }
    let done = session.chat(&request).await.unwrap();
    assert_eq!(done.content.as_deref(), Some("done"));
    let sent = &fake.requests()[1];
    assert_eq!(sent["tools"][0]["function"]["name"], "create_node");
    assert_eq!(sent["messages"][1]["tool_calls"][1]["function"]["name"], "create_node");
    assert_eq!(sent["messages"][2]["tool_call_id"], reply.tool_calls[0].id);
    assert_eq!(sent["messages"][3]["role"], "tool");
    let total = session.usage();
    assert_eq!(total, {
        let mut sum = Usage::default();
        for t in session.turns() {
            sum += t;
        }
        sum
    });
    assert_eq!(session.turns().len(), 2);
}

#[tokio::test]
async fn sessions_beyond_the_cap_wait_for_a_free_slot() {
    let fake = FakeLlm::start().await;
    let llm = llm(fake.base_url(), 1);
    let first = llm.session("first").await.unwrap();
    let waiting = tokio::time::timeout(Duration::from_millis(100), llm.session("second")).await;
    assert!(waiting.is_err(), "a second session waits while the only slot is taken");
    drop(first);
    let second = tokio::time::timeout(Duration::from_secs(2), llm.session("second")).await;
    assert!(second.is_ok(), "the slot is free once the first session ends");
}

#[tokio::test]
async fn offline_generation_names_the_setting_to_configure() {
    let error = Llm::offline().session("generating a curriculum").await.err().unwrap();
    assert!(matches!(error, LlmError::NotConfigured { .. }));
    let message = error.to_string();
    assert!(message.contains("generating a curriculum") && message.contains("llm_base_url"), "{message}");
    assert!(!Llm::offline().is_configured());
}

#[tokio::test]
async fn every_call_streams_with_max_tokens_and_the_reply_is_put_together() {
    let fake = FakeLlm::start().await;
    fake.script([
        Script::json(json!({ "label": "A concept with a rather long name, streamed in pieces", "minutes": 25 })),
        Script::ToolCalls(vec![("create_node".into(), json!({ "label": "Vectors", "effort": 30 }))]),
    ]);
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let (concept, reply): (Concept, _) = session.structured(&concept_request()).await.unwrap();
    assert_eq!(concept.label, "A concept with a rather long name, streamed in pieces");
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
    assert!(reply.usage.prompt_tokens > 0 && reply.usage.completion_tokens > 0, "usage from the last event");
    let sent = &fake.requests()[0];
    assert_eq!((sent["stream"].clone(), sent["max_tokens"].clone()), (json!(true), json!(1024)), "{sent}");

    let request = Request { max_tokens: Some(200), ..Request::new(vec![Message::user("Plan")]) };
    let called = session.chat(&request).await.unwrap();
    assert_eq!(called.tool_calls.len(), 1);
    assert_eq!(called.tool_calls[0].name, "create_node");
    assert_eq!(serde_json::from_str::<Value>(&called.tool_calls[0].arguments).unwrap()["effort"], 30);
    assert_eq!(fake.requests()[1]["max_tokens"], 200, "the call's own bound");
}

#[tokio::test]
async fn a_format_refused_with_a_500_is_asked_again_as_json_object_with_the_schema() {
    let fake = FakeLlm::start().await;
    fake.supports(Supports::JsonObjectWith500);
    fake.script([
        Script::json(json!({ "label": "Sets", "minutes": 10 })),
        Script::json(json!({ "label": "Maps", "minutes": 20 })),
    ]);
    let llm = llm(fake.base_url(), 1);
    let (concept, _): (Concept, _) = llm.session("t").await.unwrap().structured(&concept_request()).await.unwrap();
    assert_eq!(concept.label, "Sets");
    let (concept, _): (Concept, _) = llm.session("t").await.unwrap().structured(&concept_request()).await.unwrap();
    assert_eq!(concept.label, "Maps");
    let requests = fake.requests();
    let kinds: Vec<Value> = requests.iter().map(|r| r["response_format"]["type"].clone()).collect();
    assert_eq!(kinds, [json!("json_schema"), json!("json_object"), json!("json_object")], "remembered");
    assert_eq!(requests[1]["response_format"]["schema"]["required"], json!(["label", "minutes"]));
}

#[tokio::test]
async fn a_configured_format_is_asked_for_first() {
    let fake = FakeLlm::start().await;
    fake.script([Script::json(json!({ "label": "Sets", "minutes": 10 }))]);
    let config = OpenAiConfig { structured_output: StructuredOutput::JsonObject, ..config(fake.base_url()) };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 1);
    llm.session("t").await.unwrap().structured::<Concept>(&concept_request()).await.unwrap();
    assert_eq!(fake.requests()[0]["response_format"]["type"], "json_object");
}

#[tokio::test]
async fn a_model_that_does_not_stop_is_cut_off_at_the_deadline_and_its_stream_closed() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Endless(Duration::from_millis(20))]);
    let started = std::time::Instant::now();
    let session = llm(fake.base_url(), 1).session("t").await.unwrap();
    let error = session.chat(&concept_request()).await.unwrap_err();
    assert_eq!(error, LlmError::Timeout(Duration::from_millis(800)));
    assert_eq!(session.turns().len(), 1, "a call given up still counts");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    abandoned(&fake, 1).await;
    assert_eq!(error.reason(), "timeout");
}

#[tokio::test]
async fn a_reply_past_its_max_tokens_is_cut_off_as_too_large() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Endless(Duration::from_millis(1))]);
    let request = Request { max_tokens: Some(4), ..concept_request() };
    let error = llm(fake.base_url(), 1).session("t").await.unwrap().chat(&request).await.unwrap_err();
    assert!(matches!(&error, LlmError::TooLarge { limit } if limit.contains("4 tokens")), "{error}");
    assert_eq!(error.reason(), "too_large");
    abandoned(&fake, 1).await;
}

/// The fake server sees the client close `count` streams (soon after the call gave up).
async fn abandoned(fake: &FakeLlm, count: usize) {
    for _ in 0..100 {
        if fake.abandoned() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the client did not close the stream: {} of {count}", fake.abandoned());
}

#[tokio::test]
async fn what_the_server_said_is_never_in_the_message_for_a_learner() {
    let fake = FakeLlm::start().await;
    fake.script([Script::Status(500, "Traceback (most recent call last): File \"/srv/models/secret.py\"".into())]);
    let error = llm(fake.base_url(), 1).session("t").await.unwrap().chat(&concept_request()).await.unwrap_err();
    assert_eq!(error.reason(), "server_error");
    assert!(error.to_string().contains("secret.py"), "the operator's log has it: {error}");
    let message = error.learner_message();
    assert!(!message.contains("secret") && !message.contains("Traceback"), "{message}");
    assert!(message.contains("HTTP 500"), "{message}");
}
