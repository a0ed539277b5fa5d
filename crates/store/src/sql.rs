//! The SQL both stores share. SQLite and PostgreSQL accept the same statements, so a
//! capability's method is written once (`#[capability]`) and its body stamped out for each
//! backend; the row readers, column lists and statements many bodies use are here, stamped
//! into each backend's module by [`shared_store!`] for its concrete types. Each backend
//! supplies its pools, how it opens a write transaction, its hot response path and what
//! differs in its SQL ([`SqlBackend`]).

use crate::ts::Ts;
use crate::{ResponseContext, StoreError, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::mastery::RecentHistory;
use pathwise_domain::model::{Metadata, Node};
use pathwise_domain::{MindMapId, NodeId};
use sqlx::types::Json;
use sqlx::Row;
use std::fmt::Display;
use std::str::FromStr;
use uuid::Uuid;

/// Column lists: the row readers read them by name.
pub(crate) const MAP_COLUMNS: &str =
    "m.id, m.learner_id, m.title, m.root_node_id, m.status, m.metadata, m.created_at, m.updated_at";
pub(crate) const NODE_COLUMNS: &str =
    "n.id, n.mind_map_id, n.label, n.description, n.depth, n.effort_minutes, n.sequence, \
     n.mastery_score, n.mastery_status, n.ease_factor, n.repetitions, n.interval_days, n.next_review_at, \
     n.last_reviewed_at, n.mastered_at, n.metadata, n.created_at, n.updated_at";
pub(crate) const RESPONSE_COLUMNS: &str = "r.id, r.node_id, r.mind_map_id, r.question_text, r.user_answer, r.quality, \
     r.rating, r.response_type, r.session_id, r.responded_at";

/// A response's rating from its stored number (1 Again ... 4 Easy).
pub(crate) fn rating_from(number: i64) -> StoreResult<pathwise_domain::evidence::Rating> {
    pathwise_domain::evidence::Rating::from_number(number)
        .ok_or_else(|| StoreError::corrupt(format!("rating {number} is not 1 to 4")))
}

/// A node from a row of [`NODE_COLUMNS`]: where a node's fields meet its columns, for both
/// stores and both drivers (sqlx's rows, and rusqlite's on SQLite's response path).
pub(crate) fn node_from(row: &impl Columns) -> StoreResult<Node> {
    Ok(Node {
        id: NodeId(row.id("id")?),
        mind_map_id: MindMapId(row.id("mind_map_id")?),
        label: row.plain("label")?,
        description: row.plain("description")?,
        depth: row.plain("depth")?,
        effort_minutes: row.plain("effort_minutes")?,
        sequence: row.plain("sequence")?,
        mastery_score: row.plain("mastery_score")?,
        mastery_status: row.word("mastery_status")?,
        ease_factor: row.plain("ease_factor")?,
        repetitions: row.plain("repetitions")?,
        interval_days: row.plain("interval_days")?,
        next_review_at: row.maybe_time("next_review_at")?,
        last_reviewed_at: row.maybe_time("last_reviewed_at")?,
        mastered_at: row.maybe_time("mastered_at")?,
        metadata: row.metadata("metadata")?,
        created_at: row.time("created_at")?,
        updated_at: row.time("updated_at")?,
    })
}

/// What the mastery rules read, from a row of [`CONTEXT_SQL`]'s columns.
pub(crate) fn context_from(row: &impl Columns) -> StoreResult<ResponseContext> {
    Ok(ResponseContext {
        node: node_from(row)?,
        map_status: row.word("map_status")?,
        history: RecentHistory {
            qualities: row.qualities("recent_qualities")?,
            review_qualities: row.qualities("recent_review_qualities")?,
        },
    })
}

/// A value both drivers decode alike: a number, a flag or text, or one that may be null.
pub(crate) trait Plain:
    rusqlite::types::FromSql
    + for<'r> sqlx::Decode<'r, sqlx::Sqlite>
    + sqlx::Type<sqlx::Sqlite>
    + for<'r> sqlx::Decode<'r, sqlx::Postgres>
    + sqlx::Type<sqlx::Postgres>
{
}

impl<T> Plain for T where
    T: rusqlite::types::FromSql
        + for<'r> sqlx::Decode<'r, sqlx::Sqlite>
        + sqlx::Type<sqlx::Sqlite>
        + for<'r> sqlx::Decode<'r, sqlx::Postgres>
        + sqlx::Type<sqlx::Postgres>
{
}

/// A row read by column name, each value the way its driver and database keep it, so that
/// a decoder is written once for all of them ([`node_from`]).
pub(crate) trait Columns {
    fn plain<T: Plain>(&self, column: &str) -> StoreResult<T>;
    fn id(&self, column: &str) -> StoreResult<Uuid>;
    fn time(&self, column: &str) -> StoreResult<DateTime<Utc>>;
    fn maybe_time(&self, column: &str) -> StoreResult<Option<DateTime<Utc>>>;
    /// A word of a closed vocabulary (a status, a type), parsed.
    fn word<T: FromStr>(&self, column: &str) -> StoreResult<T>
    where
        T::Err: Display;
    fn metadata(&self, column: &str) -> StoreResult<Metadata>;
    /// The qualities a node keeps of its latest responses, newest first.
    fn qualities(&self, column: &str) -> StoreResult<Vec<u8>>;
}

/// [`Columns`] for sqlx's rows of one database, whose node histories `$qualities` reads.
macro_rules! sqlx_columns {
    ($row:ty, $qualities:path) => {
        impl Columns for $row {
            fn plain<T: Plain>(&self, column: &str) -> StoreResult<T> {
                Ok(self.try_get(column)?)
            }

            fn id(&self, column: &str) -> StoreResult<Uuid> {
                Ok(self.try_get(column)?)
            }

            fn time(&self, column: &str) -> StoreResult<DateTime<Utc>> {
                Ok(self.try_get::<Ts, _>(column)?.0)
            }

            fn maybe_time(&self, column: &str) -> StoreResult<Option<DateTime<Utc>>> {
                Ok(self.try_get::<Option<Ts>, _>(column)?.map(|t| t.0))
            }

            fn word<T: FromStr>(&self, column: &str) -> StoreResult<T>
            where
                T::Err: Display,
            {
                parse(self.try_get(column)?)
            }

            fn metadata(&self, column: &str) -> StoreResult<Metadata> {
                Ok(self.try_get::<Json<Metadata>, _>(column)?.0)
            }

            fn qualities(&self, column: &str) -> StoreResult<Vec<u8>> {
                $qualities(self.try_get(column)?)
            }
        }
    };
}

// SQLite keeps a node's qualities as comma-separated text, PostgreSQL as a `smallint[]`.
sqlx_columns!(sqlx::sqlite::SqliteRow, qualities_of);
sqlx_columns!(sqlx::postgres::PgRow, qualities_of_array);

/// A node's recent qualities as SQLite keeps them: comma-separated text.
pub(crate) fn qualities_of(list: &str) -> StoreResult<Vec<u8>> {
    list.split(',').filter(|q| !q.is_empty()).map(|q| q.parse::<u8>().map_err(StoreError::corrupt)).collect()
}

/// A node's recent qualities as PostgreSQL keeps them: a `smallint[]`.
pub(crate) fn qualities_of_array(values: Vec<i16>) -> StoreResult<Vec<u8>> {
    values.into_iter().map(|q| u8::try_from(q).map_err(StoreError::corrupt)).collect()
}

/// The node, its map's status, its version and its recent history in one round trip: what
/// the response paths read before the rules decide. Both engines accept `$n` (rusqlite
/// numbers `$1`, `$2` in order of appearance). Read by [`context_from`].
pub(crate) static CONTEXT_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "SELECT {NODE_COLUMNS}, m.status AS map_status, n.version, n.recent_qualities, n.recent_review_qualities \
         FROM mind_map_nodes n JOIN mind_maps m ON m.id = n.mind_map_id WHERE n.id = $1 AND m.learner_id = $2"
    )
});

