//! When a returned value counts as the expected one.
//!
//! JSON-semantic equality with two allowances for arithmetic: an integer equals the same
//! float (`3 == 3.0`), and two numbers that are not both integers are equal within a
//! relative tolerance of 1e-9 (or 1e-12 absolute, for results that should be zero).
//! Everything else is exact: `true` is not `1`, `"3"` is not `3`, `[1, 2]` is not
//! `[2, 1]`, objects must have the same keys. A Python tuple arrives as an array.

use serde_json::{Number, Value};

const RELATIVE_TOLERANCE: f64 = 1e-9;
const ABSOLUTE_TOLERANCE: f64 = 1e-12;

pub(crate) fn matches(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => numbers_match(a, b),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| matches(x, y)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(key, x)| b.get(key).is_some_and(|y| matches(x, y)))
        }
        _ => false,
    }
}

fn numbers_match(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (as_integer(a), as_integer(b)) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => floats_match(x, y),
        _ => false,
    }
}

fn as_integer(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

fn floats_match(x: f64, y: f64) -> bool {
    if x == y {
        return true;
    }
    let difference = (x - y).abs();
    difference <= ABSOLUTE_TOLERANCE || difference <= RELATIVE_TOLERANCE * x.abs().max(y.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_and_floats_meet_in_the_middle() {
        assert!(matches(&json!(3), &json!(3.0)));
        assert!(matches(&json!(0.1 + 0.2), &json!(0.3)));
        assert!(matches(&json!(0.1 + 0.2 - 0.3), &json!(0)));
        assert!(matches(&json!(1e20 * (1.0 + 1e-12)), &json!(1e20)));
        assert!(!matches(&json!(3), &json!(4)));
        assert!(!matches(&json!(1.0), &json!(1.001)));
        assert!(!matches(&json!(9007199254740993u64), &json!(9007199254740992u64)));
    }

    #[test]
    fn types_do_not_mix() {
        assert!(!matches(&json!(true), &json!(1)));
        assert!(!matches(&json!("3"), &json!(3)));
        assert!(!matches(&json!(null), &json!(0)));
        assert!(!matches(&json!([1]), &json!(1)));
    }

    #[test]
    fn containers_compare_element_by_element() {
        assert!(matches(&json!([1, [2.0, "x"]]), &json!([1.0, [2, "x"]])));
        assert!(!matches(&json!([1, 2]), &json!([2, 1])));
        assert!(!matches(&json!([1, 2]), &json!([1, 2, 3])));
        assert!(matches(&json!({"a": 1, "b": [2]}), &json!({"b": [2.0], "a": 1})));
        assert!(!matches(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!matches(&json!({"a": 1}), &json!({"b": 1})));
    }
}
