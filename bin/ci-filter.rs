//! `ci-filter`: select event records and session records by predicates. See `ci-filter --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ci_tools::cli::main(ci_tools::cmd::filter::run, ci_tools::cmd::commands)
}
