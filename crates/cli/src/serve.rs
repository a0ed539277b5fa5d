//! `pathwise serve`.

use crate::config::{self, Settings, StoreFlags};
use anyhow::{bail, Context, Result};
use pathwise_app::learners::NewLearner;
use pathwise_app::scheduler::{run_scheduler, WorkerOptions};
use pathwise_app::App;
use pathwise_server::AppState;
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, Default, Serialize, clap::Args)]
pub struct ServeFlags {
    /// Address to listen on [default: 127.0.0.1]
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Port to listen on; 0 picks a free one [default: 8080]
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
}

#[derive(Serialize)]
pub struct Overrides<'a> {
    #[serde(flatten)]
    pub store: &'a StoreFlags,
    #[serde(flatten)]
    pub serve: &'a ServeFlags,
}

/// A banner line. Whoever started the server may stop reading its output (a pipe closed
/// after the first lines); that must not stop the server, as `println!` would.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Where the start-up banner goes. With text logs: plain lines on standard output, for the
/// person who started the server. With JSON logs: log events like every other line (a log
/// collector reads one format), holding no secret, since logs are shipped and kept: the
/// local learner's token stays in its file, and the banner says where that is.
#[derive(Debug, Clone, Copy)]
struct Banner {
    json: bool,
}

impl Banner {
    fn new(settings: &Settings) -> Banner {
        Banner { json: matches!(settings.log_format, config::LogFormat::Json) }
    }

    fn line(self, text: impl std::fmt::Display) {
        if self.json {
            tracing::info!(target: "pathwise::banner", "{text}");
        } else {
            say!("{text}");
        }
    }
}

const LOCAL_TOKEN_FILE: &str = "local-token";

/// The local learner and a working token for it, kept in the data directory so that every
/// start can print it (only its hash is in the database).
pub async fn local_learner(app: &App, settings: &Settings) -> Result<NewLearner> {
    let path = settings.data_dir.join(LOCAL_TOKEN_FILE);
    let known = std::fs::read_to_string(&path).ok();
    let local = app.local_learner(known.as_deref().map(str::trim)).await?;
    if known.as_deref().map(str::trim) != Some(local.token.as_str()) {
        write_private(&path, &local.token)
            .with_context(|| format!("cannot save the local token to {}", path.display()))?;
    } else {
        pathwise_store::private_files::restrict_file(&path)
            .with_context(|| format!("cannot make {} private", path.display()))?;
    }
    Ok(local)
}

fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        pathwise_store::private_files::create_dir(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    std::io::Write::write_all(&mut options.open(path)?, contents.as_bytes())?;
    // A file an older version wrote keeps its mode when it is rewritten.
    pathwise_store::private_files::restrict_file(path)
}

