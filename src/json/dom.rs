//! A serde_json DOM of one value, with every number kept as written.
//!
//! serde_json (with `arbitrary_precision`) keeps a number's digits but writes
//! its exponent in one canonical form (`1E5` becomes `1e+5`). A record the
//! toolkit re-serialises (cut to its budget, projected with `--fields`, a group
//! key) must print each number exactly as the capture holds it, so the DOM is
//! built here: the value is validated by the scanner first (the grammar
//! serde_json accepts, nesting at most [`MAX_DEPTH`](super::MAX_DEPTH)), then
//! built in one pass, each number from its source text.

use serde_json::{Map, Number, Value};

use super::decode::{decode_str, Raw};
use super::skim::string_end;
use super::validate::{number, skip_checked, ws};

/// The DOM of the JSON value in `b` (whitespace around it allowed); `None`
/// when `b` is not exactly one valid value.
pub fn parse(b: &[u8]) -> Option<Value> {
    simdutf8::basic::from_utf8(b).ok()?;
    let start = ws(b, 0);
    let end = skip_checked(b, start, 0, &mut 0).ok()?;
    if ws(b, end) != b.len() {
        return None;
    }
    let mut i = start;
    build(b, &mut i)
}

impl Raw<'_> {
    /// Parses the value into a serde_json DOM (for the few jobs that need
    /// one), every number kept as written ([`parse`]).
    pub fn to_value(&self) -> Option<Value> {
        parse(self.0)
    }
}

/// A number as a DOM value, from its validated source text.
///
/// `Number::from_string_unchecked` is the only constructor that keeps the
/// text: its `FromStr` rewrites the exponent. It is hidden in serde_json's
/// documentation; Cargo.lock pins the version, and `tests` below fail if its
/// behaviour ever changes.
fn number_value(text: &str) -> Value {
    Value::Number(Number::from_string_unchecked(text.to_owned()))
}

/// Builds the (validated) value at `*i` and moves `*i` past it. Recursion is
/// bounded by the depth the scanner accepted.
fn build(b: &[u8], i: &mut usize) -> Option<Value> {
    *i = ws(b, *i);
    let value = match *b.get(*i)? {
        b'{' => {
            let mut members = Map::new();
            *i = ws(b, *i + 1);
            if b.get(*i) == Some(&b'}') {
                *i += 1;
                return Some(Value::Object(members));
            }
            loop {
                let key = string(b, i)?;
                *i = ws(b, *i) + 1; // past the ':'
                let value = build(b, i)?;
                members.insert(key, value);
                *i = ws(b, *i);
                let sep = *b.get(*i)?;
                *i = ws(b, *i + 1);
                if sep == b'}' {
                    break;
                }
            }
            return Some(Value::Object(members));
        }
        b'[' => {
            let mut items = Vec::new();
            *i = ws(b, *i + 1);
            if b.get(*i) == Some(&b']') {
                *i += 1;
                return Some(Value::Array(items));
            }
            loop {
                items.push(build(b, i)?);
                *i = ws(b, *i);
                let sep = *b.get(*i)?;
                *i += 1;
                if sep == b']' {
                    break;
                }
            }
            return Some(Value::Array(items));
        }
        b'"' => return string(b, i).map(Value::String),
        b't' => (Value::Bool(true), 4),
        b'f' => (Value::Bool(false), 5),
        b'n' => (Value::Null, 4),
        _ => {
            let end = number(b, *i).ok()?;
            let text = std::str::from_utf8(b.get(*i..end)?).ok()?;
            *i = end;
            return Some(number_value(text));
        }
    };
    *i += value.1;
    Some(value.0)
}

/// Decodes the (validated) string at `*i` and moves `*i` past it.
fn string(b: &[u8], i: &mut usize) -> Option<String> {
    let end = string_end(b, *i)?;
    let text = decode_str(b.get(*i + 1..end - 1)?)?.into_owned();
    *i = end;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> String {
        serde_json::to_string(&parse(text.as_bytes()).expect("valid JSON")).unwrap_or_default()
    }

    #[test]
    fn numbers_print_exactly_as_written() {
        let text = "[123456789012345678901234567890,18446744073709551616,1E5,1e5,1E+5,-0,1e-400,1e400,0.10,-1.50E-07]";
        assert_eq!(round_trip(text), text);
    }

    #[test]
    fn numbers_keep_their_meaning() {
        let v = parse(b"[1E5, 12, -3, 0.5]").unwrap_or_default();
        assert_eq!(v[0].as_f64(), Some(100000.0));
        assert_eq!(v[1].as_u64(), Some(12));
        assert_eq!(v[2].as_i64(), Some(-3));
        assert_eq!(v[3].as_f64(), Some(0.5));
    }

    #[test]
    fn equals_serde_json_on_everything_else() {
        for text in [
            r#"{"a" : [1, {"b": null}, true, false, "x\"\u00e9\ud83d\ude00"], "c":{} , "d":[ ]}"#,
            r#"{"k":1,"k":2,"j":3}"#,
            "  \"s\"  ",
            "[[],[[]],{}]",
        ] {
            let ours = parse(text.as_bytes());
            let serde: Option<Value> = serde_json::from_str(text).ok();
            assert_eq!(ours, serde, "{text}");
            assert_eq!(round_trip(text), serde_json::to_string(&serde).unwrap_or_default());
        }
    }

    #[test]
    fn refuses_what_is_not_one_value() {
        for text in ["", "{", "[1,]", "1 2", "\"\\x\"", "{\"a\"}", "tru", "01", "\"\u{1}\"", "[1]x"] {
            assert_eq!(parse(text.as_bytes()), None, "{text:?}");
        }
        assert_eq!(parse(b"\"\xff\""), None);
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(parse(deep.as_bytes()), None);
    }
}
