use super::*;

fn d(s: &str) -> String {
    Decimal::parse(s).map(|d| d.to_string()).unwrap_or_else(|| "none".into())
}

#[test]
fn integer_fast_paths_agree_with_the_general_ones() {
    for n in ["0", "7", "00042", "123456789012345678", "9007199254740991", "9007199254740993"] {
        let fast = Decimal::parse(n).unwrap();
        assert_eq!(Some(fast), Decimal::parse(&format!("{n}.0")), "{n}");
        assert_eq!(Some(fast), Decimal::parse(&format!("{n}e0")), "{n}");
        assert_eq!(fast.to_f64(), fast.to_string().parse::<f64>().unwrap(), "{n}");
    }
    // 19 digits and signs take the general path.
    assert_eq!(d("1234567890123456789"), "1234567890123456789");
    assert_eq!(d("-12"), "-12");
    assert_eq!(Decimal::parse("-12").unwrap().to_f64(), -12.0);
}

#[test]
fn parses_json_numbers_and_numeric_strings() {
    let cases = [
        ("0", "0"),
        ("12", "12"),
        ("-0.0123", "-0.0123"),
        ("0.0820", "0.082"),
        ("+.5", "0.5"),
        ("5.", "5"),
        ("1E-7", "0.0000001"),
        ("2.5e3", "2500"),
        ("1e-30", "none"),
        ("0.0000000000000000005", "none"),
        ("0.000000000000000001", "0.000000000000000001"),
        ("1.50000000000000000000000000000000000000000", "1.5"),
        ("1.50000000000000000000000000000000000000001", "none"),
        ("1000e-21", "0.000000000000000001"),
        ("0e-99", "0"),
        (" 7 ", "7"),
        ("123456789012345678901", "123456789012345678901"),
        ("1234567890123456789012", "none"),
        ("1e21", "none"),
        ("", "none"),
        ("NaN", "none"),
        ("1,5", "none"),
        ("1e", "none"),
        ("-", "none"),
        ("0x10", "none"),
    ];
    for (input, want) in cases {
        assert_eq!(d(input), want, "{input:?}");
    }
}

#[test]
fn sums_costs_exactly() {
    let sum = ["0.0123", "0.0089", "0.0311", "0.0297"]
        .iter()
        .map(|s| Decimal::parse(s).unwrap())
        .try_fold(Decimal::ZERO, |a, b| a.checked_add(b))
        .unwrap();
    assert_eq!(sum.to_string(), "0.082");
    assert_eq!(sum.to_f64(), 0.082);
    assert_eq!(sum.div_count(4).unwrap().to_string(), "0.0205");
    assert_eq!(Decimal::parse("-1").unwrap().div_count(3).unwrap().to_string(), "-0.333333333333333333");
    assert_eq!(Decimal::parse("66560").unwrap().to_i64(), Some(66560));
}
