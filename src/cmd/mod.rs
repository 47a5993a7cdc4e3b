//! One module per tool: its arguments (clap) and its `run`.

pub mod cat;
pub mod find;
pub mod grep;
