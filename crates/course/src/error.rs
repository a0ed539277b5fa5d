//! Errors. A course pack's problems are reported all at once, each with its field and
//! line, so that an author can fix a pack in one pass.

use crate::locate::FieldPath;
use std::fmt;
use thiserror::Error;

/// One thing wrong with a course pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field at fault, e.g. `units[3].prerequisites[0]`.
    pub field: FieldPath,
    /// Where it stands in the pack's text (1-based), when the pack came from text.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}, {}: {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum CourseError {
    /// The text is not a course pack at all (syntax, a misspelt or missing field).
    #[error("course pack is not valid {format}: {message}")]
    Parse { format: &'static str, line: Option<usize>, message: String },
    #[error("course pack has {} problem{}:\n{}", .0.len(), if .0.len() == 1 { "" } else { "s" }, list(.0))]
    Invalid(Vec<Problem>),
}

impl CourseError {
    pub fn problems(&self) -> &[Problem] {
        match self {
            CourseError::Invalid(problems) => problems,
            CourseError::Parse { .. } => &[],
        }
    }
}

fn list(problems: &[Problem]) -> String {
    problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n")
}
