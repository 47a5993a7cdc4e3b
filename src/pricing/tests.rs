use super::*;

fn d(s: &str) -> Decimal {
    Decimal::parse(s).unwrap()
}

fn cost(model: &str, f: Figures) -> String {
    Prices::builtin().lookup(model).unwrap_or_else(|| panic!("{model} unpriced")).cost(&f).unwrap().to_string()
}

#[test]
fn builtin_table_parses_and_has_the_claude_code_models() {
    let p = Prices::builtin();
    assert_eq!(p.source(), "litellm 1.110.2 (built in)");
    for m in [
        "claude-sonnet-4-5-20250929",
        "claude-opus-4-1-20250805",
        "claude-3-5-haiku-20241022",
        "claude-haiku-4-5-20251001",
        "claude-opus-4-5-20251101",
        "claude-sonnet-4-20250514",
        "gpt-5",
        "gpt-5-codex",
        "gpt-5.1-codex",
        "gpt-5.1-codex-max",
        "gpt-5-mini",
        "o3",
        "o4-mini",
        "gpt-4.1",
    ] {
        assert!(p.lookup(m).is_some(), "{m}");
    }
    // Rates held exactly, as the JSON text writes them.
    let s = p.lookup("claude-sonnet-4-5-20250929").unwrap();
    assert_eq!(s.base.input, Some(d("0.000003")));
    assert_eq!(s.base.cache_write_1h, Some(d("6e-06")));
    // LiteLLM 1.110.2 lists codex-mini only as azure/… entries (not kept).
    assert!(p.lookup("codex-mini-latest").is_none());
}

#[test]
fn claude_cost_with_a_5m_and_1h_split() {
    // 3e-6 in, 1.5e-5 out, 3e-7 read, 3.75e-6 5m write, 6e-6 1h write:
    // 0.003 + 0.0075 + 0.006 + 0.01125 + 0.024.
    let f = Figures { input: 1000, output: 500, cache_read: 20_000, cache_write_5m: 3000, cache_write_1h: 4000 };
    assert_eq!(cost("claude-sonnet-4-5-20250929", f), "0.05175");
    // An unsplit count is passed as 5-minute writes.
    let f = Figures { cache_write_5m: 1_000_000, ..Figures::default() };
    assert_eq!(cost("claude-sonnet-4-5-20250929", f), "3.75");
    // 1-hour writes with no LiteLLM rate: 2 × the 1.5e-5 input rate.
    let f = Figures { input: 1, cache_write_1h: 1000, ..Figures::default() };
    assert_eq!(cost("claude-opus-4-1-20250805", f), "0.030015");
}

#[test]
fn long_context_tier_prices_the_whole_request_above_the_threshold() {
    let m = "anthropic.claude-sonnet-4-5-20250929-v1:0";
    // Prompt 10_000 + 190_000 + 500 + 500 = 201_000 > 200_000: every bucket
    // at the tier: 0.06 + 0.0225 + 0.114 + 0.00375 + 0.006.
    let f = Figures { input: 10_000, output: 1000, cache_read: 190_000, cache_write_5m: 500, cache_write_1h: 500 };
    assert_eq!(cost(m, f), "0.20625");
    // Prompt exactly 200_000: base rates: 0.03 + 0.015 + 0.0567 + 0.001875 + 0.003.
    let f = Figures { cache_read: 189_000, ..f };
    assert_eq!(cost(m, f), "0.106575");
    // Output does not count toward the threshold.
    let f = Figures { input: 200_000, output: 100_000, ..Figures::default() };
    assert_eq!(cost(m, f), "2.1");
    // claude-sonnet-4-20250514 (Bedrock entry): a tier without a 1-hour rate
    // derives it from the tier's input rate: 1M × 2 × 6e-6.
    let f = Figures { cache_write_1h: 1_000_000, ..Figures::default() };
    assert_eq!(cost("claude-sonnet-4-20250514", f), "12");
    let f = Figures { cache_write_1h: 100_000, ..Figures::default() };
    assert_eq!(cost("claude-sonnet-4-20250514", f), "0.6");
}

