//! The `--where` lexer: the expression's characters as tokens, each with the
//! column it starts at and its text as written (for error messages).

use crate::json::path::{is_bare, quoted};
use crate::json::Path;

use super::{CmpOp, Number, WhereError};

/// The tokens of an expression, ending with [`Tok::End`].
pub(super) fn tokens(input: &str) -> Result<Vec<Token>, WhereError> {
    Lexer { chars: input.chars().collect(), i: 0, input }.tokens()
}

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
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

/// A token where it stands.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub(super) tok: Tok,
    /// 1-based column of the first character.
    pub(super) col: usize,
    /// The token as written.
    pub(super) text: String,
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
