//! An item bank: the validated, non-empty list of items a test draws from, addressed by
//! index (0-based, as in the JSON array it may be read from).
//!
//! A bank also keeps, once a selection rule that averages over the posterior first asks
//! for it, every item's log-probabilities and information at every point of the
//! quadrature grid ([`GridTable`]): those rules then cost a few multiply-adds per item and
//! grid point instead of an exponential and two logarithms, and every test on the bank
//! shares the table.

use crate::json::{parse_located, Located};
use crate::model::ItemParams;
use crate::settings::Grid;
use serde::{Deserialize, Serialize, Serializer};
use std::sync::OnceLock;
use thiserror::Error;

/// Why a bank was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BankError {
    #[error("the bank is empty; a bank needs at least one item")]
    Empty,
    /// `location` names the item and field at fault, e.g. "item 3, field c".
    #[error("{location}: {message}")]
    Malformed { location: String, message: String },
}

/// In JSON the bare array of items; deserializing refuses an empty one. Two banks are
/// equal when their items are; the grid table is a cache and does not count.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "Vec<ItemParams>")]
pub struct ItemBank {
    items: Vec<ItemParams>,
    grid_table: OnceLock<GridTable>,
}

impl PartialEq for ItemBank {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

impl Serialize for ItemBank {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.items.serialize(serializer)
    }
}

impl TryFrom<Vec<ItemParams>> for ItemBank {
    type Error = BankError;
    fn try_from(items: Vec<ItemParams>) -> Result<Self, BankError> {
        Self::new(items)
    }
}

impl From<ItemBank> for Vec<ItemParams> {
    fn from(bank: ItemBank) -> Self {
        bank.items
    }
}

impl ItemBank {
    pub fn new(items: Vec<ItemParams>) -> Result<Self, BankError> {
        if items.is_empty() {
            return Err(BankError::Empty);
        }
        Ok(ItemBank { items, grid_table: OnceLock::new() })
    }

    /// Reads a JSON array of items (`{"a", "b", "c", "d"}`, see [`ItemParams`]).
    pub fn from_json(text: &str) -> Result<Self, BankError> {
        let items: Vec<ItemParams> = parse_located(text, "item").map_err(|Located { location, message }| {
            let message = if location == "the file" {
                format!(
                    "{message}; a bank is a JSON array of items such as {{\"a\": 1.2, \"b\": -0.4, \"c\": 0.2}} \
                     (a, c and an upper asymptote d are optional)"
                )
            } else {
                message
            };
            BankError::Malformed { location, message }
        })?;
        Self::new(items)
    }

    pub fn items(&self) -> &[ItemParams] {
        &self.items
    }

    pub fn get(&self, index: usize) -> Option<&ItemParams> {
        self.items.get(index)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Always false: an empty bank is refused when built.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The items' values at the points of `grid`, computed on the first call and kept.
    /// A bank keeps one table: `None` when it was built for another grid (tests on one bank
    /// share their settings in practice), and the caller computes the values itself.
    /// A table larger than [`MAX_TABLE_ENTRIES`] is not kept either.
    pub(crate) fn grid_table(&self, grid: &Grid) -> Option<&GridTable> {
        if self.items.len().saturating_mul(grid.points) > MAX_TABLE_ENTRIES {
            return None;
        }
        let table = self.grid_table.get_or_init(|| GridTable::new(&self.items, grid));
        (table.grid == *grid).then_some(table)
    }
}

/// The most item-by-grid-point entries a bank tabulates: 24 MiB over the three columns,
/// ample for the default 121-point grid (8,666 items), while a bank of thousands of items
/// on a fine grid of thousands of points computes its values as it goes rather than hold
/// hundreds of megabytes.
pub(crate) const MAX_TABLE_ENTRIES: usize = 1 << 20;

/// Every item's ln P, ln(1 - P) and Fisher information at every point of a grid, item by
/// item so that one item's values over a range of points are contiguous.
#[derive(Debug, Clone)]
pub(crate) struct GridTable {
    grid: Grid,
    log_p: Vec<f64>,
    log_q: Vec<f64>,
    information: Vec<f64>,
}

impl GridTable {
    fn new(items: &[ItemParams], grid: &Grid) -> Self {
        let nodes: Vec<f64> = grid.nodes().collect();
        let size = items.len() * nodes.len();
        let mut table = GridTable {
            grid: *grid,
            log_p: Vec::with_capacity(size),
            log_q: Vec::with_capacity(size),
            information: Vec::with_capacity(size),
        };
        for item in items {
            for &theta in &nodes {
                table.log_p.push(item.log_likelihood(theta, true));
                table.log_q.push(item.log_likelihood(theta, false));
                table.information.push(item.information(theta));
            }
        }
        table
    }

