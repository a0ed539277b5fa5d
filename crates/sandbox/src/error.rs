use std::io;
use std::path::PathBuf;

/// Why the sandbox could not be set up or could not run a submission.
///
/// Anything the learner's code does (a syntax error, an exception, a limit) is part of a
/// [`TestReport`](crate::TestReport), never an error: errors are about the request or the host.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A setting is out of range.
    #[error("sandbox setting `{field}` is invalid: {reason}")]
    InvalidConfig { field: &'static str, reason: String },

    /// The Python interpreter could not be found or is not usable.
    #[error("the Python interpreter {path} cannot be used: {reason}")]
    Interpreter { path: PathBuf, reason: String },

    /// A kernel feature the sandbox relies on is missing, so code is not run at all.
    #[error(
        "code cannot be run safely on this host: {mechanism} is unavailable ({reason}); \
         the sandbox needs Landlock, seccomp filters and user, mount and network namespaces"
    )]
    Unavailable { mechanism: String, reason: String },

    /// The submission is larger than the configured limit.
    #[error("the code is {size} bytes; at most {limit} bytes are allowed")]
    CodeTooLarge { size: usize, limit: usize },

    /// The function to call is not a Python identifier.
    #[error(
        "function name {name:?} is not a Python identifier: use letters, digits and `_`, \
         not starting with a digit"
    )]
    InvalidFunctionName { name: String },

    /// No test case was given, so there is nothing to grade.
    #[error("no test cases were given: at least one is needed to grade code")]
    NoTests,

    /// A test case's input is not a JSON array of positional arguments.
    #[error(
        "test case {index}'s input is a JSON {found}; it must be an array of positional \
         arguments, e.g. [\"hello\"] to call f(\"hello\")"
    )]
    InvalidTestInput { index: usize, found: &'static str },

    /// The child could not be confined; the code was not run.
    #[error("could not confine the child process ({step}): {source}; the code was not run")]
    Confinement {
        step: &'static str,
        mechanism: &'static str,
        #[source]
        source: io::Error,
    },

    /// The runner inside the sandbox could not start, so no learner code ran.
    #[error("the sandboxed runner did not start: {detail}")]
    RunnerFailed { detail: String },

    /// A host-side operation (scratch directory, pipes) failed.
    #[error("{context}: {source}")]
    Io {
        context: &'static str,
        #[source]
        source: io::Error,
    },
}

impl SandboxError {
    pub(crate) fn io(context: &'static str) -> impl FnOnce(io::Error) -> SandboxError {
        move |source| SandboxError::Io { context, source }
    }

    /// True when the host cannot run code at all (as opposed to a bad request): the server
    /// should report code items as unavailable.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            SandboxError::Unavailable { .. }
                | SandboxError::Interpreter { .. }
                | SandboxError::Confinement { .. }
                | SandboxError::RunnerFailed { .. }
        )
    }
}
