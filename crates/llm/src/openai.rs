//! The OpenAI-compatible chat-completions client (OpenAI, Ollama, vLLM, llama.cpp server,
//! LM Studio, OpenRouter all speak it).
//!
//! Structured output is asked for with a JSON Schema `response_format`; servers that reject
//! that are asked for `json_object`, and servers that reject both get a plain request whose
//! reply is parsed as JSON all the same. The mode that worked is remembered. Only transport
//! failures (nothing came back) are retried, with backoff; a timeout or an HTTP error is
//! reported as it is, because repeating a request the model did receive costs tokens and
//! time and rarely helps.

use crate::reply::truncate;
use crate::{LanguageModel, LlmError, Message, Reply, Request, Role, ToolCall, Usage};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

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
        }
    }
}

/// How structured output is asked for, from the best to the plainest.
const JSON_SCHEMA: u8 = 0;
const JSON_OBJECT: u8 = 1;
const PLAIN: u8 = 2;

pub struct OpenAiClient {
    config: OpenAiConfig,
    http: reqwest::Client,
    output_mode: AtomicU8,
}

impl OpenAiClient {
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder().timeout(config.timeout).build().map_err(|e| LlmError::Transport {
            url: config.base_url.clone(),
            message: format!("cannot build the HTTP client: {e}"),
        })?;
        Ok(OpenAiClient { config, http, output_mode: AtomicU8::new(JSON_SCHEMA) })
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'))
    }

    async fn complete(&self, request: &Request) -> Result<Reply, LlmError> {
        loop {
            let mode = self.output_mode.load(Ordering::Relaxed);
            match self.send_with_retries(&self.body(request, mode)).await {
                // The server does not take this kind of structured output: ask more plainly.
                Err(LlmError::Status { status: 400 | 422, ref body })
                    if request.output.is_some() && mode < PLAIN && body.contains("response_format") =>
                {
                    tracing::info!(mode, "the model server rejected a response_format; asking more plainly");
                    self.output_mode.store(mode + 1, Ordering::Relaxed);
                }
                other => return other,
            }
        }
    }

    async fn send_with_retries(&self, body: &Value) -> Result<Reply, LlmError> {
        let mut attempt = 0;
        loop {
            match self.send(body).await {
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

    async fn send(&self, body: &Value) -> Result<Reply, LlmError> {
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
        let response = call.send().await.map_err(failed)?;
        let status = response.status();
        let text = response.text().await.map_err(failed)?;
        if !status.is_success() {
            return Err(LlmError::Status { status: status.as_u16(), body: truncate(&text, 500) });
        }
        parse_reply(&text)
    }

    fn body(&self, request: &Request, mode: u8) -> Value {
        let mut messages: Vec<Value> = request.messages.iter().map(wire_message).collect();
        let mut body = json!({ "model": self.config.model });
        if let Some(output) = &request.output {
            match mode {
                JSON_SCHEMA => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": { "name": output.name, "schema": output.schema, "strict": true },
                    })
                }
                JSON_OBJECT => body["response_format"] = json!({ "type": "json_object" }),
                // Without help from the server, the schema goes in the conversation.
                _ => messages.push(json!({
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
        if let Some(m) = request.max_tokens {
            body["max_tokens"] = json!(m);
        }
        body
    }
}

impl LanguageModel for OpenAiClient {
    fn chat<'a>(&'a self, request: &'a Request) -> Pin<Box<dyn Future<Output = Result<Reply, LlmError>> + Send + 'a>> {
        Box::pin(self.complete(request))
    }

    fn describe(&self) -> String {
        format!("{} at {}", self.config.model, self.config.base_url)
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
