//! The test kit shared by the integration tests: capture trees of every
//! writer ([`tree`]) and the proptest strategies of the property tests
//! ([`strategies`]). Spawning the binaries with the pinned environment is
//! `tests/util.rs`.

pub mod strategies;
pub mod tree;

pub use tree::Tree;
