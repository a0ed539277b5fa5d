//! What an operator does with learners: their named tokens (used, revoked, rotated), the
//! list of learners with their latest activity, a learner deleted with every row that is
//! theirs, and every such row exported and imported ([`crate::learner_rows`]).

use crate::learner_rows::LearnerRows;
use crate::{Learner, Page, StoreResult};
use chrono::{DateTime, Utc};
use pathwise_domain::{LearnerId, TokenId};

/// One of a learner's API tokens, without the token (only its hash is stored, and never read
/// back out but by an export).
#[derive(Debug, Clone, PartialEq)]
pub struct TokenRecord {
    pub id: TokenId,
    pub learner_id: LearnerId,
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// When a request last authenticated with it, to about a minute.
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A token to store: the SHA-256 of the secret, never the secret.
#[derive(Debug, Clone, PartialEq)]
pub struct NewToken {
    pub id: TokenId,
    pub learner_id: LearnerId,
    pub name: String,
    pub token_hash: String,
    pub created_at: DateTime<Utc>,
}

impl NewToken {
    /// The token as it is listed once stored.
    pub fn record(&self) -> TokenRecord {
        TokenRecord {
            id: self.id,
            learner_id: self.learner_id,
            name: self.name.clone(),
            created_at: self.created_at,
            last_used_at: None,
            revoked_at: None,
        }
    }
}

/// A learner with what tells an operator whether they are still about: their tokens in
/// force and the latest moment of each kind of activity.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerActivity {
    pub learner: Learner,
    /// Tokens not revoked.
    pub active_tokens: u64,
    pub last_token_use: Option<DateTime<Utc>>,
    pub last_response: Option<DateTime<Utc>>,
    pub last_session: Option<DateTime<Utc>>,
    pub last_tutor_turn: Option<DateTime<Utc>>,
    pub last_flow_step: Option<DateTime<Utc>>,
}

#[pathwise_store_macros::capability]
pub trait LearnerAdminStore {
    /// The learner a token hash belongs to, with the token, revoked or not.
    async fn token_by_hash(&self, token_hash: &str) -> StoreResult<Option<(Learner, TokenRecord)>> {
        let sql = format!(
            "SELECT {TOKEN_COLUMNS}, l.name AS learner_name, l.is_local, l.created_at AS learner_created_at \
             FROM api_tokens t JOIN learners l ON l.id = t.learner_id WHERE t.token_hash = $1"
        );
        let Some(row) = sqlx::query(&sql).bind(token_hash).fetch_optional(self.reader()).await? else {
            return Ok(None);
        };
        let token = token_from_row(&row)?;
        let learner = Learner {
            id: token.learner_id,
            name: row.try_get("learner_name")?,
            is_local: row.try_get("is_local")?,
            created_at: row.try_get::<Ts, _>("learner_created_at")?.0,
        };
        Ok(Some((learner, token)))
    }

