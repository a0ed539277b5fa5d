//! Runs a learner's code against generated test cases in a locked-down child process.
//!
//! [`Sandbox::new`] checks the host once (interpreter, kernel features, a self-test run) and
//! refuses to exist without full isolation. [`Sandbox::run_tests`] runs one
//! [`Submission`] against [`TestCase`]s: only the inputs enter the sandbox; the function's
//! return values come back and are graded here, so hostile code cannot forge a pass
//! without computing the answers.
//!
//! Each run is one `python3` process, confined between fork and exec: user, mount,
//! network, IPC and UTS namespaces; a private tmpfs as its working directory; a Landlock
//! ruleset (read the interpreter and libraries, write only the scratch directory, no TCP,
//! no signals outside); no capabilities; a seccomp filter (no new processes, sockets,
//! signals, namespaces or mounts, and no exec once the runner starts); rlimits on CPU
//! time, address space, file size and open files; a wall clock enforced by the parent.

mod compare;
mod config;
mod confine;
mod error;
mod filesystem;
mod interpreter;
mod isolation;
mod protocol;
mod report;
mod sandbox;
mod supervise;
mod syscall_filter;

pub use config::{SandboxConfig, MIN_MEMORY_BYTES};
pub use error::SandboxError;
pub use isolation::Isolation;
pub use report::{CaseOutcome, LimitHit, TestReport};
pub use sandbox::{Sandbox, Submission, TestCase};
