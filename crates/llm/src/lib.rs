//! The language-model port. The rest of Pathwise talks to [`Llm`]: a handle that is either
//! a configured model behind the [`LanguageModel`] trait or offline, and that caps how many
//! conversations ([`Session`]s) run at once and counts the tokens each one uses.
//!
//! The model never writes state: callers parse and validate what it proposes
//! ([`Session::structured`] parses; the caller's own rules decide).

mod embeddings;
mod error;
mod http;
mod openai;
pub mod prompts;
mod reply;
pub mod schema;
pub mod speed;
mod transcription;
mod types;

pub use embeddings::Embedder;
pub use error::LlmError;
pub use openai::{OpenAiClient, OpenAiConfig, StructuredOutput, DEFAULT_MAX_TOKENS};
pub use reply::parse_json_reply;
pub use speed::{PromptBudget, Speed, Timing};
pub use transcription::Transcriber;
pub use types::{Message, OutputSchema, Reply, Request, Role, Tool, ToolCall, Usage};

use serde::de::DeserializeOwned;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A chat model. Object-safe, so that tests and other providers can stand in.
pub trait LanguageModel: Send + Sync {
    fn chat<'a>(&'a self, request: &'a Request) -> Pin<Box<dyn Future<Output = Result<Reply, LlmError>> + Send + 'a>>;
    /// For logs and status pages: which model, where.
    fn describe(&self) -> String;
    /// The model's name, as its server knows it (no address): what a learner may be told.
    fn name(&self) -> String {
        self.describe()
    }
    /// The longest one call may take, when the model has such a bound.
    fn call_deadline(&self) -> Option<std::time::Duration> {
        None
    }
    /// Whether the model's server answers at all (for a readiness check; asks for no reply).
    /// A model in this process always does.
    fn reachable(&self) -> Pin<Box<dyn Future<Output = Result<(), LlmError>> + Send + '_>> {
        Box::pin(async { Ok(()) })
    }
}

/// The setting that makes Pathwise leave offline mode, as error messages name it.
pub const MODEL_SETTING: &str = "llm_base_url";

/// The model Pathwise uses, or none; cheap to clone.
#[derive(Clone)]
pub struct Llm {
    model: Option<Arc<dyn LanguageModel>>,
    sessions: Arc<Semaphore>,
    /// Whether the model calls tools when offered them, once seen: `TOOLS_UNKNOWN`,
    /// `TOOLS_CALLED` or `TOOLS_IGNORED`.
    tools: Arc<std::sync::atomic::AtomicU8>,
    /// How fast the model has read and written so far.
    speed: Arc<Mutex<Speed>>,
}

const TOOLS_UNKNOWN: u8 = 0;
const TOOLS_CALLED: u8 = 1;
const TOOLS_IGNORED: u8 = 2;

impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llm").field("model", &self.model.as_ref().map(|m| m.describe())).finish()
    }
}

impl Llm {
    /// A configured model; at most `max_concurrent_sessions` conversations at once (at least one).
    pub fn new(model: Arc<dyn LanguageModel>, max_concurrent_sessions: usize) -> Self {
        Llm {
            model: Some(model),
            sessions: Arc::new(Semaphore::new(max_concurrent_sessions.max(1))),
            tools: Arc::default(),
            speed: Arc::default(),
        }
    }

    /// No model: every deterministic path works, generation answers `NotConfigured`.
    pub fn offline() -> Self {
        Llm { model: None, sessions: Arc::new(Semaphore::new(1)), tools: Arc::default(), speed: Arc::default() }
    }

    /// How fast the model has read prompts and written replies so far.
    pub fn speed(&self) -> Speed {
        *self.speed.lock().expect("speed lock")
    }

    /// The prompt a call may send to be answered within `deadline`, from the speeds
    /// measured so far; `None` offline or before any call was timed.
    pub fn prompt_budget(&self, target: std::time::Duration, deadline: std::time::Duration) -> Option<PromptBudget> {
        self.model.as_ref()?;
        self.speed().prompt_budget(target, deadline)
    }

    pub fn is_configured(&self) -> bool {
        self.model.is_some()
    }

    pub fn describe(&self) -> String {
        self.model.as_ref().map_or_else(|| "offline (no language model configured)".to_string(), |m| m.describe())
    }