    fn row<'t>(&self, column: &'t [f64], item: usize) -> &'t [f64] {
        let points = self.grid.points;
        &column[item * points..(item + 1) * points]
    }

    /// ln P(correct) of item `item` at each grid point.
    pub(crate) fn log_p(&self, item: usize) -> &[f64] {
        self.row(&self.log_p, item)
    }

    /// ln P(wrong) of item `item` at each grid point.
    pub(crate) fn log_q(&self, item: usize) -> &[f64] {
        self.row(&self.log_q, item)
    }

    /// The Fisher information of item `item` at each grid point.
    pub(crate) fn information(&self, item: usize) -> &[f64] {
        self.row(&self.information, item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bank_of_mixed_models_parses() {
        let bank = ItemBank::from_json(r#"[{"b": 0}, {"a": 1.2, "b": 1}, {"a": 1, "b": 0, "c": 0.2, "d": 0.9}]"#);
        assert_eq!(bank.unwrap().len(), 3);
    }

    #[test]
    fn errors_name_the_item_and_field_at_fault() {
        let error = ItemBank::from_json(r#"[{"a": 1, "b": 0}, {"a": 1, "b": "hard"}]"#).unwrap_err().to_string();
        assert!(error.starts_with("item 1, field b: invalid type: string \"hard\", expected f64"), "{error}");
        let error = ItemBank::from_json(r#"[{"b": 0}, {"b": 0}, {"b": 0}, {"a": 1, "b": 0, "c": 1.2}]"#);
        assert!(error
            .unwrap_err()
            .to_string()
            .starts_with("item 3: c = 1.2 is out of range; allowed: 0 <= c < d <= 1"));
        let error = ItemBank::from_json(r#"[{"a": 1}]"#).unwrap_err().to_string();
        assert!(error.starts_with("item 0: missing field `b`"), "{error}");
        let error = ItemBank::from_json(r#"{"items": []}"#).unwrap_err().to_string();
        assert!(error.starts_with("the file: invalid type: map, expected a sequence"), "{error}");
        assert!(error.contains("a bank is a JSON array of items"), "{error}");
    }

    #[test]
    fn a_bank_round_trips_through_serde_as_a_bare_array() {
        let bank = ItemBank::from_json(r#"[{"a": 1.5, "b": 0.25, "c": 0.2, "d": 0.9}]"#).unwrap();
        let text = serde_json::to_string(&bank).unwrap();
        assert_eq!(text, r#"[{"a":1.5,"b":0.25,"c":0.2,"d":0.9}]"#);
        assert_eq!(serde_json::from_str::<ItemBank>(&text).unwrap(), bank);
        assert!(serde_json::from_str::<ItemBank>("[]").is_err());
    }

    #[test]
    fn an_empty_bank_is_refused() {
        assert_eq!(ItemBank::from_json("[]").unwrap_err(), BankError::Empty);
        assert_eq!(
            ItemBank::new(Vec::new()).unwrap_err().to_string(),
            "the bank is empty; a bank needs at least one item"
        );
    }
}
