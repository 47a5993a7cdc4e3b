//! The test kit shared by the integration tests: the proptest strategies of
//! the property tests ([`strategies`]). Spawning the binaries with the
//! pinned environment is `tests/util.rs`.

pub mod strategies;