#[test]
fn openai_cost_from_normalised_codex_figures() {
    // Codex: input_tokens 10_000 of which cached 8_000; output_tokens 2_000
    // of which reasoning 1_500. gpt-5: 1.25e-6 in, 1.25e-7 cached, 1e-5 out:
    // 0.0025 + 0.001 + 0.02.
    let f = Figures { input: 2000, cache_read: 8000, output: 2000, ..Figures::default() };
    assert_eq!(cost("gpt-5", f), "0.0235");
    assert_eq!(cost("openai/gpt-5-codex", f), "0.0235");
    // gpt-5.4 has a 272k tier: 200_000 + 80_000 = 280_000 input tokens:
    // 200_000 × 5e-6 + 80_000 × 5e-7 + 1000 × 2.25e-5.
    let f = Figures { input: 200_000, cache_read: 80_000, output: 1000, ..Figures::default() };
    assert_eq!(cost("gpt-5.4", f), "1.0625");
    // A non-Claude model without a cache-read rate cannot price cached input.
    let f = Figures { input: 10, cache_read: 10, ..Figures::default() };
    assert_eq!(Prices::builtin().lookup("gpt-5-pro").unwrap().cost(&f), None);
}

#[test]
fn name_normalisation() {
    let p = Prices::builtin();
    let same = |a: &str, b: &str| {
        let (x, y) = (p.lookup(a).unwrap_or_else(|| panic!("{a}")), p.lookup(b).unwrap());
        assert!(std::ptr::eq(x, y), "{a} should price as {b}");
    };
    same("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929");
    same("claude-sonnet-4-5@20991231", "claude-sonnet-4-5");
    same("claude-sonnet-4-5-20991231", "claude-sonnet-4-5");
    same("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5");
    same("claude-sonnet-4.5", "claude-sonnet-4-5");
    same("Claude-Sonnet-4-5", "claude-sonnet-4-5");
    same("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "us.anthropic.claude-sonnet-4-5-20250929-v1:0");
    same("claude-opus-4-6@default", "claude-opus-4-6");
    same("claude-opus-4-1-20250805", "anthropic.claude-opus-4-1-20250805-v1:0");
    same("claude-3-5-haiku-20241022", "anthropic.claude-3-5-haiku-20241022-v1:0");
    same("openai/gpt-5", "gpt-5");
    same("gpt-5.1-codex-2099-01-01", "gpt-5.1-codex");
    // The regional Bedrock profile keeps its own (higher) price.
    let us = p.lookup("us.anthropic.claude-sonnet-4-5-20250929-v1:0").unwrap();
    assert_eq!(us.base.input, Some(d("3.3e-06")));
    // Haiku 3.5 at Anthropic's list price from the Bedrock entry, not the
    // Vertex one (which has no cache rates).
    assert_eq!(p.lookup("claude-3-5-haiku-20241022").unwrap().base.input, Some(d("8e-07")));
    // LiteLLM aliases resolve (to a copy of their target).
    assert_eq!(p.lookup("claude-sonnet-latest"), p.lookup("claude-sonnet-5-5"));
}

#[test]
fn unpriced_models_are_none() {
    let p = Prices::builtin();
    for m in ["<synthetic>", "totally-unknown-model", "sonnet-4-5", "claude-sonnet-4-5-extra", "", "sample_spec"] {
        assert!(p.lookup(m).is_none(), "{m}");
    }
}

#[test]
fn canonical_forms() {
    for (name, want) in [
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"),
        ("bedrock/us-gov-west-1/anthropic.claude-haiku-5-5", "claude-haiku-5-5"),
        ("global.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet-20241022"),
        ("anthropic.claude-instant-v1", "claude-instant-v1"),
        ("vertex_ai/claude-opus-4-6@default", "claude-opus-4-6"),
        ("openai/gpt-5.1-codex", "gpt-5-1-codex"),
    ] {
        assert_eq!(canonical(name), want, "{name}");
    }
    assert_eq!(strip_date("claude-sonnet-4-5-20250929"), Some("claude-sonnet-4-5"));
    assert_eq!(strip_date("gpt-5-2025-08-07"), Some("gpt-5"));
    assert_eq!(strip_date("claude-sonnet-4-5"), None);
    assert_eq!(strip_date("model-12345678"), None);
}

#[test]
fn from_file_reads_a_litellm_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model_prices_and_context_window.json");
    std::fs::write(
        &path,
        r#"{
    "sample_spec": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "litellm_provider": "one of …"},
    "claude-test-1-20250101": {
        "input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05,
        "cache_read_input_token_cost": 2e-07, "cache_creation_input_token_cost": 2.5e-06,
        "cache_creation_input_token_cost_above_1hr": 4e-06,
        "input_cost_per_token_above_200k_tokens": 4e-06,
        "input_cost_per_token_batches": 1e-06,
        "litellm_provider": "anthropic", "mode": "chat", "supports_vision": true
    },
    "reseller/claude-test-2": {"input_cost_per_token": 1, "output_cost_per_token": 1, "litellm_provider": "reseller"},
    "claude-test-latest": {"alias_of": "claude-test-1-20250101"},
    "free-model": {"input_cost_per_token": 0, "output_cost_per_token": 0, "litellm_provider": "openai"},
    "image-model": {"output_cost_per_image": 0.04, "litellm_provider": "openai"}
}
"#,
    )
    .unwrap();
    let p = Prices::from_file(&path).unwrap();
    assert_eq!(p.source(), path.display().to_string());
    let m = p.lookup("claude-test-1@20250101").unwrap();
    let f = Figures { input: 1000, output: 100, cache_read: 1000, cache_write_5m: 1000, cache_write_1h: 1000 };
    // 0.002 + 0.001 + 0.0002 + 0.0025 + 0.004.
    assert_eq!(m.cost(&f).unwrap().to_string(), "0.0097");
    // Above 200k only the input rate changes; the rest keep their base rate.
    let f = Figures { input: 200_001, output: 1, ..Figures::default() };
    assert_eq!(m.cost(&f).unwrap().to_string(), "0.800014");
    assert!(std::ptr::eq(p.lookup("anthropic/claude-test-1-20250101").unwrap(), m));
    // Step 5: an undated name finds the latest dated entry; a name of
    // another date does not (step 4 drops the date of the name looked up,
    // never of the table's names).
    assert_eq!(p.lookup("claude-test-1"), Some(m));
    assert_eq!(p.lookup("claude-test.1"), Some(m));
    assert!(p.lookup("claude-test-1-20991231").is_none());
    assert_eq!(p.lookup("claude-test-latest"), Some(m));
    // A reseller's entry matches only exactly (or after its provider path).
    assert!(p.lookup("reseller/claude-test-2").is_some());
    assert!(p.lookup("claude-test-2").is_none());
    for m in ["sample_spec", "free-model", "image-model"] {
        assert!(p.lookup(m).is_none(), "{m}");
    }
}

