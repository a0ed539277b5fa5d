//! Learners and their API tokens. Tokens are random, shown once, and stored only as a
//! SHA-256 hash: they carry 256 bits of entropy, so a slow password hash would add cost
//! to every request without adding safety. A learner may hold several tokens, each named;
//! a token is revoked rather than deleted, so that a request with it is told why it fails.
//!
//! What an operator does with learners (the list, deletion, export and import) is in
//! [`administration`] and [`transfer`].

pub mod administration;
pub mod transfer;

use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind, Learner};
use chrono::{DateTime, Duration, Utc};
use pathwise_domain::lifecycle::clean_text;
use pathwise_domain::{LearnerId, TokenId};
use pathwise_store::{LearnerAdminStore, MapStore};
use pathwise_store::{NewToken, TokenRecord};
use rand::RngCore;
use serde::Serialize;
use sha2::{Digest, Sha256};

pub const TOKEN_PREFIX: &str = "pw_";

/// The name of a learner's first token.
pub const FIRST_TOKEN_NAME: &str = "default";
/// The name of a token the local learner's sign-in mints when the last one was lost.
pub const LOCAL_SIGN_IN_TOKEN_NAME: &str = "local sign-in";
/// The longest token name.
pub const MAX_TOKEN_NAME_CHARS: usize = 100;

/// How stale a token's `last_used_at` may be: authenticating writes it at most this often
/// per token, so that the hot path of every request reads and does not write.
pub fn token_use_precision() -> Duration {
    Duration::seconds(60)
}

/// A learner just created, with the only copy of their token.
#[derive(Debug, Clone)]
pub struct NewLearner {
    pub learner: Learner,
    pub token: String,
}

/// One of a learner's API tokens, as an operator sees it: never the token itself.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TokenInfo {
    pub id: TokenId,
    pub learner_id: LearnerId,
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// When a request last authenticated with it (noted at most once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it was revoked; a revoked token authenticates no more.
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<TokenRecord> for TokenInfo {
    fn from(t: TokenRecord) -> Self {
        TokenInfo {
            id: t.id,
            learner_id: t.learner_id,
            name: t.name,
            created_at: t.created_at,
            last_used_at: t.last_used_at,
            revoked_at: t.revoked_at,
        }
    }
}

/// A token just issued, with the only copy of its secret.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct IssuedToken {
    #[serde(flatten)]
    pub info: TokenInfo,
    /// The API token (`Authorization: Bearer <token>`). It is shown only this once.
    pub token: String,
}

/// A rotation: the new token, and the old one as revoked.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct RotatedToken {
    pub issued: IssuedToken,
    pub revoked: TokenInfo,
}

pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.trim().as_bytes()))
}

fn mint_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    format!("{TOKEN_PREFIX}{}", hex::encode(bytes))
}

impl<S: StoreHandle + LearnerAdminStore + MapStore> App<S> {
    pub async fn create_learner(&self, name: &str) -> AppResult<NewLearner> {
        let name = clean_text("name", name, 200)?;
        self.insert_learner(name, false).await
    }

    async fn insert_learner(&self, name: String, is_local: bool) -> AppResult<NewLearner> {
        let learner = Learner { id: LearnerId(Self::new_id()), name, is_local, created_at: self.now() };
        let (token, secret) = self.new_token(learner.id, FIRST_TOKEN_NAME.to_string());
        self.store.create_learner(&learner, &token).await?;
        Ok(NewLearner { learner, token: secret })
    }

    /// A token to store and its secret.
    fn new_token(&self, learner: LearnerId, name: String) -> (NewToken, String) {
        let secret = mint_token();
        let token = NewToken {
            id: TokenId(Self::new_id()),
            learner_id: learner,
            name,
            token_hash: hash_token(&secret),
            created_at: self.now(),
        };
        (token, secret)
    }

