//! Pathwise's use cases. Each public method of [`App`] is one operation of the
//! specifications (`mastery_record_response`, `curriculum_replan`, ...), scoped to one
//! learner. Front doors (HTTP, MCP, CLI) call these and nothing else; rules come from
//! `pathwise-domain`, persistence from `pathwise-store`.

pub mod analytics;
pub mod anki_import;
pub mod authoring;
pub mod clock;
pub mod course_tutor;
pub mod error;
pub mod fsrs;
pub mod idempotency;
pub mod jobs;
mod learner_cache;
pub mod learners;
pub mod learning_loop;
pub mod maps;
pub mod mastery;
pub mod paging;
pub mod queries;
pub mod review_schedule;
pub mod sessions;
pub mod stores;
pub mod usage;

// The operations' modules under the names the front doors have always used.
pub use course_tutor::voice;
pub use fsrs::parameters as fsrs_parameters;
pub use jobs::scheduler;
pub use learning_loop::{advance, diagnostics, flows, teaching};
pub use maps::{curriculum, generation, replanning};
pub use mastery::preferences;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{AppError, AppResult, ErrorKind};
pub use pathwise_domain::ErrorCode;
pub use pathwise_llm::Llm;
pub use pathwise_notify::Notifier;
pub use pathwise_store::{AnyStore, Learner, Store};

/// Identifiers are UUIDv7: unique without coordination, and in creation order, which keeps
/// index inserts local. Every capability and service makes its ids here.
pub(crate) fn new_id() -> Uuid {
    Uuid::now_v7()
}

/// What every capability asks of its store beside the store traits it uses: a handle that
/// tasks share and move between threads.
pub trait StoreHandle: Clone + Send + Sync + 'static {}
impl<T: Clone + Send + Sync + 'static> StoreHandle for T {}

use pathwise_domain::graph::GraphLimits;
use std::sync::Arc;
use uuid::Uuid;

/// The application: a store, a clock, a language model (or none), and the limits maps
/// are held to.
#[derive(Clone)]
pub struct App<S = AnyStore> {
    store: S,
    clock: Arc<dyn Clock>,
    llm: Llm,
    limits: GraphLimits,
    /// Learning analytics, with the model that writes digests and the notifiers.
    analytics: analytics::Analytics<S>,
    /// Review jobs kept in step with the maps.
    review_jobs: review_schedule::ReviewJobs<S>,
    /// Anki packages brought in, scheduled through the same FSRS service and review jobs.
    anki: anki_import::AnkiImporter<S>,
    /// FSRS scheduling, with its one cache of what schedules each learner.
    fsrs: fsrs::FsrsService<S>,
    /// Where learners' code runs; none when this machine cannot isolate it.
    sandbox: Option<Arc<pathwise_sandbox::Sandbox>>,
    /// The skill and assessment blueprints sessions draw items from.
    library: Arc<pathwise_items::Library>,
    /// Courses this server has loaded, with their retrieval indexes.
    courses: course_tutor::catalog::CourseCache,
    /// The authority on exam attempts and lockouts.
    exams: Option<Arc<dyn course_tutor::ExamService>>,
    tutor: course_tutor::TutorSettings,
    /// Embeddings for retrieval beside BM25, when an embedding model is configured.
    embedder: Option<Arc<pathwise_llm::Embedder>>,
    /// Speech to text for voice input, when a transcription model is configured.
    transcriber: Option<Arc<pathwise_llm::Transcriber>>,
    /// The learners' own documents, with what ingestion may read.
    documents: authoring::Documents<S>,
}

impl<S: StoreHandle> App<S> {
    pub fn new(store: S) -> Self {
        Self::with_clock(store, Arc::new(SystemClock))
    }

    pub fn with_clock(store: S, clock: Arc<dyn Clock>) -> Self {
        let fsrs = fsrs::FsrsService::new(store.clone(), clock.clone());
        let review_jobs = review_schedule::ReviewJobs::new(store.clone(), clock.clone());
        let documents = authoring::Documents::new(store.clone(), clock.clone(), Default::default());
        let analytics = analytics::Analytics::new(store.clone(), clock.clone());
        App {
            anki: anki_import::AnkiImporter::new(store.clone(), clock.clone(), fsrs.clone(), review_jobs.clone()),
            fsrs,
            review_jobs,
            clock,
            llm: Llm::offline(),
            limits: GraphLimits::SINGLE_TOPIC,
            analytics,
            sandbox: None,
            library: sessions::builtin_library(),
            courses: Default::default(),
            exams: None,
            tutor: course_tutor::TutorSettings::default(),
            embedder: None,
            transcriber: None,
            documents,
            store,
        }
    }

