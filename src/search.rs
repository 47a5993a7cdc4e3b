//! Searching decoded JSON strings: the matcher, the raw-bytes pre-check, the
//! walk over a record's strings with their JSON paths, and snippets.
//!
//! A search runs in three steps per line:
//!
//! 1. [`Prefilter::may_match`] on the raw line: a literal search that may
//!    skip a line without parsing it, and is proven never to skip a line that
//!    holds a match once decoded (the proof is in [`prefilter`]);
//! 2. the line is validated and indexed ([`crate::json::Index`]);
//! 3. [`walk::strings`] visits every string value (and, with `--keys`, every
//!    object key) in the searched fields with its path (`data.result.output`);
//!    each is decoded ([`crate::json::decode_str`]) and matched with the
//!    [`Matcher`]'s regex, which alone decides what is reported.
//!
//! ```
//! use ci_tools::search::Matcher;
//!
//! let m = Matcher::new(&["café".to_string()], true, false, false).unwrap();
//! // The raw line stores `é` as an escape: the pre-check lets it through,
//! assert!(m.prefilter().may_match(br#"{"data":{"p":"caf\u00e9"}}"#));
//! // and the decoded string matches.
//! assert_eq!(m.regex().find("un caf\u{e9}").unwrap().start(), 3);
//! // A line without any encoding of `é` is skipped unparsed.
//! assert!(!m.prefilter().may_match(br#"{"data":{"p":"cafe"}}"#));
//! ```

pub mod prefilter;
pub mod snippet;
pub mod tape;
pub mod walk;

use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Class, Hir, HirKind};

pub use prefilter::{Position, Prefilter};

/// A class of at most this many characters still counts as one position of
/// a required literal (case variants, `[0-9]`).
const MAX_CLASS: u32 = 16;

/// A compiled search: the regex that decides matches on decoded strings and
/// the pre-check derived from the same pattern.
#[derive(Debug, Clone)]
pub struct Matcher {
    regex: Regex,
    prefilter: Prefilter,
}

impl Matcher {
    /// Builds a matcher for `patterns` (alternatives, as repeated `-e`):
    /// Rust regex syntax, or literal text with `fixed`; `ignore_case` folds
    /// case with Unicode simple case folding (`ÜBERPRÜFUNG` matches
    /// `überprüfung`); `word` requires no word character right before and
    /// after the match (ripgrep's `-w`).
    pub fn new(patterns: &[String], fixed: bool, ignore_case: bool, word: bool) -> Result<Matcher, String> {
        if patterns.is_empty() {
            return Err("no pattern given".into());
        }
        let parts: Vec<String> = patterns.iter().map(|p| if fixed { regex::escape(p) } else { p.clone() }).collect();
        let mut combined = if parts.len() == 1 {
            parts[0].clone()
        } else {
            parts.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|")
        };
        if word {
            combined = format!(r"\b{{start-half}}(?:{combined})\b{{end-half}}");
        }
        let regex = RegexBuilder::new(&combined)
            .case_insensitive(ignore_case)
            .size_limit(64 << 20)
            .build()
            .map_err(|e| format!("invalid pattern: {e}"))?;
        // Every match of the whole pattern matches one alternative, and `-w`
        // only adds zero-width conditions: the literals each alternative
        // requires are what a match must contain.
        let mut alternatives = vec![];
        for p in &parts {
            match required_literals(p, ignore_case) {
                Some(mut alts) => alternatives.append(&mut alts),
                None => return Ok(Matcher { regex, prefilter: Prefilter::everything() }),
            }
        }
        let prefilter = Prefilter::new(&alternatives, ignore_case);
        Ok(Matcher { regex, prefilter })
    }

    /// The regex matched against decoded strings.
    pub fn regex(&self) -> &Regex {
        &self.regex
    }

    /// The raw-bytes pre-check.
    pub fn prefilter(&self) -> &Prefilter {
        &self.prefilter
    }
}

/// For each top-level alternative of `pattern`, a literal every match of it
/// contains; `None` when some alternative has none (or the pattern does not
/// parse on its own). Parsed with the same parser and flags as the regex.
fn required_literals(pattern: &str, ignore_case: bool) -> Option<Vec<Vec<Position>>> {
    let hir = regex_syntax::ParserBuilder::new().case_insensitive(ignore_case).build().parse(pattern).ok()?;
    let alts: Vec<&Hir> = match hir.kind() {
        HirKind::Alternation(alts) => alts.iter().collect(),
        _ => vec![&hir],
    };
    alts.into_iter().map(required).collect()
}

