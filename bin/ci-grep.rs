//! `ci-grep`: search decoded session content with snippets. See `ci-grep --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ci_tools::cli::main(ci_tools::cmd::grep::run, ci_tools::cmd::commands)
}
