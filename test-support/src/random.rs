//! A small deterministic random stream (xorshift64) for tests that generate many cases: the same
//! seed gives the same cases on every machine, and no test needs a random-number crate.

/// A xorshift64 generator; the seed must not be zero.
pub struct Rng(u64);

impl Rng {
    /// A stream starting from `seed` (not zero).
    pub fn new(seed: u64) -> Rng {
        assert_ne!(seed, 0, "a xorshift seed must not be zero");
        Rng(seed)
    }

    /// The next value of the stream.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True `per_mille` times in a thousand.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.next_u64() % 1000 < per_mille
    }
}
