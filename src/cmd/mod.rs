//! One module per tool: its arguments (clap) and its `run`.

pub mod agg;
pub mod cat;
pub mod filter;
pub mod find;
pub mod grep;

/// Every tool's command line, in pipeline order (for the hint naming the
/// tool that has a flag another lacks, [`crate::cli::main`]).
pub fn commands() -> Vec<clap::Command> {
    use clap::CommandFactory;
    vec![
        find::Args::command(),
        filter::Args::command(),
        grep::Args::command(),
        cat::Args::command(),
        agg::Args::command(),
    ]
}
