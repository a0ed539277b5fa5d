//! The little of protobuf the reader needs: Anki keeps a package's version (`meta`), a
//! template's question and a note type's kind as protobuf messages, and only a few scalar
//! fields of them are read, so they are decoded here rather than through generated code.

#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    /// A fixed 32- or 64-bit field, not read.
    Fixed,
}

/// Every field of a message, in order; `None` if the bytes are not a message.
pub fn fields(bytes: &[u8]) -> Option<Vec<(u64, Value<'_>)>> {
    let mut at = 0;
    let mut found = Vec::new();
    while at < bytes.len() {
        let key = varint(bytes, &mut at)?;
        let value = match key & 7 {
            0 => Value::Varint(varint(bytes, &mut at)?),
            2 => {
                let len = usize::try_from(varint(bytes, &mut at)?).ok()?;
                let end = at.checked_add(len).filter(|&end| end <= bytes.len())?;
                let value = Value::Bytes(&bytes[at..end]);
                at = end;
                value
            }
            1 => {
                at = at.checked_add(8).filter(|&end| end <= bytes.len())?;
                Value::Fixed
            }
            5 => {
                at = at.checked_add(4).filter(|&end| end <= bytes.len())?;
                Value::Fixed
            }
            _ => return None,
        };
        found.push((key >> 3, value));
    }
    Some(found)
}

/// The varint field `number` of a message (0, protobuf's default, when absent).
pub fn varint_field(bytes: &[u8], number: u64) -> u64 {
    fields(bytes)
        .into_iter()
        .flatten()
        .find_map(|(n, v)| match v {
            Value::Varint(v) if n == number => Some(v),
            _ => None,
        })
        .unwrap_or(0)
}

/// The text field `number` of a message, if present.
pub fn text_field(bytes: &[u8], number: u64) -> Option<String> {
    fields(bytes)?.into_iter().find_map(|(n, v)| match v {
        Value::Bytes(b) if n == number => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    })
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_in_order_and_a_broken_message_is_none() {
        let message = [0x08, 0x01, 0x12, 0x03, b'a', b'b', b'c', 0x18, 0x96, 0x01];
        assert_eq!(varint_field(&message, 1), 1);
        assert_eq!(text_field(&message, 2).as_deref(), Some("abc"));
        assert_eq!(fields(&message).unwrap()[2], (3, Value::Varint(150)));
        assert_eq!(varint_field(&message, 4), 0, "absent: protobuf's default");
        assert!(fields(&[0x12, 0x05, b'a']).is_none(), "cut short");
    }
}
