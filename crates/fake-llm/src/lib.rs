//! A fake OpenAI-compatible chat-completions server for tests: a real HTTP server on
//! 127.0.0.1 that answers `POST /v1/chat/completions` with scripted replies, in order, and
//! keeps every request it received. It can answer well, with malformed JSON, with tool
//! calls, with an HTTP error, slowly (to provoke timeouts), and can refuse structured-output
//! modes it is told not to support.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Script {
    /// An assistant message with this text.
    Text(String),
    /// An assistant message calling these tools: (name, arguments).
    ToolCalls(Vec<(String, Value)>),
    /// This HTTP status with an OpenAI-style error body.
    Status(u16, String),
    /// Wait, then answer.
    Slow(Duration, Box<Script>),
}

impl Script {
    /// An assistant message whose text is this JSON value.
    pub fn json(value: Value) -> Self {
        Script::Text(value.to_string())
    }

    pub fn tool(name: &str, arguments: Value) -> Self {
        Script::ToolCalls(vec![(name.to_string(), arguments)])
    }
}

/// Which `response_format` types the server accepts; others get a 400 naming
/// `response_format`, as servers without the feature answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Supports {
    JsonSchema,
    JsonObjectOnly,
    Nothing,
}

/// Answers a request when no scripted reply is left.
pub type Responder = Arc<dyn Fn(&Value) -> Script + Send + Sync>;

struct Inner {
    responder: Option<Responder>,
    /// Texts embedded so far, in order; embedding fails while `embeddings_down`.
    embedded: Vec<String>,
    embeddings_down: bool,
    /// What `/v1/audio/transcriptions` hears, and the bytes of each recording sent to it.
    transcript: String,
    recordings: Vec<usize>,
    script: VecDeque<Script>,
    requests: Vec<Value>,
    supports: Supports,
    calls: usize,
}

#[derive(Clone)]
pub struct FakeLlm {
    inner: Arc<Mutex<Inner>>,
    base_url: String,
}

