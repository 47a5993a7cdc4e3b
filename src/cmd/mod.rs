//! One module per tool: its arguments (clap) and its `run`.

pub mod agg;
pub mod cat;
pub mod filter;
pub mod find;
pub mod grep;
