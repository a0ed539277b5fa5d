//! Speech to text from an OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI's
//! Whisper, a local whisper.cpp or faster-whisper server), for the workspace's voice input.

use crate::openai::OpenAiConfig;
use crate::LlmError;
use serde::Deserialize;

pub struct Transcriber {
    config: OpenAiConfig,
    http: reqwest::Client,
}

#[derive(Deserialize)]
struct TranscriptionReply {
    text: String,
}

impl Transcriber {
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let http = crate::http::client(&config)?;
        Ok(Transcriber { config, http })
    }

    pub fn describe(&self) -> String {
        format!("{} at {}", self.config.model, self.config.base_url)
    }

    /// The text of a recording (`audio` in the format `content_type` names, e.g. `audio/webm`).
    pub async fn transcribe(&self, audio: Vec<u8>, content_type: &str) -> Result<String, LlmError> {
        let url = format!("{}/audio/transcriptions", self.config.base_url.trim_end_matches('/'));
        let extension = match content_type.split(';').next().unwrap_or("").trim() {
            "audio/ogg" => "ogg",
            "audio/mpeg" | "audio/mp3" => "mp3",
            "audio/wav" | "audio/x-wav" => "wav",
            "audio/mp4" | "audio/m4a" => "m4a",
            _ => "webm",
        };
        let part = reqwest::multipart::Part::bytes(audio)
            .file_name(format!("recording.{extension}"))
            .mime_str(content_type)
            .map_err(|e| LlmError::Malformed(format!("audio content type {content_type}: {e}")))?;
        let form = reqwest::multipart::Form::new().text("model", self.config.model.clone()).part("file", part);
        let body = crate::http::send(&self.config, &url, self.http.post(&url).multipart(form)).await?;
        let reply: TranscriptionReply =
            serde_json::from_str(&body).map_err(|e| LlmError::Malformed(format!("transcription reply: {e}")))?;
        Ok(reply.text.trim().to_string())
    }
}