/// `lifecycle::complete_if_all_mastered` as one statement, so that it runs inside a
/// response's transaction without loading the whole map (a node that only groups others is
/// not waited for). Both engines accept `$n` here.
pub(crate) static COMPLETE_MAP_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "UPDATE mind_maps SET status = 'completed', updated_at = $2 \
         WHERE id = $1 AND status = 'active' \
         AND NOT EXISTS (SELECT 1 FROM mind_map_nodes g WHERE g.mind_map_id = $1 AND g.mastery_status <> 'mastered' \
           AND {})",
        not_grouping("g")
    )
});

/// SQL true for a node (of the alias `node`) that is a concept, false for one that only
/// groups others (`Node::is_grouping`: `"grouping": true` in its metadata). The same text
/// on both engines: `->>` reads JSON text on SQLite (1 for true) and JSONB on PostgreSQL
/// ('true').
pub(crate) fn not_grouping(node: &str) -> String {
    format!("COALESCE(CAST({node}.metadata ->> 'grouping' AS TEXT), '') NOT IN ('true', '1')")
}

/// A response must name the map its node is in.
pub(crate) fn check_response_target(
    new: &crate::NewResponse,
    node: &pathwise_domain::model::Node,
) -> crate::StoreResult<()> {
    if node.mind_map_id != new.mind_map_id {
        return Err(crate::StoreError::Rejected(pathwise_domain::DomainError::CrossMap {
            field: "node_id",
            map: new.mind_map_id.to_string(),
            node: new.node_id.to_string(),
        }));
    }
    Ok(())
}

