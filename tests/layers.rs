//! The top-level modules of `src/` form layers that point down (see
//! `src/lib.rs`): a module may use only modules of a lower layer. This reads
//! every `src/**/*.rs`, collects the `crate::<module>` paths (grouped ones,
//! `crate::{a, b}`, too) and the `super::` paths that reach the crate root,
//! outside comments, strings and character literals, and fails on any edge
//! the table below does not allow, naming the file, the edge and the layers.
//! A new top-level module must be given its layer here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may use modules of lower layers only
/// (never one of its own layer, nor one above).
const LAYERS: &[&[&str]] = &[
    // Leaves: values and text that need nothing of the crate.
    &["json", "time", "elements", "window", "signal", "progress", "text", "units", "codec", "decimal"],
    // Reports, the byte budget, prices.
    &["diag", "truncate", "pricing"],
    // The line reader (it reports a bad limit through diag).
    &["lines"],
    &["files", "error"],
    // The writers (given the run's state in a context, never reaching it;
    // with the session model they build, `format::session`).
    &["format"],
    // The event view over the writers; the cache (which keeps the writers'
    // peeks, `format::PeekCache`); the rule naming a session on the command
    // line (of the session model's safe ids).
    &["record", "cache", "session_id"],
    // Discovery (hands the writers the cache and memo), --fields, search.
    &["discover", "pick", "search"],
    &["watch", "output", "predicate"],
    // Cut records made whole (on the input side, printing through output).
    &["reread"],
    // The engine.
    &["source"],
    &["aggregate", "cli"],
    // The tools.
    &["cmd"],
];

/// Modules of `src/` re-exported at the crate root (`pub use module::name;`
/// in `lib.rs`): a path `crate::name` is a use of `module`.
const REEXPORTS: &[(&str, &str)] = &[("session", "format")];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// One use of another top-level module.
#[derive(Debug, PartialEq, Eq)]
struct Edge {
    /// The line it is on.
    line: usize,
    /// The module used.
    to: String,
}

/// `src/**/*.rs`, sorted.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect::<Vec<_>>();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file below `src/` (`format/codex.rs` → `format::codex`,
/// `cache/mod.rs` → `cache`); empty for `lib.rs`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.with_extension("").iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The code of `src` with comments, strings and character literals blanked
/// out (newlines kept, so lines still count).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, s: &str| out.extend(s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            block_comment_len(rest)
        } else if let Some(n) = (!ident_before).then(|| raw_string_len(rest)).flatten() {
            n
        } else if rest.starts_with('"') || (!ident_before && rest.starts_with("b\"")) {
            string_len(rest)
        } else if rest.starts_with('\'') {
            char_len(rest)
        } else {
            0
        };
        if end > 0 {
            blank(&mut out, &rest[..end]);
            i += end;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of the (nested) block comment `s` starts with.
fn block_comment_len(s: &str) -> usize {
    let (mut depth, mut i) = (0usize, 0);
    while i < s.len() {
        if s[i..].starts_with("/*") {
            depth += 1;
            i += 2;
        } else if s[i..].starts_with("*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += s[i..].chars().next().unwrap().len_utf8();
        }
    }
    s.len()
}

/// The length of the raw string (`r"…"`, `r#"…"#`, `br"…"`) `s` starts with.
fn raw_string_len(s: &str) -> Option<usize> {
    let after = s.strip_prefix("br").or_else(|| s.strip_prefix('r'))?;
    let hashes = after.len() - after.trim_start_matches('#').len();
    let body = after[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    let n = body.find(&close).map_or(body.len(), |n| n + close.len());
    Some(s.len() - body.len() + n)
}

/// The length of the string (`"…"`, `b"…"`) `s` starts with.
fn string_len(s: &str) -> usize {
    let start = s.find('"').unwrap() + 1;
    let mut it = s[start..].char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '\\' => {
                it.next();
            }
            '"' => return start + i + 1,
            _ => {}
        }
    }
    s.len()
}