    /// The longest one call to the model may take; `None` offline or unbounded.
    pub fn call_deadline(&self) -> Option<std::time::Duration> {
        self.model.as_ref().and_then(|m| m.call_deadline())
    }

    /// Whether the model called a tool the first time it was offered some: `None` until
    /// then. A model that answered a request for tool calls in prose is asked the plainer
    /// way from then on rather than once more per conversation.
    pub fn calls_tools(&self) -> Option<bool> {
        match self.tools.load(std::sync::atomic::Ordering::Relaxed) {
            TOOLS_CALLED => Some(true),
            TOOLS_IGNORED => Some(false),
            _ => None,
        }
    }

    /// What the model did when it was offered tools.
    pub fn learned_tool_calls(&self, called: bool) {
        let seen = if called { TOOLS_CALLED } else { TOOLS_IGNORED };
        let _ = self.tools.compare_exchange(
            TOOLS_UNKNOWN,
            seen,
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// The configured model's name, without where it runs; `None` offline.
    /// Whether the configured model's server answers; none when no model is configured.
    pub async fn reachable(&self) -> Option<Result<(), LlmError>> {
        Some(self.model.as_ref()?.reachable().await)
    }

    pub fn model_name(&self) -> Option<String> {
        self.model.as_ref().map(|m| m.name())
    }

    /// Start a conversation for `operation` (named in the error when offline), waiting for
    /// a free slot when `max_concurrent_sessions` are already running.
    pub async fn session(&self, operation: &str) -> Result<Session, LlmError> {
        let model = self
            .model
            .clone()
            .ok_or_else(|| LlmError::NotConfigured { operation: operation.to_string(), setting: MODEL_SETTING })?;
        let permit = self.sessions.clone().acquire_owned().await.expect("the session semaphore is never closed");
        Ok(Session {
            model,
            operation: operation.to_string(),
            _permit: permit,
            turns: Mutex::new(Vec::new()),
            speed: self.speed.clone(),
        })
    }
}

/// Characters a token has, about, in English text: what a text costs when no server
/// counted it.
const CHARS_PER_TOKEN: u64 = 4;

fn estimated_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(CHARS_PER_TOKEN)
}

/// A request's messages in tokens, estimated from their length.
fn estimated_prompt_tokens(request: &Request) -> u64 {
    estimated_tokens(request.messages.iter().map(|m| m.content.chars().count()).sum())
}

/// One conversation: holds a session slot until dropped and records each turn's tokens.
pub struct Session {
    model: Arc<dyn LanguageModel>,
    operation: String,
    _permit: OwnedSemaphorePermit,
    turns: Mutex<Vec<Usage>>,
    speed: Arc<Mutex<Speed>>,
}

impl Session {
    /// One call. A failure is logged for the operator at WARN with the operation and its
    /// reason code; what the caller passes on is [`LlmError::reason`] and
    /// [`LlmError::learner_message`].
    pub async fn chat(&self, request: &Request) -> Result<Reply, LlmError> {
        let started = std::time::Instant::now();
        let result = self.model.chat(request).await;
        self.measure(started.elapsed(), if result.is_ok() { "answered" } else { "failed" });
        match result {
            Ok(reply) => {
                self.turns.lock().expect("turns lock").push(reply.usage);
                if let Some(timing) = reply.timing {
                    // A server that counts no tokens (llama-cpp-python's streams carry no
                    // usage) is still measured, by what was sent and written.
                    let prompt = match reply.usage.prompt_tokens {
                        0 => estimated_prompt_tokens(request),
                        counted => counted,
                    };
                    let written = match reply.usage.completion_tokens {
                        0 => estimated_tokens(reply.written_chars()),
                        counted => counted,
                    };
                    self.speed.lock().expect("speed lock").record(prompt, written, timing);
                }
                let operation = self.operation.clone();
                metrics::counter!("pathwise_llm_tokens_total", "operation" => operation.clone(), "kind" => "prompt")
                    .increment(reply.usage.prompt_tokens);
                metrics::counter!("pathwise_llm_tokens_total", "operation" => operation, "kind" => "completion")
                    .increment(reply.usage.completion_tokens);
                tracing::debug!(operation = %self.operation, ms = started.elapsed().as_millis() as u64,
                    prompt_tokens = reply.usage.prompt_tokens, completion_tokens = reply.usage.completion_tokens,
                    "language model call");
                Ok(reply)
            }
            Err(error) => {
                self.count_unanswered();
                Err(self.failed(error))
            }
        }
    }

