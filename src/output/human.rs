//! What a table for people (`--format table|markdown`) shows of a value,
//! and how wide it may be. NDJSON, TSV and CSV print values exactly; only
//! these two formats make them readable:
//!
//! - numbers get thousands separators (`1,234,567`), fractions six
//!   significant digits;
//! - a `cost_usd` column (or a metric of it) is dollars with cents
//!   (`$1,234.57`);
//! - a column whose name ends in `_ms` (`duration_ms`, `p95_ms`,
//!   `data.duration_ms.p95`, but not its `count`) is a duration: `340ms`,
//!   `4.2s`, `3m 05s`, `1h 02m`;
//! - model names (`model`, `models`) are shortened: `claude-` and a date
//!   suffix dropped, the version numbers joined with dots
//!   (`claude-sonnet-4-5-20250929` is `sonnet-4.5`, `claude-3-5-haiku-20241022`
//!   is `haiku-3.5`); other models are shown as written;
//! - a list of text (`models`) is joined with `, `;
//! - an RFC 3339 time (`started`, `started_at`) is shown to the minute,
//!   `2026-03-07 11:00` in UTC, else with its offset
//!   (`2026-03-07 12:00+01:00`).
//!
//! The width a table fits is [`width`].

use std::borrow::Cow;

use serde_json::Value;

/// The variables that pin a table's width, first found wins (`CI_COLUMNS`
/// for tests and scripts that must not follow a shell's `COLUMNS`).
pub const WIDTH_ENV: [&str; 2] = ["CI_COLUMNS", "COLUMNS"];

/// The width of a terminal whose size cannot be read.
pub const DEFAULT_WIDTH: usize = 80;

/// The width a table for people fits: `CI_COLUMNS`, else `COLUMNS` (a
/// positive number), else the terminal's width when stdout is a terminal
/// (80 when its size cannot be read); `None` (no limit) for a table written
/// to a pipe or file with neither variable set.
pub fn width(stdout_is_terminal: bool) -> Option<usize> {
    let pinned = WIDTH_ENV.iter().find_map(|k| std::env::var(k).ok()?.trim().parse::<usize>().ok().filter(|&n| n > 0));
    decide_width(pinned, stdout_is_terminal, || {
        terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
    })
}

/// [`width`]'s rule, given the pinned width and how to ask the terminal.
pub fn decide_width(pinned: Option<usize>, terminal: bool, ask: impl FnOnce() -> Option<usize>) -> Option<usize> {
    match (pinned, terminal) {
        (Some(n), _) => Some(n),
        (None, true) => Some(ask().filter(|&n| n > 0).unwrap_or(DEFAULT_WIDTH)),
        (None, false) => None,
    }
}

/// The text a table for people shows for `v` in `column`, or `None` for the
/// plain rendering (text, `null`, `true`).
pub fn cell(column: &str, v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => {
            let f = n.as_f64()?;
            if is_cost(column) {
                let sign = if f < 0.0 { "-" } else { "" };
                let cents = format!("{:.2}", f.abs());
                let (int, frac) = cents.split_once('.')?;
                Some(format!("{sign}${}.{frac}", thousands(int)))
            } else if is_duration(column) {
                Some(duration(f))
            } else if f.fract() != 0.0 {
                Some(grouped(&super::table::rounded(f)))
            } else {
                Some(grouped(&n.to_string()))
            }
        }
        Value::String(s) if is_model(column) => Some(short_model(s).into_owned()),
        Value::String(s) => instant(s),
        Value::Array(items) if items.iter().all(Value::is_string) && !items.is_empty() => {
            let model = is_model(column);
            let names = items.iter().filter_map(Value::as_str).map(|s| if model { short_model(s) } else { s.into() });
            Some(names.collect::<Vec<_>>().join(", "))
        }
        _ => None,
    }
}

fn segments(column: &str) -> impl Iterator<Item = &str> {
    column.split('.')
}

fn is_cost(column: &str) -> bool {
    segments(column).any(|s| s == "cost_usd") && !counts_values(column)
}

fn is_duration(column: &str) -> bool {
    segments(column).any(|s| s.ends_with("_ms")) && !counts_values(column)
}

/// `X.count` and `X.distinct` count values, whatever X measures.
fn counts_values(column: &str) -> bool {
    column.ends_with(".count") || column.ends_with(".distinct")
}

fn is_model(column: &str) -> bool {
    matches!(column, "model" | "models" | "unpriced_models")
}

/// An integer's text with `,` every three digits (`-1234567` → `-1,234,567`);
/// the digits before a `.` when there is one.
fn grouped(number: &str) -> String {
    let (int, frac) = number.split_once('.').map_or((number, None), |(i, f)| (i, Some(f)));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    match frac {
        Some(f) => format!("{sign}{}.{f}", thousands(digits)),
        None => format!("{sign}{}", thousands(digits)),
    }
}

