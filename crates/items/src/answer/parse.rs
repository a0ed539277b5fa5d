//! Reading a learner's typed answer: numbers (integers, decimals, fractions, mixed numbers,
//! `x = 3`), IPv4 addresses and subnet masks (`255.255.255.0`, `/24`, `24`), binary numbers
//! (`0010 1101`) and the names of decimal places (`the hundreds place`).
//!
//! Commas are read as thousands separators only in groups of three (`1,234`,
//! `12,345,678`); any other comma makes the text not a number (so `1,5` is refused rather
//! than guessed to be 1.5 or 15).

use super::ratio::Ratio;
use super::value::{mask_of, PLACE_NAMES};

/// At most this many digits, so a decimal's numerator fits in `i64`.
const MAX_DIGITS: usize = 18;

/// Removes a leading `x =` (any case, any spacing) when the answer names the variable.
pub(crate) fn strip_variable<'a>(text: &'a str, variable: Option<&str>) -> &'a str {
    let text = text.trim();
    let Some(var) = variable else { return text };
    let Some(head) = text.get(..var.len()) else { return text };
    if !head.eq_ignore_ascii_case(var) {
        return text;
    }
    match text[var.len()..].trim_start().strip_prefix('=') {
        Some(rest) => rest.trim(),
        None => text,
    }
}

pub(crate) fn parse_ratio(text: &str) -> Option<Ratio> {
    let text = text.trim();
    if let Some(mixed) = parse_mixed(text) {
        return Some(mixed);
    }
    if text.contains('/') {
        return parse_fraction(text);
    }
    parse_decimal(text)
}

