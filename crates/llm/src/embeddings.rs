//! Text embeddings from an OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM,
//! llama.cpp's server), for retrieval that combines BM25 with meaning.

use crate::openai::OpenAiConfig;
use crate::LlmError;
use serde::Deserialize;
use serde_json::json;

/// Texts sent in one request.
const BATCH: usize = 64;

pub struct Embedder {
    config: OpenAiConfig,
    http: reqwest::Client,
}

#[derive(Deserialize)]
struct EmbeddingsReply {
    data: Vec<Embedding>,
}

#[derive(Deserialize)]
struct Embedding {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl Embedder {
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let http = crate::http::client(&config)?;
        Ok(Embedder { config, http })
    }

    pub fn describe(&self) -> String {
        format!("{} at {}", self.config.model, self.config.base_url)
    }

    /// One vector per text, in order.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            vectors.extend(self.embed_batch(batch).await?);
        }
        Ok(vectors)
    }

    async fn embed_batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let url = format!("{}/embeddings", self.config.base_url.trim_end_matches('/'));
        let call = self.http.post(&url).json(&json!({ "model": self.config.model, "input": texts }));
        let body = crate::http::send(&self.config, &url, call).await?;
        let reply: EmbeddingsReply =
            serde_json::from_str(&body).map_err(|e| LlmError::Malformed(format!("embeddings reply: {e}")))?;
        if reply.data.len() != texts.len() {
            return Err(LlmError::Malformed(format!("asked for {} embeddings, got {}", texts.len(), reply.data.len())));
        }
        let mut data = reply.data;
        // Servers give `index`; order by it when they do.
        if data.iter().all(|d| d.index.is_some()) {
            data.sort_by_key(|d| d.index);
        }
        Ok(data.into_iter().map(|d| d.embedding).collect())
    }
}
