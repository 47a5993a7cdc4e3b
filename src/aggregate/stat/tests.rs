use super::*;

fn stat_of(values: &[f64], outs: &[Out]) -> Stat {
    let mut s = Stat::new(outs);
    for &v in values {
        s.add_num(Num::parse(&v.to_string()).unwrap());
    }
    s
}

#[test]
fn exact_percentiles_interpolate_between_ranks() {
    let v: Vec<Num> = (1..=10).map(|i| Num::parse(&i.to_string()).unwrap()).collect();
    let p = |p| exact_quantile(&v, p).map(|n| n.to_f64());
    assert_eq!(p(50), Some(5.5));
    assert_eq!(p(95), Some(9.55));
    assert_eq!(p(99), Some(9.91));
    assert_eq!(exact_quantile(&v[..1], 99).map(|n| n.to_f64()), Some(1.0));
    assert_eq!(exact_quantile(&[], 50), None);
    // Not 289213.78059999994: decimal interpolation.
    let w: Vec<Num> = ["2429.438", "357130", "8520.5"].iter().map(|s| Num::parse(s).unwrap()).collect();
    assert_eq!(exact_quantile(&w, 95).unwrap(), Num::parse("322269.05").unwrap());
}

#[test]
fn digest_is_close_on_large_inputs_and_survives_the_wire() {
    let values: Vec<f64> = (0..100_000).map(|i| ((i * 7919) % 100_000) as f64).collect();
    let all = stat_of(&values, &[Out::P50, Out::P99]);
    let p50 = all.quant.as_ref().unwrap().quantile(50).unwrap().to_f64();
    assert!((p50 - 50_000.0).abs() < 500.0, "{p50}");
    let mut merged = Stat::new(&[Out::P50, Out::P99]);
    for chunk in values.chunks(7_000) {
        let part = stat_of(chunk, &[Out::P50, Out::P99]);
        for piece in part.split(40) {
            merged.merge(Stat::from_wire(&piece.to_wire()).unwrap());
        }
    }
    assert_eq!(merged.n, 100_000);
    assert_eq!(merged.output(Out::Min), Value::from(0));
    assert_eq!(merged.output(Out::Max), Value::from(99_999));
    let p99 = merged.quant.as_ref().unwrap().quantile(99).unwrap().to_f64();
    assert!((p99 - 99_000.0).abs() < 300.0, "{p99}");
}

#[test]
fn bad_digest_states_are_refused() {
    for bad in [
        serde_json::json!({"c":[[1.0,1.0]]}),
        serde_json::json!({"c":[[1.0,0.0]],"min":1.0,"max":1.0}),
        serde_json::json!({"c":[[1.0,1.0]],"min":2.0,"max":1.0}),
        serde_json::json!({"v":[1, "x"]}),
    ] {
        assert!(Quantiles::from_wire(&bad).is_err(), "{bad}");
    }
}

#[test]
fn a_replayed_tape_is_what_adding_its_values_gives() {
    let values: Vec<Num> = (0..3000u64).map(|i| Num::parse(&((i * 7919) % 3001).to_string()).unwrap()).collect();
    let outs = [Out::P50, Out::P99];
    for (before, during) in [(0, 3000), (500, 700), (1000, 30), (1500, 1500)] {
        // Directly: the thread's state takes every value.
        let mut direct = Stat::new(&outs);
        values[..before + during].iter().for_each(|&v| direct.add_num(v));
        // Through a tape: the capture's values kept, then replayed.
        let mut thread = Stat::new(&outs);
        values[..before].iter().for_each(|&v| thread.add_num(v));
        let mut tape = Stat::new_in(&outs, true);
        values[before..before + during].iter().for_each(|&v| tape.add_num(v));
        assert_eq!(tape.quant.as_ref().unwrap().exact_values().map(<[Num]>::len), Some(during));
        thread.merge(tape.clone());
        for p in [50, 99] {
            let (a, b) = (direct.quant.as_ref().unwrap().quantile(p), thread.quant.as_ref().unwrap().quantile(p));
            assert_eq!(a, b, "p{p} after {before} + {during}");
        }
        // Into an empty owner: as if it had added them.
        let mut fresh = tape.clone();
        fresh.keep_as(false);
        let mut added = Stat::new(&outs);
        values[before..before + during].iter().for_each(|&v| added.add_num(v));
        assert_eq!(fresh.quant.as_ref().unwrap().quantile(50), added.quant.as_ref().unwrap().quantile(50));
        // A tape's owner appends another tape.
        let mut two = Stat::new_in(&outs, true);
        two.merge(tape.clone());
        two.merge(tape);
        assert_eq!(two.quant.as_ref().unwrap().exact_values().map(<[Num]>::len), Some(2 * during));
    }
}
