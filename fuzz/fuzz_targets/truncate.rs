//! `truncate::shrink_data` on arbitrary JSON values and budgets.
//!
//! The value is built with `arbitrary` (objects, arrays, long and escaped
//! strings, protected keys and `"…"` keys are all likely), the budget is an
//! arbitrary `room`. Properties (the guarantee documented in src/truncate.rs):
//! - the result serialises to valid JSON that parses back to itself;
//! - if `data` already fitted it is unchanged and nothing is reported cut;
//! - the protected direct members of an object `data` are all kept, unchanged;
//! - the result is never larger than the input;
//! - it fits in `room` whenever `room >= P + 40`, `P` being the size of `data`
//!   reduced to its protected members (for a non-object `data`: `room >= 226`);
//! - shrinking the result again with the same `room` changes nothing when it
//!   fits.
#![no_main]

use arbitrary::{Arbitrary, Result, Unstructured};
use ci_tools::truncate::{is_protected_key, shrink_data, Cut, ELISION_KEY, PROTECTED_KEYS};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

#[derive(Debug)]
struct Input {
    data: Value,
    room: usize,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let room = match u.int_in_range(0..=3u8)? {
            0 => usize::from(u.arbitrary::<u8>()?),
            1 | 2 => usize::from(u.arbitrary::<u16>()? % 4096),
            _ => usize::from(u.arbitrary::<u16>()?),
        };
        let data = if u.ratio(7, 8)? { object(u, 0)? } else { value(u, 0)? };
        Ok(Input { data, room })
    }
}

fn string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=5u8)? {
        // Long runs so that cutting is needed, with a multi-byte or escaped
        // character at an arbitrary place.
        0 => {
            let c = *u.choose(&['a', 'é', '€', '🚀', '"', '\n', '\u{1}', '\\'])?;
            let n = usize::from(u.arbitrary::<u8>()?);
            let mut s = "x".repeat(usize::from(u.arbitrary::<u8>()?) % 40);
            s.extend(std::iter::repeat_n(c, n));
            s
        }
        1 => ELISION_KEY.to_string(),
        _ => u.arbitrary()?,
    })
}

fn key(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => (*u.choose(PROTECTED_KEYS)?).to_string(),
        1 => ELISION_KEY.to_string(),
        _ => u.arbitrary()?,
    })
}

fn object(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    let mut map = Map::new();
    let n = u.int_in_range(0..=12u8)?;
    for _ in 0..n {
        let k = key(u)?;
        let v = value(u, depth + 1)?;
        map.insert(k, v);
    }
    Ok(Value::Object(map))
}

fn value(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    let leaf = depth >= 6 || u.is_empty();
    Ok(match u.int_in_range(0..=if leaf { 4u8 } else { 7 })? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => match u.int_in_range(0..=2u8)? {
            0 => Value::from(u.arbitrary::<i64>()?),
            1 => Value::from(u.arbitrary::<u64>()?),
            _ => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        },
        3 | 4 => Value::String(string(u)?),
        5 => object(u, depth)?,
        _ => {
            // Arrays, sometimes long (elision of items).
            let n =
                if u.ratio(1, 4)? { usize::from(u.arbitrary::<u8>()?) } else { usize::from(u.int_in_range(0..=6u8)?) };
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(value(u, depth + 1)?);
            }
            Value::Array(items)
        }
    })
}

fn size(v: &Value) -> usize {
    serde_json::to_vec(v).expect("serialises").len()
}

fuzz_target!(|input: Input| {
    let Input { data, room } = input;
    let original = data.clone();
    let mut v = data;
    let cut = shrink_data(&mut v, room);

    let bytes = serde_json::to_vec(&v).expect("result serialises");
    let back: Value = serde_json::from_slice(&bytes).expect("result is valid JSON");
    assert_eq!(back, v, "result parses back to itself");

    let before = size(&original);
    let after = bytes.len();
    if before <= room {
        assert_eq!(v, original, "a fitting value is unchanged");
        assert_eq!(cut, Cut::default());
    }
    assert!(after <= before, "grew from {before} to {after}");

    let bound = match &original {
        Value::Object(map) => {
            let protected: Map<String, Value> =
                map.iter().filter(|(k, _)| is_protected_key(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            let result = v.as_object().expect("an object stays an object");
            for (k, pv) in &protected {
                assert_eq!(result.get(k), Some(pv), "protected member {k:?} changed");
            }
            size(&Value::Object(protected)) + 40
        }
        _ => 226,
    };
    if room >= bound {
        assert!(after <= room, "{after} > room {room} (bound {bound})");
    }
    if after <= room {
        let mut again = v.clone();
        assert_eq!(shrink_data(&mut again, room), Cut::default());
        assert_eq!(again, v);
    }
});
