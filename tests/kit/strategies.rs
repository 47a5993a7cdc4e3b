//! Proptest strategies shared by the property tests (`json_props.rs`,
//! `truncate_props.rs`, `elements_props.rs`): strings made of tricky pieces
//! (escapes, multi-byte characters, control characters), finite numbers,
//! and JSON trees over a leaf and a key strategy. Each test keeps its own
//! pieces and weights (what it probes); the shapes are built here once.

use proptest::prelude::*;
use serde_json::{Number, Value};

/// Strings of fewer than `max` pieces drawn from `pieces`, concatenated.
pub fn from_pieces(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(prop::sample::select(pieces), 0..max).prop_map(|p| p.concat())
}

/// Any finite `f64` as a JSON number.
pub fn finite_f64() -> impl Strategy<Value = Value> + Clone {
    any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number))
}

/// JSON trees with `leaf` values: arrays and objects (keys from `key`) of
/// fewer than 6 children, nested up to 4 levels, about 48 nodes.
pub fn json_tree(
    leaf: impl Strategy<Value = Value> + 'static,
    key: impl Strategy<Value = String> + Clone + 'static,
) -> impl Strategy<Value = Value> {
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
