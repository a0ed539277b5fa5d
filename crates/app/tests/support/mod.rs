//! The conformance harness: every scenario runs against SQLite, and against PostgreSQL
//! whenever `PATHWISE_TEST_DATABASE_URL` is set (each test in a schema of its own).
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use pathwise_app::curriculum::{GenerateInput, PlanSummary};
use pathwise_app::mastery::{RecordResponse, RecordedResponse};
use pathwise_app::{AnyStore, App, ManualClock, Store};
use pathwise_domain::model::{MapAggregate, Node};
use pathwise_domain::{LearnerId, MindMapId, NodeId, ResponseType};
use pathwise_store::{PgStore, SqliteStore};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

pub struct TestApp {
    pub app: App<AnyStore>,
    pub clock: Arc<ManualClock>,
    pub learner: LearnerId,
    cleanup: Cleanup,
}

enum Cleanup {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { url: String, schema: String },
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

async fn with_store(store: AnyStore, cleanup: Cleanup) -> TestApp {
    let clock = Arc::new(ManualClock::new(start_time()));
    let app = App::with_clock(store, clock.clone());
    let learner = app.create_learner("test learner").await.expect("learner").learner.id;
    TestApp { app, clock, learner, cleanup }
}

pub async fn sqlite() -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("pathwise.db")).await.expect("sqlite store");
    with_store(AnyStore::Sqlite(store), Cleanup::Sqlite(dir)).await
}

pub fn postgres_url() -> Option<String> {
    pathwise_store::testing::test_database_url()
}

/// A PostgreSQL-backed app in a fresh schema, or `None` when no test database is configured.
pub async fn postgres() -> Option<TestApp> {
    use sqlx::postgres::PgConnectOptions;
    use sqlx::Connection;
    let url = postgres_url()?;
    let schema = format!("pwt_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&url).await.expect("connect to PATHWISE_TEST_DATABASE_URL");
    sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut admin).await.expect("create schema");
    admin.close().await.ok();
    let options: PgConnectOptions = url.parse().expect("PostgreSQL URL");
    let store =
        PgStore::connect_with(options.options([("search_path", schema.as_str())]), 4).await.expect("postgres store");
    Some(with_store(AnyStore::Postgres(store), Cleanup::Postgres { url, schema }).await)
}

impl TestApp {
    pub async fn finish(self) {
        if let Cleanup::Postgres { url, schema } = &self.cleanup {
            use sqlx::Connection;
            if let AnyStore::Postgres(store) = self.app.store() {
                store.pool().close().await;
            }
            let mut admin = sqlx::PgConnection::connect(url).await.expect("connect");
            sqlx::query(&format!("DROP SCHEMA {schema} CASCADE")).execute(&mut admin).await.expect("drop schema");
        }
    }

    pub fn app(&self) -> &App<AnyStore> {
        &self.app
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
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let t = $crate::support::sqlite().await;
                    super::$name(&t).await;
                    t.finish().await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let Some(t) = $crate::support::postgres().await else { return };
                    super::$name(&t).await;
                    t.finish().await;
                }
            )*
        }
    };
}