    /// The same application with these tutor settings (the built-in exam service takes
    /// their lockout).
    pub fn with_tutor_settings(mut self, settings: course_tutor::TutorSettings) -> Self {
        self.tutor = settings;
        self
    }

    /// The same application ingesting documents with these settings (where files may be read
    /// from, and how much).
    pub fn with_authoring_settings(mut self, settings: authoring::AuthoringSettings) -> Self {
        self.documents = authoring::Documents::new(self.store.clone(), self.clock.clone(), settings);
        self
    }

    pub fn authoring_settings(&self) -> &authoring::AuthoringSettings {
        self.documents.settings()
    }

    /// The same application retrieving course content by embeddings as well as BM25.
    pub fn with_embedder(mut self, embedder: Arc<pathwise_llm::Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// The same application asking this exam service about exam questions.
    pub fn with_exam_service(mut self, exams: Arc<dyn course_tutor::ExamService>) -> Self {
        self.exams = Some(exams);
        self
    }

    /// The same application transcribing voice input with this model.
    pub fn with_transcriber(mut self, transcriber: Arc<pathwise_llm::Transcriber>) -> Self {
        self.transcriber = Some(transcriber);
        self
    }

    pub fn transcriber(&self) -> Option<&pathwise_llm::Transcriber> {
        self.transcriber.as_deref()
    }

    /// How course content is retrieved, for the banner.
    pub fn retrieval_mode(&self) -> String {
        match &self.embedder {
            Some(e) => format!("BM25 and embeddings ({}), fused by reciprocal rank", e.describe()),
            None => "BM25".to_string(),
        }
    }

    pub fn tutor_settings(&self) -> &course_tutor::TutorSettings {
        &self.tutor
    }

    /// The same application delivering digests and reminders through these notifiers.
    pub fn with_notifiers(mut self, notifiers: Vec<Arc<dyn pathwise_notify::Notifier>>) -> Self {
        self.analytics = self.analytics.with_notifiers(Arc::new(notifiers));
        self
    }

    /// The same application with a language model; without one it runs offline.
    pub fn with_llm(mut self, llm: Llm) -> Self {
        self.analytics = self.analytics.with_llm(llm.clone());
        self.llm = llm;
        self
    }

    /// The same application running learners' code in this sandbox.
    pub fn with_sandbox(mut self, sandbox: Arc<pathwise_sandbox::Sandbox>) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    pub fn sandbox(&self) -> Option<Arc<pathwise_sandbox::Sandbox>> {
        self.sandbox.clone()
    }

    /// The same application drawing items from this library (the built-in packs and the
    /// operator's own).
    pub fn with_library(mut self, library: pathwise_items::Library) -> Self {
        self.library = Arc::new(library);
        self
    }

    pub fn library(&self) -> &pathwise_items::Library {
        &self.library
    }

    pub fn llm(&self) -> &Llm {
        &self.llm
    }

    /// FSRS: a learner's fitted parameters, how well they predict them, a fit on request.
    pub fn fsrs(&self) -> &fsrs::FsrsService<S> {
        &self.fsrs
    }

    /// The learner's own documents: ingested, listed, read with their chunks, deleted.
    pub fn documents(&self) -> &authoring::Documents<S> {
        &self.documents
    }

    /// Learning analytics: a map's figures and trend, the digest.
    pub fn analytics(&self) -> &analytics::Analytics<S> {
        &self.analytics
    }

    /// Anki packages brought in.
    pub fn anki(&self) -> &anki_import::AnkiImporter<S> {
        &self.anki
    }

    /// Review jobs: re-planned when a map changes, flushed by the scheduler.
    pub fn review_jobs(&self) -> &review_schedule::ReviewJobs<S> {
        &self.review_jobs
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    fn new_id() -> Uuid {
        new_id()
    }
}

impl<S: StoreHandle + pathwise_store::MapStore> App<S> {
    /// A learner's map with its nodes and edges, or not found: the one read of a whole map
    /// every capability shares (maps, mastery), so that none calls another for it.
    pub(crate) async fn whole_map(
        &self,
        learner: pathwise_domain::LearnerId,
        id: pathwise_domain::MindMapId,
    ) -> AppResult<pathwise_domain::model::MapAggregate> {
        self.store.load_map(learner, id).await?.ok_or_else(|| AppError::not_found("mind map", id))
    }
}