pub async fn run(settings: Settings) -> Result<()> {
    let loopback = config::is_loopback(&settings.host);
    if !loopback && settings.operator_token.as_deref().is_none_or(|t| t.trim().is_empty()) {
        bail!(
            "refusing to listen on {} without an operator token: anyone who can reach it could use the API. \
             Set PATHWISE_OPERATOR_TOKEN (or operator_token in the config file), or listen on 127.0.0.1",
            settings.host
        );
    }
    let Built { app, courses, pack_notes, sandbox_note } = build_app(&settings).await?;
    app.install_schedules(&settings.schedules).await.context("invalid schedules")?;
    let listener = tokio::net::TcpListener::bind((settings.host.as_str(), settings.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", settings.host, settings.port))?;
    let address = listener.local_addr()?;
    let base = format!("http://{address}");
    let banner = Banner::new(&settings);
    banner.line(format_args!(
        "{} is listening on {base} ({} database)",
        settings.name,
        pathwise_app::Store::engine(app.store())
    ));
    let mut workspace_learner = None;
    if loopback {
        let local = local_learner(&app, &settings).await?;
        let token_file = settings.data_dir.join(LOCAL_TOKEN_FILE);
        if banner.json {
            banner.line(format_args!("Local learner token: in {} (never logged)", token_file.display()));
            let file = token_file.display();
            banner.line(format_args!("Try it:  curl -H \"Authorization: Bearer $(cat {file})\" {base}/api/mind-maps"));
        } else {
            banner.line(format_args!("Local learner token: {}", local.token));
            banner.line(format_args!("Try it:  curl -H 'Authorization: Bearer {}' {base}/api/mind-maps", local.token));
        }
        let next_base = base.clone();
        let learner =
            pathwise_server::LocalLearner::new(local.token.clone(), local.learner.name.clone(), move |code| {
                if banner.json {
                    banner.line("The workspace sign-in link was used; sign in again with the local learner's token");
                } else {
                    banner.line(format_args!(
                        "The workspace sign-in link was used; the next one: {next_base}/?signin={code}"
                    ));
                }
            });
        if banner.json {
            // The sign-in link's code is worth the token once, so it is no more logged than
            // the token is.
            banner.line(format_args!("Workspace: {base}/ (paste the token from {})", token_file.display()));
        } else {
            banner.line(format_args!(
                "Workspace: {} (signs the local learner in once; or paste the token)",
                learner.signin_link(&base)
            ));
        }
        workspace_learner = Some(learner);
    } else {
        banner.line(format_args!("Create learners with: curl -X POST -H 'Authorization: Bearer <operator token>' -H 'Content-Type: application/json' -d '{{\"name\":\"Ada\"}}' {base}/api/learners"));
    }
    banner.line(format_args!("Language model: {}", app.llm().describe()));
    banner.line(&sandbox_note);
    let titles: Vec<String> =
        courses.iter().map(|c| format!("{} ({} units)", c.course.id, c.course.unit_count)).collect();
    banner.line(format_args!("Courses: {}; exam service: {}", titles.join(", "), app.exam_service().describe()));
    banner.line(format_args!("Course retrieval: {}", app.retrieval_mode()));
    for note in pack_notes {
        banner.line(note);
    }
    banner.line(format_args!("MCP (streamable HTTP): {base}{}", pathwise_server::mcp::http::PATH));
    banner.line(format_args!("API reference: {base}/api/docs"));
    let state = AppState::new(app.clone(), settings.operator_token.as_deref())
        .with_workspace(&settings.name, workspace_learner)
        .with_mcp_allowed_hosts(settings.mcp_allowed_hosts.clone())
        .with_session_heartbeat(std::time::Duration::from_secs(settings.session_heartbeat_secs.max(1)))
        .with_limits(settings.limits())
        .with_metrics_token(settings.metrics_token.as_deref());
    banner.line(format_args!("Metrics: {base}/metrics; readiness: {base}/readyz"));
    let stopping = state.shutdown.clone();
    let scheduler = settings.scheduler_enabled.then(|| {
        let worker = settings.worker_name.clone().unwrap_or_else(default_worker_name);
        banner.line(format_args!("Scheduler: running due jobs as {worker}"));
        let options = WorkerOptions::new(worker);
        let tick = std::time::Duration::from_millis(settings.scheduler_tick_ms.max(10));
        tokio::spawn(run_scheduler(app, options, tick, stopping.cancelled_owned()))
    });
    pathwise_server::serve(listener, state, shutdown_signal()).await?;
    // The scheduler finishes the job it is running and gives back the leases of those it
    // claimed and did not start, so another server runs them at once.
    if let Some(scheduler) = scheduler {
        let _ = scheduler.await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// The application as the settings describe it, for every door the binary serves (HTTP and
/// MCP over HTTP with `serve`, MCP over stdio with `mcp`): the store, the model, the
/// notifiers, the item library with the operator's packs, the tutor's settings, the code
/// sandbox where this host can isolate code, and the shipped courses installed.
pub struct Built {
    pub app: App,
    pub courses: Vec<pathwise_app::course_tutor::ImportedCourse>,
    /// A line about each item pack added.
    pub pack_notes: Vec<String>,
    /// Whether programming items can run here, and why not.
    pub sandbox_note: String,
}

pub async fn build_app(settings: &Settings) -> Result<Built> {
    let llm = config::language_model(settings)?;
    config::warn_if_offline(&llm);
    let notifiers = pathwise_notify::build_all(&settings.notifiers).context("invalid notifiers")?;
    let store = crate::open_store(settings).await?;
    let (library, pack_notes) = item_library(&settings.item_packs)?;
    let mut app =
        config::with_tutor(App::new(store).with_llm(llm).with_notifiers(notifiers).with_library(library), settings)?
            .with_authoring_settings(settings.authoring());
    let (sandbox, sandbox_note) = code_sandbox(settings).await;
    if let Some(sandbox) = sandbox {
        app = app.with_sandbox(sandbox);
    }
    let courses = app.install_builtin_courses().await.context("cannot install the shipped courses")?;
    Ok(Built { app, courses, pack_notes, sandbox_note })
}

/// The built-in item library with the operator's course packs, and a line about each pack;
/// a pack with a mistake stops the start, naming the file and what is wrong, rather than
/// serving without it.
pub fn item_library(packs: &[std::path::PathBuf]) -> Result<(pathwise_items::Library, Vec<String>)> {
    let mut library = pathwise_items::Library::builtin();
    let mut notes = Vec::new();
    for path in packs {
        let shown = path.display();
        let format = pathwise_items::PackFormat::from_path(&path.to_string_lossy())
            .with_context(|| format!("item pack {shown}: the file must end in .toml or .json"))?;
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read item pack {shown}"))?;
        let added = library.add_pack(&text, format).with_context(|| format!("item pack {shown} is invalid"))?;
        notes.push(format!("Item pack {shown}: {} skills, {} assessments", added.skills, added.assessments));
    }
    Ok((library, notes))
}

/// The sandbox for programming items, or `None` when this host cannot isolate code (the
/// rest of the server works without it), with the line that says which.
async fn code_sandbox(settings: &Settings) -> (Option<std::sync::Arc<pathwise_sandbox::Sandbox>>, String) {
    if !settings.sandbox_enabled {
        return (None, "Code sandbox: disabled (sandbox_enabled = false); programming items answer 503".into());
    }
    let config = pathwise_sandbox::SandboxConfig { python: settings.sandbox_python.clone(), ..Default::default() };
    match tokio::task::spawn_blocking(move || pathwise_sandbox::Sandbox::new(config)).await {
        Ok(Ok(sandbox)) => {
            let line = format!(
                "Code sandbox: {} (namespaces, seccomp, Landlock ABI {})",
                sandbox.python().display(),
                sandbox.isolation().landlock_abi
            );
            (Some(std::sync::Arc::new(sandbox)), line)
        }
        Ok(Err(error)) => {
            tracing::warn!(%error, "code sandbox unavailable");
            (None, format!("Code sandbox: unavailable, programming items answer 503: {error}"))
        }
        Err(error) => (None, format!("Code sandbox: unavailable, its check failed: {error}")),
    }
}

fn default_worker_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).unwrap_or_default();
    let host = if host.is_empty() { "pathwise".to_string() } else { host };
    format!("{host}-{}", std::process::id())
}

pub async fn shutdown_signal() {
    let ctrl_c = async {
        tokio::signal::ctrl_c().await.ok();
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
}
