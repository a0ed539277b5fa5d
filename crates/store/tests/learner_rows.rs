//! Every row of a learner's, on SQLite and on PostgreSQL: the declaration of the tables a
//! learner's rows live in is held to the live schema (so that a migration cannot add a
//! table or a column an export would leave out), and a learner's rows are read, deleted
//! with the learner and written back whole.

use chrono::{DateTime, Duration, Utc};
use pathwise_domain::model::{Edge, MapChanges, MindMap, Node, QuizResponse};
use pathwise_domain::{
    CourseDraftId, DomainError, EdgeType, LearnerId, MapStatus, MasteryStatus, MindMapId, NodeId, ResponseId,
    ResponseType, SourceChunkId, SourceDocumentId, TokenId,
};
use pathwise_store::learner_rows::{Kind, LearnerRows, TableRows, Value, LEARNER_TABLES, NOT_LEARNER_TABLES};
use pathwise_store::prelude::*;
use pathwise_store::{
    AnyStore, CourseDraftRecord, Learner, LlmCall, NewResponse, NewToken, Preferences, SourceChunkRecord,
    SourceDocumentRecord, StoreError,
};
use std::collections::{BTreeMap, BTreeSet};

pathwise_test_support::conformance!(
    the_declared_tables_are_every_table_of_a_learners_rows_with_every_column,
    a_learners_rows_are_read_deleted_with_them_and_written_back_whole,
    rows_are_written_all_or_none,
);

fn at(minutes: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z").unwrap().with_timezone(&Utc) + Duration::minutes(minutes)
}

fn id() -> uuid::Uuid {
    uuid::Uuid::now_v7()
}

/// Every table of the live schema with its columns and their types, as the database says.
async fn live_schema(store: &AnyStore) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut schema = BTreeMap::new();
    match store {
        AnyStore::Sqlite(sqlite) => {
            let url = format!("sqlite://{}?mode=ro", sqlite.path().display());
            let pool = sqlx::SqlitePool::connect(&url).await.expect("open the database");
            let tables: Vec<String> =
                sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                    .fetch_all(&pool)
                    .await
                    .unwrap();
            for table in tables {
                let columns: Vec<(String, String)> = sqlx::query_as("SELECT name, type FROM pragma_table_info($1)")
                    .bind(&table)
                    .fetch_all(&pool)
                    .await
                    .unwrap();
                schema.insert(table, columns.into_iter().collect());
            }
        }
        AnyStore::Postgres(pg) => {
            let columns: Vec<(String, String, String)> = sqlx::query_as(
                "SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns \
                 WHERE table_schema = current_schema()",
            )
            .fetch_all(pg.pool())
            .await
            .unwrap();
            for (table, column, kind) in columns {
                schema.entry(table).or_insert_with(BTreeMap::new).insert(column, kind);
            }
        }
    }
    schema
}

/// The type a column of `kind` has in each database.
fn declared_type(kind: Kind, sqlite: bool) -> &'static str {
    match (kind, sqlite) {
        (Kind::Id, true) | (Kind::Bytes, true) => "BLOB",
        (Kind::Time | Kind::Int | Kind::BigInt | Kind::Bool, true) => "INTEGER",
        (Kind::Text | Kind::Json | Kind::Date | Kind::Qualities, true) => "TEXT",
        (Kind::Float, true) => "REAL",
        (Kind::Id, false) => "uuid",
        (Kind::Time, false) => "timestamp with time zone",
        (Kind::Text, false) => "text",
        (Kind::Int, false) => "integer",
        (Kind::BigInt, false) => "bigint",
        (Kind::Float, false) => "double precision",
        (Kind::Bool, false) => "boolean",
        (Kind::Json, false) => "jsonb",
        (Kind::Bytes, false) => "bytea",
        (Kind::Date, false) => "date",
        (Kind::Qualities, false) => "ARRAY",
    }
}

async fn the_declared_tables_are_every_table_of_a_learners_rows_with_every_column(store: &AnyStore) {
    let sqlite = matches!(store, AnyStore::Sqlite(_));
    let schema = live_schema(store).await;
    let declared: BTreeSet<&str> =
        LEARNER_TABLES.iter().map(|t| t.name).chain(NOT_LEARNER_TABLES.iter().copied()).collect();
    let live: BTreeSet<&str> = schema.keys().map(String::as_str).collect();
    assert_eq!(live, declared, "a table is missing from LEARNER_TABLES or NOT_LEARNER_TABLES, or is gone");
    for table in LEARNER_TABLES {
        let columns = &schema[table.name];
        let mut expected: BTreeMap<String, String> =
            table.columns.iter().map(|c| (c.name.to_string(), declared_type(c.kind, sqlite).to_string())).collect();
        if table.sequenced {
            expected.insert("seq".into(), if sqlite { "INTEGER" } else { "bigint" }.into());
        }
        assert_eq!(columns, &expected, "the columns of {} and their declaration differ", table.name);
    }
}

