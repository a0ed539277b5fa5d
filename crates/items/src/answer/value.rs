//! The value a generator computes as a key or a distractor, and its canonical text: the
//! text shown as an option and stored as the key, so two options are distinct exactly when
//! their values are.

use super::ratio::Ratio;
use std::fmt::{self, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Value {
    Number(Ratio),
    Ipv4(u32),
    /// A subnet mask given by its prefix length, written dotted (`255.255.255.0`).
    Mask(u8),
    /// A prefix length, written `/24`.
    Prefix(u8),
}

impl Value {
    pub fn int(n: i64) -> Value {
        Value::Number(Ratio::int(n))
    }
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
            Value::Mask(p) => write_ipv4(f, super::parse::mask_of(*p)),
            Value::Prefix(p) => write!(f, "/{p}"),
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
    }
}
