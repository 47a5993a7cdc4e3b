use super::*;
use crate::json::Index;

/// `f` of a parsed line.
fn with<T>(line: &str, f: impl FnOnce(&Record<'_>) -> T) -> T {
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    f(&rec)
}

#[test]
fn numbers_are_unix_seconds_or_milliseconds() {
    let t = |s: &str| with(&format!("{{\"t\":{s}}}"), |r| parse_time(r.get("t").unwrap()).map(time::format_timestamp));
    assert_eq!(t("1781085600.12").as_deref(), Some("2026-06-10T10:00:00.12Z"));
    assert_eq!(t("1781085600120").as_deref(), Some("2026-06-10T10:00:00.12Z"));
    assert_eq!(t("\"2026-06-10T10:00:00Z\"").as_deref(), Some("2026-06-10T10:00:00Z"));
    assert_eq!(t("-1"), None);
    assert_eq!(t("1e300"), None);
    assert_eq!(t("null"), None);
}

#[test]
fn only_a_top_level_status_update_or_a_turn_usage_record_is_a_response() {
    let usage = |l: &str| with(l, |r| usage_in(Raw(r.line())).is_some());
    assert!(usage(r#"{"timestamp":1,"message":{"type":"StatusUpdate","payload":{"token_usage":{"output":1}}}}"#));
    assert!(!usage(r#"{"timestamp":1,"message":{"type":"StatusUpdate","payload":{"token_usage":null}}}"#));
    let nested = r#"{"timestamp":1,"message":{"type":"SubagentEvent","payload":{"event":{"type":"StatusUpdate","payload":{"token_usage":{"output":1}}}}}}"#;
    assert!(!usage(nested));
    assert!(usage(r#"{"type":"usage.record","usageScope":"turn","usage":{"output":1}}"#));
    assert!(!usage(r#"{"type":"usage.record","usageScope":"session","usage":{"output":1}}"#));
}

#[test]
fn the_four_counts_are_read_as_kimi_wrote_them() {
    let line =
        r#"{"type":"usage.record","usage":{"inputOther":10,"output":5,"inputCacheRead":100,"inputCacheCreation":7}}"#;
    let got = with(line, |r| Kimi.tokens(Raw(r.line())).map(|v| v.map(|v| v.as_f64().unwrap())));
    assert_eq!(got, [Some(10.0), Some(5.0), Some(100.0), Some(7.0), None]);
}

#[test]
fn kimi_lines_are_claimed_and_others_are_not() {
    let claims = |l: &str| with(l, |r| Kimi.claims(r));
    assert!(claims(r#"{"type":"metadata","protocol_version":"1.10"}"#));
    assert!(claims(r#"{"timestamp":1.5,"message":{"type":"TurnEnd","payload":{}}}"#));
    assert!(claims(r#"{"type":"config.update","cwd":"/x"}"#));
    assert!(!claims(r#"{"timestamp":"2026-01-01T00:00:00Z","message":{"type":"x"}}"#));
    assert!(!claims(r#"{"type":"session_meta","payload":{}}"#));
    assert!(!claims(r#"{"type":"a.B"}"#));
}