pub(crate) const TABLES: &[&str] = &[
    "learners",
    "api_tokens",
    "mind_maps",
    "mind_map_nodes",
    "mind_map_edges",
    "quiz_responses",
    "llm_calls",
    "teaching_flows",
    "jobs",
    "job_runs",
    "analytics_snapshots",
    "learner_preferences",
    "learner_fsrs",
    "node_fsrs",
    "sessions",
    "session_events",
    "session_messages",
    "courses",
    "tutor_snapshots",
    "course_unit_nodes",
    "tutor_threads",
    "tutor_messages",
    "tutor_turns",
    "exam_status",
    "exam_events",
    "drill_offers",
    "idempotency_keys",
    "study_days",
    "source_documents",
    "source_chunks",
    "course_drafts",
    "course_shares",
];

/// ` AND {column} = ${placeholder}` when there is a map, nothing when there is none: how
/// the reads of one map or of all a learner's maps narrow to one. The caller binds the map
/// as that placeholder, the last (`bind_map`), when there is one.
pub(crate) fn map_filter(map: Option<MindMapId>, column: &str, placeholder: usize) -> String {
    match map {
        Some(_) => format!(" AND {column} = ${placeholder}"),
        None => String::new(),
    }
}

/// Where a learner's rows of one kind are listed from: the table under its alias, the
/// columns read, and the time the newest come first by.
pub(crate) struct LearnerListing {
    pub table: &'static str,
    pub alias: &'static str,
    pub columns: &'static str,
    pub newest_by: &'static str,
}

pub(crate) fn parse<T: std::str::FromStr>(text: &str) -> crate::StoreResult<T>
where
    T::Err: std::fmt::Display,
{
    text.parse().map_err(crate::StoreError::corrupt)
}

