//! An item bank: the validated, non-empty list of items a test draws from, addressed by
//! index (0-based, as in the JSON array it may be read from).

use crate::json::{parse_located, Located};
use crate::model::ItemParams;
use serde::{Deserialize, Serialize};
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

/// In JSON the bare array of items; deserializing refuses an empty one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<ItemParams>", into = "Vec<ItemParams>")]
pub struct ItemBank {
    items: Vec<ItemParams>,
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
        Ok(ItemBank { items })
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
