//! Settings, layered: built-in defaults, then the config file, then `PATHWISE_*`
//! environment variables, then command-line flags.

use anyhow::{Context, Result};
use figment::providers::{Env, Format, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The server's name, shown in logs.
    pub name: String,
    pub host: String,
    pub port: u16,
    /// Where the SQLite database and the local learner's token live.
    pub data_dir: PathBuf,
    /// `postgres://...` for PostgreSQL; unset for SQLite in `data_dir`.
    pub database_url: Option<String>,
    /// Lets its holder create learners; required to bind a non-loopback address.
    pub operator_token: Option<String>,
    /// Database connections in the pool (PostgreSQL).
    pub max_connections: u32,
    /// An OpenAI-compatible endpoint up to its version segment
    /// (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` for Ollama); unset runs offline.
    pub llm_base_url: Option<String>,
    /// The model to ask, as the endpoint names it; required with `llm_base_url`.
    pub llm_model: Option<String>,
    pub llm_api_key: Option<String>,
    /// How long one request to the model may take, reply and all; past it the call is
    /// dropped (closing the stream stops the generation) and the deterministic fallback or a
    /// 504 answers.
    pub llm_timeout_secs: u64,
    /// How long a learner waits for the model in a tutor turn, its wait for a free slot
    /// included, before the tutor answers without it (the deterministic tutor's reply, the
    /// turn logged `model failed: timeout`); the workspace tells the learner.
    pub llm_turn_deadline_secs: u64,
    /// How long a tutor turn with the model should take: the prompt is sized, from the
    /// model's measured speed, so that the model reads it and answers in about this time.
    pub llm_turn_target_secs: u64,
    /// How structured output is asked for: `auto` (JSON Schema, then plainer ways as the
    /// server refuses them), `json_schema` (OpenAI, vLLM, llama.cpp's server, Ollama),
    /// `json_object` (llama-cpp-python, which constrains decoding to the schema sent beside
    /// it) or `prompt` (the schema in the conversation).
    pub llm_structured_output: pathwise_llm::StructuredOutput,
    /// The most tokens a reply may have when the call does not set its own bound.
    pub llm_max_tokens: u32,
    /// The most tokens a tutor turn's prompt may have; unset, no bound. For a small local
    /// model, whose time goes on reading the prompt (SmolLM2-135M reads about 270 tokens a
    /// second on two cores): the retrieved context is cut down to fit.
    pub llm_prompt_tokens: Option<u32>,
    /// Conversations with the model at once; more wait for a free slot.
    pub max_concurrent_sessions: usize,
    /// Whether `serve` runs due jobs (reviews, analytics, digests). Any number of servers
    /// on one database may: each firing runs once.
    pub scheduler_enabled: bool,
    /// How often the scheduler looks for due jobs, in milliseconds.
    pub scheduler_tick_ms: u64,
    /// This server's name in job leases and the record of runs; host name and process id
    /// when unset.
    pub worker_name: Option<String>,
    /// Recurring jobs: `[[schedules]]` with `name`, `job` (nightly_analytics, weekly_digest,
    /// stale_flows, fsrs_fit, noop) and a five-field UTC `cron`.
    pub schedules: Vec<pathwise_app::scheduler::Schedule>,
    /// Where digests and review reminders go: `[[notifiers]]` with `kind = "webhook"` or
    /// `kind = "smtp"`.
    #[serde(default, skip_serializing)]
    pub notifiers: Vec<pathwise_notify::NotifierConfig>,
    /// The `Host` names `/mcp` answers to (DNS-rebinding protection): loopback names when
    /// empty; list the server's public names when it is reached through them.
    pub mcp_allowed_hosts: Vec<String>,
    /// Course packs (TOML or JSON files of skill and assessment blueprints) added to the
    /// built-in ones; relative paths are from the working directory.
    pub item_packs: Vec<PathBuf>,
    /// How often an open session stream sends a `heartbeat` event, in seconds (keep it under
    /// the idle timeout of any proxy in front of the server).
    pub session_heartbeat_secs: u64,
    /// Whether programming items run learners' code (in the sandbox, which needs Linux
    /// namespaces, Landlock and seccomp); without it code items answer 503.
    pub sandbox_enabled: bool,
    /// The Python interpreter code items run; `python3` on `PATH` when unset.
    pub sandbox_python: Option<PathBuf>,
    /// Tutor turns carry a debug payload (policy, candidate scores, SnapshotLite).
    pub tutor_debug: bool,
    /// How long a wrong exam answer or opened memo or video locks a question, in hours
    /// (built-in exam service).
    pub exam_lockout_hours: u32,
    /// An external exam service (a school's exam system) to ask about exam questions instead
    /// of the built-in one; see README for its contract.
    pub exam_api_url: Option<String>,
    pub exam_api_token: Option<String>,
    /// An OpenAI-compatible endpoint for embeddings (up to its version segment); with it,
    /// course retrieval ranks by BM25 and by embeddings, fused. Unset: BM25 alone.
    pub embedding_base_url: Option<String>,
    /// The embedding model, as the endpoint names it; required with `embedding_base_url`.
    pub embedding_model: Option<String>,
    /// Its API key; `llm_api_key` when unset.
    pub embedding_api_key: Option<String>,
    /// An OpenAI-compatible endpoint for speech to text (`/audio/transcriptions`), which
    /// turns on the workspace's voice input. Unset: no voice input.
    pub transcription_base_url: Option<String>,
    /// The transcription model (`whisper-1`, ...); required with `transcription_base_url`.
    pub transcription_model: Option<String>,
    /// Its API key; `llm_api_key` when unset.
    pub transcription_api_key: Option<String>,
    /// Requests one learner's token (or one address, without a token) may make per second,
    /// sustained; 0 turns the rate limit off. Over it: 429 with `Retry-After`.
    pub rate_limit_per_second: u32,
    /// Requests a token may make at once above that rate.
    pub rate_limit_burst: u32,
    /// How long the server works on a request before answering 503; unset, long enough for
    /// the slowest model-backed request (three model calls, `llm_timeout_secs` each, and 30
    /// s more). Session streams, once open, are not cut.
    pub request_timeout_secs: Option<u64>,
    /// How long a client may take to send a request's headers (and an idle connection is
    /// kept open), in seconds.
    pub header_read_timeout_secs: u64,
    /// Session streams one learner may have open at once.
    pub streams_per_learner: usize,
    /// How long a stopping server lets requests in flight finish, in seconds.
    pub shutdown_grace_secs: u64,
    /// A token `/metrics` asks for (`Authorization: Bearer ...`); unset, `/metrics` is open
    /// to whoever can reach the server.
    pub metrics_token: Option<String>,
    /// `text` (for a terminal) or `json` (one object per line, for a log collector).
    pub log_format: LogFormat,
    /// The folder a learner's files may be ingested from by path on the server's machine;
    /// unset, none (`pathwise author ingest` reads files where it runs, as its user).
    pub ingest_dir: Option<PathBuf>,
    /// The largest file ingestion reads, in MiB.
    pub ingest_max_mb: u32,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            name: "pathwise".into(),
            host: "127.0.0.1".into(),
            port: 8080,
            data_dir: PathBuf::from("data"),
            database_url: None,
            operator_token: None,
            max_connections: 16,
            llm_base_url: None,
            llm_model: None,
            llm_api_key: None,
            llm_timeout_secs: 120,
            llm_turn_deadline_secs: 30,
            llm_turn_target_secs: 10,
            llm_structured_output: pathwise_llm::StructuredOutput::Auto,
            llm_max_tokens: pathwise_llm::DEFAULT_MAX_TOKENS,
            llm_prompt_tokens: None,
            max_concurrent_sessions: 4,
            scheduler_enabled: true,
            scheduler_tick_ms: 1_000,
            worker_name: None,
            schedules: pathwise_app::scheduler::default_schedules(),
            notifiers: Vec::new(),
            mcp_allowed_hosts: Vec::new(),
            item_packs: Vec::new(),
            session_heartbeat_secs: 15,
            sandbox_enabled: true,
            sandbox_python: None,
            tutor_debug: false,
            exam_lockout_hours: 24,
            exam_api_url: None,
            exam_api_token: None,
            embedding_base_url: None,
            embedding_model: None,
            embedding_api_key: None,
            transcription_base_url: None,
            transcription_model: None,
            transcription_api_key: None,
            rate_limit_per_second: 30,
            rate_limit_burst: 120,
            request_timeout_secs: None,
            header_read_timeout_secs: 10,
            streams_per_learner: 8,
            shutdown_grace_secs: 30,
            metrics_token: None,
            log_format: LogFormat::Text,
            ingest_dir: None,
            ingest_max_mb: 32,
        }
    }
}