/// A learner with rows in several tables, through the store's own writes.
async fn learner_with_rows(store: &AnyStore, name: &str) -> Learner {
    let learner = Learner { id: LearnerId(id()), name: name.into(), is_local: false, created_at: at(0) };
    let token = NewToken {
        id: TokenId(id()),
        learner_id: learner.id,
        name: "default".into(),
        token_hash: format!("hash-of-{name}"),
        created_at: at(0),
    };
    store.create_learner(&learner, &token).await.unwrap();
    let map = MindMap {
        id: MindMapId(id()),
        learner_id: learner.id,
        title: format!("{name}'s sets"),
        root_node_id: None,
        status: MapStatus::Active,
        metadata: Default::default(),
        created_at: at(1),
        updated_at: at(1),
    };
    let node = |label: &str, depth: i32| Node {
        id: NodeId(id()),
        mind_map_id: map.id,
        label: label.into(),
        description: Some("what it is".into()),
        depth,
        effort_minutes: Some(10),
        sequence: Some(depth + 1),
        mastery_score: 0.0,
        mastery_status: MasteryStatus::Unseen,
        ease_factor: 2.5,
        repetitions: 0,
        interval_days: 0.0,
        next_review_at: None,
        last_reviewed_at: None,
        mastered_at: None,
        metadata: Default::default(),
        created_at: at(1),
        updated_at: at(1),
    };
    let (root, child) = (node("Sets", 0), node("Relations", 1));
    let edge = Edge {
        mind_map_id: map.id,
        parent_node_id: root.id,
        child_node_id: child.id,
        edge_type: EdgeType::Prerequisite,
        created_at: at(1),
    };
    let mut map = map;
    map.root_node_id = Some(root.id);
    let changes =
        MapChanges { insert_nodes: vec![root.clone(), child.clone()], insert_edges: vec![edge], ..Default::default() };
    store.insert_map(&map, &changes).await.unwrap();
    for (minute, quality) in [(5, 4u8), (6, 2), (7, 5)] {
        let response = QuizResponse {
            id: ResponseId(id()),
            node_id: root.id,
            mind_map_id: map.id,
            question_text: "What is a set?".into(),
            user_answer: Some("a collection".into()),
            quality,
            rating: pathwise_domain::evidence::Rating::stated(pathwise_domain::mastery::Quality::of(quality)),
            response_type: ResponseType::Teach,
            session_id: None,
            responded_at: at(minute),
        };
        let new = NewResponse { response, idempotency_key: Some(format!("key-{minute}")) };
        store
            .record_response(learner.id, new, move |context| {
                let mut node = context.node.clone();
                node.mastery_status = MasteryStatus::Learning;
                node.mastery_score = 0.5;
                let history = context.history.after(quality, ResponseType::Teach);
                Ok(pathwise_store::ResponseDecision { node, history, became_mastered: false })
            })
            .await
            .unwrap();
    }
    store
        .record_llm_calls(&[LlmCall {
            learner_id: learner.id,
            operation: "curriculum_generate".into(),
            prompt_tokens: 120,
            completion_tokens: 30,
            at: at(8),
        }])
        .await
        .unwrap();
    store
        .set_preferences(
            learner.id,
            &Preferences { daily_review_cap: Some(20), srs_scheduler: pathwise_domain::SrsScheduler::Fsrs },
            at(9),
        )
        .await
        .unwrap();
    let document = SourceDocumentRecord {
        id: SourceDocumentId(id()),
        owner_id: learner.id,
        name: "notes/sets.md".into(),
        format: "markdown".into(),
        title: Some("Sets".into()),
        pages: None,
        byte_size: 2_048,
        file_hash: format!("file-of-{name}"),
        chunk_count: 2,
        ingested_at: at(10),
        updated_at: at(10),
    };
    let chunks: Vec<SourceChunkRecord> = ["Sets", "Relations"]
        .iter()
        .enumerate()
        .map(|(ordinal, heading)| SourceChunkRecord {
            id: SourceChunkId(id()),
            document_id: document.id,
            ordinal: ordinal as i32,
            content_hash: format!("chunk-{ordinal}"),
            heading_path: vec!["Sets".into(), heading.to_string()],
            page: None,
            text: format!("What {heading} are."),
        })
        .collect();
    store.put_source_document(&document, &chunks).await.unwrap();
    let draft = CourseDraftRecord {
        id: CourseDraftId(id()),
        owner_id: learner.id,
        title: "Sets, from my notes".into(),
        stage: "outline".into(),
        version: 0,
        created_at: at(11),
        updated_at: at(11),
        draft: serde_json::json!({ "units": [{ "title": "Sets", "cites": [chunks[0].id] }] }),
    };
    store.insert_course_draft(&draft).await.unwrap();
    learner
}

