//! Numbers as learners write them: integers, decimals, fractions and mixed numbers, with
//! thousands commas, read into exact [`Ratio`]s so that equal values compare equal
//! (`4,000` = `4000`, `0.5` = `1/2`).
//!
//! Commas are read as thousands separators only in groups of three (`1,234`,
//! `12,345,678`); any other comma makes the text not a number (so `1,5` is refused rather
//! than guessed to be 1.5 or 15).

mod ratio;

pub use ratio::{gcd, Ratio};

/// At most this many digits, so a decimal's numerator fits in `i64`.
const MAX_DIGITS: usize = 18;

/// A number in any of the forms above; `None` for anything else (never a guess).
pub fn parse_ratio(text: &str) -> Option<Ratio> {
    let text = text.trim();
    if let Some(mixed) = parse_mixed(text) {
        return Some(mixed);
    }
    if text.contains('/') {
        return parse_fraction(text);
    }
    parse_decimal(text)
}

/// A mixed number, `1 1/2` or `-1 1/2` (the sign applies to both parts).
fn parse_mixed(text: &str) -> Option<Ratio> {
    let (whole, frac) = text.split_once(' ')?;
    let whole = parse_integer(whole)?;
    let frac = parse_fraction(frac.trim())?;
    if frac.num() <= 0 || frac.num() >= frac.den() {
        return None;
    }
    if whole < 0 || text.starts_with('-') {
        Ratio::int(whole).checked_sub(frac)
    } else {
        Ratio::int(whole).checked_add(frac)
    }
}

fn parse_fraction(text: &str) -> Option<Ratio> {
    let (num, den) = text.split_once('/')?;
    Ratio::new(parse_integer(num.trim())?, parse_integer(den.trim())?)
}

fn parse_integer(text: &str) -> Option<i64> {
    let r = parse_decimal(text)?;
    r.is_integer().then_some(r.num())
}

fn parse_decimal(text: &str) -> Option<Ratio> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (int_part, frac_part) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    let int_digits = without_thousands(int_part)?;
    if int_digits.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !frac_part.bytes().all(|b| b.is_ascii_digit()) || int_digits.len() + frac_part.len() > MAX_DIGITS {
        return None;
    }
    let mut num: i64 = 0;
    for b in int_digits.bytes().chain(frac_part.bytes()) {
        num = num * 10 + i64::from(b - b'0');
    }
    let den = 10_i64.pow(frac_part.len() as u32);
    Ratio::new(if negative { -num } else { num }, den)
}

/// The digits of an integer part, with thousands commas removed when they are well placed.
fn without_thousands(text: &str) -> Option<String> {
    if !text.contains(',') {
        return text.bytes().all(|b| b.is_ascii_digit()).then(|| text.to_string());
    }
    let mut groups = text.split(',');
    let first = groups.next()?;
    if first.is_empty() || first.len() > 3 || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits = first.to_string();
    for group in groups {
        if group.len() != 3 || !group.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.push_str(group);
    }
    Some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Option<Ratio> {
        Ratio::new(n, d)
    }

    #[test]
    fn numbers_in_their_usual_forms() {
        assert_eq!(parse_ratio("3"), r(3, 1));
        assert_eq!(parse_ratio(" +3 "), r(3, 1));
        assert_eq!(parse_ratio("3.0"), r(3, 1));
        assert_eq!(parse_ratio("-1.5"), r(-3, 2));
        assert_eq!(parse_ratio("-3/2"), r(-3, 2));
        assert_eq!(parse_ratio("6 / -4"), r(-3, 2));
        assert_eq!(parse_ratio("1 1/2"), r(3, 2));
        assert_eq!(parse_ratio("-1 1/2"), r(-3, 2));
        assert_eq!(parse_ratio(".5"), r(1, 2));
        assert_eq!(parse_ratio("1,234"), r(1234, 1));
        assert_eq!(parse_ratio("12,345,678.5"), r(24_691_357, 2));
    }

    #[test]
    fn malformed_numbers_are_not_guessed() {
        for bad in ["", "-", ".", "1,5", "1,23", ",123", "1234,567", "1/0", "3x", "1 3/2", "one", "1..2", "--1"] {
            assert_eq!(parse_ratio(bad), None, "{bad}");
        }
        assert_eq!(parse_ratio("1234567890123456789"), None);
    }
}