    /// Note that the token was used at `at`, unless it was noted since `unless_since` (or
    /// it is revoked); true if this wrote.
    async fn record_token_use(
        &self,
        token: TokenId,
        at: DateTime<Utc>,
        unless_since: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let done = sqlx::query(
            "UPDATE api_tokens SET last_used_at = $2 WHERE id = $1 AND revoked_at IS NULL \
             AND (last_used_at IS NULL OR last_used_at < $3)",
        )
        .bind(token.0)
        .bind(Ts(at))
        .bind(Ts(unless_since))
        .execute(self.writer())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The learner's tokens, oldest first, revoked ones included.
    async fn learner_tokens(&self, learner: LearnerId) -> StoreResult<Vec<TokenRecord>> {
        let sql =
            format!("SELECT {TOKEN_COLUMNS} FROM api_tokens t WHERE t.learner_id = $1 ORDER BY t.created_at, t.id");
        sqlx::query(&sql).bind(learner.0).fetch_all(self.reader()).await?.iter().map(token_from_row).collect()
    }

    /// Revoke the learner's token at `at` (a token revoked before keeps its first time);
    /// `None` if the learner has no such token.
    async fn revoke_token(
        &self,
        learner: LearnerId,
        token: TokenId,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<TokenRecord>> {
        let mut tx = self.begin_write().await?;
        sqlx::query("UPDATE api_tokens SET revoked_at = $3 WHERE id = $1 AND learner_id = $2 AND revoked_at IS NULL")
            .bind(token.0)
            .bind(learner.0)
            .bind(Ts(at))
            .execute(&mut *tx)
            .await?;
        let sql = format!("SELECT {TOKEN_COLUMNS} FROM api_tokens t WHERE t.id = $1 AND t.learner_id = $2");
        let row = sqlx::query(&sql).bind(token.0).bind(learner.0).fetch_optional(&mut *tx).await?;
        tx.commit().await?;
        row.as_ref().map(token_from_row).transpose()
    }

    /// Store `new` and revoke `old` at `new.created_at`, in one transaction; answers the
    /// old token as revoked. `NotFound` if the learner has no token `old`; a conflict if it
    /// is revoked already (nothing is written).
    async fn rotate_token(&self, learner: LearnerId, old: TokenId, new: &NewToken) -> StoreResult<TokenRecord> {
        let mut tx = self.begin_write().await?;
        let sql = format!(
            "SELECT {TOKEN_COLUMNS} FROM api_tokens t WHERE t.id = $1 AND t.learner_id = $2 {}",
            Self::ROW_LOCK
        );
        let row = sqlx::query(&sql).bind(old.0).bind(learner.0).fetch_optional(&mut *tx).await?;
        let mut revoked = row.as_ref().map(token_from_row).transpose()?.ok_or(StoreError::NotFound("token"))?;
        if let Some(at) = revoked.revoked_at {
            return Err(DomainError::Conflict {
                message: format!(
                    "token {old} was revoked at {}; a revoked token is not rotated: create a new one",
                    at.to_rfc3339()
                ),
            }
            .into());
        }
        insert_token(&mut tx, new).await?;
        sqlx::query("UPDATE api_tokens SET revoked_at = $2 WHERE id = $1")
            .bind(old.0)
            .bind(Ts(new.created_at))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        revoked.revoked_at = Some(new.created_at);
        Ok(revoked)
    }

    /// Learners in the order they were made, with their activity.
    async fn learner_activity(&self, offset: i64, limit: i64) -> StoreResult<Page<LearnerActivity>> {
        let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM learners").fetch_one(self.reader()).await?;
        let sql = format!(
            "SELECT l.id, l.name, l.is_local, l.created_at, \
               (SELECT COUNT(*) FROM api_tokens t WHERE t.learner_id = l.id AND t.revoked_at IS NULL) AS active_tokens, \
               (SELECT MAX(t.last_used_at) FROM api_tokens t WHERE t.learner_id = l.id) AS last_token_use, \
               (SELECT MAX(r.responded_at) FROM quiz_responses r JOIN mind_maps m ON m.id = r.mind_map_id \
                WHERE m.learner_id = l.id) AS last_response, \
               (SELECT MAX(s.updated_at) FROM sessions s WHERE s.learner_id = l.id) AS last_session, \
               (SELECT MAX(u.created_at) FROM tutor_turns u WHERE u.learner_id = l.id) AS last_tutor_turn, \
               (SELECT MAX(f.last_session_at) FROM teaching_flows f WHERE f.learner_id = l.id) AS last_flow_step \
             FROM learners l ORDER BY l.created_at, l.id LIMIT {limit} OFFSET {offset}"
        );
        let rows = sqlx::query(&sql).fetch_all(self.reader()).await?;
        let time = |row: &DbRow, column: &str| -> StoreResult<Option<DateTime<Utc>>> {
            Ok(row.try_get::<Option<Ts>, _>(column)?.map(|t| t.0))
        };
        let items = rows
            .iter()
            .map(|row| {
                Ok(LearnerActivity {
                    learner: learner_from_row(row)?,
                    active_tokens: u64::try_from(row.try_get::<i64, _>("active_tokens")?)
                        .map_err(StoreError::corrupt)?,
                    last_token_use: time(row, "last_token_use")?,
                    last_response: time(row, "last_response")?,
                    last_session: time(row, "last_session")?,
                    last_tutor_turn: time(row, "last_tutor_turn")?,
                    last_flow_step: time(row, "last_flow_step")?,
                })
            })
            .collect::<StoreResult<_>>()?;
        Ok(Page { items, total: total as u64 })
    }

    /// Delete the learner and every row that is theirs, in one transaction; false if there
    /// was no such learner.
    async fn delete_learner(&self, learner: LearnerId) -> StoreResult<bool> {
        // Every table of a learner's rows reaches the learner by a cascading foreign
        // key (directly, or through a map, node, session or thread of theirs); the
        // store's tests check that nothing of theirs is left.
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM learners WHERE id = $1").bind(learner.0).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Every row that is the learner's, read as of one moment; `None` if there is no such
    /// learner.
    async fn learner_rows(&self, learner: LearnerId) -> StoreResult<Option<LearnerRows>> {
        let mut tx = self.reader().begin().await?;
        let snapshot: Option<&str> = Self::SNAPSHOT;
        if let Some(sql) = snapshot {
            sqlx::query(sql).execute(&mut *tx).await?;
        }
        let found = sqlx::query("SELECT id, name, is_local, created_at FROM learners WHERE id = $1")
            .bind(learner.0)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(found) = found else { return Ok(None) };
        let mut tables = Vec::with_capacity(LEARNER_TABLES.len());
        for table in LEARNER_TABLES {
            let order = if table.sequenced { " ORDER BY seq" } else { "" };
            let sql = format!("SELECT {} FROM {} WHERE {}{order}", table.column_names(), table.name, table.filter);
            let rows = sqlx::query(&sql)
                .bind(learner.0)
                .fetch_all(&mut *tx)
                .await?
                .iter()
                .map(|row| table.columns.iter().map(|c| read_value(row, c)).collect::<StoreResult<Vec<_>>>())
                .collect::<StoreResult<Vec<_>>>()?;
            let mut rows = TableRows { table, rows };
            rows.sort();
            tables.push(rows);
        }
        tx.commit().await?;
        Ok(Some(LearnerRows { learner: learner_from_row(&found)?, tables }))
    }

    /// Write a learner and their rows under the ids they have, in one transaction. A
    /// learner of that id already here is a conflict; a row that breaks a rule of the
    /// schema (a course this server lacks, a key taken) is refused naming its table; either
    /// way nothing is written.
    async fn insert_learner_rows(&self, rows: &LearnerRows) -> StoreResult<()> {
        let learner = &rows.learner;
        let mut tx = self.begin_write().await?;
        let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM learners WHERE id = $1")
            .bind(learner.id.0)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_some() {
            return Err(StoreError::Exists(format!("learner {}", learner.id)));
        }
        sqlx::query("INSERT INTO learners (id, name, is_local, created_at) VALUES ($1, $2, $3, $4)")
            .bind(learner.id.0)
            .bind(&learner.name)
            .bind(learner.is_local)
            .bind(Ts(learner.created_at))
            .execute(&mut *tx)
            .await
            .map_err(|e| import_refusal("learners", e))?;
        for table in &rows.tables {
            insert_rows(&mut tx, table).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Create a learner with their first token, in one transaction.
    async fn create_learner(&self, learner: &Learner, token: &crate::NewToken) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query("INSERT INTO learners (id, name, is_local, created_at) VALUES ($1, $2, $3, $4)")
            .bind(learner.id.0)
            .bind(&learner.name)
            .bind(learner.is_local)
            .bind(Ts(learner.created_at))
            .execute(&mut *tx)
            .await?;
        insert_token(&mut tx, token).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Another token for a learner.
    async fn add_token(&self, token: &crate::NewToken) -> StoreResult<()> {
        let mut conn = self.writer().acquire().await?;
        insert_token(&mut conn, token).await
    }

    async fn local_learner(&self) -> StoreResult<Option<Learner>> {
        sqlx::query("SELECT id, name, is_local, created_at FROM learners WHERE is_local = $1")
            .bind(true)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(learner_from_row)
            .transpose()
    }

    async fn all_learners(&self) -> StoreResult<Vec<Learner>> {
        sqlx::query("SELECT id, name, is_local, created_at FROM learners ORDER BY created_at, id")
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(learner_from_row)
            .collect()
    }

    /// One learner, if there is one with this id.
    async fn learner(&self, id: LearnerId) -> StoreResult<Option<Learner>> {
        sqlx::query("SELECT id, name, is_local, created_at FROM learners WHERE id = $1")
            .bind(id.0)
            .fetch_optional(self.reader())
            .await?
            .as_ref()
            .map(learner_from_row)
            .transpose()
    }
}

/// A constraint an imported row broke, said of its table: a key already taken is a
/// conflict, any other broken rule a refusal of the document's rows.
pub(crate) fn import_refusal(table: &str, error: sqlx::Error) -> crate::StoreError {
    use pathwise_domain::DomainError;
    use sqlx::error::ErrorKind;
    let sqlx::Error::Database(db) = &error else { return error.into() };
    let field = format!("tables.{table}");
    match db.kind() {
        ErrorKind::UniqueViolation => DomainError::Conflict {
            message: format!("{field}: a row with the same key is on this server already ({})", db.message()),
        }
        .into(),
        ErrorKind::ForeignKeyViolation | ErrorKind::CheckViolation | ErrorKind::NotNullViolation => {
            DomainError::invalid(field, format!("a row breaks a rule of the schema: {}", db.message())).into()
        }
        _ => error.into(),
    }
}

/// The row readers and writers of [`LearnerAdminStore`] for one backend, which keeps a
/// node's qualities its own way (`SqlBackend::Qualities`).
macro_rules! admin_store {
    ($store:ty, $db:ty) => {
        pub(crate) use crate::admin::{import_refusal, LearnerActivity, NewToken, TokenRecord};
        pub(crate) use crate::learner_rows::{Kind, LearnerRows, TableRows, Value, LEARNER_TABLES};
        pub(crate) use pathwise_domain::TokenId;

        pub(crate) const TOKEN_COLUMNS: &str = "t.id, t.learner_id, t.name, t.created_at, t.last_used_at, t.revoked_at";

        pub(crate) fn token_from_row(row: &DbRow) -> StoreResult<TokenRecord> {
            Ok(TokenRecord {
                id: TokenId(row.try_get("id")?),
                learner_id: LearnerId(row.try_get("learner_id")?),
                name: row.try_get("name")?,
                created_at: row.try_get::<Ts, _>("created_at")?.0,
                last_used_at: row.try_get::<Option<Ts>, _>("last_used_at")?.map(|t| t.0),
                revoked_at: row.try_get::<Option<Ts>, _>("revoked_at")?.map(|t| t.0),
            })
        }

        pub(crate) async fn insert_token(conn: &mut Conn, token: &NewToken) -> StoreResult<()> {
            sqlx::query(
                "INSERT INTO api_tokens (id, learner_id, name, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(token.id.0)
            .bind(token.learner_id.0)
            .bind(&token.name)
            .bind(&token.token_hash)
            .bind(Ts(token.created_at))
            .execute(&mut *conn)
            .await?;
            Ok(())
        }

        /// A column's value as its kind is kept by this database.
        pub(crate) fn read_value(row: &DbRow, column: &crate::learner_rows::Column) -> StoreResult<Value> {
            let name = column.name;
            let value = match column.kind {
                Kind::Id => row.try_get::<Option<uuid::Uuid>, _>(name)?.map(Value::Id),
                Kind::Time => row.try_get::<Option<Ts>, _>(name)?.map(|t| Value::Time(t.0)),
                Kind::Text => row.try_get::<Option<String>, _>(name)?.map(Value::Text),
                Kind::Int => row.try_get::<Option<i32>, _>(name)?.map(|n| Value::Int(i64::from(n))),
                Kind::BigInt => row.try_get::<Option<i64>, _>(name)?.map(Value::Int),
                Kind::Float => row.try_get::<Option<f64>, _>(name)?.map(Value::Float),
                Kind::Bool => row.try_get::<Option<bool>, _>(name)?.map(Value::Bool),
                Kind::Json => row.try_get::<Option<Json<serde_json::Value>>, _>(name)?.map(|j| Value::Json(j.0)),
                Kind::Bytes => row.try_get::<Option<Vec<u8>>, _>(name)?.map(Value::Bytes),
                Kind::Date => row.try_get::<Option<chrono::NaiveDate>, _>(name)?.map(Value::Date),
                Kind::Qualities => match row.try_get::<Option<<$store as SqlBackend>::Qualities>, _>(name)? {
                    Some(kept) => Some(Value::Qualities(<$store as SqlBackend>::read_qualities(kept)?)),
                    None => None,
                },
            };
            Ok(value.unwrap_or(Value::Null))
        }

        /// Bind a value as its column's kind is kept by this database (a null typed as the
        /// column, which PostgreSQL needs).
        pub(crate) fn bind_value<'args, Sep: std::fmt::Display>(
            b: &mut sqlx::query_builder::Separated<'_, 'args, $db, Sep>,
            kind: Kind,
            value: &Value,
        ) {
            match (kind, value) {
                (Kind::Id, Value::Id(v)) => b.push_bind(*v),
                (Kind::Id, _) => b.push_bind(None::<uuid::Uuid>),
                (Kind::Time, Value::Time(v)) => b.push_bind(Ts(*v)),
                (Kind::Time, _) => b.push_bind(None::<Ts>),
                (Kind::Text, Value::Text(v)) => b.push_bind(v.clone()),
                (Kind::Text, _) => b.push_bind(None::<String>),
                (Kind::Int, Value::Int(v)) => b.push_bind(*v as i32),
                (Kind::Int, _) => b.push_bind(None::<i32>),
                (Kind::BigInt, Value::Int(v)) => b.push_bind(*v),
                (Kind::BigInt, _) => b.push_bind(None::<i64>),
                (Kind::Float, Value::Float(v)) => b.push_bind(*v),
                (Kind::Float, _) => b.push_bind(None::<f64>),
                (Kind::Bool, Value::Bool(v)) => b.push_bind(*v),
                (Kind::Bool, _) => b.push_bind(None::<bool>),
                (Kind::Json, Value::Json(v)) => b.push_bind(Json(v.clone())),
                (Kind::Json, _) => b.push_bind(None::<Json<serde_json::Value>>),
                (Kind::Bytes, Value::Bytes(v)) => b.push_bind(v.clone()),
                (Kind::Bytes, _) => b.push_bind(None::<Vec<u8>>),
                (Kind::Date, Value::Date(v)) => b.push_bind(*v),
                (Kind::Date, _) => b.push_bind(None::<chrono::NaiveDate>),
                (Kind::Qualities, Value::Qualities(v)) => b.push_bind(<$store as SqlBackend>::write_qualities(v)),
                (Kind::Qualities, _) => b.push_bind(None::<<$store as SqlBackend>::Qualities>),
            };
        }

        /// Whether a value is of its column's kind (or a null where one may be), so that
        /// nothing is bound as another kind than the column keeps.
        pub(crate) fn fits(column: &crate::learner_rows::Column, value: &Value) -> bool {
            matches!(
                (column.kind, value),
                (Kind::Id, Value::Id(_))
                    | (Kind::Time, Value::Time(_))
                    | (Kind::Text, Value::Text(_))
                    | (Kind::Int | Kind::BigInt, Value::Int(_))
                    | (Kind::Float, Value::Float(_))
                    | (Kind::Bool, Value::Bool(_))
                    | (Kind::Json, Value::Json(_))
                    | (Kind::Bytes, Value::Bytes(_))
                    | (Kind::Date, Value::Date(_))
                    | (Kind::Qualities, Value::Qualities(_))
            ) || (column.nullable && *value == Value::Null)
        }

        pub(crate) async fn insert_rows(conn: &mut Conn, rows: &TableRows) -> StoreResult<()> {
            let table = rows.table;
            if let Some(bad) = rows.rows.iter().find(|row| {
                row.len() != table.columns.len() || table.columns.iter().zip(row.iter()).any(|(c, v)| !fits(c, v))
            }) {
                return Err(StoreError::corrupt(format!("a row of {} does not fit its columns: {bad:?}", table.name)));
            }
            // Well under both databases' limits on bound values in one statement.
            let per_statement = (20_000 / table.columns.len()).clamp(1, 500);
            for chunk in rows.rows.chunks(per_statement) {
                let mut insert: QueryBuilder<'_, $db> =
                    QueryBuilder::new(format!("INSERT INTO {} ({}) ", table.name, table.column_names()));
                insert.push_values(chunk, |mut b, row| {
                    for (column, value) in table.columns.iter().zip(row) {
                        bind_value(&mut b, column.kind, value);
                    }
                });
                insert.build().execute(&mut *conn).await.map_err(|e| import_refusal(table.name, e))?;
            }
            Ok(())
        }
    };
}

pub(crate) use admin_store;