impl Settings {
    /// What ingesting a learner's files may read, as these settings give it.
    pub fn authoring(&self) -> pathwise_app::authoring::AuthoringSettings {
        let mut authoring =
            pathwise_app::authoring::AuthoringSettings { ingest_dir: self.ingest_dir.clone(), ..Default::default() };
        authoring.limits.max_bytes = (self.ingest_max_mb.max(1) as usize).saturating_mul(1024 * 1024);
        authoring
    }

    /// The server's limits as these settings give them.
    pub fn limits(&self) -> pathwise_server::Limits {
        use std::time::Duration;
        let request_timeout = self.request_timeout_secs.unwrap_or(self.llm_timeout_secs.saturating_mul(3) + 30);
        pathwise_server::Limits {
            rate_per_second: Some(self.rate_limit_per_second).filter(|r| *r > 0),
            rate_burst: self.rate_limit_burst.max(1),
            request_timeout: Duration::from_secs(request_timeout.max(1)),
            header_read_timeout: Duration::from_secs(self.header_read_timeout_secs.max(1)),
            streams_per_learner: self.streams_per_learner.max(1),
            shutdown_grace: Duration::from_secs(self.shutdown_grace_secs),
        }
    }
}

/// Flags that override the file and the environment when given.
#[derive(Debug, Clone, Default, Serialize, clap::Args)]
pub struct StoreFlags {
    /// Directory for the SQLite database and the local learner's token [default: ./data]
    #[arg(long, global = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
    /// PostgreSQL URL (postgres://user@host/db); SQLite in the data directory when unset
    #[arg(long, global = true)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_url: Option<String>,
}

