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
mod transcription;
mod types;

pub use embeddings::Embedder;
pub use error::LlmError;
pub use openai::{OpenAiClient, OpenAiConfig, StructuredOutput, DEFAULT_MAX_TOKENS};
pub use reply::parse_json_reply;
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
}

/// The setting that makes Pathwise leave offline mode, as error messages name it.
pub const MODEL_SETTING: &str = "llm_base_url";

/// The model Pathwise uses, or none; cheap to clone.
#[derive(Clone)]
pub struct Llm {
    model: Option<Arc<dyn LanguageModel>>,
    sessions: Arc<Semaphore>,
}

impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llm").field("model", &self.model.as_ref().map(|m| m.describe())).finish()
    }
}

impl Llm {
    /// A configured model; at most `max_concurrent_sessions` conversations at once (at least one).
    pub fn new(model: Arc<dyn LanguageModel>, max_concurrent_sessions: usize) -> Self {
        Llm { model: Some(model), sessions: Arc::new(Semaphore::new(max_concurrent_sessions.max(1))) }
    }

    /// No model: every deterministic path works, generation answers `NotConfigured`.
    pub fn offline() -> Self {
        Llm { model: None, sessions: Arc::new(Semaphore::new(1)) }
    }

    pub fn is_configured(&self) -> bool {
        self.model.is_some()
    }

    pub fn describe(&self) -> String {
        self.model.as_ref().map_or_else(|| "offline (no language model configured)".to_string(), |m| m.describe())
    }

    /// The configured model's name, without where it runs; `None` offline.
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
        Ok(Session { model, operation: operation.to_string(), _permit: permit, turns: Mutex::new(Vec::new()) })
    }
}

/// One conversation: holds a session slot until dropped and records each turn's tokens.
pub struct Session {
    model: Arc<dyn LanguageModel>,
    operation: String,
    _permit: OwnedSemaphorePermit,
    turns: Mutex<Vec<Usage>>,
}

impl Session {
    /// One call. A failure is logged for the operator at WARN with the operation and its
    /// reason code; what the caller passes on is [`LlmError::reason`] and
    /// [`LlmError::learner_message`].
    pub async fn chat(&self, request: &Request) -> Result<Reply, LlmError> {
        let started = std::time::Instant::now();
        match self.model.chat(request).await {
            Ok(reply) => {
                self.turns.lock().expect("turns lock").push(reply.usage);
                tracing::debug!(operation = %self.operation, ms = started.elapsed().as_millis() as u64,
                    prompt_tokens = reply.usage.prompt_tokens, completion_tokens = reply.usage.completion_tokens,
                    "language model call");
                Ok(reply)
            }
            Err(error) => Err(self.failed(error)),
        }
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

    /// Log a failed call for the operator, and pass it on.
    pub fn failed(&self, error: LlmError) -> LlmError {
        tracing::warn!(operation = %self.operation, reason = error.reason(), %error, "a language model call failed");
        error
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
