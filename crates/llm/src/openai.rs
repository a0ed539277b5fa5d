//! The OpenAI-compatible chat-completions client (OpenAI, vLLM, llama.cpp's server,
//! llama-cpp-python, Ollama, LM Studio, OpenRouter all speak it).
//!
//! Structured output is asked for the way the server takes it ([`StructuredOutput`]): a
//! JSON Schema `response_format`, `json_object` with the schema beside it (llama-cpp-python
//! constrains decoding to it), or the schema in the conversation. A server that refuses a
//! format (whatever its status, when its error names the response format) is asked the next,
//! plainer way, and the way that worked is remembered.
//!
//! Every call streams and sends `max_tokens`: a call that runs past its deadline, or a reply
//! past its size, is dropped, which closes the stream, and a server that watches its
//! connection stops generating. Only transport failures (nothing came back) are retried,
//! with backoff; a timeout or an HTTP error is reported as it is, because repeating a request
//! the model did receive costs tokens and time and rarely helps.

use crate::reply::truncate;
use crate::speed::Timing;
use crate::{LanguageModel, LlmError, Message, Reply, Request, Role, ToolCall, Usage};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

/// How structured output is asked for (`llm_structured_output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// `json_schema` first, then plainer ways as the server refuses them.
    #[default]
    Auto,
    /// `response_format: {"type": "json_schema", ...}`: OpenAI, vLLM, llama.cpp's server,
    /// Ollama's `/v1`.
    JsonSchema,
    /// `response_format: {"type": "json_object", "schema": ...}`: llama-cpp-python, which
    /// constrains decoding to the schema; other servers promise JSON only.
    JsonObject,
    /// The schema in the conversation, for servers with no structured output at all.
    Prompt,
}

impl StructuredOutput {
    /// Every way, from the best to the plainest.
    const LADDER: [StructuredOutput; 3] =
        [StructuredOutput::JsonSchema, StructuredOutput::JsonObject, StructuredOutput::Prompt];

    fn rung(self) -> u8 {
        match self {
            StructuredOutput::Auto | StructuredOutput::JsonSchema => 0,
            StructuredOutput::JsonObject => 1,
            StructuredOutput::Prompt => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            StructuredOutput::Auto => "auto",
            StructuredOutput::JsonSchema => "json_schema",
            StructuredOutput::JsonObject => "json_object",
            StructuredOutput::Prompt => "prompt",
        }
    }
}

#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Up to and including the version segment, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// For one attempt, from sending the request to the end of the reply.
    pub timeout: Duration,
    /// Further attempts after a transport failure.
    pub max_retries: u32,
    /// Before the first retry; doubled for each one after.
    pub backoff: Duration,
    /// The first way to ask for structured output.
    pub structured_output: StructuredOutput,
    /// `max_tokens` for a request that does not set its own.
    pub max_tokens: u32,
}

impl OpenAiConfig {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(120),
            max_retries: 2,
            backoff: Duration::from_millis(500),
            structured_output: StructuredOutput::Auto,
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }
}

/// A reply's length when the request does not say: ample for every structured answer
/// Pathwise asks for, and a bound on a model that does not stop.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// Characters of reply allowed per token asked for: a token is about four characters of
/// English; past eight times that, the server is not honouring `max_tokens`.
const CHARS_PER_TOKEN_LIMIT: usize = 32;

/// Bytes of a streamed answer, events and all, at most (a stream that never ends).
const MAX_STREAM_BYTES: usize = 8 << 20;

pub struct OpenAiClient {
    config: OpenAiConfig,
    http: reqwest::Client,
    /// The rung of [`StructuredOutput::LADDER`] that works with this server, as far as known.
    rung: AtomicU8,
}

