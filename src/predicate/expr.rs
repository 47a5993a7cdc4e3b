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

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use regex::Regex;

use crate::json::path::{is_bare, quoted};
use crate::json::{Kind, Path, Raw, Record};
use crate::record::{Event, PROVENANCE_KEY};

/// Deepest nesting of parentheses and `not` accepted in a `--where` expression.
const MAX_NESTING: usize = 64;

// ---------------------------------------------------------------------------
// The --where language: tokens

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

    fn accepts(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Path(Path),
    Word(&'static str),
    Str(String),
    Num(Number),
    Op(CmpOp),
    Match,
    NotMatch,
    And,
    Or,
    Not,
    Open,
    Close,
    End,
}

#[derive(Debug, Clone, PartialEq)]
struct Token {
    tok: Tok,
    /// 1-based column of the first character.
    col: usize,
    /// The token as written.
    text: String,
}

const KEYWORDS: &[&str] = &["and", "or", "not", "exists", "true", "false", "null"];

struct Lexer<'s> {
    chars: Vec<char>,
    i: usize,
    input: &'s str,
}

impl<'s> Lexer<'s> {
    fn err(&self, col: usize, message: String) -> WhereError {
        WhereError { input: self.input.to_owned(), column: col, message }
    }

    fn text(&self, from: usize) -> String {
        self.chars[from..self.i].iter().collect()
    }

    fn tokens(mut self) -> Result<Vec<Token>, WhereError> {
        let mut out = vec![];
        loop {
            while self.chars.get(self.i).is_some_and(|c| c.is_whitespace()) {
                self.i += 1;
            }
            let start = self.i;
            let col = start + 1;
            let Some(&c) = self.chars.get(self.i) else {
                out.push(Token { tok: Tok::End, col, text: String::new() });
                return Ok(out);
            };
            let next = self.chars.get(self.i + 1).copied();
            let two = |t: Tok, s: &mut Lexer<'_>| {
                s.i += 2;
                t
            };
            let tok = match (c, next) {
                ('=', Some('=')) => two(Tok::Op(CmpOp::Eq), &mut self),
                ('!', Some('=')) => two(Tok::Op(CmpOp::Ne), &mut self),
                ('<', Some('=')) => two(Tok::Op(CmpOp::Le), &mut self),
                ('>', Some('=')) => two(Tok::Op(CmpOp::Ge), &mut self),
                ('!', Some('~')) => two(Tok::NotMatch, &mut self),
                ('&', Some('&')) => two(Tok::And, &mut self),
                ('|', Some('|')) => two(Tok::Or, &mut self),
                ('=', _) => return Err(self.err(col, "'=' is not an operator (use '==')".into())),
                ('&', _) | ('|', _) => {
                    return Err(self.err(col, format!("'{c}' is not an operator (use '{c}{c}')")));
                }
                ('<', _) | ('>', _) | ('~', _) | ('!', _) | ('(', _) | (')', _) => {
                    self.i += 1;
                    match c {
                        '<' => Tok::Op(CmpOp::Lt),
                        '>' => Tok::Op(CmpOp::Gt),
                        '~' => Tok::Match,
                        '!' => Tok::Not,
                        '(' => Tok::Open,
                        _ => Tok::Close,
                    }
                }
                ('"', _) | ('\'', _) => Tok::Str(self.string(c)?),
                ('-', _) | ('0'..='9', _) => Tok::Num(self.number()?),
                _ if c == '.' || is_bare(c) => self.path()?,
                _ => return Err(self.err(col, format!("unexpected character {c:?}"))),
            };
            out.push(Token { tok, col, text: self.text(start) });
        }
    }

    /// A quoted string starting at the quote `q`: `"…"` with JSON escapes, or
    /// `'…'` taken literally except `\'`.
    fn string(&mut self, q: char) -> Result<String, WhereError> {
        if q == '"' {
            let (s, end) = quoted(&self.chars, self.i).map_err(|e| self.err(e.column, e.message))?;
            self.i = end;
            return Ok(s);
        }
        let open = self.i + 1;
        self.i += 1;
        let mut s = String::new();
        loop {
            let Some(&c) = self.chars.get(self.i) else {
                return Err(self.err(open, "unterminated string".into()));
            };
            self.i += 1;
            match c {
                _ if c == q => return Ok(s),
                '\\' if self.chars.get(self.i) == Some(&'\'') => {
                    s.push('\'');
                    self.i += 1;
                }
                _ => s.push(c),
            }
        }
    }

    /// A JSON number.
    fn number(&mut self) -> Result<Number, WhereError> {
        let start = self.i;
        let digits = |l: &mut Lexer<'_>| {
            let s = l.i;
            while l.chars.get(l.i).is_some_and(char::is_ascii_digit) {
                l.i += 1;
            }
            l.i - s
        };
        if self.chars.get(self.i) == Some(&'-') {
            self.i += 1;
        }
        let int_at = self.i;
        let n = digits(self);
        let mut ok = n > 0 && !(n > 1 && self.chars[int_at] == '0');
        if ok && self.chars.get(self.i) == Some(&'.') {
            self.i += 1;
            ok = digits(self) > 0;
        }
        if ok && matches!(self.chars.get(self.i), Some('e' | 'E')) {
            self.i += 1;
            if matches!(self.chars.get(self.i), Some('+' | '-')) {
                self.i += 1;
            }
            ok = digits(self) > 0;
        }
        // A number must not run into a name (`5abc`, `1.2.3`).
        while self.chars.get(self.i).is_some_and(|&c| is_bare(c) || c == '.') {
            self.i += 1;
            ok = false;
        }
        let text = self.text(start);
        if !ok {
            return Err(self.err(start + 1, format!("invalid number '{text}'")));
        }
        Number::parse(&text).ok_or_else(|| self.err(start + 1, format!("invalid number '{text}'")))
    }

    /// A field path, or a keyword.
    fn path(&mut self) -> Result<Tok, WhereError> {
        let (path, end) = Path::parse_at(&self.chars, self.i).map_err(|e| self.err(e.column, e.message))?;
        self.i = end;
        if let Some(k) = KEYWORDS.iter().find(|k| **k == path.as_str()) {
            return Ok(match *k {
                "and" => Tok::And,
                "or" => Tok::Or,
                "not" => Tok::Not,
                other => Tok::Word(other),
            });
        }
        Ok(Tok::Path(path))
    }
}