/// Any number, for comparisons within a tolerance: what [`parse_ratio`] reads, plus
/// exponents (`1.5e3`).
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    if let Some(r) = parse_ratio(text) {
        return Some(r.to_f64());
    }
    let text = text.trim();
    let plain = text.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    text.parse::<f64>().ok().filter(|v| plain && v.is_finite())
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
        Ratio::int(whole).sub(frac)
    } else {
        Ratio::int(whole).add(frac)
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

/// A dotted quad, each part 0-255 (leading zeros are read as decimal).
pub(crate) fn parse_ipv4(text: &str) -> Option<u32> {
    let mut value: u32 = 0;
    let mut parts = 0;
    for part in text.trim().split('.') {
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let octet: u32 = part.parse().ok()?;
        if octet > 255 {
            return None;
        }
        value = (value << 8) | octet;
        parts += 1;
    }
    (parts == 4).then_some(value)
}

/// A prefix length from `/24`, `24` or a contiguous dotted mask `255.255.255.0`.
pub(crate) fn parse_prefix(text: &str) -> Option<u8> {
    let text = text.trim();
    if text.contains('.') {
        let mask = parse_ipv4(text)?;
        let ones = mask.leading_ones();
        return (mask_of(ones as u8) == mask).then_some(ones as u8);
    }
    let digits = text.strip_prefix('/').unwrap_or(text).trim();
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u8>().ok().filter(|p| *p <= 32)
}

/// A binary number as written: its value and how many bits were written, leading zeros
/// included. Spaces between groups of bits (`0010 1101`) and a `0b` prefix are allowed; at
/// most 32 bits.
pub(crate) fn parse_binary(text: &str) -> Option<(u32, u32)> {
    let text = text.trim();
    let body = text.strip_prefix("0b").or_else(|| text.strip_prefix("0B")).unwrap_or(text);
    let mut value: u32 = 0;
    let mut bits = 0;
    for c in body.chars() {
        match c {
            '0' | '1' if bits < u32::BITS => {
                value = (value << 1) | u32::from(c == '1');
                bits += 1;
            }
            c if c.is_whitespace() => {}
            _ => return None,
        }
    }
    (bits > 0).then_some((value, bits))
}

/// A decimal place by its power of ten, from its name as learners write it: any case,
/// singular or plural, with or without `the` and `place` (`Hundreds`, `the hundred place`,
/// `ten-thousands`); `units` is the ones.
pub(crate) fn parse_place(text: &str) -> Option<u8> {
    let lower = text.to_lowercase().replace('-', " ");
    let mut words: Vec<&str> = lower.split_whitespace().collect();
    if words.first() == Some(&"the") {
        words.remove(0);
    }
    if matches!(words.last(), Some(&("place" | "column" | "digit"))) {
        words.pop();
    }
    let last = words.pop()?;
    let singular = last.strip_suffix('s').unwrap_or(last);
    let singular = if singular == "unit" { "one" } else { singular };
    words.push(singular);
    let name = words.join(" ");
    PLACE_NAMES.iter().position(|p| p.strip_suffix('s') == Some(name.as_str())).map(|p| p as u8)
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

    #[test]
    fn tolerance_numbers_also_take_exponents_but_not_infinities() {
        assert_eq!(parse_f64("1.5e3"), Some(1500.0));
        assert_eq!(parse_f64("2/8"), Some(0.25));
        for bad in ["inf", "NaN", "infinity", "1e999", "0x10"] {
            assert_eq!(parse_f64(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_variable_may_be_named() {
        assert_eq!(strip_variable("x = 3", Some("x")), "3");
        assert_eq!(strip_variable("X=3", Some("x")), "3");
        assert_eq!(strip_variable("3", Some("x")), "3");
        assert_eq!(strip_variable("y = 3", Some("x")), "y = 3");
        assert_eq!(strip_variable("x = 3", None), "x = 3");
    }

    #[test]
    fn addresses_and_masks() {
        assert_eq!(parse_ipv4("192.168.1.10"), Some(0xC0A8_010A));
        assert_eq!(parse_ipv4("010.0.0.1"), Some(0x0A00_0001));
        for bad in ["256.1.1.1", "1.2.3", "1.2.3.4.5", "1..3.4", "a.b.c.d", " 1.2.3.-4"] {
            assert_eq!(parse_ipv4(bad), None, "{bad}");
        }
        assert_eq!(parse_prefix("/24"), Some(24));
        assert_eq!(parse_prefix("24"), Some(24));
        assert_eq!(parse_prefix("255.255.255.0"), Some(24));
        assert_eq!(parse_prefix("255.255.252.0"), Some(22));
        assert_eq!(parse_prefix("0.0.0.0"), Some(0));
        assert_eq!(parse_prefix("255.255.255.255"), Some(32));
        for bad in ["255.0.255.0", "/33", "/", "0.0.0.255", "1/2"] {
            assert_eq!(parse_prefix(bad), None, "{bad}");
        }
        assert_eq!(mask_of(0), 0);
        assert_eq!(mask_of(32), u32::MAX);
        assert_eq!(mask_of(26), 0xFFFF_FFC0);
    }

    #[test]
    fn binary_numbers_with_their_written_width() {
        assert_eq!(parse_binary("101101"), Some((45, 6)));
        assert_eq!(parse_binary(" 0010 1101 "), Some((45, 8)));
        assert_eq!(parse_binary("0b00101101"), Some((45, 8)));
        assert_eq!(parse_binary("0"), Some((0, 1)));
        assert_eq!(parse_binary(&"1".repeat(32)), Some((u32::MAX, 32)));
        for bad in ["", "0b", "102", "1.0", "-101", "1_0", "0x1F", "binary", &"1".repeat(33)] {
            assert_eq!(parse_binary(bad), None, "{bad}");
        }
    }

    #[test]
    fn place_names_as_learners_write_them() {
        for (text, place) in [
            ("ones", 0),
            ("Units", 0),
            ("one", 0),
            ("tens", 1),
            ("the hundreds place", 2),
            ("Hundred", 2),
            ("thousands column", 3),
            ("ten-thousands", 4),
            ("Ten Thousand place", 4),
            ("hundred thousands", 5),
            ("the hundred millions", 8),
        ] {
            assert_eq!(parse_place(text), Some(place), "{text}");
        }
        for bad in ["", "the", "place", "300", "hundredths", "thousand hundreds", "tens tens", "billions"] {
            assert_eq!(parse_place(bad), None, "{bad}");
        }
    }
}
