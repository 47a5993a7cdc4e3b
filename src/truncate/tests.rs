use super::apply::Walk;
use super::measure::{scan_string, scan_string_scalar};
use super::plan::{Limits, Skeleton, UNLIMITED};
use super::*;
use proptest::prelude::*;
use serde_json::json;

fn len(v: &Value) -> usize {
    serde_json::to_vec(v).map(|b| b.len()).unwrap_or(usize::MAX)
}

/// Shrinks with fixed limits; returns the size the skeleton predicted.
fn shrink_at(data: &mut Value, limits: Limits) -> (usize, Cut) {
    let (predicted, nodes, plan, lens) = {
        let mut skeleton = Skeleton::new(data, &[]);
        let predicted = skeleton.eval_root(limits);
        (predicted, skeleton.nodes, skeleton.plan, skeleton.lens)
    };
    let mut cut = Cut::default();
    Walk { nodes: &nodes, plan: &plan, lens: &lens, items: limits.items }.apply(data, 0, &mut cut);
    (predicted, cut)
}

#[test]
fn marker_formats() {
    assert_eq!(marker_for_string(12345), "…[+12345 bytes]");
    assert_eq!(marker_for_items(7), "…[+7 items]");
    assert_eq!(marker_for_members(3), "[+3 members]");
    for n in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
        assert_eq!(string_marker_len(n), marker_for_string(n).len());
        assert_eq!(items_marker_len(n), len(&json!(marker_for_items(n))));
        assert_eq!(members_marker_len(n), len(&json!({ ELISION_KEY: marker_for_members(n) })) - 2);
        assert_eq!(digits(n), n.to_string().len());
    }
}

#[test]
fn string_sizes_match_serde_json() {
    for s in ["", "a", "\"", "\\", "\n\t\r\u{8}\u{c}", "\u{0}\u{1}\u{1f}", "\u{7f}", "é日本😀", "/<>&'"] {
        assert_eq!(json_str_len(s), len(&json!(s)), "{s:?}");
    }
}

#[test]
fn fitting_data_is_unchanged() {
    let original = json!({"text": "x".repeat(1000), "n": [1, 2, 3]});
    let mut data = original.clone();
    assert_eq!(shrink_data(&mut data, len(&original)), Cut::default());
    assert_eq!(data, original);
    assert_eq!(shrink_data(&mut data, usize::MAX), Cut::default());
    assert_eq!(data, original);
}

#[test]
fn string_is_cut_on_a_two_byte_boundary_and_fills_the_room() {
    // {"text":"<é×100>"} is 211 bytes. With room 60, the best is L = 35,
    // which cuts at byte 34 (17 × é), and the result is exactly 60 bytes.
    let mut data = json!({"text": "é".repeat(100)});
    let cut = shrink_data(&mut data, 60);
    let expected = json!({"text": format!("{}…[+166 bytes]", "é".repeat(17))});
    assert_eq!(data, expected);
    assert_eq!(len(&data), 60);
    assert_eq!(cut, Cut { strings: 1, items: 0, bytes: 166 });
}

#[test]
fn three_and_four_byte_characters_are_never_split() {
    // room 0: everything goes to the floor (32-byte prefixes).
    let mut data = json!(["a".to_owned() + &"日本".repeat(20), "x".to_owned() + &"😀".repeat(20)]);
    let cut = shrink_data(&mut data, 0);
    // In an array, the floor is the marker item alone (shorter than any cut).
    assert_eq!(data, json!(["…[+2 items]"]));
    assert_eq!(cut, Cut { strings: 0, items: 2, bytes: 0 });

    // Strings alone: a bare string value at the floor.
    let mut data = json!("a".to_owned() + &"日本".repeat(20));
    let cut = shrink_data(&mut data, 0);
    assert_eq!(data, json!(format!("a{}…[+90 bytes]", "日本".repeat(5))));
    assert_eq!(cut, Cut { strings: 1, items: 0, bytes: 90 });

    let mut data = json!("x".to_owned() + &"😀".repeat(20));
    shrink_data(&mut data, 0);
    assert_eq!(data, json!(format!("x{}…[+52 bytes]", "😀".repeat(7))));
}