impl OpenAiClient {
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder().timeout(config.timeout).build().map_err(|e| LlmError::Transport {
            url: config.base_url.clone(),
            message: format!("cannot build the HTTP client: {e}"),
        })?;
        let rung = AtomicU8::new(config.structured_output.rung());
        Ok(OpenAiClient { config, http, rung })
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'))
    }

    /// The way structured output is asked for now.
    pub fn structured_output(&self) -> StructuredOutput {
        StructuredOutput::LADDER[usize::from(self.rung.load(Ordering::Relaxed))]
    }

    async fn complete(&self, request: &Request) -> Result<Reply, LlmError> {
        loop {
            let rung = self.rung.load(Ordering::Relaxed);
            let format = StructuredOutput::LADDER[usize::from(rung)];
            match self.send_with_retries(request, &self.body(request, format)).await {
                Err(LlmError::Status { status, body }) if request.output.is_some() && names_the_format(&body) => {
                    if usize::from(rung) + 1 >= StructuredOutput::LADDER.len() {
                        return Err(LlmError::FormatRefused { status, body });
                    }
                    // The server does not take this kind of structured output: ask more plainly.
                    let next = StructuredOutput::LADDER[usize::from(rung) + 1];
                    tracing::warn!(
                        refused = format.name(), next = next.name(), status, body = %truncate(&body, 300),
                        "the model server refused a response format; asking more plainly from now on"
                    );
                    // Another call may have stepped down meanwhile; never step back up.
                    let _ = self.rung.fetch_max(rung + 1, Ordering::Relaxed);
                }
                other => return other,
            }
        }
    }

    async fn send_with_retries(&self, request: &Request, body: &Value) -> Result<Reply, LlmError> {
        let mut attempt = 0;
        loop {
            match self.send(request, body).await {
                Err(error) if error.is_transport() && attempt < self.config.max_retries => {
                    let wait = self.config.backoff * 2u32.saturating_pow(attempt);
                    tracing::warn!(%error, attempt, ?wait, "language model unreachable; retrying");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn send(&self, request: &Request, body: &Value) -> Result<Reply, LlmError> {
        let started = std::time::Instant::now();
        let url = self.url();
        let mut call = self.http.post(&url).json(body);
        if let Some(key) = &self.config.api_key {
            call = call.bearer_auth(key);
        }
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                LlmError::Timeout(self.config.timeout)
            } else {
                LlmError::Transport { url: url.clone(), message: error_chain(&e) }
            }
        };
        let mut response = call.send().await.map_err(failed)?;
        let status = response.status();
        let streamed = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let max_tokens = request.max_tokens.unwrap_or(self.config.max_tokens) as usize;
        let content_limit = max_tokens.saturating_mul(CHARS_PER_TOKEN_LIMIT);
        let mut stream = SseReader::default();
        let mut raw = Vec::new();
        let mut first_token = None;
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            let done = if !status.is_success() || !streamed {
                raw.extend_from_slice(&chunk);
                false
            } else {
                stream.feed(&chunk)?
            };
            if first_token.is_none() && stream.reply.has_output() {
                first_token = Some(started.elapsed());
            }
            if done {
                break;
            }
            if raw.len() + stream.received > MAX_STREAM_BYTES {
                return Err(LlmError::TooLarge { limit: format!("{MAX_STREAM_BYTES} bytes") });
            }
            if stream.reply.content_chars > content_limit {
                return Err(LlmError::TooLarge { limit: format!("{max_tokens} tokens (max_tokens)") });
            }
        }
        // Dropping `response` here, before the end of a stream, closes the connection.
        let text = String::from_utf8_lossy(&raw);
        if !status.is_success() {
            return Err(LlmError::Status { status: status.as_u16(), body: truncate(&text, 500) });
        }
        if streamed {
            let timing = first_token.map(|first_token| Timing { first_token, total: started.elapsed() });
            stream.finish().map(|reply| Reply { timing, ..reply })
        } else {
            // A server that ignores `stream` answers in one piece.
            parse_reply(&text)
        }
    }

    fn body(&self, request: &Request, format: StructuredOutput) -> Value {
        let mut messages: Vec<Value> = request.messages.iter().map(wire_message).collect();
        let mut body =
            json!({ "model": self.config.model, "stream": true, "stream_options": { "include_usage": true } });
        if let Some(output) = &request.output {
            match format {
                StructuredOutput::Auto | StructuredOutput::JsonSchema => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": { "name": output.name, "schema": output.schema, "strict": true },
                    })
                }
                StructuredOutput::JsonObject => {
                    let schema = request.decoding_schema.as_ref().unwrap_or(&output.schema);
                    body["response_format"] = json!({ "type": "json_object", "schema": schema })
                }
                // Without help from the server, the schema goes in the conversation.
                StructuredOutput::Prompt => messages.push(json!({
                    "role": "system",
                    "content": format!("Answer with one JSON value and nothing else. It must match this JSON Schema:\n{}", output.schema),
                })),
            }
        }
        body["messages"] = Value::Array(messages);
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.parameters } }))
                .collect();
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        body["max_tokens"] = json!(request.max_tokens.unwrap_or(self.config.max_tokens));
        body
    }
}

