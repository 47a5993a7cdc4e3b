//! Visiting the strings of a record with their JSON paths, within a scope.
//!
//! Paths are dotted from the record's top level, array items by index:
//! `data.prompt`, `data.result.output`, `data.raw.messages.0.content`. Keys
//! are decoded for the path; a key that contains a `.` is shown as is.

use std::fmt::Write;

use crate::json::{decode_str, Kind, Path, Raw, Record};

/// The fields a search covers, with prefix semantics on whole segments:
/// `data.result` covers `data.result` and everything under it
/// (`data.result.output`), but not `data.results`.
#[derive(Debug, Clone)]
pub struct Scope {
    fields: Vec<String>,
}

impl Scope {
    /// The scope of `--field` paths; every string inside `data` when none.
    pub fn new(fields: &[Path]) -> Scope {
        if fields.is_empty() {
            return Scope { fields: vec!["data".into()] };
        }
        Scope { fields: fields.iter().map(Path::dotted).collect() }
    }

    /// Whether `path` is one of the fields or lies under one.
    pub fn covers(&self, path: &str) -> bool {
        self.fields
            .iter()
            .any(|f| path.strip_prefix(f.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('.')))
    }

    /// Whether some field lies under `path` (so the walk must go deeper).
    pub(crate) fn leads_to(&self, path: &str) -> bool {
        self.fields.iter().any(|f| f.strip_prefix(path).is_some_and(|rest| rest.starts_with('.')))
    }
}

/// One string found by the walk.
#[derive(Debug, Clone, Copy)]
pub struct Found<'p, 'a> {
    /// The JSON path of the value (for a key: of the member it names).
    pub path: &'p str,
    /// Whether this is an object key rather than a string value.
    pub key: bool,
    /// The raw content of the string, between its quotes, escapes kept.
    pub raw: &'a [u8],
}

/// Calls `f` for every string value in `scope` (and, with `keys`, every key
/// of an object member inside the scope), in document order, until `f`
/// returns false. Returns false when stopped.
pub fn strings<'a>(rec: &Record<'a>, scope: &Scope, keys: bool, f: &mut dyn FnMut(Found<'_, 'a>) -> bool) -> bool {
    let mut path = String::with_capacity(64);
    for (k, v) in rec.members() {
        path.clear();
        push_key(&mut path, k);
        let inside = scope.covers(&path);
        if (inside || scope.leads_to(&path)) && !walk(v, &mut path, inside, scope, keys, f) {
            return false;
        }
    }
    true
}

/// As [`strings`], over an event's normalised view: a derived record (a
/// Claude Code hook line) is walked as the `data` of its event record
/// (`data.prompt`, `data.tool_response.output`), so paths and scopes mean
/// the same for every writer.
pub fn event_strings<'a>(
    ev: &crate::record::Event<'a>,
    scope: &Scope,
    keys: bool,
    f: &mut dyn FnMut(Found<'_, 'a>) -> bool,
) -> bool {
    if !ev.derived() {
        return strings(&ev.rec, scope, keys, f);
    }
    let Some(data) = ev.data() else { return true };
    let mut path = String::from("data");
    let inside = scope.covers(&path);
    if inside || scope.leads_to(&path) {
        return walk(data, &mut path, inside, scope, keys, f);
    }
    true
}

fn push_key(path: &mut String, raw: &[u8]) {
    if !path.is_empty() {
        path.push('.');
    }
    match decode_str(raw) {
        Some(k) => path.push_str(&k),
        None => path.push_str(&String::from_utf8_lossy(raw)),
    }
}

fn walk<'a>(
    v: Raw<'a>,
    path: &mut String,
    inside: bool,
    scope: &Scope,
    keys: bool,
    f: &mut dyn FnMut(Found<'_, 'a>) -> bool,
) -> bool {
    match v.kind() {
        Kind::String => {
            if inside {
                if let Some(raw) = v.str_content() {
                    return f(Found { path, key: false, raw });
                }
            }
            true
        }
        Kind::Object => {
            let len = path.len();
            for (k, child) in v.members() {
                push_key(path, k);
                let child_inside = inside || scope.covers(path);
                let go_on = (!(inside && keys) || f(Found { path, key: true, raw: k }))
                    && (!(child_inside || scope.leads_to(path)) || walk(child, path, child_inside, scope, keys, f));
                path.truncate(len);
                if !go_on {
                    return false;
                }
            }
            true
        }
        Kind::Array => {
            let len = path.len();
            for (i, child) in v.items().enumerate() {
                let _ = write!(path, ".{i}");
                let child_inside = inside || scope.covers(path);
                let go_on = !(child_inside || scope.leads_to(path)) || walk(child, path, child_inside, scope, keys, f);
                path.truncate(len);
                if !go_on {
                    return false;
                }
            }
            true
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Index;

    fn all(line: &str, fields: &[&str], keys: bool) -> Vec<String> {
        let mut idx = Index::new();
        let rec = idx.parse(line.as_bytes()).unwrap();
        let fields: Vec<Path> = fields.iter().map(|f| Path::parse(f).unwrap()).collect();
        let mut out = vec![];
        strings(&rec, &Scope::new(&fields), keys, &mut |s| {
            out.push(format!("{}{}={}", s.path, if s.key { "(key)" } else { "" }, String::from_utf8_lossy(s.raw)));
            true
        });
        out
    }

    const LINE: &str = r#"{"data":{"prompt":"p","result":{"output":"o","n":1},"results":"x","raw":{"messages":[{"content":"c0"},{"content":"c1"}]},"k\u00e9y":"v"},"event":"e"}"#;

    #[test]
    fn default_scope_is_every_string_in_data() {
        assert_eq!(
            all(LINE, &[], false),
            [
                "data.prompt=p",
                "data.result.output=o",
                "data.results=x",
                "data.raw.messages.0.content=c0",
                "data.raw.messages.1.content=c1",
                "data.kéy=v"
            ]
        );
    }

    #[test]
    fn fields_are_prefixes_on_whole_segments() {
        assert_eq!(all(LINE, &["data.result"], false), ["data.result.output=o"]);
        assert_eq!(all(LINE, &["data.raw.messages.1"], false), ["data.raw.messages.1.content=c1"]);
        assert_eq!(all(LINE, &["event", "data.prompt"], false), ["data.prompt=p", "event=e"]);
    }

    #[test]
    fn keys_inside_the_scope() {
        assert_eq!(
            all(LINE, &["data.result"], true),
            ["data.result.output(key)=output", "data.result.output=o", "data.result.n(key)=n"]
        );
    }
}
