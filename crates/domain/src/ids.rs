//! Identifier newtypes, so a node id can never be passed where a map id is expected.

use serde::{Deserialize, Serialize};
use std::fmt;
use uuid::Uuid;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            utoipa::ToSchema, schemars::JsonSchema,
        )]
        #[serde(transparent)]
        #[schema(value_type = String, format = Uuid)]
        #[schemars(inline)]
        pub struct $name(pub Uuid);

        impl $name {
            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl From<Uuid> for $name {
            fn from(value: Uuid) -> Self {
                Self(value)
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s.trim()).map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id_type!(
    /// A learner: the owner of mind maps, responses and API tokens.
    LearnerId
);
id_type!(
    /// A learner's concept graph for one topic.
    MindMapId
);
id_type!(
    /// A concept node within a mind map.
    NodeId
);
id_type!(
    /// One recorded quiz response.
    ResponseId
);
id_type!(
    /// A learner's teaching flow through one topic.
    FlowId
);
id_type!(
    /// A scheduled job: a review, a batch of reviews, or a recurring task.
    JobId
);
id_type!(
    /// A proactive session (thought, learning, evaluation or survey) and its conversation.
    SessionId
);
id_type!(
    /// A tutor thread: one conversation with the policy tutor about one course.
    ThreadId
);
id_type!(
    /// One tutor turn: its policy, what the model proposed and what was shown.
    TurnId
);
id_type!(
    /// One of a learner's API tokens (not the token itself, which is never stored).
    TokenId
);
id_type!(
    /// A file a learner ingested as material for a course of their own.
    SourceDocumentId
);
id_type!(
    /// One chunk of an ingested file: what a draft course cites.
    SourceChunkId
);
id_type!(
    /// A course being drafted from a learner's material, not yet published.
    CourseDraftId
);