pub fn load(config_file: Option<&Path>, overrides: &impl Serialize) -> Result<Settings> {
    let mut figment = Figment::from(Serialized::defaults(Settings::default()));
    match config_file {
        Some(path) => {
            if !path.exists() {
                anyhow::bail!("config file {} does not exist", path.display());
            }
            figment = figment.merge(Toml::file(path));
        }
        None if Path::new("pathwise.toml").exists() => figment = figment.merge(Toml::file("pathwise.toml")),
        None => {}
    }
    // PATHWISE_* variables that are not settings: read by clap or the log filter, or by tests.
    let not_settings = [
        "CONFIG",
        "LOG",
        "TOKEN",
        "TEST_DATABASE_URL",
        "BENCH_DATABASE_URL",
        "WEB_DIR",
        "E2E_REQUIRED",
        "POSTGRES_REQUIRED",
    ];
    figment = figment.merge(Env::prefixed("PATHWISE_").ignore(&not_settings));
    figment = figment.merge(Serialized::defaults(overrides));
    figment.extract().context("invalid settings (config file, PATHWISE_* variables or flags)")
}

/// Whether `host` only accepts connections from this machine.
pub fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().map(|ip| ip.is_loopback()).unwrap_or(false)
}

/// The language model the settings name, or offline when they name none.
pub fn language_model(settings: &Settings) -> Result<pathwise_llm::Llm> {
    let Some(base_url) = settings.llm_base_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) else {
        return Ok(pathwise_llm::Llm::offline());
    };
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        anyhow::bail!("llm_base_url must start with http:// or https://, got {base_url:?}");
    }
    let model = settings.llm_model.as_deref().map(str::trim).filter(|m| !m.is_empty()).with_context(|| {
        format!("llm_base_url is set to {base_url} but llm_model is not: set llm_model (PATHWISE_LLM_MODEL) to the model to use")
    })?;
    let config = pathwise_llm::OpenAiConfig {
        api_key: settings.llm_api_key.clone().filter(|k| !k.trim().is_empty()),
        timeout: std::time::Duration::from_secs(settings.llm_timeout_secs.max(1)),
        structured_output: settings.llm_structured_output,
        max_tokens: settings.llm_max_tokens.max(16),
        ..pathwise_llm::OpenAiConfig::new(base_url, model)
    };
    let client = pathwise_llm::OpenAiClient::new(config)?;
    Ok(pathwise_llm::Llm::new(std::sync::Arc::new(client), settings.max_concurrent_sessions))
}

