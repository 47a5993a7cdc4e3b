//! `ci-find`: discover captures and filter them by metadata. See `ci-find --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ci_tools::cli::main(ci_tools::cmd::find::run, ci_tools::cmd::commands)
}