// ---------------------------------------------------------------------------
// The --where language: values and the tree

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
    /// Parses an expression, with errors that point at the bad token.
    pub fn parse(input: &str) -> Result<Where, WhereError> {
        let tokens = Lexer { chars: input.chars().collect(), i: 0, input }.tokens()?;
        let mut p = Parser { tokens, i: 0, input, depth: 0 };
        let e = p.or()?;
        let t = p.peek();
        if t.tok != Tok::End {
            let msg = match t.tok {
                Tok::Close => "unmatched ')'".to_owned(),
                _ => format!("expected 'and', 'or' or the end after '{}'", p.prev_text()),
            };
            return Err(p.err(t.col, msg));
        }
        Ok(e)
    }

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

    /// Evaluates on an event (filled-in workspace and provenance visible).
    pub fn matches_event(&self, ev: &Event<'_>) -> bool {
        self.eval(&|p| event_field(ev, p))
    }

    /// Evaluates on a bare record (paths resolve on the line as written).
    pub fn matches_record(&self, rec: &Record<'_>) -> bool {
        self.eval(&|p| rec.path(p).map_or(Val::Missing, Val::Raw))
    }

    pub(super) fn eval<'a>(&self, field: &dyn Fn(&Path) -> Val<'a>) -> bool {
        match self {
            Where::And(v) => v.iter().all(|w| w.eval(field)),
            Where::Or(v) => v.iter().any(|w| w.eval(field)),
            Where::Not(w) => !w.eval(field),
            Where::Exists(p) => !matches!(field(p), Val::Missing),
            Where::Cmp(p, op, lit) => compare(&field(p), *op, lit),
            Where::Match(p, re) => field(p).as_str().is_some_and(|s| re.is_match(&s)),
        }
    }
}

