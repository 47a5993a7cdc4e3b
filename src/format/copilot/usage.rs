//! What a `session.shutdown` counts: the growth of its cumulative
//! roll-ups since the previous shutdown of the log, model by model, with
//! a compaction's reset detected (module docs of [`super`]).

use std::io::Write as _;

use crate::json::{key_eq, Kind, Raw, Record};

use super::ReadState;

/// The counters of a `modelMetrics.<model>.usage` object, in this order
/// (`inputTokens` includes both cache counts).
const KEYS: [&str; 5] = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"];

/// The name [`ReadState::running`] keeps the session's `totalNanoAiu` under
/// (a model's name is never empty).
const COST: &str = "";

/// Nano AI units per US dollar: an AI unit is one US cent.
const NANO_AIU_PER_USD: u64 = 100_000_000_000;

/// A counter (absent or not a whole number: 0).
fn whole(v: Option<Raw<'_>>) -> Option<u64> {
    let n = v?.as_f64()?;
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n < 9.0e15).then_some(n as u64)
}

/// Each model's counters of a shutdown's `modelMetrics`, in the order written.
fn roll_up(data: Raw<'_>) -> Vec<(Box<str>, [u64; 5])> {
    let Some(metrics) = data.get("modelMetrics").filter(|m| m.kind() == Kind::Object) else { return vec![] };
    let mut out: Vec<(Box<str>, [u64; 5])> = vec![];
    for (name, m) in metrics.members() {
        let Some(usage) = m.get("usage").filter(|u| u.kind() == Kind::Object) else { continue };
        let Some(name) = crate::json::decode_str(name) else { continue };
        let name = name.trim();
        if name.is_empty() || out.iter().any(|(n, _)| &**n == name) {
            continue;
        }
        let mut c = [0u64; 5];
        for (key, v) in usage.members() {
            if let Some(slot) = KEYS.iter().position(|k| key_eq(key, k)) {
                c[slot] = whole(Some(v)).unwrap_or(0);
            }
        }
        out.push((name.into(), c));
    }
    out
}

/// The counters `running` holds under `name` (none: zeros).
fn held(running: &[(Box<str>, [u64; 5])], name: &str) -> [u64; 5] {
    running.iter().find(|(n, _)| &**n == name).map_or([0; 5], |(_, c)| *c)
}

/// Writes a count of nano AI units as US dollars, exactly.
pub(super) fn write_usd(d: &mut Vec<u8>, nano: u64) {
    let (whole, frac) = (nano / NANO_AIU_PER_USD, nano % NANO_AIU_PER_USD);
    let _ = write!(d, "{whole}");
    if frac > 0 {
        let digits = format!("{frac:011}");
        let _ = write!(d, ".{}", digits.trim_end_matches('0'));
    }
}

/// A `session.shutdown` line: what each of its models counts since the
/// previous shutdown, as the line's made data (a JSON array, one element
/// per model that grew, in the roll-up's order), and the running counters
/// moved on. None when the session's usage rows were read
/// ([`ReadState::meta_read`]): the counters still move on.
pub(super) fn shutdown(rec: &Record<'_>, state: &mut ReadState) {
    let Some(data) = rec.get("data").filter(|d| d.kind() == Kind::Object) else { return };
    let models = roll_up(data);
    let nano = whole(data.get("totalNanoAiu")).filter(|n| *n > 0);
    // A counter below the previous roll-up's (a model gone: zeros) is a reset.
    let reset = state.running.iter().filter(|(n, _)| **n != *COST).any(|(n, prev)| {
        let now = held(&models, n);
        prev.iter().zip(now).any(|(p, c)| *p > c)
    }) || nano.is_some_and(|n| n < held(&state.running, COST)[0]);
    let base = |name: &str| if reset { [0; 5] } else { held(&state.running, name) };
    let d = &mut state.line_data;
    d.clear();
    // The session's cost is not split by model: the first response carries
    // it, the others 0 (priced from their tokens, they would count twice).
    let mut cost = nano.map(|n| n - base(COST)[0]);
    for (name, now) in &models {
        let b = base(name);
        let [input, output, read, write, reasoning]: [u64; 5] = std::array::from_fn(|i| now[i] - b[i]);
        if [input, output, read, write, reasoning].iter().all(|n| *n == 0) {
            continue;
        }
        d.push(if d.is_empty() { b'[' } else { b',' });
        d.extend_from_slice(b"{\"model\":");
        crate::json::write::json_str(d, name);
        let fresh = input.saturating_sub(read).saturating_sub(write);
        let _ = write!(
            d,
            ",\"usage\":{{\"input_tokens\":{fresh},\"cache_read_tokens\":{read},\"cache_write_tokens\":{write},\"output_tokens\":{output},\"reasoning_tokens\":{reasoning}"
        );
        if let Some(c) = cost.replace(0) {
            d.extend_from_slice(b",\"cost_usd\":");
            write_usd(d, c);
        }
        let _ = write!(d, "}},\"counters_reset\":{reset},\"roll_up\":");
        let _ = write!(d, "{{\"inputTokens\":{},\"outputTokens\":{},\"cacheReadTokens\":{},\"cacheWriteTokens\":{},\"reasoningTokens\":{}}}", now[0], now[1], now[2], now[3], now[4]);
        d.push(b'}');
    }
    if !d.is_empty() {
        d.push(b']');
    }
    // The session's usage rows were read: they are its responses, never both.
    if state.meta_read {
        d.clear();
    }
    let mut running = models;
    if let Some(n) = nano {
        running.push((COST.into(), [n, 0, 0, 0, 0]));
    }
    state.running = running;
}
