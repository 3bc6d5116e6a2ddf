//! Domain-separated BLAKE3 hashing of length-prefixed fields, the one recipe behind every ID and
//! fingerprint the stages compute (repository state, stable symbol IDs, body hashes, history
//! inputs, extractor versions): each field, the domain first, is its length (8 bytes little
//! endian) then its bytes, so no two lists of fields hash alike.

/// Hasher for a list of length-prefixed fields.
pub(crate) struct FieldHasher(blake3::Hasher);

impl FieldHasher {
    pub(crate) fn new(domain: &str) -> Self {
        let mut h = FieldHasher(blake3::Hasher::new());
        h.field(domain.as_bytes());
        h
    }
    pub(crate) fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }
    /// The first `len` lowercase hex digits of the hash (at most 64).
    pub(crate) fn hex(&self, len: usize) -> String {
        hex_prefix(&self.0.finalize(), len)
    }
}

/// [`FieldHasher`] over a few short fields at once: the same hash and digits, from one buffer
/// hashed in one call (IDs are hashed by the hundred thousand, and each incremental update of
/// blake3 has a fixed cost larger than hashing a short field).
pub(crate) fn field_hash_hex(domain: &str, fields: &[&[u8]], len: usize) -> String {
    hex_prefix(&field_hash(domain, fields), len)
}

/// All 64 hex digits of [`field_hash_hex`], on the stack, for callers that place them into a
/// string of their own.
pub(crate) fn field_hash_digits(domain: &str, fields: &[&[u8]]) -> [u8; 64] {
    hex_digits(&field_hash(domain, fields))
}

/// The hash behind [`field_hash_hex`]: each field (the domain first) as its length, 8 bytes little
/// endian, then its bytes, exactly as [`FieldHasher`] feeds them.
fn field_hash(domain: &str, fields: &[&[u8]]) -> blake3::Hash {
    /// Inputs up to this size (nearly every ID) are laid out on the stack, not in a new `Vec`.
    const STACK_BYTES: usize = 512;
    let total =
        8 * (fields.len() + 1) + domain.len() + fields.iter().map(|f| f.len()).sum::<usize>();
    let mut stack = [0u8; STACK_BYTES];
    let mut heap = Vec::new();
    let buf: &mut [u8] = if total <= STACK_BYTES {
        &mut stack[..total]
    } else {
        heap.resize(total, 0);
        &mut heap
    };
    let mut at = 0;
    for field in std::iter::once(domain.as_bytes()).chain(fields.iter().copied()) {
        buf[at..at + 8].copy_from_slice(&(field.len() as u64).to_le_bytes());
        buf[at + 8..at + 8 + field.len()].copy_from_slice(field);
        at += 8 + field.len();
    }
    blake3::hash(buf)
}

/// The first `len` lowercase hex digits of `hash` (at most 64).
fn hex_prefix(hash: &blake3::Hash, len: usize) -> String {
    std::str::from_utf8(&hex_digits(hash)[..len.min(64)])
        .unwrap_or_default()
        .to_string()
}

/// The 64 lowercase hex digits of `hash`.
fn hex_digits(hash: &blake3::Hash) -> [u8; 64] {
    /// The two digits of every byte.
    const PAIRS: [[u8; 2]; 256] = {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut pairs = [[0u8; 2]; 256];
        let mut b = 0;
        while b < 256 {
            pairs[b] = [DIGITS[b >> 4], DIGITS[b & 0xf]];
            b += 1;
        }
        pairs
    };
    // Written as bytes: collecting `char`s encodes each one and grows the string as it goes.
    let mut hex = [0u8; 64];
    for (i, &byte) in hash.as_bytes().iter().enumerate() {
        hex[2 * i..2 * i + 2].copy_from_slice(&PAIRS[byte as usize]);
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits_are_a_prefix_of_the_full_hex_and_one_shot_hashing_agrees() {
        let mut h = FieldHasher::new("ckb.test");
        h.field(b"some bytes").field(b"");
        let full = h.0.finalize().to_hex().to_string();
        for len in [0, 1, 7, 16, 20, 32, 63, 64, 100] {
            assert_eq!(h.hex(len), full[..len.min(64)], "len {len}");
            assert_eq!(
                field_hash_hex("ckb.test", &[b"some bytes", b""], len),
                full[..len.min(64)],
                "len {len}"
            );
        }
        assert_ne!(
            field_hash_hex("ckb.test", &[b"some", b" bytes"], 20),
            field_hash_hex("ckb.test", &[b"some ", b"bytes"], 20)
        );
        // Inputs laid out on the stack and in a Vec (past 512 bytes) hash alike.
        for size in [400, 480, 500, 600] {
            let long = vec![b'x'; size];
            let mut h = FieldHasher::new("ckb.test");
            h.field(&long).field(b"tail");
            assert_eq!(
                field_hash_hex("ckb.test", &[&long, b"tail"], 32),
                h.hex(32),
                "{size}"
            );
        }
    }
}
