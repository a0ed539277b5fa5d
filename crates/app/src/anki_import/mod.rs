//! Years of Anki reviews brought in: a package (`.apkg` or `.colpkg`, any format Anki
//! writes) read by `pathwise_anki`, each deck made a map (or the map an earlier import made
//! brought up to date), the review log recorded as answers with their real times and
//! grades, then the learner's FSRS parameters fitted on it and, for an FSRS learner, every
//! concept's memory replayed and the imported ones scheduled as FSRS would have. The package
//! is read whole before anything is written, so a file that is not a package, or a damaged
//! one, stores nothing.

mod deck;

pub use deck::DeckImport;

use crate::fsrs::parameters::FsrsStatus;
use crate::fsrs::{FsrsService, FsrsStores};
use crate::review_schedule::ReviewJobs;
use crate::{AppError, AppResult, Clock, ErrorCode, ErrorKind, StoreHandle};
use pathwise_anki::{AnkiError, SkipReason};
use pathwise_domain::graph::ANKI_DECK_KEY;
use pathwise_domain::{LearnerId, MindMapId, NodeId, SrsScheduler};
use pathwise_store::{ImportStore, JobStore};
use serde::Serialize;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek};
use std::sync::Arc;
use utoipa::ToSchema;

/// What an import brought in, left out and why.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct AnkiImport {
    /// The collection file read: `anki2`, `anki21` or `anki21b`.
    pub format: String,
    /// A map per deck with cards.
    pub decks: Vec<DeckImport>,
    pub concepts_added: usize,
    pub concepts_updated: usize,
    /// Review-log rows brought in as answers.
    pub answers_imported: usize,
    /// Rows of the review log in the package.
    pub review_log_rows: usize,
    /// Rows not brought in, by reason; with `answers_imported` they add up to
    /// `review_log_rows`.
    pub skipped: Vec<SkippedRows>,
    /// Media files in the package: counted, not imported (concepts hold text).
    pub media_files: usize,
    /// What was brought in only in part.
    pub warnings: Vec<String>,
    /// The learner's FSRS parameters, fitted again on the history now held.
    pub fsrs: FsrsStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, ToSchema, schemars::JsonSchema)]
pub struct SkippedRows {
    /// `manual`, `rescheduled`, `before_reset`, `filtered_without_grade`, `no_grade`,
    /// `unknown`, `card_missing`, `already_imported` or `future_dated` (dated after the
    /// server's clock).
    pub reason: String,
    pub rows: usize,
    /// The reason in words.
    pub meaning: String,
}

/// How far an import has got, for a progress bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportProgress {
    pub decks_done: usize,
    pub decks: usize,
    pub answers_done: usize,
    pub answers: usize,
    /// What is under way: the deck being written, or the fit.
    pub doing: String,
}

/// What an Anki import asks of its store: the history written deck by deck, and what FSRS
/// and the review jobs ask after it.
pub trait AnkiImportStores: FsrsStores + ImportStore + JobStore {}
impl<T: FsrsStores + ImportStore + JobStore> AnkiImportStores for T {}

/// Anki packages brought in: a service of its own, which fits and schedules through FSRS and
/// re-plans the review jobs of the maps it wrote.
#[derive(Clone)]
pub struct AnkiImporter<S = pathwise_store::AnyStore> {
    store: S,
    clock: Arc<dyn Clock>,
    fsrs: FsrsService<S>,
    review_jobs: ReviewJobs<S>,
}

impl<S: StoreHandle> AnkiImporter<S> {
    pub fn new(store: S, clock: Arc<dyn Clock>, fsrs: FsrsService<S>, review_jobs: ReviewJobs<S>) -> Self {
        AnkiImporter { store, clock, fsrs, review_jobs }
    }
}

