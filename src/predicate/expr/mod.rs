//! The `--where` field-predicate language: a lexer and a recursive-descent
//! parser producing a typed [`Where`] tree, evaluated on raw records without a DOM.
//!
//! ```text
//! expr    := or
//! or      := and  (("or"  | "||") and)*
//! and     := unary (("and" | "&&") unary)*
//! unary   := ("not" | "!") unary | "(" expr ")" | test
//! test    := path "exists"
//!          | path ("==" | "!=" | "<" | "<=" | ">" | ">=") literal
//!          | path ("~" | "!~") string
//! path    := the field path grammar of every flag (crate::json::path), e.g.
//!            data.usage.output_tokens, data.raw.messages[0].role, data."odd.key"
//! literal := number | string | true | false | null
//! string  := "…" (JSON escapes) | '…' (literal; \' is a quote)
//! ```
//!
//! Semantics (jq-like, no coercion):
//! - A missing path compares as `null`: `data.x == null` is true for a missing
//!   and for a null field; `data.x exists` tells them apart (true for null).
//! - `==`/`!=` compare type and value: numbers as numbers (`1 == 1.0`,
//!   integers exactly), strings as decoded strings, `null` and `""` are
//!   different, and a numeric string is not a number (`"5" == 5` is false).
//!   `a != b` is exactly `not (a == b)`, so it is true for a missing field.
//! - `<`, `<=`, `>`, `>=` compare numbers with numbers and strings with strings
//!   (by Unicode code point); any other pairing (missing, null, a number field
//!   against a string literal) is false. Literals of other types are refused
//!   when the expression is parsed.
//! - `~` is a regex search (Rust `regex` syntax, `(?i)` for case-insensitive) on
//!   string fields only (decoded, so `\u00e9` matches `é`); `a !~ r` is `not (a ~ r)`.
//! - Paths are resolved on the record as it is printed: `workspace` is the
//!   filled-in workspace (older writers omit it), and `ci.session`, `ci.path`,
//!   `ci.line` are the provenance even before it is added.
//!
//! The lexer (`lex`) turns the text into tokens, the parser (`parse`)
//! builds the tree defined here, and `eval` decides it on a record.

use std::cmp::Ordering;
use std::fmt;

use regex::Regex;

use crate::json::Path;

mod eval;
mod lex;
mod parse;
#[cfg(test)]
mod tests;

pub(super) use eval::{event_field, Val};

/// A malformed `--where` expression: what was expected, and the 1-based
/// column (in characters) of the offending token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhereError {
    /// The expression as given.
    pub input: String,
    /// 1-based column of the bad token (one past the end for a missing token).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for WhereError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.input.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        write!(
            f,
            "--where: {} at column {}\n  {}\n  {}^",
            self.message,
            self.column,
            shown,
            " ".repeat(self.column.saturating_sub(1))
        )
    }
}

impl std::error::Error for WhereError {}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

// ---------------------------------------------------------------------------
// The tree and its values

/// A number literal: its `f64` value and, for integers, the exact value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    f: f64,
    int: Option<i128>,
}

impl Number {
    /// Parses a JSON number (already known to have the JSON shape).
    fn parse(text: &str) -> Option<Number> {
        let int = if text.bytes().all(|b| b.is_ascii_digit() || b == b'-') { text.parse::<i128>().ok() } else { None };
        let f = text.parse::<f64>().ok()?;
        Some(Number { f, int })
    }

    fn cmp(&self, other: &Number) -> Option<Ordering> {
        match (self.int, other.int) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            _ => self.f.partial_cmp(&other.f),
        }
    }
}

/// A literal on the right of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `null`
    Null,
    /// `true`/`false`
    Bool(bool),
    /// A number.
    Num(Number),
    /// A string.
    Str(String),
}

/// A parsed `--where` expression.
#[derive(Debug, Clone)]
pub enum Where {
    /// All of these.
    And(Vec<Where>),
    /// Any of these.
    Or(Vec<Where>),
    /// Not this.
    Not(Box<Where>),
    /// `path exists`
    Exists(Path),
    /// `path OP literal`
    Cmp(Path, CmpOp, Literal),
    /// `path ~ 'regex'`
    Match(Path, Regex),
}

impl Where {
    /// Whether any test looks inside `data`.
    pub fn needs_data(&self) -> bool {
        match self {
            Where::And(v) | Where::Or(v) => v.iter().any(Where::needs_data),
            Where::Not(w) => w.needs_data(),
            Where::Exists(p) | Where::Cmp(p, ..) | Where::Match(p, _) => p.in_data(),
        }
    }

    /// The tests (`exists`, comparisons, `~`) under an even number of `not`s:
    /// those that say what a matching record has.
    pub(super) fn positive_tests<'w>(&'w self, out: &mut Vec<&'w Where>) {
        self.tests_under(false, out);
    }

    fn tests_under<'w>(&'w self, negated: bool, out: &mut Vec<&'w Where>) {
        match self {
            Where::And(v) | Where::Or(v) => v.iter().for_each(|w| w.tests_under(negated, out)),
            Where::Not(w) => w.tests_under(!negated, out),
            _ if !negated => out.push(self),
            _ => {}
        }
    }
}
