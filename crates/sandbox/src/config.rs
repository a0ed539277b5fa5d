use std::path::PathBuf;
use std::time::Duration;

use crate::SandboxError;

const MIB: u64 = 1024 * 1024;

/// Python itself needs about 15 MiB of address space; below this it cannot even start.
pub const MIN_MEMORY_BYTES: u64 = 64 * MIB;

/// Limits and the interpreter for [`Sandbox`](crate::Sandbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// The Python interpreter. `None`: `python3` on `PATH`, resolved once to the real
    /// executable (through wrappers such as pyenv shims), so the sandbox never runs a shell.
    pub python: Option<PathBuf>,
    /// CPU time for the whole run (all tests). The kernel counts it in whole seconds, so
    /// it is rounded up to the next second.
    pub cpu_time: Duration,
    /// Wall-clock time for the whole run, from start to the last result.
    pub wall_clock: Duration,
    /// Address space of the interpreter (RLIMIT_AS).
    pub memory_bytes: u64,
    /// Bytes the code may print (stdout and stderr together go to one capped stream), and
    /// the budget for the results it returns.
    pub max_output_bytes: usize,
    /// Size of the submitted source code.
    pub max_code_bytes: usize,
    /// Size of the scratch directory (a private tmpfs), and of any one file written.
    pub scratch_bytes: u64,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            python: None,
            cpu_time: Duration::from_secs(2),
            wall_clock: Duration::from_secs(5),
            memory_bytes: 256 * MIB,
            max_output_bytes: 64 * 1024,
            max_code_bytes: 64 * 1024,
            scratch_bytes: 16 * MIB,
        }
    }
}

impl SandboxConfig {
    pub(crate) fn validate(&self) -> Result<(), SandboxError> {
        let invalid = |field, reason: &str| Err(SandboxError::InvalidConfig { field, reason: reason.to_string() });
        if self.cpu_time.is_zero() {
            return invalid("cpu_time", "must be more than zero (it is rounded up to whole seconds)");
        }
        if self.cpu_time > Duration::from_secs(600) {
            return invalid("cpu_time", "must be at most 600 s");
        }
        if self.wall_clock.is_zero() || self.wall_clock > Duration::from_secs(600) {
            return invalid("wall_clock", "must be more than zero and at most 600 s");
        }
        if self.memory_bytes < MIN_MEMORY_BYTES {
            return invalid("memory_bytes", "must be at least 64 MiB: Python alone needs about 15");
        }
        if self.max_output_bytes < 1024 {
            return invalid("max_output_bytes", "must be at least 1 KiB");
        }
        if self.max_code_bytes == 0 {
            return invalid("max_code_bytes", "must be more than zero");
        }
        if self.scratch_bytes < 64 * 1024 {
            return invalid("scratch_bytes", "must be at least 64 KiB");
        }
        Ok(())
    }

    /// The CPU limit as the kernel applies it: whole seconds, at least one.
    pub(crate) fn cpu_seconds(&self) -> u64 {
        let whole = self.cpu_time.as_secs();
        if self.cpu_time.subsec_nanos() > 0 {
            whole + 1
        } else {
            whole.max(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        SandboxConfig::default().validate().unwrap();
    }

    #[test]
    fn cpu_time_rounds_up_to_whole_seconds() {
        let config = |ms| SandboxConfig { cpu_time: Duration::from_millis(ms), ..SandboxConfig::default() };
        assert_eq!(config(1).cpu_seconds(), 1);
        assert_eq!(config(2000).cpu_seconds(), 2);
        assert_eq!(config(2001).cpu_seconds(), 3);
    }

    #[test]
    fn too_little_memory_is_refused_with_the_minimum() {
        let config = SandboxConfig { memory_bytes: 1024, ..SandboxConfig::default() };
        let message = config.validate().unwrap_err().to_string();
        assert!(message.contains("memory_bytes") && message.contains("64 MiB"), "{message}");
    }
}
