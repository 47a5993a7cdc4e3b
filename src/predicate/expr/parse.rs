//! The `--where` parser: recursive descent over the tokens of [`super::lex`]
//! into a [`Where`] tree, with errors that point at the bad token.

use regex::Regex;

use crate::json::Path;

use super::lex::{self, Tok, Token};
use super::{CmpOp, Literal, Where, WhereError};

/// Deepest nesting of parentheses and `not` accepted in a `--where` expression.
pub(super) const MAX_NESTING: usize = 64;

impl Where {
    /// Parses an expression, with errors that point at the bad token.
    pub fn parse(input: &str) -> Result<Where, WhereError> {
        let tokens = lex::tokens(input)?;
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
