//! A learner's rows as a document holds them: read, checked and written back.

use super::tables::*;
use super::value::{Row, Value};
use serde_json::{Map, Value as Json};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// The rows of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRows {
    pub table: &'static TableSpec,
    pub rows: Vec<Row>,
}

/// Every row a learner has, table by table, in [`LEARNER_TABLES`] order.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerRows {
    pub learner: crate::Learner,
    pub tables: Vec<TableRows>,
}

/// Why a document's rows cannot be imported: the path of the value at fault and what is
/// allowed there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct RowsError {
    pub field: String,
    pub message: String,
}

impl RowsError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        RowsError { field: field.into(), message: message.into() }
    }
}

impl TableRows {
    /// Rows in the order of their key (a sequenced table keeps the order it was read in).
    pub fn sort(&mut self) {
        if self.table.sequenced {
            return;
        }
        let key: Vec<usize> = self.table.key.iter().map(|k| self.table.column_index(k)).collect();
        self.rows.sort_by(|a, b| key.iter().map(|&i| a[i].order(&b[i])).find(|o| o.is_ne()).unwrap_or(Ordering::Equal));
    }
}

impl LearnerRows {
    /// The rows as a document's `tables`: each table by name, each row an object of its
    /// columns.
    pub fn tables_to_json(&self) -> Map<String, Json> {
        self.tables
            .iter()
            .map(|t| {
                let rows = t
                    .rows
                    .iter()
                    .map(|row| {
                        let object: Map<String, Json> =
                            t.table.columns.iter().zip(row).map(|(c, v)| (c.name.to_string(), v.to_json())).collect();
                        Json::Object(object)
                    })
                    .collect();
                (t.table.name.to_string(), Json::Array(rows))
            })
            .collect()
    }

    /// A document's `tables` read for `learner`: every table named, every column of each
    /// row present with a value of its kind and nothing else, and every row the learner's
    /// (its `learner_id` or `owner_id` the learner's, its references to rows of this document).
    pub fn from_json(learner: crate::Learner, tables: &Map<String, Json>) -> Result<LearnerRows, RowsError> {
        if let Some(unknown) = tables.keys().find(|name| learner_table(name).is_none()) {
            let allowed = LEARNER_TABLES.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
            return Err(RowsError::new(format!("tables.{unknown}"), format!("unknown table; allowed: {allowed}")));
        }
        let mut read = Vec::with_capacity(LEARNER_TABLES.len());
        let none = Vec::new();
        for table in LEARNER_TABLES {
            let path = format!("tables.{}", table.name);
            let rows = match tables.get(table.name) {
                None if TABLES_ADDED_SINCE_VERSION_1.contains(&table.name) => &none,
                None => return Err(RowsError::new(path, "missing; every table is listed, [] when it has no rows")),
                Some(Json::Array(rows)) => rows,
                Some(_) => return Err(RowsError::new(path, "expected an array of rows")),
            };
            let rows = rows
                .iter()
                .enumerate()
                .map(|(i, row)| read_row(table, row, &format!("{path}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            read.push(TableRows { table, rows });
        }
        let rows = LearnerRows { learner, tables: read };
        rows.check_unique_keys()?;
        rows.check_ownership()?;
        Ok(rows)
    }

    /// No two rows of a table share a key: a document that repeats a row is at fault
    /// itself, whatever the server it is imported into holds.
    fn check_unique_keys(&self) -> Result<(), RowsError> {
        for t in self.tables.iter().filter(|t| !t.table.key.is_empty()) {
            let key: Vec<usize> = t.table.key.iter().map(|k| t.table.column_index(k)).collect();
            let compare = |a: &usize, b: &usize| {
                key.iter().map(|&i| t.rows[*a][i].order(&t.rows[*b][i])).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
            };
            let mut by_key: Vec<usize> = (0..t.rows.len()).collect();
            by_key.sort_by(compare);
            if let Some(pair) = by_key.windows(2).find(|pair| compare(&pair[0], &pair[1]).is_eq()) {
                let (first, again) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
                return Err(RowsError::new(
                    format!("tables.{}[{again}]", t.table.name),
                    format!("repeats row {first} of the same table: two rows with one {}", t.table.key.join(" and ")),
                ));
            }
        }
        Ok(())
    }

    /// Every row is the learner's: a column naming the learner ([`Column::names_the_learner`])
    /// holds the learner's id (or nothing, where it may), and a reference names a row of this document, never one of
    /// another learner's on the server the document is imported into.
    fn check_ownership(&self) -> Result<(), RowsError> {
        let learner = self.learner.id.0;
        let mut ids: HashMap<&str, HashSet<Uuid>> = HashMap::new();
        for t in &self.tables {
            if let Some(i) = t.table.columns.iter().position(|c| c.name == "id" && c.kind == Kind::Id) {
                ids.insert(t.table.name, t.rows.iter().filter_map(|r| r[i].as_id()).collect());
            }
        }
        for t in &self.tables {
            for (r, row) in t.rows.iter().enumerate() {
                for (column, value) in t.table.columns.iter().zip(row) {
                    let field = || format!("tables.{}[{r}].{}", t.table.name, column.name);
                    if column.names_the_learner() && value.as_id() != Some(learner) {
                        return Err(RowsError::new(field(), format!("must be the learner's id, {learner}")));
                    }
                    if let (Some(table), Some(id)) = (column.refers_to, value.as_id()) {
                        if !ids.get(table).is_some_and(|known| known.contains(&id)) {
                            return Err(RowsError::new(
                                field(),
                                format!("{id} is not one of the document's {table}; a learner's rows refer only to their own"),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The courses the rows refer to, which the server importing them must have.
    pub fn courses(&self) -> Vec<String> {
        let mut courses: Vec<String> = self
            .tables
            .iter()
            .filter(|t| matches!(t.table.name, "tutor_snapshots" | "tutor_threads"))
            .flat_map(|t| {
                let i = t.table.column_index("course_id");
                t.rows.iter().filter_map(move |row| match &row[i] {
                    Value::Text(course) => Some(course.clone()),
                    _ => None,
                })
            })
            .collect();
        courses.sort();
        courses.dedup();
        courses
    }

    pub fn row_count(&self) -> usize {
        self.tables.iter().map(|t| t.rows.len()).sum()
    }
}

fn read_row(table: &TableSpec, row: &Json, path: &str) -> Result<Row, RowsError> {
    let Json::Object(object) = row else {
        return Err(RowsError::new(path, format!("expected an object with {}", table.column_names())));
    };
    if let Some(unknown) = object.keys().find(|k| table.column(k).is_none()) {
        return Err(RowsError::new(
            format!("{path}.{unknown}"),
            format!("unknown column; allowed: {}", table.column_names()),
        ));
    }
    table
        .columns
        .iter()
        .map(|column| {
            let field = format!("{path}.{}", column.name);
            let value = object.get(column.name).ok_or_else(|| RowsError::new(&field, "missing"))?;
            Value::from_json(column, value).map_err(|message| RowsError::new(&field, message))
        })
        .collect()
}