struct Parser<'s> {
    tokens: Vec<Token>,
    i: usize,
    input: &'s str,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, column: usize, message: String) -> WhereError {
        WhereError { input: self.input.to_owned(), column, message }
    }

    fn peek(&self) -> &Token {
        // The lexer always ends the list with `End`.
        &self.tokens[self.i.min(self.tokens.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.i < self.tokens.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn prev_text(&self) -> String {
        self.i.checked_sub(1).and_then(|i| self.tokens.get(i)).map(|t| t.text.clone()).unwrap_or_default()
    }

    fn or(&mut self) -> Result<Where, WhereError> {
        let mut v = vec![self.and()?];
        while self.peek().tok == Tok::Or {
            self.bump();
            v.push(self.and()?);
        }
        Ok(if v.len() == 1 { v.remove(0) } else { Where::Or(v) })
    }

    fn and(&mut self) -> Result<Where, WhereError> {
        let mut v = vec![self.unary()?];
        while self.peek().tok == Tok::And {
            self.bump();
            v.push(self.unary()?);
        }
        Ok(if v.len() == 1 { v.remove(0) } else { Where::And(v) })
    }

    fn unary(&mut self) -> Result<Where, WhereError> {
        let t = self.bump();
        match t.tok {
            Tok::Not | Tok::Open => {
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Err(self.err(t.col, format!("nested deeper than {MAX_NESTING} levels")));
                }
                let e = if t.tok == Tok::Not {
                    Where::Not(Box::new(self.unary()?))
                } else {
                    let e = self.or()?;
                    let c = self.bump();
                    if c.tok != Tok::Close {
                        return Err(self.err(c.col, format!("expected ')' to close the '(' of column {}", t.col)));
                    }
                    e
                };
                self.depth -= 1;
                Ok(e)
            }
            Tok::Path(path) => self.test(path, &t.text),
            Tok::End => Err(self.err(t.col, "expected a field path (like data.tool_name)".into())),
            _ => Err(self.err(t.col, format!("expected a field path (like data.tool_name), found '{}'", t.text))),
        }
    }

    fn test(&mut self, path: Path, text: &str) -> Result<Where, WhereError> {
        let op = self.bump();
        match op.tok {
            Tok::Word("exists") => Ok(Where::Exists(path)),
            Tok::Op(cmp) => {
                let v = self.bump();
                let lit = match v.tok {
                    Tok::Str(s) => Literal::Str(s),
                    Tok::Num(n) => Literal::Num(n),
                    Tok::Word("true") => Literal::Bool(true),
                    Tok::Word("false") => Literal::Bool(false),
                    Tok::Word("null") => Literal::Null,
                    Tok::End => return Err(self.err(v.col, format!("expected a value after '{}'", cmp.as_str()))),
                    Tok::Path(_) => {
                        return Err(self.err(
                            v.col,
                            format!("expected a value after '{}', found '{}' (quote strings)", cmp.as_str(), v.text),
                        ))
                    }
                    _ => {
                        return Err(
                            self.err(v.col, format!("expected a value after '{}', found '{}'", cmp.as_str(), v.text))
                        )
                    }
                };
                let ordered = !matches!(cmp, CmpOp::Eq | CmpOp::Ne);
                if ordered && matches!(lit, Literal::Null | Literal::Bool(_)) {
                    return Err(
                        self.err(v.col, format!("'{}' compares numbers or strings, not '{}'", cmp.as_str(), v.text))
                    );
                }
                Ok(Where::Cmp(path, cmp, lit))
            }
            Tok::Match | Tok::NotMatch => {
                let v = self.bump();
                let Tok::Str(pattern) = v.tok else {
                    let found = if v.tok == Tok::End { "the end".to_owned() } else { format!("'{}'", v.text) };
                    return Err(self.err(v.col, format!("'{}' needs a quoted regex, found {found}", op.text)));
                };
                let re = Regex::new(&pattern).map_err(|e| {
                    let text = e.to_string();
                    let last = text.lines().last().unwrap_or("").trim();
                    let detail = last.strip_prefix("error: ").unwrap_or(last).to_owned();
                    self.err(v.col, format!("invalid regex {}: {detail}", v.text))
                })?;
                let m = Where::Match(path, re);
                Ok(if op.tok == Tok::NotMatch { Where::Not(Box::new(m)) } else { m })
            }
            Tok::End => Err(self.err(op.col, format!("expected an operator after '{text}'"))),
            _ => Err(self.err(op.col, format!("expected an operator after '{text}', found '{}'", op.text))),
        }
    }
}

// ---------------------------------------------------------------------------
// Evaluation

/// A field's value for evaluation.
#[derive(Clone)]
pub(super) enum Val<'a> {
    Missing,
    Raw(Raw<'a>),
    Str(Cow<'a, str>),
    Int(i128),
}

impl<'a> Val<'a> {
    fn as_str(&self) -> Option<Cow<'a, str>> {
        match self {
            Val::Raw(r) => r.as_str(),
            Val::Str(s) => Some(s.clone()),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<Number> {
        match self {
            Val::Raw(r) if r.kind() == Kind::Number => std::str::from_utf8(r.bytes()).ok().and_then(Number::parse),
            Val::Int(i) => Some(Number { f: *i as f64, int: Some(*i) }),
            _ => None,
        }
    }

    /// The JSON type of the value; `None` when missing.
    pub(super) fn kind(&self) -> Option<Kind> {
        match self {
            Val::Missing => None,
            Val::Raw(r) => Some(r.kind()),
            Val::Str(_) => Some(Kind::String),
            Val::Int(_) => Some(Kind::Number),
        }
    }

    /// The value as a raw JSON value of the line, when it is one.
    pub(super) fn raw(&self) -> Option<Raw<'a>> {
        match self {
            Val::Raw(r) => Some(*r),
            _ => None,
        }
    }
}

/// The value at `p` of an event, as tests see it.
pub(super) fn event_field<'a>(ev: &Event<'a>, p: &Path) -> Val<'a> {
    match p.segments() {
        [w] if w == "workspace" => ev.workspace().map(Val::Str).unwrap_or(Val::Missing),
        [ci, key] if ci == PROVENANCE_KEY && ev.provenance().is_none() => match key.as_str() {
            "session" => ev.session().map(Val::Str).unwrap_or(Val::Missing),
            "path" => Val::Str(Cow::Borrowed(ev.source)),
            "line" => Val::Int(i128::from(ev.line)),
            _ => Val::Missing,
        },
        _ if !ev.derived() => ev.rec.path(p).map_or(Val::Missing, Val::Raw),
        // A derived record (e.g. a Claude hook line) through its normalised view.
        [e] if e == "event" => Val::Str(ev.name()),
        [t] if t == "timestamp" => ev.timestamp_raw().map_or(Val::Missing, Val::Raw),
        [k] if ev.original().is_some_and(|(key, _)| key == k) => {
            ev.original().and_then(|(_, v)| v?.as_str()).map_or(Val::Missing, Val::Str)
        }
        [d, rest @ ..] if d == "data" => {
            let mut v = match ev.data() {
                Some(v) => v,
                None => return Val::Missing,
            };
            for seg in rest {
                v = match v.get(seg) {
                    Some(v) => v,
                    None => return Val::Missing,
                };
            }
            Val::Raw(v)
        }
        _ => Val::Missing,
    }
}