impl<S: AnkiImportStores> AnkiImporter<S> {
    /// Import an Anki package for `learner`; `progress` hears after each deck.
    pub async fn import<R>(
        &self,
        learner: LearnerId,
        package: R,
        progress: impl Fn(ImportProgress) + Send + Sync,
    ) -> AppResult<AnkiImport>
    where
        R: Read + Seek + Send + 'static,
    {
        let collection = tokio::task::spawn_blocking(move || pathwise_anki::read(package))
            .await
            .map_err(|e| AppError::internal(format!("reading the package stopped: {e}")))?
            .map_err(refusal)?;
        let deck_maps = self.anki_deck_maps(learner).await?;
        let mut already_imported = HashMap::new();
        for deck in &collection.decks {
            let Some(&map) = deck_maps.get(&deck.id) else { continue };
            let Some(found) = self.store.load_map(learner, map).await? else { continue };
            for node in &found.nodes {
                let card = node.metadata.get(deck::CARD_KEY).and_then(|v| v.as_i64());
                let through = node.metadata.get(deck::REVIEWS_THROUGH_KEY).and_then(|v| v.as_i64());
                if let (Some(card), Some(through)) = (card, through) {
                    already_imported.insert(card, through);
                }
            }
        }
        // Dated by the app's clock, so that a review a device dated ahead of it is skipped.
        let plan = pathwise_anki::plan(&collection, &already_imported, self.clock.now());
        let review_log_rows = collection.revlog.len();
        let (format, media_files, mut warnings) = (
            collection.format.entry().trim_start_matches("collection.").to_string(),
            collection.media_files,
            plan.warnings,
        );
        if let Some(newer) = &collection.newer {
            warnings.insert(0, format!("written by a newer Anki ({newer}): read as far as the known layout goes"));
        }
        if plan.decks.is_empty() {
            warnings.push("the collection has no cards: nothing to import".into());
        }
        drop(collection);
        let mut done = ImportProgress {
            decks_done: 0,
            decks: plan.decks.len(),
            answers_done: 0,
            answers: plan.answers,
            doing: String::new(),
        };
        let mut decks = Vec::with_capacity(plan.decks.len());
        let mut skipped = plan.skipped;
        let mut imported_nodes = HashSet::new();
        for deck_plan in plan.decks {
            done.doing = format!("writing {}", deck_plan.name);
            progress(done.clone());
            let existing = deck_maps.get(&deck_plan.deck_id).copied();
            let now = self.clock.now();
            let planned: usize = deck_plan.cards.iter().map(|c| c.answers.len()).sum();
            let (account, answered) = self
                .store
                .import_history(learner, existing, move |found| {
                    let (import, account) = deck::import_deck(&deck_plan, learner, found, now, &mut crate::new_id)?;
                    let answered: Vec<NodeId> = import.histories.iter().map(|(node, _)| *node).collect();
                    Ok((import, (account, answered)))
                })
                .await?;
            imported_nodes.extend(answered);
            // Answers another import of the same package brought in meanwhile.
            if planned > account.answers_imported {
                *skipped.entry(SkipReason::AlreadyImported).or_default() += planned - account.answers_imported;
            }
            self.review_jobs.sync(learner, account.mind_map_id).await?;
            done.decks_done += 1;
            done.answers_done += planned;
            decks.push(account);
        }
        done.doing = "fitting FSRS to the reviews".into();
        progress(done);
        // Fitted first, so that an FSRS learner's memories and schedule come from their own
        // parameters where the fit gave them some.
        let fsrs = self.fsrs.fit(learner).await?;
        if self.store.preferences(learner).await?.srs_scheduler == SrsScheduler::Fsrs {
            self.fsrs.replay_memories(learner).await?;
            self.fsrs.schedule_imported(learner, &imported_nodes).await?;
        }
        Ok(AnkiImport {
            format,
            concepts_added: decks.iter().map(|d| d.concepts_added).sum(),
            concepts_updated: decks.iter().map(|d| d.concepts_updated).sum(),
            answers_imported: decks.iter().map(|d| d.answers_imported).sum(),
            decks,
            review_log_rows,
            skipped: skipped
                .into_iter()
                .map(|(reason, rows)| SkippedRows {
                    reason: serde_json::to_value(reason)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    rows,
                    meaning: reason.describe().to_string(),
                })
                .collect(),
            media_files,
            warnings,
            fsrs,
        })
    }

    /// The learner's maps made from Anki decks, by deck id.
    async fn anki_deck_maps(&self, learner: LearnerId) -> AppResult<HashMap<i64, MindMapId>> {
        const PAGE: i64 = 500;
        let mut found = HashMap::new();
        let mut offset = 0;
        loop {
            let page = self.store.list_maps(learner, None, offset, PAGE).await?;
            for map in &page.items {
                if let Some(deck) = map.metadata.get(ANKI_DECK_KEY).and_then(|v| v.as_i64()) {
                    found.insert(deck, map.id);
                }
            }
            offset += PAGE;
            if page.items.len() < PAGE as usize {
                return Ok(found);
            }
        }
    }
}

/// A package that cannot be read: the learner's file is at fault (422), never the server.
fn refusal(error: AnkiError) -> AppError {
    let code = match &error {
        AnkiError::NotAPackage(_) | AnkiError::NoCollection(_) | AnkiError::NotACollection(_) => {
            ErrorCode::NotAnAnkiPackage
        }
        AnkiError::Encrypted(_) => ErrorCode::AnkiPackageEncrypted,
        AnkiError::Damaged { .. } => ErrorCode::AnkiPackageDamaged,
        AnkiError::Newer(..) => ErrorCode::AnkiPackageTooNew,
        AnkiError::Io(e) => return AppError::internal(format!("reading the package failed: {e}")),
    };
    AppError::new(ErrorKind::Invalid, code, error.to_string()).with_details(json!({ "field": "file" }))
}