/// What differs between the two backends' SQL, as the capabilities' bodies read it
/// (`Self::MAP_LOCK`, ...); everything else they share.
pub(crate) trait SqlBackend {
    /// The row lock a map's edits take. PostgreSQL's is `FOR NO KEY UPDATE`: edits of one
    /// map exclude each other, but a response's foreign-key check (`KEY SHARE` on its map)
    /// does not wait for them. SQLite has none: its one writer excludes the rest.
    const MAP_LOCK: &'static str;
    /// The row lock of any other row read to be written.
    const ROW_LOCK: &'static str;
    /// How a claim passes over rows another worker holds (`FOR UPDATE SKIP LOCKED`).
    const SKIP_LOCKED: &'static str;
    /// The statement that makes a read-only transaction one snapshot of every table, where
    /// a transaction is not one already.
    const SNAPSHOT: Option<&'static str>;
    /// A node's latest qualities as the database keeps them.
    type Qualities;
    fn read_qualities(kept: Self::Qualities) -> StoreResult<Vec<u8>>;
    fn write_qualities(qualities: &[u8]) -> Self::Qualities;
}

macro_rules! shared_store {
    ($store:ty, $db:ty) => {
        pub(crate) use crate::sql::SqlBackend;
        pub(crate) use crate::sql::{map_filter, node_from, parse, Columns, MAP_COLUMNS, NODE_COLUMNS, RESPONSE_COLUMNS, TABLES};
        pub(crate) use crate::ts::Ts;
        pub(crate) use crate::{Learner, NewResponse, Page, ResponseContext, ResponseDecision, ResponseFilter, StoreError, StoreResult};
        pub(crate) use pathwise_domain::model::{Edge, MapAggregate, MapChanges, Metadata, MindMap, Node, QuizResponse};
        pub(crate) use pathwise_domain::{DomainError, LearnerId, MindMapId, NodeId, ResponseId};
        pub(crate) use sqlx::types::Json;
        pub(crate) use sqlx::{Row, QueryBuilder};
        pub(crate) use chrono::{DateTime, Utc};
        pub(crate) use std::collections::HashMap;

        pub(crate) type Db = $db;
        pub(crate) type DbRow = <$db as sqlx::Database>::Row;
        pub(crate) type Conn = <$db as sqlx::Database>::Connection;
        pub(crate) type Query<'q> = sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>;

        /// `query` with the map bound, when there is one: the placeholder `map_filter` wrote.
        pub(crate) fn bind_map(query: Query<'_>, map: Option<MindMapId>) -> Query<'_> {
            match map {
                Some(map) => query.bind(map.0),
                None => query,
            }
        }

        /// One page of a learner's rows of `of` (with this status, when given), newest
        /// first, and how many there are in all.
        pub(crate) async fn learner_page<T>(
            pool: &sqlx::Pool<$db>,
            of: &crate::sql::LearnerListing,
            learner: LearnerId,
            status: Option<&str>,
            offset: i64,
            limit: i64,
            read: fn(&DbRow) -> StoreResult<T>,
        ) -> StoreResult<Page<T>> {
            let crate::sql::LearnerListing { table, alias, columns, newest_by } = of;
            let filter = if status.is_some() { format!(" AND {alias}.status = $2") } else { String::new() };
            let count_sql = format!("SELECT COUNT(*) FROM {table} {alias} WHERE {alias}.learner_id = $1{filter}");
            let page_sql = format!(
                "SELECT {columns} FROM {table} {alias} WHERE {alias}.learner_id = $1{filter} \
                 ORDER BY {alias}.{newest_by} DESC, {alias}.id LIMIT {limit} OFFSET {offset}"
            );
            let mut count = sqlx::query_scalar::<_, i64>(&count_sql).bind(learner.0);
            let mut page = sqlx::query(&page_sql).bind(learner.0);
            if let Some(status) = status {
                count = count.bind(status);
                page = page.bind(status);
            }
            let total = count.fetch_one(pool).await?;
            let items = page.fetch_all(pool).await?.iter().map(read).collect::<StoreResult<_>>()?;
            Ok(Page { items, total: total as u64 })
        }

        pub(crate) fn map_from_row(row: &DbRow) -> StoreResult<MindMap> {
            Ok(MindMap {
                id: MindMapId(row.try_get("id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                title: row.try_get("title")?,
                root_node_id: row.try_get::<Option<uuid::Uuid>, _>("root_node_id")?.map(NodeId),
                status: parse(row.try_get::<&str, _>("status")?)?,
                metadata: row.try_get::<Json<Metadata>, _>("metadata")?.0,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
                updated_at: row.try_get::<Ts, _>("updated_at")?.0,
            })
        }

        pub(crate) fn edge_from_row(row: &DbRow) -> StoreResult<Edge> {
            Ok(Edge {
                mind_map_id: MindMapId(row.try_get("mind_map_id")?),
                parent_node_id: NodeId(row.try_get("parent_node_id")?),
                child_node_id: NodeId(row.try_get("child_node_id")?),
                edge_type: parse(row.try_get::<&str, _>("edge_type")?)?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        pub(crate) fn response_from_row(row: &DbRow) -> StoreResult<QuizResponse> {
            let quality: i32 = row.try_get("quality")?;
            Ok(QuizResponse {
                id: ResponseId(row.try_get("id")?),
                node_id: NodeId(row.try_get("node_id")?),
                mind_map_id: MindMapId(row.try_get("mind_map_id")?),
                question_text: row.try_get("question_text")?,
                user_answer: row.try_get("user_answer")?,
                quality: u8::try_from(quality).map_err(StoreError::corrupt)?,
                rating: crate::sql::rating_from(row.try_get::<i32, _>("rating")?.into())?,
                response_type: parse(row.try_get::<&str, _>("response_type")?)?,
                session_id: row.try_get("session_id")?,
                responded_at: row.try_get::<Ts, _>("responded_at")?.0,
            })
        }

        pub(crate) fn learner_from_row(row: &DbRow) -> StoreResult<Learner> {
            Ok(Learner {
                id: LearnerId(row.try_get("id")?),
                name: row.try_get("name")?,
                is_local: row.try_get("is_local")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
            })
        }

        pub(crate) async fn load_aggregate(conn: &mut Conn, learner: LearnerId, id: MindMapId, lock: bool) -> StoreResult<Option<MapAggregate>> {
            let sql = format!(
                "SELECT {MAP_COLUMNS} FROM mind_maps m WHERE m.id = $1 AND m.learner_id = $2 {}",
                if lock { <$store as SqlBackend>::MAP_LOCK } else { "" }
            );
            let Some(row) = sqlx::query(&sql).bind(id.0).bind(learner.0).fetch_optional(&mut *conn).await? else {
                return Ok(None);
            };
            let map = map_from_row(&row)?;
            let sql = format!("SELECT {NODE_COLUMNS} FROM mind_map_nodes n WHERE n.mind_map_id = $1");
            let mut nodes = sqlx::query(&sql)
                .bind(id.0)
                .fetch_all(&mut *conn)
                .await?
                .iter()
                .map(node_from)
                .collect::<StoreResult<Vec<_>>>()?;
            nodes.sort_unstable_by(Node::map_order);
            let mut edges = sqlx::query(
                "SELECT mind_map_id, parent_node_id, child_node_id, edge_type, created_at FROM mind_map_edges \
                 WHERE mind_map_id = $1",
            )
            .bind(id.0)
            .fetch_all(&mut *conn)
            .await?
            .iter()
            .map(edge_from_row)
            .collect::<StoreResult<Vec<_>>>()?;
            edges.sort_unstable_by(Edge::map_order);
            Ok(Some(MapAggregate { map, nodes, edges }))
        }

        pub(crate) async fn insert_map_row(conn: &mut Conn, map: &MindMap) -> StoreResult<()> {
            sqlx::query(
                "INSERT INTO mind_maps (id, learner_id, title, root_node_id, status, metadata, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(map.id.0)
            .bind(map.learner_id.0)
            .bind(&map.title)
            .bind(map.root_node_id.map(|n| n.0))
            .bind(map.status.as_str())
            .bind(Json(&map.metadata))
            .bind(Ts(map.created_at))
            .bind(Ts(map.updated_at))
            .execute(&mut *conn)
            .await?;
            Ok(())
        }

        pub(crate) async fn apply_changes(conn: &mut Conn, changes: &MapChanges) -> StoreResult<()> {
            for (parent, child) in &changes.delete_edges {
                sqlx::query("DELETE FROM mind_map_edges WHERE parent_node_id = $1 AND child_node_id = $2")
                    .bind(parent.0)
                    .bind(child.0)
                    .execute(&mut *conn)
                    .await?;
            }
            for id in &changes.delete_nodes {
                sqlx::query("DELETE FROM mind_map_nodes WHERE id = $1").bind(id.0).execute(&mut *conn).await?;
            }
            for node in &changes.insert_nodes {
                sqlx::query(
                    "INSERT INTO mind_map_nodes (id, mind_map_id, label, description, depth, effort_minutes, sequence, \
                     mastery_score, mastery_status, ease_factor, repetitions, interval_days, next_review_at, \
                     last_reviewed_at, metadata, created_at, updated_at, mastered_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
                )
                .bind(node.id.0)
                .bind(node.mind_map_id.0)
                .bind(&node.label)
                .bind(&node.description)
                .bind(node.depth)
                .bind(node.effort_minutes)
                .bind(node.sequence)
                .bind(node.mastery_score)
                .bind(node.mastery_status.as_str())
                .bind(node.ease_factor)
                .bind(node.repetitions)
                .bind(node.interval_days)
                .bind(node.next_review_at.map(Ts))
                .bind(node.last_reviewed_at.map(Ts))
                .bind(Json(&node.metadata))
                .bind(Ts(node.created_at))
                .bind(Ts(node.updated_at))
                .bind(node.mastered_at.map(Ts))
                .execute(&mut *conn)
                .await?;
            }
            for node in &changes.update_nodes {
                sqlx::query(
                    "UPDATE mind_map_nodes SET label = $2, description = $3, depth = $4, effort_minutes = $5, \
                     sequence = $6, mastery_score = $7, mastery_status = $8, ease_factor = $9, repetitions = $10, \
                     interval_days = $11, next_review_at = $12, last_reviewed_at = $13, metadata = $14, \
                     updated_at = $15, mastered_at = $16, version = version + 1 WHERE id = $1",
                )
                .bind(node.id.0)
                .bind(&node.label)
                .bind(&node.description)
                .bind(node.depth)
                .bind(node.effort_minutes)
                .bind(node.sequence)
                .bind(node.mastery_score)
                .bind(node.mastery_status.as_str())
                .bind(node.ease_factor)
                .bind(node.repetitions)
                .bind(node.interval_days)
                .bind(node.next_review_at.map(Ts))
                .bind(node.last_reviewed_at.map(Ts))
                .bind(Json(&node.metadata))
                .bind(Ts(node.updated_at))
                .bind(node.mastered_at.map(Ts))
                .execute(&mut *conn)
                .await?;
            }
            for edge in &changes.insert_edges {
                sqlx::query(
                    "INSERT INTO mind_map_edges (mind_map_id, parent_node_id, child_node_id, edge_type, created_at) \
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(edge.mind_map_id.0)
                .bind(edge.parent_node_id.0)
                .bind(edge.child_node_id.0)
                .bind(edge.edge_type.as_str())
                .bind(Ts(edge.created_at))
                .execute(&mut *conn)
                .await?;
            }
            if let Some(map) = &changes.map {
                sqlx::query(
                    "UPDATE mind_maps SET title = $2, root_node_id = $3, status = $4, metadata = $5, updated_at = $6 \
                     WHERE id = $1",
                )
                .bind(map.id.0)
                .bind(&map.title)
                .bind(map.root_node_id.map(|n| n.0))
                .bind(map.status.as_str())
                .bind(Json(&map.metadata))
                .bind(Ts(map.updated_at))
                .execute(&mut *conn)
                .await?;
            }
            Ok(())
        }

    };
}

pub(crate) use shared_store;
