//! What commands print on standard output. Its reader may stop reading before the end
//! (`pathwise jobs list | head -1`): the write then fails with a broken pipe, which ends the
//! command quietly and successfully ([`is_closed_output`]), where `println!` would panic.
//! Every command prints through here (the crate denies `clippy::print_stdout`).

use serde::Serialize;
use std::fmt::Display;
use std::io::Write;

/// Standard output's reader has gone: nothing printed from now on would be read.
#[derive(Debug)]
pub struct OutputClosed;

impl Display for OutputClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed by its reader")
    }
}

impl std::error::Error for OutputClosed {}

/// Whether a command ended because its output was closed, which is not a failure.
pub fn is_closed_output(error: &anyhow::Error) -> bool {
    error.downcast_ref::<OutputClosed>().is_some()
}

/// Print `text` as it is.
pub fn text(text: impl Display) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match write!(out, "{text}").and_then(|()| out.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Err(OutputClosed.into()),
        done => Ok(done?),
    }
}

/// Print one line.
pub fn line(line: impl Display) -> anyhow::Result<()> {
    text(format_args!("{line}\n"))
}

/// Print a value as indented JSON.
pub fn json(value: &impl Serialize) -> anyhow::Result<()> {
    line(serde_json::to_string_pretty(value)?)
}
