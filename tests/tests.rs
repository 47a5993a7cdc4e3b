//! Integration tests: each module runs the built binaries on the fixtures and
//! asserts on exact output, stderr and exit codes.

mod kit;
mod util;

mod agg;
mod cache;
mod cache_files;
mod cat;
mod chunks;
mod codex;
mod codexgen;
mod cost;
mod elements_props;
mod exact;
mod exit_codes;
mod faultgen;
mod faults;
mod filter;
mod find;
mod follow;
mod grep;
mod hooklogs;
mod hooklogsgen;
mod hooks;
mod hostile;
mod huge;
mod human;
mod interface;
mod json_props;
mod line_index;
mod man;
mod paths;
mod pipeline;
mod pipes;
mod regression;
mod relative;
mod reliability;
mod session_ids;
mod signals;
mod stdin;
mod transcriptgen;
mod transcripts;
mod truncate_props;
mod values;
mod writers;
mod writers_hostile;
