//! The raw-bytes pre-check: can this line hold a match once its strings are decoded?
//!
//! ci-grep matches *decoded* JSON strings, but decoding every line is what
//! makes a search slow. This module answers a cheaper question on the raw
//! bytes — "could any string in here decode to text containing the required
//! literal?" — and a line answered "no" is skipped without being parsed. The
//! answer must never be a wrong "no"; a wrong "yes" only costs time, because
//! every reported match is confirmed on the decoded string.
//!
//! # Why a "no" is always right
//!
//! The pattern's required literal (see [`super::Matcher`]) is a sequence of
//! *positions*, each a small set of characters (one character; its case
//! variants under `-i`, e.g. `{k, K, K}`; or a small class like `[0-9]`). In a
//! JSON string, each decoded character comes from one contiguous *encoding*:
//!
//! - its raw UTF-8 bytes (not allowed for `"`, `\` and controls below U+0020);
//! - a short escape (`\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`);
//! - `\uXXXX`, any hex case; above U+FFFF a surrogate pair `\uD8xx\uDCxx`.
//!
//! Decoding maps consecutive encodings to consecutive characters, so a match
//! in a decoded string is a run of raw bytes made of one encoding per
//! position, in order. Call a character *plain* when it is printable ASCII
//! other than `"` and `\`: its raw byte is then one of its encodings, and the
//! others are `\u00HH` (and `\/` for `/`). For any run of positions that all
//! have a plain member (a *plain run*), the match's bytes for that run either
//!
//! 1. use the plain byte at every position: the line contains the run's plain
//!    text (searched ASCII-case-insensitively under `-i`); or
//! 2. use another encoding somewhere in the run: the line contains a non-plain
//!    encoding of one of the run's characters — raw UTF-8 of a non-ASCII
//!    member, a short or `\u` escape. The `\u00HH` and `\/` forms of plain
//!    characters are looked for only when a vectorised scan finds a `\u00`
//!    followed by `2`–`7` (the only way an escape can spell printable ASCII)
//!    or `\/` in the line; canonical writers never produce them, so on real
//!    captures this scan says no and costs one pass over the bytes.
//!
//! A position with no plain member (`é`, `"`, `日`) must appear as one of its
//! encodings, all of which are searched for. Each such check (a *factor*) is
//! a necessary condition on its own, so a line must pass all factors of a
//! required literal; with several alternatives (`-e A -e B`) it must pass
//! those of at least one. The factors built are: the longest plain run and
//! the next two longest of at least two positions (each shortened, if need
//! be, to a window of at most 64 plain spellings, e.g. under `[0-9]{4}`),
//! and up to two positions without a plain member, non-ASCII ones first. ci-grep runs the same check on the raw
//! content of each escaped string of a candidate line before decoding it. A surrogate pair is represented by its high half,
//! which every encoding of the pair contains. When the pattern has no
//! required literal (`a*`, `\w+`), there is no pre-check and every line is
//! decoded. The property test at the end of this file checks the guarantee
//! on random strings encoded raw, `\u`-escaped with random hex case, and with
//! printable ASCII escaped too.

use aho_corasick::AhoCorasick;
use memchr::memmem;

/// One position of a required literal: the characters allowed there (sorted,
/// without duplicates).
pub type Position = Vec<char>;

/// Cartesian products of plain runs are searched as at most this many strings.
const MAX_PLAIN_STRINGS: usize = 64;

/// At most this many plain runs of one literal are checked (longest first):
/// `"event":"tool:pre","workspace":"decoy-ws"` needs `decoy-ws`, not only
/// `workspace`, to rule out lines.
const MAX_RUNS: usize = 3;

/// A necessary condition for a line to hold a match in a decoded string.
#[derive(Debug, Clone)]
pub struct Prefilter {
    /// `None`: no pre-check, every line may match. Otherwise a line may match
    /// when it passes every factor of at least one needle.
    needles: Option<Vec<Vec<Factor>>>,
}

impl Prefilter {
    /// A pre-check that lets every line through.
    pub fn everything() -> Prefilter {
        Prefilter { needles: None }
    }

    /// The pre-check for required literals given as alternatives (a match
    /// contains at least one of them); `ci` when matching is case-insensitive
    /// (the positions already hold the case variants; `ci` only widens the
    /// search so plain text is found in any ASCII case). Any alternative
    /// without a literal, or a searcher that cannot be built, gives
    /// [`Prefilter::everything`].
    pub fn new(alternatives: &[Vec<Position>], ci: bool) -> Prefilter {
        let mut needles = Vec::with_capacity(alternatives.len());
        for positions in alternatives {
            match needle(positions, ci) {
                Some(f) if !f.is_empty() => needles.push(f),
                _ => return Prefilter::everything(),
            }
        }
        if needles.is_empty() {
            return Prefilter::everything();
        }
        Prefilter { needles: Some(needles) }
    }

    /// Whether every line passes (no pre-check).
    pub fn is_everything(&self) -> bool {
        self.needles.is_none()
    }