#[test]
fn raw_path_cuts_huge_strings_like_the_dom_path() {
    let text = r#"a\u00e9\ud83d\ude80\\\"\n日"#.repeat(5000);
    let data = format!(
        r#"{{"model":"{text}","raw":{{"messages":[{{"content":"{text}"}},{{"content":"{text}"}}]}},"x":["{text}"]}}"#
    );
    for room in [0, 10, 100, 4000, 20_000] {
        let mut dom: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
        assert!(dom.is_object());
        shrink_data(&mut dom, room);
        let fast = shrink_raw(data.as_bytes(), room);
        assert!(fast.is_some(), "room {room}");
        assert_eq!(fast, serde_json::to_vec(&dom).ok(), "room {room}");
    }
    // Nothing long enough to pre-cut: the caller's DOM path runs.
    assert_eq!(shrink_raw(br#"{"a":"short","b":[1,2,3]}"#, 5), None);
    // A string that holds the mark and is long enough to be confused is left
    // to the DOM path.
    let marked = format!(r#"["{}﷐x", "{}"]"#, "m".repeat(50), "y".repeat(500));
    assert_eq!(shrink_raw(marked.as_bytes(), 40), None);
}

#[test]
fn floor_char_boundary_steps_back() {
    let s = "a日";
    assert_eq!(floor_char_boundary(s, 0), 0);
    assert_eq!(floor_char_boundary(s, 1), 1);
    assert_eq!(floor_char_boundary(s, 2), 1);
    assert_eq!(floor_char_boundary(s, 3), 1);
    assert_eq!(floor_char_boundary(s, 4), 4);
    assert_eq!(floor_char_boundary(s, 99), 4);
}

#[test]
fn strings_are_cut_longest_first() {
    let short = "s".repeat(40);
    let mut data = json!({"a": short, "b": "L".repeat(5000), "c": "M".repeat(3000)});
    let cut = shrink_data(&mut data, 400);
    assert!(len(&data) <= 400);
    assert_eq!(data["a"], json!(short), "a short string survives intact");
    let b = data["b"].as_str().unwrap_or_default();
    let c = data["c"].as_str().unwrap_or_default();
    assert!(b.ends_with(" bytes]") && c.ends_with(" bytes]"));
    // Both long strings keep the same prefix length.
    assert_eq!(b.find('…'), c.find('…'));
    assert_eq!(cut.strings, 2);
}

#[test]
fn long_array_is_elided() {
    // Numbers cannot be cut, so the array is elided to the most items that fit.
    let mut data = json!({"items": (0..1000).collect::<Vec<_>>()});
    let cut = shrink_data(&mut data, 50);
    assert_eq!(data, json!({"items": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "…[+990 items]"]}));
    assert_eq!(len(&data), 49);
    assert_eq!(cut, Cut { strings: 0, items: 990, bytes: 0 });
}

#[test]
fn messages_keep_first_items_with_cut_content() {
    let messages: Vec<Value> =
        (0..200).map(|i| json!({"role": "user", "content": format!("message {i} ").repeat(1000)})).collect();
    let mut data = json!({
        "session_id": "s-1",
        "parent_id": null,
        "timestamp": "2026-01-01T00:00:00Z",
        "raw": {"model": "big-model", "messages": messages},
    });
    let cut = shrink_data(&mut data, 4096);
    assert!(len(&data) <= 4096);
    assert!(len(&data) > 3800, "room is used: {}", len(&data));
    assert_eq!(data["raw"]["model"], json!("big-model"));
    let kept = data["raw"]["messages"].as_array().map(Vec::len).unwrap_or(0);
    assert!(kept > 10, "kept {kept}");
    assert_eq!(data["raw"]["messages"][0]["role"], json!("user"));
    assert!(cut.items > 0 && cut.strings > 0);
}

#[test]
fn protected_fields_are_untouched_even_when_huge() {
    let huge = "x".repeat(10_000);
    let usage = json!({"input_tokens": 5, "note": "y".repeat(5000), "list": (0..500).collect::<Vec<_>>()});
    let mut data = json!({
        "session_id": huge,
        "usage": usage,
        "model": "m",
        "content": "z".repeat(10_000),
        "list": (0..500).collect::<Vec<_>>(),
    });
    let cut = shrink_data(&mut data, 100);
    // The floor: protected members plus one marker member.
    assert_eq!(data, json!({"session_id": huge, "usage": usage, "model": "m", "…": "[+2 members]"}));
    assert_eq!(cut, Cut { strings: 0, items: 2, bytes: 0 });
}

#[test]
fn nested_protected_keys_are_ordinary_content() {
    let tool_name = "t".repeat(100);
    let status = vec!["s"; 50];
    let mut data =
        json!({"a": {"b": [{"tool_name": tool_name, "status": status, "x": "q".repeat(500)}]}, "y": "w".repeat(500)});
    let cut = shrink_data(&mut data, 0);
    // Only direct members of `data` are protected: everything else goes.
    assert_eq!(data, json!({"…": "[+2 members]"}));
    assert_eq!(cut, Cut { strings: 0, items: 2, bytes: 0 });

    // Deeper down, a protected key's string is cut like any other: 34 bytes
    // before the prefix, 16 of marker and 3 after it leave 47 for the prefix.
    let mut data = json!({"session_id": "s", "raw": {"model": "m".repeat(5000)}});
    let cut = shrink_data(&mut data, 100);
    assert_eq!(data, json!({"session_id": "s", "raw": {"model": format!("{}…[+4953 bytes]", "m".repeat(47))}}));
    assert_eq!(len(&data), 100);
    assert_eq!(cut.strings, 1);
}

#[test]
fn llm_request_with_many_tool_messages_fits() {
    // Every tool message carries a `tool_call_id`; none of them may pin
    // its message, or the floor would grow with the number of messages.
    let messages: Vec<Value> = (0..300)
        .map(|i| {
            json!({
                "role": "tool",
                "tool_call_id": format!("toolu_{i:024}"),
                "content": format!("long text of tool result {i} ").repeat(40),
            })
        })
        .collect();
    let original = json!({"model": "m", "session_id": "s", "raw": {"messages": messages}});
    assert!(len(&original) > 300_000);
    let mut data = original.clone();
    let room = 4096 - 200;
    let cut = shrink_data(&mut data, room);
    assert!(len(&data) <= room, "{} > {room}", len(&data));
    assert!(len(&data) <= 4096);
    assert!(len(&data) > room - 200, "room is used: {}", len(&data));
    assert_eq!(data["model"], json!("m"));
    assert_eq!(data["session_id"], json!("s"));
    let keys: Vec<&String> = data.as_object().map(|m| m.keys().collect()).unwrap_or_default();
    assert_eq!(keys, ["model", "session_id", "raw"]);
    // The first messages survive (content cut), then the marker.
    let kept = data["raw"]["messages"].as_array().cloned().unwrap_or_default();
    assert!(kept.len() > 2, "{kept:?}");
    assert_eq!(kept[0]["tool_call_id"], original["raw"]["messages"][0]["tool_call_id"]);
    assert!(kept[0]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("long text of tool result 0 ") && c.ends_with(" bytes]")));
    assert_eq!(kept.last(), Some(&json!(marker_for_items(300 - (kept.len() - 1)))));
    assert_eq!(cut.items, 300 - (kept.len() - 1));

    // With no room at all, the floor is the protected members plus a marker.
    let mut data = original.clone();
    shrink_data(&mut data, 0);
    assert_eq!(data, json!({"model": "m", "session_id": "s", "…": "[+1 members]"}));
}

#[test]
fn object_members_are_elided_in_order() {
    let members: serde_json::Map<String, Value> = (0..100).map(|i| (format!("k{i:02}"), json!(i))).collect();
    let mut data = json!({"status": "ok", "m": members});
    let cut = shrink_data(&mut data, 60);
    assert!(len(&data) <= 60, "{}", len(&data));
    let m = data["m"].as_object().cloned().unwrap_or_default();
    let keys: Vec<&str> = m.keys().map(String::as_str).collect();
    assert_eq!(keys.last(), Some(&ELISION_KEY));
    let kept = keys.len() - 1;
    assert_eq!(keys[..kept], (0..kept).map(|i| format!("k{i:02}")).collect::<Vec<_>>()[..]);
    assert_eq!(m[ELISION_KEY], json!(marker_for_members(100 - kept)));
    assert_eq!(data["status"], json!("ok"));
    assert_eq!(cut.items, 100 - kept);
}

#[test]
fn an_ellipsis_member_makes_way_for_the_marker() {
    // Nothing but protected members survives under `data`'s own "…".
    let mut data = json!({"…": "[+9 members]", "model": "m", "text": "x".repeat(500), "n": 1});
    let cut = shrink_data(&mut data, 0);
    assert_eq!(data, json!({"model": "m", "…": "[+3 members]"}));
    assert_eq!(cut, Cut { strings: 0, items: 3, bytes: 0 });

    // With more room, the first loose members are kept, never the "…" one,
    // and the marker is last.
    let original = json!({"…": "y".repeat(300), "a": 1, "b": 2, "c": 3, "d": "z".repeat(300)});
    let mut data = original.clone();
    let cut = shrink_data(&mut data, 40);
    assert_eq!(data, json!({"a": 1, "b": 2, "c": 3, "…": "[+2 members]"}));
    assert_eq!(cut.items, 2);

    // An object that fits is left alone, "…" and all.
    let original = json!({"…": 1, "a": 2});
    let mut data = original.clone();
    assert_eq!(shrink_data(&mut data, 100), Cut::default());
    assert_eq!(data, original);
}

#[test]
fn escapes_are_counted() {
    // Each 4-byte unit serialises to 12 bytes. `{"t":"` + `…[+741 bytes]"}`
    // take 23 bytes, leaving 177 of the 200 for the prefix: 14 units (168)
    // plus `\n`, `\"` and `\\` (6 more); the `\u0001` would not fit.
    let mut data = json!({"t": "\n\"\\\u{1}".repeat(200)});
    let cut = shrink_data(&mut data, 200);
    let prefix = "\n\"\\\u{1}".repeat(14) + "\n\"\\";
    assert_eq!(data, json!({ "t": format!("{prefix}…[+741 bytes]") }));
    assert_eq!(len(&data), 197);
    assert_eq!(cut, Cut { strings: 1, items: 0, bytes: 741 });
}

#[test]
fn a_marker_is_only_used_where_it_shortens() {
    // 33..=45-byte strings gain nothing from a 32-byte cut plus marker.
    let original = json!(["a".repeat(40), [1, 2]]);
    let mut data = original.clone();
    shrink_data(&mut data, 0);
    assert_eq!(data, json!(["…[+2 items]"]));
    let mut data = json!("a".repeat(44));
    assert_eq!(shrink_data(&mut data, 0), Cut::default());
    assert_eq!(data, json!("a".repeat(44)));
}

#[test]
fn deep_nesting_is_fine() {
    // serde_json's parser allows 127 levels inside the outermost one.
    let depth = 127;
    let text = format!("{}\"{}\"{}", "[".repeat(depth), "x".repeat(10_000), "]".repeat(depth));
    let mut data: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    assert!(data.is_array());
    let cut = shrink_data(&mut data, 1000);
    assert!(len(&data) <= 1000);
    assert_eq!(cut.strings, 1);
}

#[test]
fn many_strings_and_one_huge_string() {
    let items: Vec<Value> = (0..50_000).map(|i| json!({"id": i, "text": format!("{i:>200}")})).collect();
    let mut data = json!({"items": items, "big": "b".repeat(20_000_000)});
    let cut = shrink_data(&mut data, 8192);
    assert!(len(&data) <= 8192);
    assert!(cut.items > 0);
}

/// Fragments of raw string content, separated by white space: plain
/// ASCII, raw UTF-8, every simple escape, `\u` escapes of every class
/// (ASCII ones needing escapes or not, 2- and 3-byte, `\uDxxx` that are
/// not surrogates), surrogate pairs, and escaped backslashes before a `u`.
const STRING_PIECES: &str = r#"a xyz é 日本 😀 \" \\ \/ \b \f \n \r \t \u0000 \u001b \u001F \u0022 \u005c \u005C
    \u002f \u0041 \u0008 \u000a \u007f \u0080 \u00e9 \u07ff \u07FF \u0800 \u0430 \u4e2d \uffff \uD55C
    \ud7ff \ue000 \ud83d\ude80 \uD83D\uDE80 \udbff\udfff \ud800\udc00 \\u0041 \\\u0041 \\\\u \u0000\u0000"#;

fn string_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(STRING_PIECES.split_whitespace().collect::<Vec<_>>())
}

