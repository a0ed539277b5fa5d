//! Learners and their API tokens. Tokens are random, shown once, and stored only as a
//! SHA-256 hash: they carry 256 bits of entropy, so a slow password hash would add cost
//! to every request without adding safety.

use crate::{App, AppError, AppResult, Learner, Store};
use pathwise_domain::lifecycle::clean_text;
use pathwise_domain::LearnerId;
use rand::RngCore;
use sha2::{Digest, Sha256};

pub const TOKEN_PREFIX: &str = "pw_";

/// A learner just created, with the only copy of their token.
#[derive(Debug, Clone)]
pub struct NewLearner {
    pub learner: Learner,
    pub token: String,
}

pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.trim().as_bytes()))
}

fn mint_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    format!("{TOKEN_PREFIX}{}", hex::encode(bytes))
}

impl<S: Store> App<S> {
    pub async fn create_learner(&self, name: &str) -> AppResult<NewLearner> {
        let name = clean_text("name", name, 200)?;
        self.insert_learner(name, false).await
    }

    async fn insert_learner(&self, name: String, is_local: bool) -> AppResult<NewLearner> {
        let learner = Learner { id: LearnerId(Self::new_id()), name, is_local, created_at: self.now() };
        let token = mint_token();
        self.store.create_learner(&learner, &hash_token(&token)).await?;
        Ok(NewLearner { learner, token })
    }

    /// The learner a bearer token belongs to.
    pub async fn authenticate(&self, token: &str) -> AppResult<Learner> {
        self.store.learner_by_token_hash(&hash_token(token)).await?.ok_or_else(|| {
            AppError::new(
                crate::ErrorKind::Unauthorized,
                "unauthorized",
                "the API token is not valid; send Authorization: Bearer <token>",
            )
        })
    }

    /// The local learner of a loopback server, created on first use. The token is new
    /// whenever one is minted: on creation, or when the caller lost the previous one.
    pub async fn local_learner(&self, known_token: Option<&str>) -> AppResult<NewLearner> {
        if let Some(learner) = self.store.local_learner().await? {
            if let Some(token) = known_token {
                if self.authenticate(token).await.map(|l| l.id == learner.id).unwrap_or(false) {
                    return Ok(NewLearner { learner, token: token.to_string() });
                }
            }
            let token = mint_token();
            self.store.add_token(learner.id, &hash_token(&token), self.now()).await?;
            return Ok(NewLearner { learner, token });
        }
        self.insert_learner("local learner".into(), true).await
    }
}