    /// False only when no JSON string inside `raw` can decode to text that
    /// contains the required literal. `raw` may be a whole line or the raw
    /// content of one string.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        match &self.needles {
            None => true,
            Some(needles) => needles.iter().any(|factors| factors.iter().all(|f| f.may_match(raw))),
        }
    }
}

/// One necessary condition: the line holds the plain text of a run or one of
/// its non-plain encodings, or (for a non-plain position) one encoding of it.
#[derive(Debug, Clone)]
struct Factor {
    /// Plain text and non-plain encodings that need no gate.
    direct: Search,
    /// `\u00HH` / `\/` encodings of plain characters, looked for only when
    /// the line has such escapes at all.
    low: Option<Low>,
}

impl Factor {
    fn may_match(&self, raw: &[u8]) -> bool {
        self.direct.is_match(raw) || self.low.as_ref().is_some_and(|l| l.is_match(raw))
    }
}

#[derive(Debug, Clone)]
enum Search {
    Never,
    Memmem(Box<memmem::Finder<'static>>),
    Ac(AhoCorasick),
    /// ASCII-case-insensitive literals: the regex engine's literal
    /// prefilters (case variants of a prefix in a SIMD searcher) are several
    /// times faster than Aho-Corasick's case folding here.
    Regex(regex::bytes::Regex),
}

impl Search {
    fn build(patterns: &[Vec<u8>], ci: bool) -> Option<Search> {
        if patterns.is_empty() {
            return Some(Search::Never);
        }
        let letters = patterns.iter().any(|p| p.iter().any(u8::is_ascii_alphabetic));
        if ci && letters {
            let alts: Vec<String> = patterns.iter().map(|p| escape_bytes(p)).collect();
            let re =
                regex::bytes::RegexBuilder::new(&format!("(?i-u:{})", alts.join("|"))).unicode(false).build().ok()?;
            return Some(Search::Regex(re));
        }
        if patterns.len() == 1 {
            return Some(Search::Memmem(Box::new(memmem::Finder::new(&patterns[0]).into_owned())));
        }
        AhoCorasick::builder().build(patterns).ok().map(Search::Ac)
    }

    #[inline]
    fn is_match(&self, raw: &[u8]) -> bool {
        match self {
            Search::Never => false,
            Search::Memmem(f) => f.find(raw).is_some(),
            Search::Ac(ac) => ac.is_match(raw),
            Search::Regex(re) => re.is_match(raw),
        }
    }
}

/// A byte string as a regex matching exactly those bytes.
fn escape_bytes(p: &[u8]) -> String {
    p.iter().map(|&b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("\\x{b:02X}") }).collect()
}

#[derive(Debug, Clone)]
struct Low {
    search: Search,
    /// Whether `\/` is one of the encodings.
    slash: bool,
    /// Whether a `\u00HH` is one of the encodings.
    hex: bool,
}

impl Low {
    fn is_match(&self, raw: &[u8]) -> bool {
        let gate = (self.hex && has_printable_ascii_escape(raw)) || (self.slash && memmem::find(raw, b"\\/").is_some());
        gate && self.search.is_match(raw)
    }
}

/// Whether `raw` contains `\u00` followed by `2`..`7`: the only `\u` escapes
/// that spell printable ASCII. Branch-free over chunks so it vectorises;
/// stops at the first chunk with a hit.
pub fn has_printable_ascii_escape(raw: &[u8]) -> bool {
    const CHUNK: usize = 4096;
    if raw.len() < 5 {
        return false;
    }
    let n = raw.len() - 4;
    let mut start = 0;
    while start < n {
        let end = (start + CHUNK).min(n);
        let (a, b, c, d, e) = (
            &raw[start..end],
            &raw[start + 1..end + 1],
            &raw[start + 2..end + 2],
            &raw[start + 3..end + 3],
            &raw[start + 4..end + 4],
        );
        let hit = a.iter().zip(b).zip(c).zip(d).zip(e).fold(false, |acc, ((((&a, &b), &c), &d), &e)| {
            acc | ((a == b'\\') & (b == b'u') & (c == b'0') & (d == b'0') & (e.wrapping_sub(b'2') < 6))
        });
        if hit {
            return true;
        }
        start = end;
    }
    false
}

/// Printable ASCII other than `"` and `\`: its raw byte is one of its encodings.
fn is_plain(c: char) -> bool {
    matches!(c, ' '..='~') && c != '"' && c != '\\'
}

