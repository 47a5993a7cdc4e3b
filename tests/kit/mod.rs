//! The test kit shared by the integration tests: capture trees of every
//! writer ([`tree`]), skips that say why and fail in CI ([`skip`]), and the
//! proptest strategies of the property tests ([`strategies`]). Spawning the binaries with the pinned environment is
//! `tests/util.rs`.

pub mod live_db;
pub mod skip;
pub mod strategies;
pub mod tree;

pub use skip::skip;
pub use tree::Tree;

/// Every registered format's name: the one list the conformance suite
/// (`tests/conformance.rs`) iterates.
pub fn formats() -> Vec<&'static str> {
    ci_tools::format::FORMATS.iter().map(|f| f.name).collect()
}

/// A tiny deterministic PRNG (xorshift), so a generator needs no dependency.
/// Its seed must not be 0.
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}
