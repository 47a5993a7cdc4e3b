//! The dealer: every unit to exactly one worker, once, in batches of
//! consecutive units within its bounds, each batch to the worker with the
//! fewest bytes so far; the writer told who has each unit; the end of the
//! inputs ends the workers' channels.

use super::{Dealer, Unit, DEAL, DEAL_BYTES};
use crossbeam_channel::{bounded, unbounded, Receiver};
use proptest::prelude::*;

/// A unit named `id` (its first line) that weighs `bytes`.
fn unit(id: u64, bytes: usize) -> Unit {
    Unit::Piped { buf: vec![b'x'; bytes], first: id, open_tail: false }
}

/// A batch as dealt: each unit's id and weight.
type Batch = Vec<(u64, u64)>;

fn id_weight(u: &Unit) -> (u64, u64) {
    match u {
        Unit::Piped { first, buf, .. } => (*first, (buf.len() as u64).max(1)),
        _ => unreachable!("the tests deal piped units only"),
    }
}

/// Deals `weights` to `n` workers; returns each worker's batches (as ids
/// and weights) and what the writer was told, in order.
fn deal(n: usize, deal: usize, weights: &[usize]) -> (Vec<Vec<Batch>>, Vec<usize>) {
    let (tx, rx): (Vec<_>, Vec<Receiver<Vec<Unit>>>) = (0..n).map(|_| unbounded()).unzip();
    let (order_tx, order_rx) = unbounded();
    let mut dealer = Dealer::new(tx, (n > 1).then_some(order_tx), deal);
    for (id, &w) in weights.iter().enumerate() {
        assert!(dealer.push(unit(id as u64, w)));
    }
    assert!(dealer.flush());
    drop(dealer);
    // The inputs ended: every channel ends (these iterations terminate).
    let batches = rx.iter().map(|r| r.iter().map(|b| b.iter().map(id_weight).collect()).collect()).collect();
    (batches, order_rx.iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn deals_every_unit_once_within_bounds_by_load(
        n in 1usize..6,
        per_batch in 1usize..=DEAL,
        weights in prop::collection::vec(prop_oneof![0usize..64, 100_000usize..700_000], 0..80),
    ) {
        let (batches, order) = deal(n, per_batch, &weights);
        // Every unit exactly once.
        let mut ids: Vec<u64> = batches.iter().flatten().flatten().map(|&(id, _)| id).collect();
        ids.sort_unstable();
        prop_assert_eq!(ids, (0..weights.len() as u64).collect::<Vec<_>>());
        // Batches hold consecutive units, within the bounds: at most
        // `per_batch` units, closed as soon as they reach DEAL_BYTES.
        let mut all: Vec<(u64, usize, &Batch)> = Vec::new();
        for (w, list) in batches.iter().enumerate() {
            for b in list {
                prop_assert!(!b.is_empty() && b.len() <= per_batch);
                prop_assert!(b.windows(2).all(|p| p[1].0 == p[0].0 + 1));
                let before_last: u64 = b[..b.len() - 1].iter().map(|&(_, wt)| wt).sum();
                prop_assert!(before_last < DEAL_BYTES);
                all.push((b[0].0, w, b));
            }
        }
        all.sort_by_key(|&(first, ..)| first);
        // The rule, replayed: each batch to the least loaded worker (the
        // first of equals); only the last one may be short (the final flush).
        let mut load = vec![0u64; n];
        for (i, &(_, w, b)) in all.iter().enumerate() {
            let least = (0..n).min_by_key(|&k| load[k]).unwrap();
            prop_assert_eq!(w, least);
            let bytes: u64 = b.iter().map(|&(_, wt)| wt).sum();
            load[w] += bytes;
            if i + 1 < all.len() {
                prop_assert!(b.len() == per_batch || bytes >= DEAL_BYTES);
            }
        }
        // The writer is told, unit by unit, which worker has it.
        if n > 1 {
            let mut told = vec![usize::MAX; weights.len()];
            for &(_, w, b) in &all {
                for &(id, _) in b {
                    told[id as usize] = w;
                }
            }
            prop_assert_eq!(order, told);
        } else {
            prop_assert!(order.is_empty());
        }
    }
}

#[test]
fn the_same_input_is_dealt_the_same_way() {
    let weights: Vec<usize> = (0..200).map(|i| (i * 7919) % 300_000).collect();
    assert_eq!(deal(4, DEAL, &weights), deal(4, DEAL, &weights));
}

#[test]
fn a_flush_with_nothing_held_sends_nothing() {
    let (tx, rx) = unbounded();
    let mut dealer = Dealer::new(vec![tx], None, DEAL);
    assert!(dealer.flush());
    drop(dealer);
    assert!(rx.iter().next().is_none());
}

#[test]
fn a_worker_gone_stops_the_dealing() {
    let (tx0, rx0) = bounded(4);
    let (tx1, rx1) = bounded(4);
    let mut dealer = Dealer::new(vec![tx0, tx1], None, 1);
    drop(rx1);
    // Batches of one unit alternate between the two workers: the second
    // goes to the one that is gone.
    assert!(dealer.push(unit(0, 10)));
    assert!(!dealer.push(unit(1, 10)));
    assert_eq!(rx0.try_iter().count(), 1);
}

#[test]
fn the_writer_gone_stops_the_dealing() {
    let (tx, _rx) = unbounded();
    let (order_tx, order_rx) = unbounded();
    let mut dealer = Dealer::new(vec![tx.clone(), tx], Some(order_tx), DEAL);
    drop(order_rx);
    assert!(!dealer.push(unit(0, 10)));
}
