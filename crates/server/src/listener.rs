//! The connection loop: HTTP/1.1 connections with the limits of [`crate::limits`] on how a
//! request's head arrives, and a graceful stop.
//!
//! `axum::serve` takes no header timeout, so a client that opens connections and sends its
//! headers a byte at a time (slowloris) would hold each connection for as long as it liked.
//! Here hyper closes a connection whose headers have not all arrived within
//! `header_read_timeout`, which also closes connections left idle that long, and refuses a
//! head over [`MAX_HEADER_BYTES`](crate::limits::MAX_HEADER_BYTES) or
//! [`MAX_HEADERS`](crate::limits::MAX_HEADERS) headers with 431.

use crate::limits::{MAX_HEADERS, MAX_HEADER_BYTES};
use crate::AppState;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::time::Duration;
use tower::ServiceExt;

/// Serve until `shutdown` resolves, then stop gracefully: stop accepting, end session
/// streams with a reconnect hint, and let requests in flight finish (up to the limits'
/// `shutdown_grace`, after which their connections are closed).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.limits.clone();
    let stopping = state.shutdown.clone();
    let router = crate::router(state);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(MAX_HEADER_BYTES)
        .max_headers(MAX_HEADERS);
    let graceful = GracefulShutdown::new();
    // The recorder keeps each histogram sample until upkeep folds it into its buckets; a
    // server nobody scrapes would otherwise hold every request's latency.
    let upkeep = tokio::spawn(async {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        loop {
            every.tick().await;
            crate::metrics::handle().run_upkeep();
        }
    });
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, most likely: wait for some to close rather
                    // than spin; the connections already open go on.
                    tracing::warn!(%error, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = router.clone().map_request(move |mut request: axum::http::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
        });
    }
    drop(listener);
    upkeep.abort();
    tracing::info!("stopping: no new connections; finishing the requests in flight");
    stopping.cancel();
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown()).await.is_err() {
        tracing::warn!(
            grace_secs = limits.shutdown_grace.as_secs(),
            "requests were still running at the end of the shutdown grace; their connections are closed"
        );
    }
    Ok(())
}
