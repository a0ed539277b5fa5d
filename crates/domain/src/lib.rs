//! The pure rules of Pathwise.
//!
//! Nothing in this crate performs I/O, reads the clock or draws random numbers: the time
//! and any identifiers a rule needs are passed in. Every decision the specifications make
//! about graphs, learning order, mastery and spaced repetition is made here exactly once;
//! stores persist the outcome and front doors present it.

pub mod choice;
pub mod citation;
pub mod curriculum;
pub mod diagnostic;
pub mod edit;
pub mod error;
pub mod evidence;
pub mod flow;
pub mod graph;
pub mod ids;
pub mod lifecycle;
pub mod mastery;
pub mod model;
pub mod model_graph;
pub mod number;
pub mod order;
pub mod outline;
pub mod question;
pub mod recording;
pub mod review_jobs;
pub mod session;
pub mod srs;
pub mod status;
pub mod wording;

pub use error::{DomainError, ErrorCode};
pub use ids::{
    CourseDraftId, FlowId, JobId, LearnerId, MindMapId, NodeId, ResponseId, SessionId, SourceChunkId, SourceDocumentId,
    ThreadId, TokenId, TurnId,
};
pub use status::{
    EdgeType, FlowStatus, JobKind, JobOutcome, MapStatus, MasteryStatus, ResponseType, SessionEndReason, SessionStatus,
    SessionType, SrsScheduler,
};