/// Digits with `,` every three from the right; other text as it is.
fn thousands(digits: &str) -> String {
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_owned();
    }
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds as people read them: `340ms`, `4.2s`, `3m 05s`, `1h 02m`,
/// `2,074h 25m`.
pub fn duration(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        return grouped(&super::table::rounded(ms));
    }
    if ms < 1000.0 {
        return format!("{}ms", ms.round());
    }
    if ms < 60_000.0 {
        return format!("{:.1}s", ms / 1000.0);
    }
    let secs = (ms / 1000.0).round() as u64;
    if secs < 3600 {
        return format!("{}m {:02}s", secs / 60, secs % 60);
    }
    let mins = secs / 60;
    format!("{}h {:02}m", thousands(&(mins / 60).to_string()), mins % 60)
}

/// An RFC 3339 time to the minute (see the module docs); `None` for other text.
fn instant(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let shaped = b.len() >= 20
        && [4, 7].iter().all(|&i| b[i] == b'-')
        && b[10] == b'T'
        && [13, 16].iter().all(|&i| b[i] == b':')
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].iter().all(|&i| b[i].is_ascii_digit());
    if !shaped {
        return None;
    }
    let zone = s[19..].trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let offset = match zone {
        "Z" | "z" | "+00:00" => "",
        z if z.len() == 6 && (z.starts_with('+') || z.starts_with('-')) => z,
        _ => return None,
    };
    Some(format!("{} {}{offset}", &s[..10], &s[11..16]))
}

/// A model name as a table shows it (see the module docs). `claude-` is
/// the prefix of Anthropic's model ids, not a writer's name.
pub fn short_model(name: &str) -> Cow<'_, str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let Some(rest) = base.strip_prefix("claude-") else { return Cow::Borrowed(name) };
    let mut parts: Vec<&str> = rest.split('-').collect();
    if parts.len() > 1 && parts.last().is_some_and(|p| p.len() == 8 && p.bytes().all(|b| b.is_ascii_digit())) {
        parts.pop();
    }
    let number = |p: &&str| !p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit());
    let (numbers, words): (Vec<&str>, Vec<&str>) = parts.iter().copied().partition(number);
    if numbers.is_empty() || words.is_empty() {
        return Cow::Borrowed(name);
    }
    Cow::Owned(format!("{}-{}", words.join("-"), numbers.join(".")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn models_are_shortened() {
        assert_eq!(short_model("claude-sonnet-4-5-20250929"), "sonnet-4.5");
        assert_eq!(short_model("claude-3-5-haiku-20241022"), "haiku-3.5");
        assert_eq!(short_model("claude-opus-4-20250514"), "opus-4");
        assert_eq!(short_model("anthropic/claude-opus-4-1"), "opus-4.1");
        assert_eq!(short_model("gpt-5.1-codex"), "gpt-5.1-codex");
        assert_eq!(short_model("<synthetic>"), "<synthetic>");
        assert_eq!(short_model("claude-"), "claude-");
        assert_eq!(short_model("claude-instant"), "claude-instant");
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(cell("input_tokens", &json!(1234567)), Some("1,234,567".into()));
        assert_eq!(cell("count", &json!(999)), Some("999".into()));
        assert_eq!(cell("mean", &json!(3622.1111111111113)), Some("3,622.11".into()));
        assert_eq!(cell("cost_usd", &json!(22493.6)), Some("$22,493.60".into()));
        assert_eq!(cell("cost_usd", &json!(0.198832)), Some("$0.20".into()));
        assert_eq!(cell("cost_usd.sum", &json!(-1.5)), Some("-$1.50".into()));
        assert_eq!(cell("data.duration_ms.count", &json!(1200)), Some("1,200".into()));
        assert_eq!(cell("model", &json!("a")), Some("a".into()));
        assert_eq!(cell("models", &json!(["claude-opus-4-1-20250805", "gpt-5"])), Some("opus-4.1, gpt-5".into()));
        assert_eq!(cell("workspace", &json!("a")), None);
    }

    #[test]
    fn durations_for_people() {
        assert_eq!(duration(340.0), "340ms");
        assert_eq!(duration(4210.0), "4.2s");
        assert_eq!(duration(185_000.0), "3m 05s");
        assert_eq!(duration(3_720_000.0), "1h 02m");
        assert_eq!(duration(7_467_493_972.0), "2,074h 18m");
        assert_eq!(cell("p95_ms", &json!(12)), Some("12ms".into()));
    }

    #[test]
    fn times_to_the_minute() {
        assert_eq!(cell("started", &json!("2026-03-07T11:00:59.123Z")), Some("2026-03-07 11:00".into()));
        assert_eq!(cell("started", &json!("2026-03-07T12:00:00+01:00")), Some("2026-03-07 12:00+01:00".into()));
        assert_eq!(cell("started", &json!("2026-03-07T12:00:00 and more")), None);
        assert_eq!(cell("day", &json!("2026-03-07")), None);
    }

    #[test]
    fn the_width_rule() {
        assert_eq!(decide_width(Some(120), false, || Some(50)), Some(120));
        assert_eq!(decide_width(None, true, || Some(50)), Some(50));
        assert_eq!(decide_width(None, true, || None), Some(80));
        assert_eq!(decide_width(None, false, || Some(50)), None);
    }
}
