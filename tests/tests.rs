//! Integration tests: each module runs the built binaries on the fixtures and
//! asserts on exact output, stderr and exit codes.

mod util;

mod cat;
mod find;
mod json_props;
mod man;
mod regression;
mod truncate_props;
