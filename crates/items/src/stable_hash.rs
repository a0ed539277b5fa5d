//! FNV-1a (64-bit): a hash whose values never change between Rust releases or platforms,
//! unlike `DefaultHasher`, so it can go into ids that are stored and compared later.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

#[derive(Debug, Clone, Copy)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64::new()
    }
}

impl Fnv64 {
    pub fn new() -> Self {
        Fnv64(OFFSET)
    }

    pub fn write(&mut self, bytes: &[u8]) -> &mut Self {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
        self
    }

    /// Writes a field and a separator, so that ("ab", "c") and ("a", "bc") differ.
    pub fn field(&mut self, text: &str) -> &mut Self {
        self.write(text.as_bytes()).write(&[0x1f])
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    Fnv64::new().write(bytes).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn fields_are_separated() {
        let ab_c = Fnv64::new().field("ab").field("c").finish();
        let a_bc = Fnv64::new().field("a").field("bc").finish();
        assert_ne!(ab_c, a_bc);
    }
}
