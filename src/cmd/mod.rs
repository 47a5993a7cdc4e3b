//! One module per tool: its arguments (clap) and its `run`.

pub mod agg;
pub mod cat;
pub mod filter;
pub mod find;
pub mod grep;

/// Every tool's command line, in pipeline order (for the hint naming the
/// tool that has a flag another lacks, [`crate::cli::main`]).
pub fn commands() -> [clap::Command; 5] {
    use clap::CommandFactory;
    [find::Args::command(), filter::Args::command(), grep::Args::command(), cat::Args::command(), agg::Args::command()]
}