    /// The learner a bearer token belongs to. A revoked token is refused saying so, and
    /// when; a token's use is noted at most once a [`token_use_precision`].
    pub async fn authenticate(&self, token: &str) -> AppResult<Learner> {
        let Some((learner, record)) = self.store.token_by_hash(&hash_token(token)).await? else {
            return Err(AppError::new(
                ErrorKind::Unauthorized,
                ErrorCode::Unauthorized,
                "the API token is not valid; send Authorization: Bearer <token>",
            ));
        };
        if let Some(revoked_at) = record.revoked_at {
            return Err(AppError::new(
                ErrorKind::Unauthorized,
                ErrorCode::TokenRevoked,
                format!(
                    "this API token ('{}') was revoked at {}; ask the operator for a new one",
                    record.name,
                    revoked_at.to_rfc3339()
                ),
            )
            .with_details(serde_json::json!({ "token_id": record.id, "revoked_at": revoked_at })));
        }
        let now = self.now();
        let noted_since = now - token_use_precision();
        let stale = match record.last_used_at {
            Some(used) => used < noted_since,
            None => true,
        };
        if stale {
            // The request goes on whether or not the note is written: a busy database costs
            // a minute of precision, never the request.
            if let Err(error) = self.store.record_token_use(record.id, now, noted_since).await {
                tracing::warn!(%error, token = %record.id, "could not note a token's use");
            }
        }
        Ok(learner)
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
            let (token, secret) = self.new_token(learner.id, LOCAL_SIGN_IN_TOKEN_NAME.to_string());
            self.store.add_token(&token).await?;
            return Ok(NewLearner { learner, token: secret });
        }
        self.insert_learner("local learner".into(), true).await
    }

    /// A learner by id, for the operator.
    pub async fn learner(&self, id: LearnerId) -> AppResult<Learner> {
        self.store.learner(id).await?.ok_or_else(|| AppError::not_found("learner", id))
    }

    /// The learner's tokens, oldest first, revoked ones included.
    pub async fn learner_tokens(&self, learner: LearnerId) -> AppResult<Vec<TokenInfo>> {
        self.learner(learner).await?;
        Ok(self.store.learner_tokens(learner).await?.into_iter().map(TokenInfo::from).collect())
    }

    /// Another token for the learner, named so that the operator can tell it apart.
    pub async fn create_token(&self, learner: LearnerId, name: &str) -> AppResult<IssuedToken> {
        let name = clean_text("name", name, MAX_TOKEN_NAME_CHARS)?;
        self.learner(learner).await?;
        let (token, secret) = self.new_token(learner, name);
        self.store.add_token(&token).await?;
        Ok(IssuedToken { info: token.record().into(), token: secret })
    }

    /// Revoke one of the learner's tokens; revoking a revoked token changes nothing.
    pub async fn revoke_token(&self, learner: LearnerId, token: TokenId) -> AppResult<TokenInfo> {
        self.learner(learner).await?;
        let revoked = self.store.revoke_token(learner, token, self.now()).await?;
        revoked.map(TokenInfo::from).ok_or_else(|| AppError::not_found("token", token))
    }

    /// A new token in place of one in force, under its name; the old one is revoked in the
    /// same transaction, so that the learner never has both or neither.
    pub async fn rotate_token(&self, learner: LearnerId, token: TokenId) -> AppResult<RotatedToken> {
        self.learner(learner).await?;
        let name = self
            .store
            .learner_tokens(learner)
            .await?
            .into_iter()
            .find(|t| t.id == token)
            .map(|t| t.name)
            .ok_or_else(|| AppError::not_found("token", token))?;
        let (new, secret) = self.new_token(learner, name);
        let revoked = self.store.rotate_token(learner, token, &new).await.map_err(|e| match e {
            pathwise_store::StoreError::NotFound(_) => AppError::not_found("token", token),
            other => {
                let mut error = AppError::from(other);
                if error.kind == ErrorKind::Conflict {
                    error.code = ErrorCode::TokenRevoked;
                }
                error
            }
        })?;
        Ok(RotatedToken { issued: IssuedToken { info: new.record().into(), token: secret }, revoked: revoked.into() })
    }
}