/// Whether an error body is about the structured output asked for (servers refuse it with
/// a 400, a 422 or, as llama-cpp-python does, a 500).
fn names_the_format(body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    ["response_format", "json_schema", "json_object"].iter().any(|word| body.contains(word))
}

/// A chat completion read from its server-sent events as they arrive.
#[derive(Default)]
struct SseReader {
    /// Bytes of an event line not complete yet.
    pending: Vec<u8>,
    received: usize,
    reply: Partial,
}

#[derive(Default)]
struct Partial {
    content: String,
    content_chars: usize,
    /// By the index the server gives each call: (id, name, arguments so far).
    tool_calls: Vec<(Option<String>, String, String)>,
    usage: Usage,
    finish_reason: Option<String>,
    events: usize,
}

impl SseReader {
    /// Take in a chunk; true once the stream says it is done.
    fn feed(&mut self, chunk: &[u8]) -> Result<bool, LlmError> {
        self.received += chunk.len();
        self.pending.extend_from_slice(chunk);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let Some(data) = line.trim().strip_prefix("data:") else { continue };
            let data = data.trim();
            if data == "[DONE]" {
                return Ok(true);
            }
            self.reply.event(data)?;
        }
        Ok(false)
    }

    fn finish(self) -> Result<Reply, LlmError> {
        let partial = self.reply;
        if partial.events == 0 {
            return Err(LlmError::Malformed("the server's stream held no completion".into()));
        }
        let tool_calls = partial
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(i, (id, name, arguments))| {
                if name.is_empty() {
                    return Err(LlmError::Malformed("a tool call has no function name".into()));
                }
                let arguments = if arguments.trim().is_empty() { "{}".to_string() } else { arguments };
                Ok(ToolCall { id: id.unwrap_or_else(|| format!("call_{i}")), name, arguments })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Reply {
            content: (!partial.content.is_empty()).then_some(partial.content),
            tool_calls,
            usage: partial.usage,
            finish_reason: partial.finish_reason,
            timing: None,
        })
    }
}

impl Partial {
    /// Whether the reply has begun: text or a tool call.
    fn has_output(&self) -> bool {
        self.content_chars > 0 || !self.tool_calls.is_empty()
    }

    fn event(&mut self, data: &str) -> Result<(), LlmError> {
        let event: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::Malformed(format!("an event of the stream is not JSON ({e}): {}", truncate(data, 200)))
        })?;
        if let Some(error) = event.get("error") {
            return Err(LlmError::Status { status: 500, body: truncate(&error.to_string(), 500) });
        }
        self.events += 1;
        if let Some(usage) = event.get("usage").filter(|u| u.is_object()) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") };
        }
        let Some(choice) = event.pointer("/choices/0") else { return Ok(()) };
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_string());
        }
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            self.content_chars += text.chars().count();
            self.content.push_str(text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().map_or(self.tool_calls.len().saturating_sub(1), |i| i as usize);
            if self.tool_calls.len() <= index {
                self.tool_calls.resize_with(index + 1, || (None, String::new(), String::new()));
            }
            let slot = &mut self.tool_calls[index];
            if let Some(id) = call["id"].as_str() {
                slot.0 = Some(id.to_string());
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                slot.1.push_str(name);
            }
            let part = match call.pointer("/function/arguments") {
                Some(Value::String(part)) => part.clone(),
                // Some servers send the arguments as an object instead of a string.
                Some(other) if !other.is_null() => other.to_string(),
                _ => String::new(),
            };
            // Arguments count towards the reply's length like text.
            self.content_chars += part.chars().count();
            slot.2.push_str(&part);
        }
        Ok(())
    }
}

