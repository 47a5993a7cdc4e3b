//! `ci-cat`: stream events as NDJSON with large payloads size-truncated. See `ci-cat --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ci_tools::cli::main(ci_tools::cmd::cat::run, ci_tools::cmd::commands)
}