/// The length of the character literal `s` starts with (`'a'`, `'\n'`,
/// `'\u{1b}'`); 0 for a lifetime or label (`'a`, `'static`).
fn char_len(s: &str) -> usize {
    let body = &s[1..];
    if let Some(esc) = body.strip_prefix('\\') {
        // The escaped character, then the closing quote.
        let close = esc.char_indices().skip(1).find(|(_, c)| *c == '\'');
        return close.map_or(0, |(n, _)| n + 3);
    }
    let mut cs = body.char_indices();
    match (cs.next(), cs.next()) {
        (Some((_, c)), Some((j, '\''))) if c != '\'' => 1 + j + 1,
        _ => 0,
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// The top-level modules `code` (of the file whose module path is `module`)
/// uses, each with its line: `crate::m`, `crate::{m, n::x}`, and `super::`
/// chains (inside inline `mod x { … }` blocks too) that reach the crate root.
fn uses(code: &str, module: &[String]) -> Vec<Edge> {
    let mut edges = vec![];
    // The module path at each open brace: an inline `mod x {` goes one deeper.
    let mut scopes: Vec<Vec<String>> = vec![module.to_vec()];
    let mut line = 1;
    let mut i = 0;
    let b = code.as_bytes();
    while i < b.len() {
        let rest = &code[i..];
        let starts_word = i == 0 || !(is_ident(b[i - 1] as char) || b[i - 1] == b'$');
        match b[i] {
            b'\n' => line += 1,
            b'{' => {
                let here = scopes.last().unwrap().clone();
                scopes.push(here);
            }
            b'}' if scopes.len() > 1 => {
                scopes.pop();
            }
            _ if starts_word && rest.starts_with("mod ") => {
                let name = ident(rest[4..].trim_start());
                let after = rest[4..].trim_start()[name.len()..].trim_start();
                if after.starts_with('{') {
                    let mut inner = scopes.last().unwrap().clone();
                    inner.push(name.to_owned());
                    // Entered at the `{`, which pushes a copy: replace it there.
                    let at = i + rest.find('{').unwrap();
                    line += code[i..at].matches('\n').count();
                    scopes.push(inner);
                    i = at + 1;
                    continue;
                }
            }
            _ if starts_word && rest.starts_with("crate::") => {
                let path = &rest["crate::".len()..];
                if let Some(group) = path.strip_prefix('{') {
                    edges.extend(group_heads(group).into_iter().map(|to| Edge { line, to }));
                } else {
                    edges.push(Edge { line, to: ident(path).to_owned() });
                }
            }
            _ if starts_word && rest.starts_with("super::") => {
                let mut at = scopes.last().unwrap().clone();
                let mut path = rest;
                while let Some(p) = path.strip_prefix("super::") {
                    at.pop();
                    path = p.trim_start();
                }
                if at.is_empty() {
                    if let Some(group) = path.strip_prefix('{') {
                        edges.extend(group_heads(group).into_iter().map(|to| Edge { line, to }));
                    } else {
                        edges.push(Edge { line, to: ident(path).to_owned() });
                    }
                }
                i += rest.len() - path.len();
                continue;
            }
            _ => {}
        }
        i += rest.chars().next().unwrap().len_utf8();
    }
    edges.retain(|e| !e.to.is_empty() && e.to != "self");
    edges
}

/// The first segment of each path of a `use` group (`a, b::c, d::{e}}` →
/// `a`, `b`, `d`).
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = vec![];
    let mut depth = 0;
    let mut expect = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect = true,
            c if expect && is_ident(c) => {
                heads.push(ident(&group[i..]).to_owned());
                expect = false;
            }
            c if expect && !c.is_whitespace() => expect = false,
            _ => {}
        }
    }
    heads
}

#[test]
fn every_import_points_down_a_layer() {
    let src = crate::util::root().join("src");
    let mut files = vec![];
    sources(&src, &mut files);
    assert!(files.len() > 100, "read only {} files under {}", files.len(), src.display());
    let tops: BTreeSet<String> =
        files.iter().filter_map(|f| module_path(f.strip_prefix(&src).unwrap()).first().cloned()).collect();
    let mut problems = vec![];
    for top in &tops {
        if layer_of(top).is_none() {
            problems.push(format!("src/{top}: a top-level module with no layer: give it one in tests/layers.rs"));
        }
    }
    for name in LAYERS.iter().flat_map(|l| l.iter()) {
        if !tops.contains(*name) {
            problems.push(format!("tests/layers.rs names {name}, which is no top-level module of src/"));
        }
    }
    let mut edges = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = module_path(rel);
        let Some(from) = module.first() else { continue };
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        for mut e in uses(&code, &module) {
            if let Some((_, to)) = REEXPORTS.iter().find(|(name, _)| e.to == *name) {
                e.to = to.to_string();
            }
            if e.to == *from || !tops.contains(&e.to) {
                continue;
            }
            edges += 1;
            let (Some(a), Some(b)) = (layer_of(from), layer_of(&e.to)) else { continue };
            if b >= a {
                problems.push(format!(
                    "src/{}:{}: {from} (layer {a}) uses {} (layer {b}): a module may use only the layers below its own",
                    rel.display(),
                    e.line,
                    e.to
                ));
            }
        }
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    for (name, module) in REEXPORTS {
        if !lib.contains(&format!("pub use {module}::{name};")) {
            problems.push(format!("src/lib.rs has no `pub use {module}::{name};`: fix REEXPORTS in tests/layers.rs"));
        }
    }
    assert!(edges > 100, "found only {edges} uses between modules: the scanner reads no code");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scanner_reads_code_only() {
    let src = r##"
//! crate::cmd in a doc comment
use crate::json::{self, Raw};
use crate::{diag::Diag, time};
/* crate::cmd /* nested */ crate::cmd */
const S: &str = "crate::cmd \" crate::cmd";
const R: &str = r#"crate::cmd "# ;
const C: char = '"'; fn f<'a>(x: &'a str) -> &'a str { super::lines::x(); x }
mod tests {
    use super::*;
    use super::super::super::files::X;
}
"##;
    let module = vec!["format".to_owned(), "codex".to_owned()];
    let found: Vec<(usize, String)> = uses(&code_only(src), &module).into_iter().map(|e| (e.line, e.to)).collect();
    let want = [(3, "json"), (4, "diag"), (4, "time"), (11, "files")];
    assert_eq!(found, want.map(|(l, m)| (l, m.to_owned())));
    // From a file one level down, `super::` is the crate root.
    let top = vec!["diag".to_owned()];
    let found: Vec<String> = uses(&code_only("use super::lines::X;"), &top).into_iter().map(|e| e.to).collect();
    assert_eq!(found, ["lines"]);
}
