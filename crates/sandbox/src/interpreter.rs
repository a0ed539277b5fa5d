//! Finding the real Python executable and the files it needs to start.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::SandboxError;

/// How long the one-off probe of the interpreter may take. Generous because a wrapper
/// such as a pyenv shim runs a shell script first.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Directories holding shared libraries on common distributions. Python's extension
/// modules (`hashlib`, `sqlite3`, `zlib`) load libraries from here after start-up, so the
/// probe's view of what is mapped is not enough.
const SYSTEM_LIBRARY_DIRS: &[&str] = &["/lib", "/lib64", "/usr/lib", "/usr/lib64"];

/// The dynamic loader's cache, read by every dynamically linked start-up.
const LOADER_CACHE: &str = "/etc/ld.so.cache";

/// Asks the interpreter where it really lives: a wrapper on PATH reports the executable it
/// ends up running. It also imports what the runner needs, so a missing `ctypes` shows here.
const PROBE: &str = r#"
import sys, json, ctypes
mapped = set()
with open("/proc/self/maps") as maps:
    for line in maps:
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].startswith("/"):
            mapped.add(fields[5].strip())
print(json.dumps({
    "executable": sys.executable,
    "prefixes": [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix],
    "version": list(sys.version_info[:3]),
    "mapped": sorted(mapped),
}))
"#;

#[derive(Deserialize)]
struct ProbeReport {
    executable: String,
    prefixes: Vec<String>,
    version: Vec<u32>,
    mapped: Vec<String>,
}

/// The interpreter the sandbox runs, and what it may read.
#[derive(Debug, Clone)]
pub(crate) struct Interpreter {
    /// Canonical path of the real executable (no shims, no symlinks).
    pub executable: PathBuf,
    /// Its installation prefixes (standard library, extension modules): read only.
    pub prefix_dirs: Vec<PathBuf>,
    /// Directories of shared libraries, including the dynamic loader, which the kernel
    /// executes along with the interpreter: read and execute.
    pub library_dirs: Vec<PathBuf>,
    /// Single files it reads outside those directories.
    pub read_files: Vec<PathBuf>,
    pub version: (u32, u32, u32),
}

pub(crate) fn resolve(configured: Option<&Path>) -> Result<Interpreter, SandboxError> {
    let candidate = match configured {
        Some(path) => path.to_path_buf(),
        None => find_on_path("python3").ok_or_else(|| SandboxError::Interpreter {
            path: PathBuf::from("python3"),
            reason: "no executable python3 was found on PATH; install Python 3.8 or newer \
                     or set the interpreter path"
                .to_string(),
        })?,
    };
    let report = probe(&candidate)?;
    let fail = |reason: String| SandboxError::Interpreter { path: candidate.clone(), reason };

    let version = match report.version.as_slice() {
        [major, minor, patch] => (*major, *minor, *patch),
        _ => return Err(fail("it reported no version".to_string())),
    };
    if version < (3, 8, 0) {
        return Err(fail(format!("it is Python {}.{}; 3.8 or newer is needed", version.0, version.1)));
    }
    if report.executable.is_empty() {
        return Err(fail("it did not report its own executable path".to_string()));
    }
    let executable = std::fs::canonicalize(&report.executable)
        .map_err(|e| fail(format!("its executable {} cannot be resolved: {e}", report.executable)))?;

    let mut prefix_dirs = Vec::new();
    for prefix in &report.prefixes {
        let dir =
            std::fs::canonicalize(prefix).map_err(|e| fail(format!("its prefix {prefix} cannot be resolved: {e}")))?;
        if dir == Path::new("/") {
            return Err(fail(
                "its prefix is /, which would let code read the whole filesystem; use an \
                 interpreter installed under its own prefix (such as /usr or /opt/python)"
                    .to_string(),
            ));
        }
        prefix_dirs.push(dir);
    }
    prefix_dirs.sort();
    prefix_dirs.dedup();

    let mapped_dirs = report
        .mapped
        .iter()
        .filter_map(|file| Path::new(file).parent())
        .filter_map(|dir| std::fs::canonicalize(dir).ok());
    let system_dirs = SYSTEM_LIBRARY_DIRS.iter().filter_map(|dir| std::fs::canonicalize(dir).ok());
    let mut library_dirs: Vec<PathBuf> = mapped_dirs
        .chain(system_dirs)
        .filter(|dir| dir != Path::new("/"))
        .filter(|dir| !prefix_dirs.iter().any(|prefix| dir.starts_with(prefix)))
        .collect();
    library_dirs.sort();
    library_dirs.dedup();

    let read_files = std::fs::canonicalize(LOADER_CACHE).into_iter().collect();

    Ok(Interpreter { executable, prefix_dirs, library_dirs, read_files, version })
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| is_executable_file(candidate))
}

fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// Runs the probe outside the sandbox (the interpreter is trusted configuration, and a
/// wrapper may need its environment), with a timeout so a broken wrapper cannot hang start-up.
fn probe(candidate: &Path) -> Result<ProbeReport, SandboxError> {
    let fail = |reason: String| SandboxError::Interpreter { path: candidate.to_path_buf(), reason };
    let mut child = Command::new(candidate)
        .args([OsStr::new("-S"), OsStr::new("-c"), OsStr::new(PROBE)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("it could not be started: {e}")))?;

    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < PROBE_TIMEOUT => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(format!("it did not answer within {} s", PROBE_TIMEOUT.as_secs())));
            }
            Err(e) => return Err(fail(format!("waiting for it failed: {e}"))),
        }
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    if !status.success() {
        let last_line = stderr.lines().last().unwrap_or("").trim();
        return Err(fail(format!(
            "it failed to start ({status}): {last_line} (the runner needs the standard \
             modules json and ctypes)"
        )));
    }
    serde_json::from_str(stdout.trim()).map_err(|e| fail(format!("its answer could not be read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interpreter_is_named_in_the_error() {
        let error = resolve(Some(Path::new("/nonexistent/python3"))).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("/nonexistent/python3"), "{message}");
        assert!(message.contains("could not be started"), "{message}");
    }
}