/// The factors for one required literal, most selective first; `None` when
/// a searcher cannot be built.
fn needle(positions: &[Position], ci: bool) -> Option<Vec<Factor>> {
    let mut factors = vec![];
    for (a, b) in plain_windows(positions, ci).into_iter().take(MAX_RUNS) {
        factors.push(run_factor(&positions[a..b], ci)?);
    }
    // Up to two positions without a plain member, distinct, non-ASCII first
    // (their encodings are rarer in text than `\"` or `\n`).
    let mut others: Vec<&Position> = vec![];
    for p in positions.iter().filter(|p| !p.iter().any(|&c| is_plain(c))) {
        if !others.contains(&p) {
            others.push(p);
        }
    }
    others.sort_by_key(|p| p.iter().any(char::is_ascii));
    for p in others.into_iter().take(2) {
        let mut pats = vec![];
        for &c in p {
            encodings(c, ci, &mut pats);
        }
        factors.push(Factor { direct: Search::build(&dedup(pats), ci)?, low: None });
    }
    Some(factors)
}

/// The factor for a plain run: its plain strings, the non-plain encodings of
/// its non-plain members, and (gated) the escapes of its plain members.
fn run_factor(run: &[Position], ci: bool) -> Option<Factor> {
    let mut direct = plain_strings(run, ci);
    let (mut low, mut slash) = (vec![], false);
    for p in run {
        for &c in p {
            if is_plain(c) {
                u_escapes(c, ci, &mut low);
                slash |= c == '/';
            } else {
                encodings(c, ci, &mut direct);
            }
        }
    }
    let hex = !low.is_empty();
    if slash {
        low.push(b"\\/".to_vec());
    }
    let low = if low.is_empty() { None } else { Some(Low { search: Search::build(&dedup(low), ci)?, slash, hex }) };
    Some(Factor { direct: Search::build(&dedup(direct), ci)?, low })
}

/// The plain members of a position, folded to one ASCII case under `ci`.
fn plain_members(p: &Position, ci: bool) -> Vec<u8> {
    let mut v: Vec<u8> = p
        .iter()
        .filter(|&&c| is_plain(c))
        .map(|&c| if ci { (c as u8).to_ascii_lowercase() } else { c as u8 })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Per maximal run of positions that all have a plain member, its longest
/// window whose plain strings number at most [`MAX_PLAIN_STRINGS`]; longest
/// first (ties in order). The first is always kept; later ones only when
/// at least two positions long (a single common letter rules out nothing).
fn plain_windows(positions: &[Position], ci: bool) -> Vec<(usize, usize)> {
    let sizes: Vec<usize> = positions.iter().map(|p| plain_members(p, ci).len()).collect();
    let mut windows: Vec<(usize, usize)> = vec![];
    let mut best: Option<(usize, usize)> = None;
    let mut a = 0;
    let mut product = 1usize;
    for b in 0..=sizes.len() {
        if b == sizes.len() || sizes[b] == 0 {
            windows.extend(best.take());
            a = b + 1;
            product = 1;
            continue;
        }
        product = product.saturating_mul(sizes[b]);
        while product > MAX_PLAIN_STRINGS && a < b {
            product /= sizes[a];
            a += 1;
        }
        if best.is_none_or(|(x, y)| b + 1 - a > y - x) {
            best = Some((a, b + 1));
        }
    }
    windows.sort_by_key(|&(x, y)| std::cmp::Reverse(y - x));
    let mut out: Vec<(usize, usize)> = vec![];
    for w in windows {
        if out.is_empty() || w.1 - w.0 >= 2 {
            out.push(w);
        }
    }
    out
}

fn plain_strings(run: &[Position], ci: bool) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![vec![]];
    for p in run {
        let members = plain_members(p, ci);
        out = out.iter().flat_map(|s| members.iter().map(move |&m| [s.as_slice(), &[m]].concat())).collect();
    }
    out
}

/// Every encoding of a non-plain character inside a JSON string.
fn encodings(c: char, ci: bool, out: &mut Vec<Vec<u8>>) {
    if c >= ' ' && c != '"' && c != '\\' {
        out.push(c.to_string().into_bytes());
    }
    let short: &[u8] = match c {
        '"' => b"\\\"",
        '\\' => b"\\\\",
        '/' => b"\\/",
        '\u{8}' => b"\\b",
        '\u{c}' => b"\\f",
        '\n' => b"\\n",
        '\r' => b"\\r",
        '\t' => b"\\t",
        _ => b"",
    };
    if !short.is_empty() {
        out.push(short.to_vec());
    }
    u_escapes(c, ci, out);
}

/// `\uXXXX` for `c` (its high surrogate above U+FFFF), in every hex case
/// unless the searcher ignores ASCII case anyway.
fn u_escapes(c: char, ci: bool, out: &mut Vec<Vec<u8>>) {
    let mut units = [0u16; 2];
    let unit = c.encode_utf16(&mut units)[0];
    let hex = format!("\\u{unit:04x}").into_bytes();
    if ci {
        out.push(hex);
        return;
    }
    let mut variants = vec![hex];
    for i in 2..6 {
        if variants[0][i].is_ascii_alphabetic() {
            let upper: Vec<Vec<u8>> = variants
                .iter()
                .map(|v| {
                    let mut v = v.clone();
                    v[i] = v[i].to_ascii_uppercase();
                    v
                })
                .collect();
            variants.extend(upper);
        }
    }
    out.extend(variants);
}

fn dedup(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests;