fn compare(v: &Val<'_>, op: CmpOp, lit: &Literal) -> bool {
    match op {
        CmpOp::Eq => equal(v, lit),
        CmpOp::Ne => !equal(v, lit),
        _ => order(v, lit).is_some_and(|o| op.accepts(o)),
    }
}

fn equal(v: &Val<'_>, lit: &Literal) -> bool {
    match lit {
        Literal::Null => match v {
            Val::Missing => true,
            Val::Raw(r) => r.is_null(),
            _ => false,
        },
        Literal::Bool(b) => matches!(v, Val::Raw(r) if r.as_bool() == Some(*b)),
        Literal::Num(n) => v.as_number().and_then(|x| x.cmp(n)) == Some(Ordering::Equal),
        Literal::Str(s) => match v {
            // Fast path: a string without escapes equals its raw bytes.
            Val::Raw(r) => match r.str_content() {
                Some(raw) if memchr::memchr(b'\\', raw).is_none() => raw == s.as_bytes(),
                Some(_) => r.as_str().is_some_and(|d| d == s.as_str()),
                None => false,
            },
            Val::Str(d) => d == s,
            _ => false,
        },
    }
}

fn order(v: &Val<'_>, lit: &Literal) -> Option<Ordering> {
    match lit {
        Literal::Num(n) => v.as_number()?.cmp(n),
        Literal::Str(s) => Some(v.as_str()?.as_ref().cmp(s.as_str())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Index;
    use proptest::prelude::*;

    fn err(s: &str) -> (usize, String) {
        let e = Where::parse(s).expect_err(s);
        (e.column, e.message)
    }

    fn eval(expr: &str, line: &str) -> bool {
        let w = Where::parse(expr).unwrap_or_else(|e| panic!("{e}"));
        let mut idx = Index::new();
        let rec = idx.parse(line.as_bytes()).unwrap();
        w.matches_record(&rec)
    }

    #[test]
    fn parse_errors_point_at_the_token() {
        assert_eq!(err("data.x 5"), (8, "expected an operator after 'data.x', found '5'".into()));
        assert_eq!(err("data.x"), (7, "expected an operator after 'data.x'".into()));
        assert_eq!(err(""), (1, "expected a field path (like data.tool_name)".into()));
        assert_eq!(err("== 5"), (1, "expected a field path (like data.tool_name), found '=='".into()));
        assert_eq!(err("data.x = 5"), (8, "'=' is not an operator (use '==')".into()));
        assert_eq!(err("data.x == "), (11, "expected a value after '=='".into()));
        assert_eq!(err("data.x == foo"), (11, "expected a value after '==', found 'foo' (quote strings)".into()));
        assert_eq!(err("data.x > true"), (10, "'>' compares numbers or strings, not 'true'".into()));
        assert_eq!(err("data.x ~ 5"), (10, "'~' needs a quoted regex, found '5'".into()));
        assert_eq!(err("data.x ~ '('"), (10, "invalid regex '(': unclosed group".into()));
        assert_eq!(err("data.x == 'abc"), (11, "unterminated string".into()));
        assert_eq!(err("data.x == 01"), (11, "invalid number '01'".into()));
        assert_eq!(err("data.x == 5abc"), (11, "invalid number '5abc'".into()));
        assert_eq!(err("data. == 1"), (6, "expected a field name after '.'".into()));
        assert_eq!(err("data.x[a] == 1"), (7, "expected an array index like [0]".into()));
        assert_eq!(err("data.x exists data.y"), (15, "expected 'and', 'or' or the end after 'exists'".into()));
        assert_eq!(err("(data.x exists"), (15, "expected ')' to close the '(' of column 1".into()));
        assert_eq!(err("data.x exists)"), (14, "unmatched ')'".into()));
        assert_eq!(err("data.x & data.y"), (8, "'&' is not an operator (use '&&')".into()));
        assert_eq!(err("data.x == \"\\q\""), (12, "invalid escape in a \"…\" string (use '…' for regexes)".into()));
        assert_eq!(err("data.x # 1"), (8, "expected an operator after 'data.x', found '#'".into()));
        assert_eq!(err("\u{1} == 1"), (1, "unexpected character '\\u{1}'".into()));
        assert_eq!(err("data.x[0]y == 1"), (10, "expected an operator after 'data.x[0]', found 'y'".into()));
        let deep = format!("{}data.x exists{}", "(".repeat(100), ")".repeat(100));
        assert_eq!(err(&deep).1, format!("nested deeper than {MAX_NESTING} levels"));
    }

    #[test]
    fn error_display_has_a_caret() {
        let e = Where::parse("data.x 5").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--where: expected an operator after 'data.x', found '5' at column 8\n  data.x 5\n         ^"
        );
    }

    const LINE: &str = r#"{"data":{"n":1200,"f":1.5,"big":12345678901234567891,"s":"caf\u00e9","e":"","z":null,"t":true,"no":false,"o":{"k":[1,"two"]},"num_str":"5","a.b":1,"é":2,"tool_input":"raw string"},"event":"tool:pre","timestamp":"2026-03-01T00:00:00Z","workspace":"w"}"#;

    #[test]
    fn evaluation_semantics() {
        let cases: &[(&str, bool)] = &[
            ("data.n > 1000", true),
            ("data.n > 1200", false),
            ("data.n >= 1200", true),
            ("data.n == 1200.0", true),
            ("data.n == 12e2", true),
            ("data.n != 1200", false),
            ("data.f < 2", true),
            ("data.big == 12345678901234567891", true),
            ("data.big == 12345678901234567890", false),
            ("data.s == 'café'", true),
            ("data.s == \"caf\\u00e9\"", true),
            ("data.s ~ '^caf.$'", true),
            ("data.s ~ '(?i)CAFÉ'", true),
            ("data.s !~ 'x'", true),
            ("data.s > 'cafa'", true),
            ("data.s < 5", false),
            ("data.n ~ '12'", false),
            ("data.e == ''", true),
            ("data.e == null", false),
            ("data.z == null", true),
            ("data.z == ''", false),
            ("data.missing == null", true),
            ("data.missing exists", false),
            ("data.z exists", true),
            ("data.missing != 1", true),
            ("data.missing > 0", false),
            ("data.missing < 0", false),
            ("data.t == true", true),
            ("data.no == false", true),
            ("data.no == null", false),
            ("data.o.k.1 == 'two'", true),
            ("data.o.k[0] == 1", true),
            ("data.o == 1", false),
            ("data.o != 1", true),
            ("data.num_str == 5", false),
            ("data.num_str == '5'", true),
            ("data.num_str > 4", false),
            ("data.\"a.b\" == 1", true),
            ("data.é == 2", true),
            ("data.o.k[1] ~ 'tw'", true),
            ("data.o.k[2] exists", false),
            ("data.tool_input.agent == 'self'", false),
            (".event == 'tool:pre'", true),
            ("event == 'tool:pre' and data.n > 1 and not data.z != null", true),
            ("event == 'x' or data.t == true", true),
            ("event == 'x' || (data.t == true && data.n < 0)", false),
            ("! data.missing exists", true),
        ];
        for (expr, want) in cases {
            assert_eq!(eval(expr, LINE), *want, "{expr}");
        }
    }

    #[test]
    fn needs_data() {
        assert!(Where::parse("event == 'x' or data.n > 1").unwrap().needs_data());
        assert!(!Where::parse("event == 'x' and workspace == 'w'").unwrap().needs_data());
    }

    proptest! {
        #[test]
        fn parser_never_panics(s in "\\PC{0,40}") {
            let _ = Where::parse(&s);
        }

        #[test]
        fn parser_never_panics_on_token_soup(parts in proptest::collection::vec(prop_oneof![
            Just("data.x"), Just("=="), Just("!="), Just("<"), Just(">="), Just("~"), Just("!~"),
            Just("exists"), Just("and"), Just("or"), Just("not"), Just("("), Just(")"), Just("'a'"),
            Just("\"b\\u00e9\""), Just("1"), Just("-2.5e3"), Just("null"), Just("true"), Just("["),
            Just("]"), Just("."), Just("\\"), Just("'"), Just("\""), Just("&&"), Just("||"), Just("!"),
        ], 0..12)) {
            let s = parts.join(" ");
            if let Err(e) = Where::parse(&s) {
                prop_assert!(e.column >= 1 && e.column <= s.chars().count() + 1, "{}", e);
            }
            let s = parts.concat();
            if let Err(e) = Where::parse(&s) {
                prop_assert!(e.column >= 1 && e.column <= s.chars().count() + 1, "{}", e);
            }
        }
    }
}
