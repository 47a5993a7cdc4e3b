use super::parse::MAX_NESTING;
use super::*;
use crate::json::Index;
use proptest::prelude::*;

fn err(s: &str) -> (usize, String) {
    let e = Where::parse(s).expect_err(s);
    (e.column, e.message)
}

fn eval(expr: &str, line: &str) -> bool {
    let w = Where::parse(expr).unwrap_or_else(|e| panic!("{e}"));
    let mut idx = Index::new();
    let rec = idx.parse(line.as_bytes()).unwrap();
    w.matches_record(&rec)
}

#[test]
fn parse_errors_point_at_the_token() {
    assert_eq!(err("data.x 5"), (8, "expected an operator after 'data.x', found '5'".into()));
    assert_eq!(err("data.x"), (7, "expected an operator after 'data.x'".into()));
    assert_eq!(err(""), (1, "expected a field path (like data.tool_name)".into()));
    assert_eq!(err("== 5"), (1, "expected a field path (like data.tool_name), found '=='".into()));
    assert_eq!(err("data.x = 5"), (8, "'=' is not an operator (use '==')".into()));
    assert_eq!(err("data.x == "), (11, "expected a value after '=='".into()));
    assert_eq!(err("data.x == foo"), (11, "expected a value after '==', found 'foo' (quote strings)".into()));
    assert_eq!(err("data.x > true"), (10, "'>' compares numbers or strings, not 'true'".into()));
    assert_eq!(err("data.x ~ 5"), (10, "'~' needs a quoted regex, found '5'".into()));
    assert_eq!(err("data.x ~ '('"), (10, "invalid regex '(': unclosed group".into()));
    assert_eq!(err("data.x == 'abc"), (11, "unterminated string".into()));
    assert_eq!(err("data.x == 01"), (11, "invalid number '01'".into()));
    assert_eq!(err("data.x == 5abc"), (11, "invalid number '5abc'".into()));
    assert_eq!(err("data. == 1"), (6, "expected a field name after '.'".into()));
    assert_eq!(err("data.x[a] == 1"), (7, "expected an array index like [0]".into()));
    assert_eq!(err("data.x exists data.y"), (15, "expected 'and', 'or' or the end after 'exists'".into()));
    assert_eq!(err("(data.x exists"), (15, "expected ')' to close the '(' of column 1".into()));
    assert_eq!(err("data.x exists)"), (14, "unmatched ')'".into()));
    assert_eq!(err("data.x & data.y"), (8, "'&' is not an operator (use '&&')".into()));
    assert_eq!(err("data.x == \"\\q\""), (12, "invalid escape in a \"…\" string (use '…' for regexes)".into()));
    assert_eq!(err("data.x # 1"), (8, "expected an operator after 'data.x', found '#'".into()));
    assert_eq!(err("\u{1} == 1"), (1, "unexpected character '\\u{1}'".into()));
    assert_eq!(err("data.x[0]y == 1"), (10, "expected an operator after 'data.x[0]', found 'y'".into()));
    let deep = format!("{}data.x exists{}", "(".repeat(100), ")".repeat(100));
    assert_eq!(err(&deep).1, format!("nested deeper than {MAX_NESTING} levels"));
}

#[test]
fn error_display_has_a_caret() {
    let e = Where::parse("data.x 5").unwrap_err();
    assert_eq!(
        e.to_string(),
        "--where: expected an operator after 'data.x', found '5' at column 8\n  data.x 5\n         ^"
    );
}

const LINE: &str = r#"{"data":{"n":1200,"f":1.5,"big":12345678901234567891,"s":"caf\u00e9","e":"","z":null,"t":true,"no":false,"o":{"k":[1,"two"]},"num_str":"5","a.b":1,"é":2,"tool_input":"raw string"},"event":"tool:pre","timestamp":"2026-03-01T00:00:00Z","workspace":"w"}"#;

#[test]
fn evaluation_semantics() {
    let cases: &[(&str, bool)] = &[
        ("data.n > 1000", true),
        ("data.n > 1200", false),
        ("data.n >= 1200", true),
        ("data.n == 1200.0", true),
        ("data.n == 12e2", true),
        ("data.n != 1200", false),
        ("data.f < 2", true),
        ("data.big == 12345678901234567891", true),
        ("data.big == 12345678901234567890", false),
        ("data.s == 'café'", true),
        ("data.s == \"caf\\u00e9\"", true),
        ("data.s ~ '^caf.$'", true),
        ("data.s ~ '(?i)CAFÉ'", true),
        ("data.s !~ 'x'", true),
        ("data.s > 'cafa'", true),
        ("data.s < 5", false),
        ("data.n ~ '12'", false),
        ("data.e == ''", true),
        ("data.e == null", false),
        ("data.z == null", true),
        ("data.z == ''", false),
        ("data.missing == null", true),
        ("data.missing exists", false),
        ("data.z exists", true),
        ("data.missing != 1", true),
        ("data.missing > 0", false),
        ("data.missing < 0", false),
        ("data.t == true", true),
        ("data.no == false", true),
        ("data.no == null", false),
        ("data.o.k.1 == 'two'", true),
        ("data.o.k[0] == 1", true),
        ("data.o == 1", false),
        ("data.o != 1", true),
        ("data.num_str == 5", false),
        ("data.num_str == '5'", true),
        ("data.num_str > 4", false),
        ("data.\"a.b\" == 1", true),
        ("data.é == 2", true),
        ("data.o.k[1] ~ 'tw'", true),
        ("data.o.k[2] exists", false),
        ("data.tool_input.agent == 'self'", false),
        (".event == 'tool:pre'", true),
        ("event == 'tool:pre' and data.n > 1 and not data.z != null", true),
        ("event == 'x' or data.t == true", true),
        ("event == 'x' || (data.t == true && data.n < 0)", false),
        ("! data.missing exists", true),
    ];
    for (expr, want) in cases {
        assert_eq!(eval(expr, LINE), *want, "{expr}");
    }
}

#[test]
fn needs_data() {
    assert!(Where::parse("event == 'x' or data.n > 1").unwrap().needs_data());
    assert!(!Where::parse("event == 'x' and workspace == 'w'").unwrap().needs_data());
}

proptest! {
    #[test]
    fn parser_never_panics(s in "\\PC{0,40}") {
        let _ = Where::parse(&s);
    }

    #[test]
    fn parser_never_panics_on_token_soup(parts in proptest::collection::vec(prop_oneof![
        Just("data.x"), Just("=="), Just("!="), Just("<"), Just(">="), Just("~"), Just("!~"),
        Just("exists"), Just("and"), Just("or"), Just("not"), Just("("), Just(")"), Just("'a'"),
        Just("\"b\\u00e9\""), Just("1"), Just("-2.5e3"), Just("null"), Just("true"), Just("["),
        Just("]"), Just("."), Just("\\"), Just("'"), Just("\""), Just("&&"), Just("||"), Just("!"),
    ], 0..12)) {
        let s = parts.join(" ");
        if let Err(e) = Where::parse(&s) {
            prop_assert!(e.column >= 1 && e.column <= s.chars().count() + 1, "{}", e);
        }
        let s = parts.concat();
        if let Err(e) = Where::parse(&s) {
            prop_assert!(e.column >= 1 && e.column <= s.chars().count() + 1, "{}", e);
        }
    }
}