/// A non-empty sequence of positions that every match of `hir` contains.
fn required(hir: &Hir) -> Option<Vec<Position>> {
    if let Some(e) = exact(hir) {
        return (!e.is_empty()).then_some(e);
    }
    match hir.kind() {
        HirKind::Concat(children) => {
            let mut best: Option<Vec<Position>> = None;
            let mut run: Vec<Position> = vec![];
            let consider = |cand: Option<Vec<Position>>, best: &mut Option<Vec<Position>>| {
                if let Some(c) = cand.filter(|c| !c.is_empty()) {
                    if best.as_ref().is_none_or(|b| c.len() > b.len()) {
                        *best = Some(c);
                    }
                }
            };
            for child in children {
                match exact(child) {
                    Some(mut e) => run.append(&mut e),
                    None => {
                        consider(Some(std::mem::take(&mut run)), &mut best);
                        consider(required(child), &mut best);
                    }
                }
            }
            consider(Some(run), &mut best);
            best
        }
        HirKind::Capture(c) => required(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
        _ => None,
    }
}

/// The positions `hir` matches exactly (zero-width assertions match none),
/// or `None` when it can match text of different shapes.
fn exact(hir: &Hir) -> Option<Vec<Position>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![]),
        HirKind::Literal(lit) => Some(std::str::from_utf8(&lit.0).ok()?.chars().map(|c| vec![c]).collect()),
        HirKind::Class(Class::Unicode(cls)) => {
            let size: u32 = cls.ranges().iter().map(|r| r.end() as u32 - r.start() as u32 + 1).sum();
            if size == 0 || size > MAX_CLASS {
                return None;
            }
            Some(vec![cls.iter().flat_map(|r| r.start()..=r.end()).collect()])
        }
        HirKind::Class(Class::Bytes(_)) => None,
        HirKind::Capture(c) => exact(&c.sub),
        HirKind::Concat(children) => {
            let mut out = vec![];
            for child in children {
                out.append(&mut exact(child)?);
            }
            Some(out)
        }
        HirKind::Repetition(r) if Some(r.min) == r.max && r.min <= 16 => {
            let one = exact(&r.sub)?;
            Some((0..r.min).flat_map(|_| one.iter().cloned()).collect())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(p: &str, ci: bool) -> Option<Vec<String>> {
        required_literals(p, ci).map(|alts| {
            alts.iter()
                .map(|ps| {
                    ps.iter()
                        .map(|p| {
                            if p.len() == 1 {
                                p[0].to_string()
                            } else {
                                format!("[{}]", p.iter().collect::<String>())
                            }
                        })
                        .collect()
                })
                .collect()
        })
    }

    #[test]
    fn required_literals_of_patterns() {
        assert_eq!(req("tool", false).unwrap(), ["tool"]);
        assert_eq!(req(r"\bfoo\b", false).unwrap(), ["foo"]);
        assert_eq!(req(r"ab\d+cdef", false).unwrap(), ["cdef"]);
        assert_eq!(req(r"x(abc)+y", false).unwrap(), ["abc"]);
        assert_eq!(req(r"error|warn", false).unwrap(), ["error", "warn"]);
        assert_eq!(req(r"[0-9]{2}x", false).unwrap(), ["[0123456789][0123456789]x"]);
        assert_eq!(req("ok", true).unwrap(), ["[Oo][Kk\u{212a}]"]);
        assert_eq!(req("é", true).unwrap(), ["[Éé]"]);
        assert_eq!(req("k", true).unwrap(), ["[Kk\u{212a}]"]);
        assert_eq!(req(r"\w+", false), None);
        assert_eq!(req(r"a*", false), None);
        assert_eq!(req(r"a|\w", false), None);
    }

    #[test]
    fn matcher_options() {
        let m =
            |p: &[&str], f, i, w| Matcher::new(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>(), f, i, w).unwrap();
        assert!(m(&["a.c"], true, false, false).regex().find("abc").is_none());
        assert!(m(&["a.c"], false, false, false).regex().find("abc").is_some());
        assert!(m(&["ÜBERPRÜFUNG"], true, true, false).regex().is_match("eine überprüfung"));
        let w = m(&["foo"], false, false, true);
        assert!(w.regex().is_match("a foo."));
        assert!(!w.regex().is_match("foobar"));
        let w = m(&["-x"], true, false, true);
        assert!(w.regex().is_match("a -x b"));
        let e = m(&["one", "two"], false, false, false);
        assert!(e.regex().is_match("two") && e.regex().is_match("one"));
        assert!(Matcher::new(&["(".to_string()], false, false, false).is_err());
    }
}
