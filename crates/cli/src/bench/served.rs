//! This binary's `pathwise serve`, in a process of its own on a fresh data directory, for the
//! benchmarks that measure the server as a client sees it (its memory is the server's alone,
//! and its clients' work is not on its threads).

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub(crate) struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The local learner's token, from the banner.
    pub token: String,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Start a server with these settings (environment variables) beside the defaults; the
    /// scheduler, the sandbox and the rate limit are off (a benchmark's one token calls far
    /// more often than a learner), and only warnings are logged.
    pub fn start(settings: &[(&str, &str)]) -> Result<Server> {
        let dir = tempfile::tempdir()?;
        let mut command = Command::new(std::env::current_exe()?);
        command
            .args(["serve", "--port", "0", "--data-dir"])
            .arg(dir.path())
            .current_dir(dir.path())
            .env("PATHWISE_SCHEDULER_ENABLED", "false")
            .env("PATHWISE_SANDBOX_ENABLED", "false")
            .env("PATHWISE_RATE_LIMIT_PER_SECOND", "0")
            .env("PATHWISE_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (name, value) in settings {
            command.env(name, value);
        }
        let mut child = command.spawn().context("cannot start `pathwise serve`")?;
        let mut lines = BufReader::new(child.stdout.take().context("no stdout")?).lines();
        let (mut base, mut token) = (None, None);
        while base.is_none() || token.is_none() {
            let Some(line) = lines.next().transpose()? else { bail!("the server exited before it was ready") };
            if let Some((_, url)) = line.split_once("is listening on ") {
                base = url.split_whitespace().next().map(str::to_string);
            }
            if let Some(t) = line.strip_prefix("Local learner token: ") {
                token = Some(t.trim().to_string());
            }
        }
        // Keep reading the banner so that the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(Server { child, base: base.unwrap_or_default(), token: token.unwrap_or_default(), _dir: dir })
    }

    /// `host:port`, for raw TCP clients.
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// Resident memory in KiB, from /proc.
    pub fn rss_kib(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).context("no VmRSS in /proc status")?;
        line.split_whitespace().nth(1).context("VmRSS without a value")?.parse().context("VmRSS is not a number")
    }

    /// The median of a few readings a moment apart.
    pub async fn settled_rss_kib(&self) -> Result<u64> {
        let mut readings = Vec::new();
        for _ in 0..5 {
            readings.push(self.rss_kib()?);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        readings.sort_unstable();
        Ok(readings[readings.len() / 2])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
