//! Replies kept by idempotency key, so that a request retried with the same key (after a
//! lost reply, a timeout, a crash) is answered as the first time and stores nothing again.
//! Every door that records evidence goes through here: HTTP (the `Idempotency-Key` header),
//! MCP (an `idempotency_key` argument) and the CLI. A response (`record_response`) keeps its
//! key in its own row, in its own transaction, so that a key is never separated from what it
//! stored; other operations are safe to run again by their own binding (a drill graded
//! once, a question answered once), and their first reply is kept here.

use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode};
use chrono::Duration;
use pathwise_domain::LearnerId;
use pathwise_store::StoredReply;
use pathwise_store::{EvidenceStore, MapStore};
use sha2::{Digest, Sha256};

/// Replies are kept this long: retries come within minutes, and clients are promised a day.
pub const KEEP_REPLIES_DAYS: i64 = 7;

/// What a request asked, as a hash of its parts (its route and its body, say): the same key
/// with another request is refused.
pub fn fingerprint(parts: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    hex::encode(hash.finalize())
}

/// The longest idempotency key taken.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 255;

/// An idempotency key as a client sends it: 1-255 printable ASCII characters.
pub fn check_key(key: &str) -> AppResult<()> {
    if key.is_empty() || key.len() > MAX_IDEMPOTENCY_KEY_CHARS || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(AppError::new(
            crate::ErrorKind::BadRequest,
            ErrorCode::BadIdempotencyKey,
            format!(
                "Idempotency-Key: must be 1-{MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters without spaces \
                 (a UUID is a good key)"
            ),
        )
        .with_details(serde_json::json!({ "field": "Idempotency-Key", "max_chars": MAX_IDEMPOTENCY_KEY_CHARS })));
    }
    Ok(())
}

/// The same key sent with another request.
pub fn reused_key_error() -> AppError {
    AppError::new(
        crate::ErrorKind::Invalid,
        ErrorCode::IdempotencyKeyReused,
        "Idempotency-Key: this key was used for another request (another body or route); use a new key for a new request",
    )
    .with_details(serde_json::json!({ "field": "Idempotency-Key" }))
}

impl<S: StoreHandle + EvidenceStore + MapStore> App<S> {
    /// The reply kept under the learner's `key` for this request, if any; the same key kept
    /// for another request is refused.
    pub async fn kept_reply(&self, learner: LearnerId, key: &str, fingerprint: &str) -> AppResult<Option<StoredReply>> {
        check_key(key)?;
        match self.store.stored_reply(learner, key).await? {
            Some(reply) if reply.fingerprint != fingerprint => Err(reused_key_error()),
            found => Ok(found),
        }
    }

    /// Keep a successful reply under the learner's `key` (a reply kept there first stays).
    pub async fn keep_reply(
        &self,
        learner: LearnerId,
        key: &str,
        fingerprint: &str,
        status: u16,
        body: String,
    ) -> AppResult<()> {
        let reply = StoredReply { fingerprint: fingerprint.to_string(), status, body, created_at: self.now() };
        self.store.keep_reply(learner, key, &reply).await?;
        Ok(())
    }

    /// Forget replies older than [`KEEP_REPLIES_DAYS`] (the nightly job does).
    pub async fn forget_old_replies(&self) -> AppResult<u64> {
        Ok(self.store.forget_replies(self.now() - Duration::days(KEEP_REPLIES_DAYS)).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn fingerprints_tell_requests_apart_by_every_part() {
        let a = fingerprint(&[b"POST /api/x", b"{}"]);
        assert_eq!(a, fingerprint(&[b"POST /api/x", b"{}"]));
        assert_ne!(a, fingerprint(&[b"POST /api/y", b"{}"]));
        assert_ne!(a, fingerprint(&[b"POST /api/x", b"{ }"]));
        // Parts are delimited: moving bytes from one part to the next is another request.
        assert_ne!(fingerprint(&[b"ab", b"c"]), fingerprint(&[b"a", b"bc"]));
    }
}
