//! ci-tools: small, fast Unix filters for AI-agent session captures.
//!
//! (crate docs are completed with the foundation)

pub mod time;
pub mod truncate;