fn arb_value() -> impl Strategy<Value = Value> {
    let piece = prop::sample::select(vec!["a", "bc ", "é", "日本", "😀", "\"", "\\", "\n", "\u{1}", "\u{7f}"]);
    let string = prop_oneof!["[a-z]{0,5}", prop::collection::vec(piece, 0..120).prop_map(|v| v.concat()),];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1000i32..1000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        string.prop_map(Value::String),
    ];
    let key = prop_oneof![
        prop::sample::select(PROTECTED_KEYS.to_vec()).prop_map(str::to_owned),
        "[a-z\"\\n]{0,4}",
        Just(ELISION_KEY.to_owned()),
    ];
    leaf.prop_recursive(4, 64, 10, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The skeleton's predicted size is exactly what serde_json writes after
    /// the plan is applied, for any limits.
    #[test]
    fn predicted_size_is_exact(
        mut data in arb_value(),
        items in prop_oneof![Just(UNLIMITED), 0usize..12],
        prefix in prop_oneof![Just(UNLIMITED), MIN_PREFIX..400],
    ) {
        let unlimited = Skeleton::new(&data, &[]).eval_root(Limits { items: UNLIMITED, prefix: UNLIMITED });
        prop_assert_eq!(unlimited, len(&data));
        let (predicted, _) = shrink_at(&mut data, Limits { items, prefix });
        prop_assert_eq!(predicted, len(&data));
    }

    /// The raw fast path writes exactly the bytes of the DOM path (so the
    /// same validity, protected members and budget), compact or spaced.
    #[test]
    fn raw_path_agrees_with_dom_path(
        data in arb_value(),
        long in prop::collection::vec(("[a-z]{0,3}", "[a-zé\"\\\n\u{1}\u{fdd0}😀]{0,8}", 1usize..400), 0..4),
        room in 0usize..300,
        spaced in any::<bool>(),
    ) {
        // Wrap the value with a few long strings, one under a protected key.
        let mut object = serde_json::Map::new();
        for (i, (key, piece, n)) in long.iter().enumerate() {
            let key = if i == 0 { "tool_name".to_owned() } else { key.clone() };
            object.insert(key, Value::String(piece.repeat(*n)));
        }
        object.insert("x".into(), data.clone());
        for value in [data, Value::Object(object)] {
            let text = if spaced { serde_json::to_vec_pretty(&value) } else { serde_json::to_vec(&value) };
            let text = text.unwrap_or_default();
            let mut dom = value.clone();
            shrink_data(&mut dom, room);
            if let Some(fast) = shrink_raw(&text, room) {
                let slow = serde_json::to_vec(&dom).unwrap_or_default();
                prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&slow));
            }
        }
    }

    /// The block measure of a string agrees with the escape-by-escape one
    /// on every field, wherever block boundaries and `head` fall.
    #[test]
    fn block_and_scalar_measures_agree(
        pieces in prop::collection::vec(string_piece(), 0..90),
        pad in 0usize..140,
        lead in 0usize..70,
        head_seed in any::<usize>(),
        torn_seed in any::<usize>(),
    ) {
        let text = format!(r#"{}"{}{}" ,"#, " ".repeat(lead), "x".repeat(pad), pieces.concat());
        let b = text.as_bytes();
        let whole = scan_string_scalar(b, lead, usize::MAX);
        prop_assert!(whole.is_some(), "{}", text);
        let decoded = whole.map_or(0, |s| s.len);
        for head in [head_seed % (decoded + 2), head_seed % 300, decoded, 0, MIN_PREFIX + 4] {
            let (block, scalar) = (scan_string(b, lead, head), scan_string_scalar(b, lead, head));
            prop_assert_eq!(block, scalar, "{} head {}", text, head);
        }
        // A torn string: neither finds a closing quote.
        let torn = &b[..lead + 1 + torn_seed % (b.len() - lead - 3)];
        prop_assert_eq!(scan_string(torn, lead, 40), None);
        prop_assert_eq!(scan_string_scalar(torn, lead, 40), None);
    }

    #[test]
    fn str_len_matches_serde_json(s in any::<String>()) {
        prop_assert_eq!(json_str_len(&s), len(&json!(s)));
    }
}