#[test]
fn from_file_reads_our_table_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prices.json");
    std::fs::write(&path, BUILTIN).unwrap();
    let p = Prices::from_file(&path).unwrap();
    assert_eq!(p.source(), format!("{} (litellm 1.110.2)", path.display()));
    assert_eq!(p.lookup("claude-opus-4-5-20251101"), Prices::builtin().lookup("claude-opus-4-5-20251101"));
}

#[test]
fn from_file_errors_name_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let err = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = Prices::from_file(&path).unwrap_err();
        assert!(e.starts_with(&format!("{}: ", path.display())), "{e}");
        e
    };
    let e = err("broken.json", "{\"gpt-5\": {\"input_cost_per_token\": 1e-06,");
    assert!(e.contains("not a JSON price table"), "{e}");
    let e = err("array.json", "[1, 2]");
    assert!(e.contains("not a JSON object"), "{e}");
    let e = err("empty.json", "{\"a\": {\"mode\": \"chat\"}}");
    assert!(e.contains("no model with an input_cost_per_token"), "{e}");
    let e = err("string.json", r#"{"gpt-5": {"input_cost_per_token": "1e-06", "output_cost_per_token": 1e-05}}"#);
    assert!(e.contains(r#"model "gpt-5": input_cost_per_token is "1e-06", not a non-negative number"#), "{e}");
    let e = err("negative.json", r#"{"gpt-5": {"input_cost_per_token": 1e-06, "output_cost_per_token": -1}}"#);
    assert!(e.contains("output_cost_per_token is -1"), "{e}");
    let missing = dir.path().join("missing.json");
    let e = Prices::from_file(&missing).unwrap_err();
    assert!(e.starts_with(&format!("{}: cannot read the price table: ", missing.display())), "{e}");
}

#[test]
fn overflow_is_none() {
    let p = Price {
        base: Rates { input: Some(d("100000000000000000000")), output: Some(d("1")), ..Rates::default() },
        tiers: Vec::new(),
        claude: false,
    };
    assert_eq!(p.cost(&Figures { input: u64::MAX, ..Figures::default() }), None);
    assert_eq!(p.cost(&Figures { input: u64::MAX, cache_read: 1, ..Figures::default() }), None);
}
