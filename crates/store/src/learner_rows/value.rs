//! One column's value: read from and written to a document as its kind says, and ordered.

use super::tables::{Column, Kind};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use serde_json::Value as Json;
use std::cmp::Ordering;
use uuid::Uuid;

/// One value of a column, as its [`Kind`] says.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Id(Uuid),
    Time(DateTime<Utc>),
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Json(Json),
    Bytes(Vec<u8>),
    Date(NaiveDate),
    Qualities(Vec<u8>),
}

impl Value {
    /// The value in a document.
    pub fn to_json(&self) -> Json {
        match self {
            Value::Null => Json::Null,
            Value::Id(id) => Json::String(id.to_string()),
            Value::Time(t) => Json::String(t.to_rfc3339_opts(SecondsFormat::Micros, true)),
            Value::Text(s) => Json::String(s.clone()),
            Value::Int(n) => Json::from(*n),
            Value::Float(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
            Value::Bool(b) => Json::Bool(*b),
            Value::Json(v) => v.clone(),
            Value::Bytes(b) => Json::String(hex::encode(b)),
            Value::Date(d) => Json::String(d.format("%Y-%m-%d").to_string()),
            Value::Qualities(q) => Json::Array(q.iter().map(|&q| Json::from(q)).collect()),
        }
    }

    /// The value of a document, read as `column` keeps it; the error says what is allowed.
    pub fn from_json(column: &Column, value: &Json) -> Result<Value, String> {
        if value.is_null() && column.nullable {
            return Ok(Value::Null);
        }
        let text = || value.as_str().ok_or_else(|| format!("expected {}", describe(column.kind)));
        match column.kind {
            Kind::Json => Ok(Value::Json(value.clone())),
            _ if value.is_null() => Err(format!("must not be null; expected {}", describe(column.kind))),
            Kind::Id => Uuid::parse_str(text()?).map(Value::Id).map_err(|_| "expected a UUID".to_string()),
            Kind::Time => DateTime::parse_from_rfc3339(text()?)
                .map(|t| Value::Time(t.with_timezone(&Utc)))
                .map_err(|_| "expected an RFC 3339 time, such as 2026-03-02T09:00:00.000000Z".to_string()),
            Kind::Text => {
                let text = text()?;
                if let Some(check) = column.words {
                    check(text)?;
                }
                Ok(Value::Text(text.to_string()))
            }
            Kind::Int => value
                .as_i64()
                .filter(|n| i32::try_from(*n).is_ok())
                .map(Value::Int)
                .ok_or_else(|| "expected a whole number that fits in 32 bits".to_string()),
            Kind::BigInt => value.as_i64().map(Value::Int).ok_or_else(|| "expected a whole number".to_string()),
            Kind::Float => value.as_f64().map(Value::Float).ok_or_else(|| "expected a number".to_string()),
            Kind::Bool => value.as_bool().map(Value::Bool).ok_or_else(|| "expected true or false".to_string()),
            Kind::Bytes => hex::decode(text()?).map(Value::Bytes).map_err(|_| "expected hexadecimal bytes".to_string()),
            Kind::Date => NaiveDate::parse_from_str(text()?, "%Y-%m-%d")
                .map(Value::Date)
                .map_err(|_| "expected a day as YYYY-MM-DD".to_string()),
            Kind::Qualities => value
                .as_array()
                .and_then(|items| {
                    items.iter().map(|q| q.as_u64().filter(|q| *q <= 5).map(|q| q as u8)).collect::<Option<Vec<_>>>()
                })
                .map(Value::Qualities)
                .ok_or_else(|| "expected an array of qualities, each 0 to 5".to_string()),
        }
    }

    pub fn as_id(&self) -> Option<Uuid> {
        match self {
            Value::Id(id) => Some(*id),
            _ => None,
        }
    }

    /// An order over values of one column, for the order of a document's rows.
    pub(super) fn order(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::Id(a), Value::Id(b)) => a.cmp(b),
            (Value::Time(a), Value::Time(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Date(a), Value::Date(b)) => a.cmp(b),
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (a, b) => a.to_json().to_string().cmp(&b.to_json().to_string()),
        }
    }
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Id => "a UUID",
        Kind::Time => "an RFC 3339 time",
        Kind::Text => "a string",
        Kind::Int | Kind::BigInt => "a whole number",
        Kind::Float => "a number",
        Kind::Bool => "true or false",
        Kind::Json => "any JSON value",
        Kind::Bytes => "hexadecimal bytes",
        Kind::Date => "a day as YYYY-MM-DD",
        Kind::Qualities => "an array of qualities",
    }
}

/// A row: one value per column of its table, in the table's column order.
pub type Row = Vec<Value>;