impl LanguageModel for OpenAiClient {
    fn chat<'a>(&'a self, request: &'a Request) -> Pin<Box<dyn Future<Output = Result<Reply, LlmError>> + Send + 'a>> {
        Box::pin(self.complete(request))
    }

    fn describe(&self) -> String {
        format!("{} at {}", self.config.model, self.config.base_url)
    }

    fn name(&self) -> String {
        self.config.model.clone()
    }

    fn call_deadline(&self) -> Option<Duration> {
        Some(self.config.timeout)
    }

    /// `GET /models`, which every OpenAI-compatible server answers without running the
    /// model; any HTTP answer means the server is there (some refuse the list without a key).
    fn reachable(&self) -> Pin<Box<dyn Future<Output = Result<(), LlmError>> + Send + '_>> {
        Box::pin(async move {
            let url = format!("{}/models", self.config.base_url.trim_end_matches('/'));
            let mut call = self.http.get(&url).timeout(Duration::from_secs(3));
            if let Some(key) = &self.config.api_key {
                call = call.bearer_auth(key);
            }
            match call.send().await {
                Ok(_) => Ok(()),
                Err(e) => Err(LlmError::Transport { url, message: e.to_string() }),
            }
        })
    }
}

fn wire_message(message: &Message) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut wire = json!({ "role": role, "content": message.content });
    if !message.tool_calls.is_empty() {
        wire["tool_calls"] = message
            .tool_calls
            .iter()
            .map(
                |c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.arguments } }),
            )
            .collect();
    }
    if let Some(id) = &message.tool_call_id {
        wire["tool_call_id"] = json!(id);
    }
    wire
}

fn parse_reply(text: &str) -> Result<Reply, LlmError> {
    let body: Value = serde_json::from_str(text)
        .map_err(|e| LlmError::Malformed(format!("the server's answer is not JSON ({e}): {}", truncate(text, 200))))?;
    let choice = body
        .pointer("/choices/0")
        .ok_or_else(|| LlmError::Malformed(format!("the answer has no choices: {}", truncate(text, 200))))?;
    let message = &choice["message"];
    let tool_calls = message["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(i, call)| {
                    let name = call.pointer("/function/name").and_then(Value::as_str);
                    let name = name.ok_or_else(|| LlmError::Malformed("a tool call has no function name".into()))?;
                    // Some servers send the arguments as an object instead of a string.
                    let arguments = match call.pointer("/function/arguments") {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other.to_string(),
                        None => "{}".into(),
                    };
                    let id = call["id"].as_str().map(str::to_string).unwrap_or_else(|| format!("call_{i}"));
                    Ok(ToolCall { id, name: name.to_string(), arguments })
                })
                .collect::<Result<Vec<_>, LlmError>>()
        })
        .transpose()?
        .unwrap_or_default();
    let count = |key: &str| body.pointer(&format!("/usage/{key}")).and_then(Value::as_u64).unwrap_or(0);
    Ok(Reply {
        content: message["content"].as_str().map(str::to_string),
        tool_calls,
        usage: Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens") },
        finish_reason: choice["finish_reason"].as_str().map(str::to_string),
        timing: None,
    })
}

/// reqwest's own message hides the cause ("error sending request"); the chain names it.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