impl FakeLlm {
    /// Start serving on a free port of 127.0.0.1; the server lives as long as the runtime.
    pub async fn start() -> FakeLlm {
        let inner = Arc::new(Mutex::new(Inner {
            responder: None,
            embedded: Vec::new(),
            embeddings_down: false,
            transcript: "two x plus three equals eleven".into(),
            recordings: Vec::new(),
            script: VecDeque::new(),
            requests: Vec::new(),
            supports: Supports::JsonSchema,
            calls: 0,
        }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let base_url = format!("http://{}/v1", listener.local_addr().expect("address"));
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/v1/embeddings", post(embeddings))
            .route("/v1/audio/transcriptions", post(transcribe))
            .with_state(inner.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.expect("fake model server") });
        FakeLlm { inner, base_url }
    }

    /// What to give as the client's base URL (ends in `/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Queue answers, answered in order, one per request.
    pub fn script(&self, replies: impl IntoIterator<Item = Script>) {
        self.inner.lock().unwrap().script.extend(replies);
    }

    pub fn supports(&self, supports: Supports) {
        self.inner.lock().unwrap().supports = supports;
    }

    /// The JSON bodies received so far, in order (including refused ones).
    pub fn requests(&self) -> Vec<Value> {
        self.inner.lock().unwrap().requests.clone()
    }

    /// Every text `/v1/embeddings` was asked to embed, in order.
    pub fn embedded(&self) -> Vec<String> {
        self.inner.lock().unwrap().embedded.clone()
    }

    /// Make `/v1/embeddings` answer 503 (or work again).
    pub fn embeddings_down(&self, down: bool) {
        self.inner.lock().unwrap().embeddings_down = down;
    }

    /// Answer with `responder` whenever no scripted reply is left (a model that follows
    /// rules of the test's choosing, for long runs such as a browser's).
    pub fn respond_with(&self, responder: Responder) {
        self.inner.lock().unwrap().responder = Some(responder);
    }

    /// What the transcription endpoint answers from now on.
    pub fn set_transcript(&self, text: &str) {
        self.inner.lock().unwrap().transcript = text.to_string();
    }

    /// The size of each request body the transcription endpoint received.
    pub fn recordings(&self) -> Vec<usize> {
        self.inner.lock().unwrap().recordings.clone()
    }

    /// Scripted answers not used yet.
    pub fn unused(&self) -> usize {
        self.inner.lock().unwrap().script.len()
    }
}

async fn complete(State(inner): State<Arc<Mutex<Inner>>>, Json(request): Json<Value>) -> Response {
    let next = {
        let mut inner = inner.lock().unwrap();
        inner.requests.push(request.clone());
        inner.calls += 1;
        let format = request.pointer("/response_format/type").and_then(Value::as_str);
        let refused = match (inner.supports, format) {
            (_, None) | (Supports::JsonSchema, _) => false,
            (Supports::JsonObjectOnly, Some(kind)) => kind != "json_object",
            (Supports::Nothing, Some(_)) => true,
        };
        if refused {
            let message = format!("response_format type {} is not supported by this server", format.unwrap_or(""));
            return error(400, &message, Some("response_format"));
        }
        let next = inner.script.pop_front().or_else(|| inner.responder.as_ref().map(|r| r(&request)));
        (next, inner.calls)
    };
    match next {
        (Some(script), call) => answer(script, &request, call).await,
        (None, _) => error(500, "the fake model server has no scripted reply left", None),
    }
}

async fn answer(script: Script, request: &Value, call: usize) -> Response {
    let mut script = script;
    while let Script::Slow(wait, inner) = script {
        tokio::time::sleep(wait).await;
        script = *inner;
    }
    let prompt_tokens = request["messages"].to_string().len() / 4;
    let (message, finish) = match script {
        Script::Text(text) => (json!({ "role": "assistant", "content": text }), "stop"),
        Script::ToolCalls(calls) => {
            let calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    json!({ "id": format!("call_{call}_{i}"), "type": "function",
                            "function": { "name": name, "arguments": arguments.to_string() } })
                })
                .collect();
            (json!({ "role": "assistant", "content": null, "tool_calls": calls }), "tool_calls")
        }
        Script::Status(status, message) => return error(status, &message, None),
        Script::Slow(..) => unreachable!("unwrapped above"),
    };
    let completion_tokens = message.to_string().len() / 4;
    Json(json!({
        "id": format!("chatcmpl-{call}"),
        "object": "chat.completion",
        "model": request["model"],
        "choices": [{ "index": 0, "message": message, "finish_reason": finish }],
        "usage": { "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                   "total_tokens": prompt_tokens + completion_tokens },
    }))
    .into_response()
}

fn error(status: u16, message: &str, param: Option<&str>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Json(json!({ "error": { "message": message, "type": "invalid_request_error", "param": param } })))
        .into_response()
}

/// Dimensions of the fake embeddings.
pub const EMBEDDING_DIMENSIONS: usize = 64;

/// A deterministic embedding: each lowercase word counts in a bucket its hash picks, so that
/// texts sharing words are close.
pub fn fake_embedding(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; EMBEDDING_DIMENSIONS];
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let hash = word
            .to_lowercase()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        vector[(hash % EMBEDDING_DIMENSIONS as u64) as usize] += 1.0;
    }
    vector[0] += 0.01; // never all zero
    vector
}

async fn embeddings(State(inner): State<Arc<Mutex<Inner>>>, Json(request): Json<Value>) -> Response {
    let texts: Vec<String> = match &request["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().filter_map(|t| t.as_str().map(str::to_string)).collect(),
        _ => return error(400, "input must be a string or an array of strings", Some("input")),
    };
    {
        let mut inner = inner.lock().unwrap();
        if inner.embeddings_down {
            return error(503, "the embedding model is down", None);
        }
        inner.embedded.extend(texts.iter().cloned());
    }
    let data: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({ "object": "embedding", "index": i, "embedding": fake_embedding(t) }))
        .collect();
    Json(json!({ "object": "list", "data": data, "model": request["model"] })).into_response()
}

async fn transcribe(State(inner): State<Arc<Mutex<Inner>>>, body: axum::body::Bytes) -> Response {
    let mut inner = inner.lock().unwrap();
    inner.recordings.push(body.len());
    let text = String::from_utf8_lossy(&body);
    if !text.contains("name=\"file\"") || !text.contains("name=\"model\"") {
        return error(400, "expected a multipart form with file and model", Some("file"));
    }
    Json(json!({ "text": inner.transcript })).into_response()
}
