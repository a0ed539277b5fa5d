//! The learning loop (D3, D4): teaching flows from the diagnostic through plan, explanation,
//! question and graded answer to review; one step as one input (`advance`); the model's
//! tasks and the checks their answers go through; grading; the sentences Pathwise writes
//! itself; the context block each step is given.

pub mod advance;
pub(crate) mod context;
pub mod diagnostics;
pub(crate) mod feedback;
pub mod flows;
pub(crate) mod grading;
pub(crate) mod model_tasks;
pub(crate) mod reviewing;
pub mod teaching;