async fn a_learners_rows_are_read_deleted_with_them_and_written_back_whole(store: &AnyStore) {
    let bob = learner_with_rows(store, "Bob").await;
    let only_bob = store.table_counts().await.unwrap();
    let ada = learner_with_rows(store, "Ada").await;
    let bobs_rows = store.learner_rows(bob.id).await.unwrap().expect("Bob's rows");

    let rows = store.learner_rows(ada.id).await.unwrap().expect("Ada's rows");
    assert_eq!(rows.learner, ada);
    let count = |table: &str| rows.tables.iter().find(|t| t.table.name == table).unwrap().rows.len();
    assert_eq!(
        [count("api_tokens"), count("mind_maps"), count("mind_map_nodes"), count("mind_map_edges")],
        [1, 1, 2, 1]
    );
    assert_eq!(
        [count("quiz_responses"), count("llm_calls"), count("learner_preferences"), count("study_days")],
        [3, 1, 1, 1]
    );
    assert_eq!([count("source_documents"), count("source_chunks"), count("course_drafts")], [1, 2, 1]);
    // Responses keep the order they were stored in; their shared sequence is not exported.
    let responses = &rows.tables.iter().find(|t| t.table.name == "quiz_responses").unwrap().rows;
    let times: Vec<&Value> = responses.iter().map(|r| &r[8]).collect();
    assert_eq!(times, vec![&Value::Time(at(5)), &Value::Time(at(6)), &Value::Time(at(7))]);
    assert!(rows.tables.iter().filter(|t| t.table.sequenced).all(|t| t.table.column("seq").is_none()));

    assert!(store.delete_learner(ada.id).await.unwrap());
    assert!(!store.delete_learner(ada.id).await.unwrap(), "deleted once");
    assert_eq!(store.table_counts().await.unwrap(), only_bob, "nothing of Ada's is left, and all of Bob's is");
    assert_eq!(store.learner_rows(ada.id).await.unwrap(), None);
    assert_eq!(store.learner_rows(bob.id).await.unwrap().as_ref(), Some(&bobs_rows));

    store.insert_learner_rows(&rows).await.unwrap();
    assert_eq!(store.learner_rows(ada.id).await.unwrap(), Some(rows.clone()), "written back whole");
    assert!(store.token_by_hash("hash-of-Ada").await.unwrap().is_some(), "her token works again");
    let again = store.insert_learner_rows(&rows).await;
    assert!(matches!(again, Err(StoreError::Exists(_))), "{again:?}");
}

async fn rows_are_written_all_or_none(store: &AnyStore) {
    let ada = learner_with_rows(store, "Ada").await;
    let rows = store.learner_rows(ada.id).await.unwrap().unwrap();
    // The same rows under another learner's id: the learner is new, but the map's id is
    // taken, so nothing at all is written.
    let mut copy = rows.clone();
    let other = LearnerId(id());
    copy.learner.id = other;
    for table in &mut copy.tables {
        if let Some(i) = table.table.columns.iter().position(|c| c.names_the_learner()) {
            for row in &mut table.rows {
                row[i] = Value::Id(other.0);
            }
        }
        if table.table.name == "api_tokens" {
            table.rows.clear();
        }
    }
    let before = store.table_counts().await.unwrap();
    let refused = store.insert_learner_rows(&copy).await;
    assert!(matches!(refused, Err(StoreError::Rejected(DomainError::Conflict { .. }))), "{refused:?}");
    assert_eq!(store.table_counts().await.unwrap(), before);
    assert_eq!(store.learner(other).await.unwrap(), None);

    // A row that breaks a rule of the schema is refused naming its table: here a node of a
    // map that is nowhere.
    let nodes = rows.tables.iter().find(|t| t.table.name == "mind_map_nodes").unwrap();
    let mut orphans = nodes.clone();
    for row in &mut orphans.rows {
        row[0] = Value::Id(id());
        row[1] = Value::Id(id());
    }
    let stranger = Learner { id: LearnerId(id()), name: "Stranger".into(), is_local: false, created_at: at(0) };
    let tables = LEARNER_TABLES
        .iter()
        .map(
            |table| {
                if table.name == "mind_map_nodes" {
                    orphans.clone()
                } else {
                    TableRows { table, rows: Vec::new() }
                }
            },
        )
        .collect();
    let refused = store.insert_learner_rows(&LearnerRows { learner: stranger.clone(), tables }).await;
    match refused {
        Err(StoreError::Rejected(DomainError::Invalid { field, .. })) => assert_eq!(field, "tables.mind_map_nodes"),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.table_counts().await.unwrap(), before);
    assert_eq!(store.learner(stranger.id).await.unwrap(), None, "not even the learner is written");
}
