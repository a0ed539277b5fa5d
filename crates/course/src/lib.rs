//! Authored courses and the rules of the policy tutor (policy-tutor.md), pure: no I/O, no
//! clock, no randomness it is not given.
//!
//! - [`CoursePack`] is a course as an author writes it (TOML or JSON); [`Course`] is one
//!   that has been checked: references resolve, prerequisites form a DAG, exam questions are
//!   well formed, and its drills' blueprints exist.
//! - [`StudentSnapshot`] is a learner's sparse progress in a course; it moves only on hard
//!   evidence (drill grades, exam answers, viewed support).
//! - [`policy`] computes the turn's policy; [`scoring`] ranks candidate units; [`tier`]
//!   says how bronze, silver and gold are earned.

pub mod answer;
mod builtin;
mod card;
pub mod computable;
mod course;
pub mod draft;
mod error;
mod event;
pub mod fallback;
pub mod help;
pub mod intent;
pub mod keyterms;
pub mod lite;
mod locate;
pub mod notation;
mod pack;
pub mod policy;
pub mod proposal;
pub mod recall;
pub mod response;
pub mod scoring;
pub mod shown;
pub mod snapshot;
pub mod synthetic;
pub mod tier;
mod validate;

pub use builtin::{builtin_courses, builtin_source, BUILTIN_COURSES};
pub use card::{Source, TutorCard, UnitChoice, WorkedExample};
pub use course::Course;
pub use error::{CourseError, Problem};
pub use event::{ClientEvent, DrillResult, ExamResult};
pub use locate::{FieldPath, Segment};
pub use pack::{
    ChunkSpec, ChunkType, CoursePack, ExamQuestionSpec, PackFormat, SupportType, Tier, UnitSpec, WrittenDrill,
};
pub use policy::{Action, Availability, ExamAvailability, ExamStatus, PolicyDraft, QuestionStatus, TutorPolicy};
pub use snapshot::{MappedUnit, StudentSnapshot, TurnAnalysis, UnitProgress};
pub use tier::MasteryTier;
