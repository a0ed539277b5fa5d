//! What a learner sends for a tutor turn, and the checks it passes before anything runs.

use crate::{AppError, AppResult};
use pathwise_course::ClientEvent;
use serde::Deserialize;

/// Longest message a learner may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 4_000;

#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnRequest {
    /// The thread's course; optional, and refused if it names another course.
    #[serde(default)]
    pub course_id: Option<String>,
    #[serde(default)]
    #[schema(max_length = 4000)]
    pub message_text: Option<String>,
    #[serde(default)]
    pub message_latex: Option<String>,
    #[serde(default)]
    pub voice_transcript: Option<String>,
    /// A button pressed (Try a Drill, Continue, I'm stuck, ...); `{"type": "NONE"}` if none.
    #[serde(default)]
    pub client_event: ClientEvent,
}

impl TurnRequest {
    /// The learner's words, whichever field carries them.
    pub(crate) fn words(&self) -> Option<&str> {
        [&self.message_text, &self.message_latex, &self.voice_transcript]
            .into_iter()
            .flatten()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
    }

    pub(crate) fn check(&self) -> AppResult<()> {
        for (field, value) in [
            ("messageText", &self.message_text),
            ("messageLatex", &self.message_latex),
            ("voiceTranscript", &self.voice_transcript),
        ] {
            if value.as_ref().is_some_and(|v| v.chars().count() > MAX_MESSAGE_CHARS) {
                return Err(AppError::invalid(field, format!("must be at most {MAX_MESSAGE_CHARS} characters")));
            }
        }
        if self.words().is_none() && self.client_event == ClientEvent::None {
            return Err(AppError::invalid(
                "messageText",
                "a turn needs the learner's words (messageText, messageLatex or voiceTranscript) or a clientEvent",
            ));
        }
        Ok(())
    }
}
