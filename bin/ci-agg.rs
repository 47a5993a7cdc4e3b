//! `ci-agg`: group, count and measure events; session, tool and token analytics. See `ci-agg --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ci_tools::cli::main(ci_tools::cmd::agg::run, ci_tools::cmd::commands)
}
