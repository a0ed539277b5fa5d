//! Reading a learner's typed answer: numbers (the domain's reading, [`parse_ratio`], with
//! `x = 3` and exponents), IPv4 addresses and subnet masks (`255.255.255.0`, `/24`, `24`),
//! binary numbers (`0010 1101`) and the names of decimal places (`the hundreds place`).

use super::value::{mask_of, PLACE_NAMES};
pub(crate) use pathwise_domain::number::parse_ratio;

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