/// Said once by the commands that serve, rather than on every request that needs a model.
pub fn warn_if_offline(llm: &pathwise_llm::Llm) {
    if !llm.is_configured() {
        tracing::warn!(
            "no language model configured: planning a topic, explanations, questions and grading free text answer \
             503 until one is; set PATHWISE_LLM_BASE_URL and PATHWISE_LLM_MODEL (llm_base_url and llm_model in the \
             config file). Maps can be made without one: pathwise import-map FILE (a .json decomposition or a .md \
             outline), POST /api/curriculum/generate with a decomposition, POST /api/mind-maps/outline"
        );
    }
}

/// The application with the tutor's settings and exam service from the settings.
pub fn with_tutor(app: pathwise_app::App, settings: &Settings) -> Result<pathwise_app::App> {
    if settings.exam_lockout_hours == 0 || settings.exam_lockout_hours > 24 * 365 {
        anyhow::bail!("exam_lockout_hours is {}; allowed: 1-8760", settings.exam_lockout_hours);
    }
    let tutor = pathwise_app::course_tutor::TutorSettings {
        debug: settings.tutor_debug,
        lockout: chrono::Duration::hours(i64::from(settings.exam_lockout_hours)),
        prompt_tokens: settings.llm_prompt_tokens.map(|t| t as usize),
        target_turn: std::time::Duration::from_secs(settings.llm_turn_target_secs.max(1)),
        model_deadline: std::time::Duration::from_secs(settings.llm_turn_deadline_secs.max(1)),
        ..Default::default()
    };
    let mut app = app.with_tutor_settings(tutor);
    if let Some(base_url) = settings.embedding_base_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        let model = settings
            .embedding_model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .context("embedding_base_url is set but embedding_model is not; name the embedding model to use")?;
        let mut config = pathwise_llm::OpenAiConfig::new(base_url, model);
        config.api_key = settings.embedding_api_key.clone().or_else(|| settings.llm_api_key.clone());
        config.timeout = std::time::Duration::from_secs(settings.llm_timeout_secs.max(1));
        let embedder = pathwise_llm::Embedder::new(config).map_err(|e| anyhow::anyhow!("embedding_base_url: {e}"))?;
        app = app.with_embedder(std::sync::Arc::new(embedder));
    }
    if let Some(base_url) = settings.transcription_base_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        let model = settings.transcription_model.as_deref().map(str::trim).filter(|m| !m.is_empty()).context(
            "transcription_base_url is set but transcription_model is not; name the transcription model to use",
        )?;
        let mut config = pathwise_llm::OpenAiConfig::new(base_url, model);
        config.api_key = settings.transcription_api_key.clone().or_else(|| settings.llm_api_key.clone());
        config.timeout = std::time::Duration::from_secs(settings.llm_timeout_secs.max(1));
        let transcriber =
            pathwise_llm::Transcriber::new(config).map_err(|e| anyhow::anyhow!("transcription_base_url: {e}"))?;
        app = app.with_transcriber(std::sync::Arc::new(transcriber));
    }
    match settings.exam_api_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        None => Ok(app),
        Some(url) => {
            let timeout = std::time::Duration::from_secs(10);
            let external =
                pathwise_app::course_tutor::ExternalExamService::new(url, settings.exam_api_token.clone(), timeout)
                    .map_err(|e| anyhow::anyhow!("exam_api_url: {e}"))?;
            Ok(app.with_exam_service(std::sync::Arc::new(external)))
        }
    }
}