    /// [`Session::chat`], given up after `deadline`: the call is dropped, which closes its
    /// stream, and the failure is a [`LlmError::Timeout`].
    pub async fn chat_within(&self, request: &Request, deadline: std::time::Duration) -> Result<Reply, LlmError> {
        match tokio::time::timeout(deadline, self.chat(request)).await {
            Ok(result) => result,
            Err(_) => {
                self.measure(deadline, "timed_out");
                self.count_unanswered();
                self.speed.lock().expect("speed lock").record_unanswered(estimated_prompt_tokens(request), deadline);
                Err(self.failed(LlmError::Timeout(deadline)))
            }
        }
    }

    /// A call that failed or was given up still counts as a call (the server may have
    /// worked on it), with the tokens nobody reported as none.
    fn count_unanswered(&self) {
        self.turns.lock().expect("turns lock").push(Usage::default());
    }

    /// Ask for one JSON value of `request.output`'s schema and parse it into `T`. The caller
    /// still validates it: a model can match a schema and break every rule.
    pub async fn structured<T: DeserializeOwned>(&self, request: &Request) -> Result<(T, Reply), LlmError> {
        let reply = self.chat(request).await?;
        let value = parse_json_reply(reply.content.as_deref().unwrap_or("")).map_err(|e| self.failed(e))?;
        let parsed = serde_path_to_error::deserialize(value).map_err(|e| {
            self.failed(LlmError::Malformed(format!(
                "the reply does not have the expected shape at {}: {}",
                e.path(),
                e.inner()
            )))
        })?;
        Ok((parsed, reply))
    }

    /// Log a failed call for the operator, count it by reason, and pass it on.
    pub fn failed(&self, error: LlmError) -> LlmError {
        tracing::warn!(operation = %self.operation, reason = error.reason(), %error, "a language model call failed");
        metrics::counter!("pathwise_llm_failures_total", "operation" => self.operation.clone(), "reason" => error.reason())
            .increment(1);
        error
    }

    /// A call in the operator's metrics: counted by how it ended, with its latency.
    fn measure(&self, took: std::time::Duration, outcome: &'static str) {
        metrics::counter!("pathwise_llm_calls_total", "operation" => self.operation.clone(), "outcome" => outcome)
            .increment(1);
        metrics::histogram!("pathwise_llm_call_duration_seconds", "operation" => self.operation.clone())
            .record(took.as_secs_f64());
    }

    /// Tokens of each turn so far, in order.
    pub fn turns(&self) -> Vec<Usage> {
        self.turns.lock().expect("turns lock").clone()
    }

    /// Tokens of the whole conversation so far.
    pub fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for turn in self.turns() {
            total += turn;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A model whose server counts no tokens, as llama-cpp-python's streams do not: its
    /// replies carry timing and an empty usage.
    struct Uncounted;

    impl LanguageModel for Uncounted {
        fn chat<'a>(&'a self, _: &'a Request) -> Pin<Box<dyn Future<Output = Result<Reply, LlmError>> + Send + 'a>> {
            Box::pin(async {
                Ok(Reply {
                    content: Some("x".repeat(400)),
                    tool_calls: Vec::new(),
                    usage: Usage::default(),
                    finish_reason: Some("stop".into()),
                    timing: Some(Timing { first_token: Duration::from_secs(10), total: Duration::from_secs(15) }),
                })
            })
        }

        fn describe(&self) -> String {
            "uncounted".into()
        }
    }

    #[tokio::test]
    async fn a_server_that_counts_no_tokens_is_measured_by_what_was_sent_and_written() {
        let llm = Llm::new(Arc::new(Uncounted), 1);
        let session = llm.session("test").await.unwrap();
        // 8,000 characters sent, read in 10 s; 400 written in 5 s: about 200 and 20 tokens/s.
        let reply = session.chat(&Request::new(vec![Message::user("y".repeat(8_000))])).await.unwrap();
        assert_eq!(reply.usage, Usage::default(), "what the server counted is reported as it was");
        let speed = llm.speed();
        assert_eq!(speed.reading, Some(200.0));
        assert_eq!(speed.writing, Some(20.0));
        assert_eq!(speed.reply_tokens, Some(100.0));
    }
}
