//! Why a line is not a valid record, and the nesting limit it names.

use std::fmt;

/// Deepest nesting accepted, counting the record itself. It is serde_json's
/// recursion limit, so both parsers agree on every input.
pub const MAX_DEPTH: usize = 127;

/// Why a line is not a valid record. Displayed as the `reason` of a
/// `path:line: reason` report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Only whitespace.
    Blank,
    /// Not UTF-8 at this byte offset.
    InvalidUtf8(usize),
    /// Valid JSON start but not an object (`[1,2]`, `"x"`, `3`).
    NotObject,
    /// The line ends inside a value (a torn write).
    UnexpectedEnd,
    /// Something other than what the grammar allows, at this byte offset.
    Syntax(usize, &'static str),
    /// Nested deeper than [`MAX_DEPTH`] at this byte offset.
    TooDeep(usize),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Blank => f.write_str("blank line"),
            ParseError::InvalidUtf8(at) => write!(f, "invalid UTF-8 at byte {at}"),
            ParseError::NotObject => f.write_str("not a JSON object"),
            ParseError::UnexpectedEnd => f.write_str("torn record: line ends inside a JSON value"),
            ParseError::Syntax(at, what) => write!(f, "invalid JSON at byte {at}: {what}"),
            ParseError::TooDeep(at) => {
                write!(f, "JSON nested deeper than {MAX_DEPTH} levels at byte {at}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

pub(crate) type Result<T> = std::result::Result<T, ParseError>;
