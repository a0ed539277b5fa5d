//! Voice input: a recording in, its text out, for the learner to confirm before it is sent.

use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};

/// The longest recording accepted, in bytes (about two minutes of Opus speech).
pub const MAX_RECORDING_BYTES: usize = 1024 * 1024;

impl<S: StoreHandle> App<S> {
    pub async fn transcribe(&self, audio: Vec<u8>, content_type: &str) -> AppResult<String> {
        let Some(transcriber) = &self.transcriber else {
            return Err(AppError::new(
                ErrorKind::Unavailable,
                ErrorCode::VoiceNotConfigured,
                "voice input needs a transcription model: set transcription_base_url and transcription_model",
            ));
        };
        if !content_type.starts_with("audio/") {
            return Err(AppError::invalid(
                "content-type",
                format!("'{content_type}' is not audio; send the recording as audio/webm, audio/ogg, audio/wav or audio/mpeg"),
            ));
        }
        if audio.is_empty() {
            return Err(AppError::invalid("body", "the recording is empty"));
        }
        if audio.len() > MAX_RECORDING_BYTES {
            return Err(AppError::invalid("body", format!("the recording is larger than {MAX_RECORDING_BYTES} bytes")));
        }
        Ok(transcriber.transcribe(audio, content_type).await?)
    }
}
