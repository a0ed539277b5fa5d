//! A fake OpenAI-compatible chat-completions server for tests: a real HTTP server on
//! 127.0.0.1 that answers `POST /v1/chat/completions` with scripted replies, in order, and
//! keeps every request it received. It can answer well, with malformed JSON, with tool
//! calls, with an HTTP error, slowly (to provoke timeouts), and can refuse structured-output
//! modes it is told not to support. A request with `"stream": true` is answered with
//! server-sent events, a few characters per event, as servers stream tokens.

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
    /// A model that never stops: one token every interval, streamed, until the client goes
    /// away (counted by [`FakeLlm::abandoned`]). Without `stream`, it never answers.
    Endless(Duration),
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
    /// As llama-cpp-python's server: `json_schema` is refused with a 500 (its request
    /// validation's message), `json_object` is taken, with a `schema` beside it.
    JsonObjectWith500,
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
    /// Endless streams the client closed.
    abandoned: usize,
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
            abandoned: 0,
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

    /// How many endless streams the client closed (the generation a real server stops).
    pub fn abandoned(&self) -> usize {
        self.inner.lock().unwrap().abandoned
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
            (Supports::JsonObjectOnly | Supports::JsonObjectWith500, Some(kind)) => kind != "json_object",
            (Supports::Nothing, Some(_)) => true,
        };
        if refused && inner.supports == Supports::JsonObjectWith500 {
            let message = "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  \
                           Input should be 'text' or 'json_object' [type=literal_error] \
                           (/opt/models/llama_cpp/server/types.py)";
            return error(500, message, None);
        }
        if refused {
            let message = format!("response_format type {} is not supported by this server", format.unwrap_or(""));
            return error(400, &message, Some("response_format"));
        }
        let next = inner.script.pop_front().or_else(|| inner.responder.as_ref().map(|r| r(&request)));
        (next, inner.calls)
    };
    match next {
        (Some(Script::Endless(every)), _) => endless(inner, every, request["stream"] == true).await,
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
        Script::Slow(..) | Script::Endless(_) => unreachable!("answered elsewhere"),
    };
    let completion_tokens = message.to_string().len() / 4;
    if request["stream"] == true {
        return streamed(call, request, &message, finish, prompt_tokens, completion_tokens);
    }
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

/// The same answer as server-sent events: the text a few characters at a time, tool calls
/// as a name and then their arguments in pieces, the usage last, then `[DONE]`.
fn streamed(
    call: usize,
    request: &Value,
    message: &Value,
    finish: &str,
    prompt_tokens: usize,
    completion_tokens: usize,
) -> Response {
    let id = format!("chatcmpl-{call}");
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({ "id": id, "object": "chat.completion.chunk", "model": request["model"],
                "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
    };
    let mut events = vec![chunk(json!({ "role": "assistant" }), None)];
    if let Some(text) = message["content"].as_str() {
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(7) {
            events.push(chunk(json!({ "content": piece.iter().collect::<String>() }), None));
        }
    }
    for (index, call) in message["tool_calls"].as_array().into_iter().flatten().enumerate() {
        let name = json!([{ "index": index, "id": call["id"], "type": "function",
                            "function": { "name": call["function"]["name"], "arguments": "" } }]);
        events.push(chunk(json!({ "tool_calls": name }), None));
        let arguments: Vec<char> = call["function"]["arguments"].as_str().unwrap_or("").chars().collect();
        for piece in arguments.chunks(9) {
            let part = json!([{ "index": index, "function": { "arguments": piece.iter().collect::<String>() } }]);
            events.push(chunk(json!({ "tool_calls": part }), None));
        }
    }
    events.push(chunk(json!({}), Some(finish)));
    if request.pointer("/stream_options/include_usage") == Some(&Value::Bool(true)) {
        events.push(json!({ "id": id, "object": "chat.completion.chunk", "choices": [],
                            "usage": { "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                       "total_tokens": prompt_tokens + completion_tokens } }));
    }
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

/// Counts the stream as abandoned when the client drops it before its end.
struct Abandoned(Arc<Mutex<Inner>>);

impl Drop for Abandoned {
    fn drop(&mut self) {
        self.0.lock().unwrap().abandoned += 1;
    }
}

async fn endless(inner: Arc<Mutex<Inner>>, every: Duration, stream: bool) -> Response {
    if !stream {
        let _guard = Abandoned(inner);
        std::future::pending::<()>().await;
        unreachable!("pending forever");
    }
    let guard = Abandoned(inner);
    let events = futures_util::stream::unfold((guard, 0usize), move |(guard, n)| async move {
        tokio::time::sleep(every).await;
        let event = json!({ "object": "chat.completion.chunk",
                            "choices": [{ "index": 0, "delta": { "content": "and so on " }, "finish_reason": null }] });
        Some((Ok::<_, std::convert::Infallible>(format!("data: {event}\n\n")), (guard, n + 1)))
    });
    ([(axum::http::header::CONTENT_TYPE, "text/event-stream")], axum::body::Body::from_stream(events)).into_response()
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
