//! `--fields`: an event record reduced to some paths, as jq's `pick` does.
//!
//! Each path's value is printed at that same path, so the path reads the
//! same value from the printed record as from the original (`jq
//! '.data.raw.messages[2].role'` gives one answer on both):
//!
//! - through objects, objects with the picked keys (in `--fields` order);
//! - through an array, an array that holds the picked elements at their
//!   positions and `null` before them: `--fields 'data.raw.messages[2].role'`
//!   prints `{"data":{"raw":{"messages":[null,null,{"role":"user"}]}}}`. An
//!   element the array does not have is left out (reading it gives `null`,
//!   as from the record);
//! - a key the record does not have is printed as `null` at the first step
//!   that is missing (`data.x.y` without `data.x`: `{"data":{"x":null}}`);
//! - a path that runs into a string, number, boolean or `null` before its
//!   end prints that value where it is.
//!
//! `workspace` is the filled-in workspace and, for a derived record (a
//! Claude Code hook line), paths read its normalised view
//! ([`Event::top`]). The provenance key `ci` is never picked: it is appended
//! whole, or left out with `--no-provenance` ([`crate::output`]).

use serde_json::{Map, Value};

use crate::json::{Kind, Path, Raw};
use crate::record::{Event, PROVENANCE_KEY};

/// The projection of `ev` on `fields` (paths into `ci` are skipped).
pub(crate) fn pick(ev: &Event<'_>, fields: &[Path]) -> Map<String, Value> {
    let mut obj = Map::new();
    for path in fields {
        let Some((first, rest)) = path.segments().split_first() else { continue };
        if first == PROVENANCE_KEY {
            continue;
        }
        let named = match first.as_str() {
            "workspace" if rest.is_empty() => Some(ev.workspace().map(|w| Value::String(w.into_owned()))),
            "event" if rest.is_empty() && ev.derived() => Some(Some(Value::String(ev.name().into_owned()))),
            _ => None,
        };
        let slot = obj.entry(first.clone()).or_insert(Value::Null);
        match (named, ev.top(first)) {
            (Some(v), _) => *slot = v.unwrap_or(Value::Null),
            (None, Some(src)) => put(slot, src, rest),
            (None, None) => {}
        }
    }
    obj
}

/// Writes into `slot` (the printed value at a path prefix) what `rest`
/// picks of `src` (the record's value there).
fn put(slot: &mut Value, src: Raw<'_>, rest: &[String]) {
    let Some((seg, deeper)) = rest.split_first() else {
        *slot = src.to_value().unwrap_or(Value::Null);
        return;
    };
    match src.kind() {
        Kind::Object => {
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let Value::Object(map) = slot else { return };
            let inner = map.entry(seg.clone()).or_insert(Value::Null);
            if let Some(v) = src.get(seg) {
                put(inner, v, deeper);
            }
        }
        Kind::Array => {
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            let Value::Array(items) = slot else { return };
            // `get` finds an element only below the array's length, so the
            // padding is bounded by the record's own size.
            let (Ok(n), Some(v)) = (seg.parse::<usize>(), src.get(seg)) else { return };
            if items.len() <= n {
                items.resize(n + 1, Value::Null);
            }
            put(&mut items[n], v, deeper);
        }
        _ => *slot = src.to_value().unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Index;

    fn picked(line: &str, fields: &[&str]) -> String {
        let mut idx = Index::new();
        let rec = idx.parse(line.as_bytes()).unwrap();
        let ev = Event::piped(rec, 1, "-");
        let fields: Vec<Path> = fields.iter().map(|f| Path::parse(f).unwrap()).collect();
        serde_json::to_string(&pick(&ev, &fields)).unwrap()
    }

    const LINE: &str =
        r#"{"event":"e","data":{"m":[{"r":"a","x":1},{"r":"b"},{"r":"c"}],"o":{"0":"zero"},"s":"str","n":null}}"#;

    #[test]
    fn paths_read_the_same_from_the_projection() {
        let p = |f: &[&str]| picked(LINE, f);
        assert_eq!(p(&["data.m[0].r"]), r#"{"data":{"m":[{"r":"a"}]}}"#);
        assert_eq!(p(&["data.m[2].r"]), r#"{"data":{"m":[null,null,{"r":"c"}]}}"#);
        assert_eq!(p(&["data.m.2.r"]), r#"{"data":{"m":[null,null,{"r":"c"}]}}"#);
        assert_eq!(p(&["data.m[2].r", "data.m[0].x"]), r#"{"data":{"m":[{"x":1},null,{"r":"c"}]}}"#);
        assert_eq!(p(&["data.m[7].r"]), r#"{"data":{"m":[]}}"#);
        assert_eq!(p(&["data.o[0]"]), r#"{"data":{"o":{"0":"zero"}}}"#);
        assert_eq!(p(&["data.x.y", "event"]), r#"{"data":{"x":null},"event":"e"}"#);
        assert_eq!(p(&["data.s.y"]), r#"{"data":{"s":"str"}}"#);
        assert_eq!(p(&["data.n.y"]), r#"{"data":{"n":null}}"#);
        assert_eq!(p(&["nope.x"]), r#"{"nope":null}"#);
        assert_eq!(p(&["data.m[1]", "data.m"]), r#"{"data":{"m":[{"r":"a","x":1},{"r":"b"},{"r":"c"}]}}"#);
        assert_eq!(p(&["ci.line", "event"]), r#"{"event":"e"}"#);
    }
}
