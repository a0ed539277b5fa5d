//! The conformance harness: every scenario runs against SQLite, and against PostgreSQL
//! whenever `PATHWISE_TEST_DATABASE_URL` is set (each test in a schema of its own, dropped
//! when the test ends however it ends: see `pathwise-test-support`).
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use pathwise_app::curriculum::{GenerateInput, PlanSummary};
use pathwise_app::mastery::{RecordResponse, RecordedResponse};
use pathwise_app::{AnyStore, App, ManualClock, Store};
use pathwise_domain::model::{MapAggregate, Node};
use pathwise_domain::{LearnerId, MindMapId, NodeId, ResponseType};
use pathwise_test_support::{TestDatabase, TestStore};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

pub struct TestApp {
    pub app: App<AnyStore>,
    pub clock: Arc<ManualClock>,
    pub learner: LearnerId,
    /// The test's database, removed when the test ends however it ends.
    _database: TestDatabase,
}

/// The test's application with a fake OpenAI-compatible model over real HTTP (replies time
/// out after 500 ms).
pub async fn with_model(t: &TestApp) -> (pathwise_fake_llm::FakeLlm, App<AnyStore>) {
    use pathwise_llm::{Llm, OpenAiClient, OpenAiConfig};
    let fake = pathwise_fake_llm::FakeLlm::start().await;
    let config =
        OpenAiConfig { timeout: std::time::Duration::from_millis(500), ..OpenAiConfig::new(fake.base_url(), "tutor") };
    let llm = Llm::new(Arc::new(OpenAiClient::new(config).unwrap()), 2);
    (fake, t.app().clone().with_llm(llm))
}

pub fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc)
}

impl TestApp {
    /// The application over a test store, with a manual clock at [`start_time`] and one
    /// learner.
    pub async fn open(test_store: TestStore) -> TestApp {
        let TestStore { store, database } = test_store;
        let clock = Arc::new(ManualClock::new(start_time()));
        let app = App::with_clock(store, clock.clone());
        let learner = app.create_learner("test learner").await.expect("learner").learner.id;
        TestApp { app, clock, learner, _database: database }
    }

    pub fn app(&self) -> &App<AnyStore> {
        &self.app
    }

    /// The time on the test's clock.
    pub fn clock_now(&self) -> DateTime<Utc> {
        pathwise_app::Clock::now(self.clock.as_ref())
    }

    /// Another learner, to prove isolation.
    pub async fn other_learner(&self) -> LearnerId {
        self.app.create_learner("someone else").await.unwrap().learner.id
    }

    /// Plan a new active map from a decomposition given as JSON (`root`, `nodes`, `edges`).
    pub async fn plan(&self, topic: &str, decomposition: Value) -> PlanSummary {
        self.plan_with(json!({ "topic": topic, "decomposition": decomposition })).await
    }

    /// Plan from a full `curriculum_generate` body (topic, goal, diagnostic_results, decomposition).
    pub async fn plan_with(&self, body: Value) -> PlanSummary {
        let input: GenerateInput = serde_json::from_value(body).expect("generate input");
        self.app.curriculum_generate(self.learner, input).await.expect("plan")
    }

    pub async fn map(&self, id: MindMapId) -> MapAggregate {
        self.app.get_map(self.learner, id).await.expect("map")
    }

    /// Node ids by label.
    pub async fn ids(&self, map: MindMapId) -> HashMap<String, NodeId> {
        self.map(map).await.nodes.into_iter().map(|n| (n.label, n.id)).collect()
    }

    pub async fn node(&self, id: NodeId) -> Node {
        self.app.get_node(self.learner, id).await.expect("node")
    }

    pub async fn record(&self, map: MindMapId, node: NodeId, quality: i64, kind: ResponseType) -> RecordedResponse {
        self.app
            .record_response(
                self.learner,
                RecordResponse::new(node, map, "question?", Some("answer"), quality, Some(kind)),
            )
            .await
            .expect("record response")
    }

    /// Advance the clock a minute, then record, so responses have distinct times.
    pub async fn record_later(
        &self,
        map: MindMapId,
        node: NodeId,
        quality: i64,
        kind: ResponseType,
    ) -> RecordedResponse {
        self.clock.advance(chrono::Duration::minutes(1));
        self.record(map, node, quality, kind).await
    }

    pub async fn counts(&self) -> Vec<(String, i64)> {
        self.app.store().table_counts().await.expect("counts")
    }
}

/// A chain `Root -> A -> B -> ...` for the labels given, each 10 minutes.
pub fn chain(labels: &[&str]) -> Value {
    let nodes: Vec<Value> = labels.iter().map(|l| json!({ "label": l, "effort_minutes": 10 })).collect();
    let edges: Vec<Value> = labels.windows(2).map(|w| json!({ "parent": w[0], "child": w[1] })).collect();
    json!({ "root": labels[0], "nodes": nodes, "edges": edges })
}

/// Run each named scenario `async fn name(t: &TestApp)` against every configured store.
#[macro_export]
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        pathwise_test_support::conformance!($crate::support::TestApp::open; $($name),*);
    };
}
