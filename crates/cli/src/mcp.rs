//! `pathwise mcp`: MCP over stdio for one learner, as an assistant starts it. Stdout carries
//! the protocol only; logs go to stderr.

use crate::config::Settings;
use anyhow::{Context, Result};
use pathwise_app::App;
use pathwise_server::mcp::PathwiseMcp;
use rmcp::ServiceExt;

pub async fn run(settings: &Settings, token: Option<&str>) -> Result<()> {
    // The same application `serve` builds: the item library, the tutor, the sandbox and the
    // shipped courses are every door's.
    let app = crate::serve::build_app(settings).await?.app;
    let learner = match token {
        Some(token) => app.authenticate(token).await?,
        None => crate::serve::local_learner(&app, settings).await?.learner,
    };
    tracing::info!(learner = %learner.id, "serving MCP on stdio");
    // Answers move reviews; their jobs are re-planned here as `serve`'s scheduler would, so
    // that a server running on the same database finds them.
    let tick = std::time::Duration::from_millis(settings.scheduler_tick_ms.max(10));
    let flusher = tokio::spawn(flush_review_jobs(app.clone(), tick));
    let service = PathwiseMcp::for_learner(app.clone(), learner.id)
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP client did not start a session")?;
    // A client that stops the server sends SIGTERM after closing stdin; either way the
    // reviews recorded since the last tick get their jobs before the process ends.
    let ended = tokio::select! {
        ended = service.waiting() => ended.map(|_| ()).context("the MCP session failed"),
        _ = crate::serve::shutdown_signal() => Ok(()),
    };
    flusher.abort();
    app.review_jobs().flush().await?;
    ended
}

async fn flush_review_jobs(app: App, tick: std::time::Duration) {
    let mut interval = tokio::time::interval(tick);
    loop {
        interval.tick().await;
        if let Err(error) = app.review_jobs().flush().await {
            tracing::warn!(%error, "re-planning review jobs failed");
        }
    }
}
