//! The value a generator computes as a key or a distractor, and its canonical text: the
//! text shown as an option and stored as the key, so two options are distinct exactly when
//! their values are.

use pathwise_domain::number::Ratio;
use std::fmt::{self, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    Number(Ratio),
    Ipv4(u32),
    /// A subnet mask given by its prefix length, written dotted (`255.255.255.0`).
    Mask(u8),
    /// A prefix length, written `/24`.
    Prefix(u8),
    /// A number written in binary with leading zeros up to `width` bits (an octet's eight);
    /// made by [`Value::bits`] only.
    Bits {
        value: u32,
        width: u8,
    },
    /// A decimal place by its power of ten (0 the ones, 2 the hundreds), written by name.
    Place(u8),
}

/// The IPv4 netmask of a prefix length (`/26` is `255.255.255.192`).
pub(crate) fn mask_of(prefix: u8) -> u32 {
    if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix.min(32)))
    }
}

/// The decimal places by power of ten, as answers name them; nine digits at most.
pub(crate) const PLACE_NAMES: [&str; 9] = [
    "ones",
    "tens",
    "hundreds",
    "thousands",
    "ten thousands",
    "hundred thousands",
    "millions",
    "ten millions",
    "hundred millions",
];

impl Value {
    pub fn int(n: i64) -> Value {
        Value::Number(Ratio::int(n))
    }

    /// `value` in binary, padded with leading zeros to `width` bits. A width the value's
    /// own bits already reach is dropped, so that two values are equal exactly when their
    /// text is (`11000000` padded to 8 bits is the same text as unpadded).
    pub fn bits(value: u32, width: u8) -> Value {
        let own = bit_length(value);
        Value::Bits { value, width: if u32::from(width) > own { width } else { 0 } }
    }
}

/// How many bits `value` takes written in binary without leading zeros (1 for 0).
pub(crate) fn bit_length(value: u32) -> u32 {
    (u32::BITS - value.leading_zeros()).max(1)
}

pub(crate) fn write_ipv4(f: &mut impl Write, ip: u32) -> fmt::Result {
    let [a, b, c, d] = ip.to_be_bytes();
    write!(f, "{a}.{b}.{c}.{d}")
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(r) => write!(f, "{r}"),
            Value::Ipv4(ip) => write_ipv4(f, *ip),
            Value::Mask(p) => write_ipv4(f, mask_of(*p)),
            Value::Prefix(p) => write!(f, "/{p}"),
            Value::Bits { value, width } => write!(f, "{value:0width$b}", width = usize::from(*width)),
            Value::Place(p) => f.write_str(PLACE_NAMES.get(usize::from(*p)).copied().unwrap_or("?")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_text() {
        assert_eq!(Value::int(85).to_string(), "85");
        assert_eq!(Value::Number(Ratio::new(-3, 2).unwrap()).to_string(), "-3/2");
        assert_eq!(Value::Ipv4(0xC0A8_0100).to_string(), "192.168.1.0");
        assert_eq!(Value::Mask(22).to_string(), "255.255.252.0");
        assert_eq!(Value::Prefix(22).to_string(), "/22");
        assert_eq!(Value::bits(45, 0).to_string(), "101101");
        assert_eq!(Value::bits(45, 8).to_string(), "00101101");
        assert_eq!(Value::bits(0, 0).to_string(), "0");
        assert_eq!(Value::Place(4).to_string(), "ten thousands");
    }

    #[test]
    fn bits_are_equal_exactly_when_their_text_is() {
        assert_eq!(Value::bits(192, 8), Value::bits(192, 0));
        assert_ne!(Value::bits(45, 8), Value::bits(45, 0));
        for value in [0, 1, 45, 127, 128, 255, 256, 65_535] {
            for (w1, w2) in [(0, 8), (8, 16), (3, 9)] {
                let (a, b) = (Value::bits(value, w1), Value::bits(value, w2));
                assert_eq!(a == b, a.to_string() == b.to_string(), "{value} at {w1} and {w2}");
            }
        }
    }
}
