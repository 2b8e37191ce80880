//! The machine file of a calibration, from the kernel families' numbers as measured
//! ([`super::families`]): the spinning hand-off bounded by the parked one, the floors that
//! keep every price positive, the stand-in of a line price no repetition measured, and the
//! warnings of the prices not to trust blindly.

use super::families::{HandoffPrices, LinePrices, MemoryPrices, PoolPrices, TransferPrices};
use super::wake_prices;
use super::warnings::{
    handoff_warnings, line_against_spin, transfer_below_local, transfer_unpinned_warning,
};
use crate::predict::machine::{Costs, Machine};
use std::collections::BTreeMap;

/// Every family's numbers as measured, with the calibration's size.
pub(super) struct Measured {
    /// Threads the measurements went up to.
    pub max_threads: usize,
    /// Repetitions of each kernel.
    pub repetitions: usize,
    /// Fork/join, parallel calls, tasks, items, joins.
    pub pool: PoolPrices,
    /// Spinning and channel hand-offs.
    pub handoffs: HandoffPrices,
    /// Reads of a buffer by size.
    pub transfers: TransferPrices,
    /// Shared cache lines.
    pub lines: LinePrices,
    /// Bandwidth and memory contention.
    pub memory: MemoryPrices,
}

/// The machine file of `m` and the warnings of its numbers: the line prices' (as measured),
/// then the hand-off keys', the spread of `handoff_wake_s`, and the line's trip against the
/// spinning hand-off.
pub(super) fn machine_of(m: Measured) -> (Machine, Vec<String>) {
    let h = &m.handoffs;
    let spin_s = spin_for_file(h);
    let mut warnings = m.lines.warnings.clone();
    warnings.extend(handoff_warnings(
        h.notify_s,
        h.spin_window_s,
        h.wake_s,
        spin_s,
    ));
    warnings.extend(h.wake_spread_warning.clone());
    warnings.extend(line_against_spin(m.lines.trip_s, spin_s));
    if m.transfers.unpinned {
        warnings.push(transfer_unpinned_warning());
    }
    warnings.extend(transfer_below_local(
        &m.transfers.transfer_by_bytes,
        &m.transfers.local_read_by_bytes,
    ));
    let wake_s = wake_prices::wake_for_file(h.wake_s, spin_s);
    let values = optional_values(&m.pool, &m.lines);
    let line_stand_in_s = line_stand_in_s(h, spin_s);
    let machine = Machine {
        latency_s: positive(spin_s, 1e-9),
        bandwidth_bytes_per_s: positive(m.memory.bandwidth_bytes_per_s, 1e9),
        origin: format!(
            "lcm calibrate ({} threads; median of the quiet ones of {} repetitions per number)",
            m.max_threads, m.repetitions
        ),
        costs: Some(costs_of(&m, spin_s, wake_s, line_stand_in_s)),
        values,
    };
    (machine, warnings)
}

/// `x` when it is a positive number, else `floor`.
fn positive(x: f64, floor: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        floor
    }
}

/// `x` when it is finite, at least 0; else 0.
fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x.max(0.0)
    } else {
        0.0
    }
}

/// The spinning hand-off the file holds. A spinning partner that loses its processor (other
/// load) hands off through the scheduler: such a hand-off is never dearer than the whole
/// one-way hand-off to a parked receiver.
pub(super) fn spin_for_file(h: &HandoffPrices) -> f64 {
    if h.one_way_s.is_finite() && h.one_way_s > 0.0 {
        h.spin_s.min(h.one_way_s)
    } else {
        h.spin_s
    }
}

/// What stands in for `line_bounce_s` when no repetition measured it. Other load only
/// lengthens a hand-off: the least repetition of the spinning hand-off is the closest to a
/// line's trip.
fn line_stand_in_s(h: &HandoffPrices, spin_s: f64) -> f64 {
    if h.spin_least_s.is_finite() && h.spin_least_s > 0.0 {
        h.spin_least_s.min(spin_s)
    } else {
        spin_s
    }
}

/// The file's keys beyond [`Costs`]' fields, each written only when measured: the line
/// prices at K > 2, their growth per thread, how far the pairs' prices of `line_bounce_s`
/// lie apart (with two pairs or more), the line's whole trip, `join_s`, and with the
/// parallel-iterator calls the items of each (`par_call_items`).
fn optional_values(pool: &PoolPrices, lines: &LinePrices) -> BTreeMap<String, f64> {
    let mut values = BTreeMap::new();
    if !pool.par_call_by_p.is_empty() {
        values.insert("par_call_items".into(), super::par_call::ITEMS as f64);
    }
    for &(k, b) in &lines.bounce_by_k[1..] {
        if b.is_finite() {
            values.insert(format!("line_bounce_s_k{k}"), b.max(0.0));
        }
    }
    if lines.bounce_s().is_finite() {
        values.insert("line_bounce_per_thread_s".into(), lines.bounce_per_thread_s);
    }
    if lines.bounce_pair_spread.is_finite() {
        values.insert("line_bounce_pair_spread".into(), lines.bounce_pair_spread);
    }
    if lines.trip_s.is_finite() {
        values.insert("line_trip_s".into(), lines.trip_s.max(0.0));
    }
    if lines.lock_s.is_finite() {
        values.insert("line_lock_s".into(), lines.lock_s.max(0.0));
    }
    if pool.join_s.is_finite() {
        values.insert("join_s".into(), pool.join_s.max(0.0));
    }
    values
}

/// The file's run-time costs: every price floored to a positive (or non-negative) number,
/// `spin_s` and `wake_s` as the file holds them, and `line_stand_in_s` for a line price no
/// repetition measured.
fn costs_of(m: &Measured, spin_s: f64, wake_s: f64, line_stand_in_s: f64) -> Costs {
    let (pool, h) = (&m.pool, &m.handoffs);
    let line_bounce = m.lines.bounce_s();
    Costs {
        fork_join_base_s: positive(pool.fork_join_base_s, 1e-9),
        fork_join_log2p_s: if pool.fork_join_log2p_s.is_finite() {
            pool.fork_join_log2p_s
        } else {
            0.0
        },
        fork_join_by_p: floored(&pool.fork_join_by_p, |t| positive(t, 1e-9)),
        task_s: finite_or_zero(pool.task_s),
        par_item_s: finite_or_zero(pool.par_item_s),
        par_call_by_p: floored(&pool.par_call_by_p, finite_or_zero),
        handoff_spin_s: positive(spin_s, 1e-9),
        handoff_wake_s: positive(wake_s, 1e-9),
        handoff_notify_s: (h.notify_s.is_finite() && h.notify_s > 0.0).then_some(h.notify_s),
        handoff_spin_window_s: (h.spin_window_s.is_finite() && h.spin_window_s > 0.0)
            .then_some(h.spin_window_s),
        transfer_by_bytes: floored(&m.transfers.transfer_by_bytes, |t| positive(t, 1e-12)),
        local_read_by_bytes: floored(&m.transfers.local_read_by_bytes, |t| positive(t, 1e-12)),
        // With no repetition side by side (a loaded machine), the one-way trip of a line
        // between two spinning threads, the same movement.
        line_bounce_s: Some(if line_bounce.is_finite() {
            line_bounce.max(0.0)
        } else {
            positive(line_stand_in_s, 1e-9)
        }),
        mem_slowdown_by_k: floored(&m.memory.mem_slowdown_by_k, |s| positive(s, 1.0)),
        calibrated_p: m.max_threads,
    }
}

/// `by` with `floor` applied to every value.
fn floored(by: &[(usize, f64)], floor: impl Fn(f64) -> f64) -> Vec<(usize, f64)> {
    by.iter().map(|&(x, v)| (x, floor(v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pair_spread_is_written_only_when_two_pairs_gave_a_price() {
        let pool = PoolPrices {
            fork_join_by_p: vec![],
            fork_join_base_s: 1e-6,
            fork_join_log2p_s: 0.0,
            par_call_by_p: vec![],
            task_s: 1e-6,
            par_item_s: 1e-9,
            join_s: f64::NAN,
        };
        let lines = |spread: f64| LinePrices {
            bounce_by_k: vec![(2, 45e-9)],
            bounce_pair_spread: spread,
            bounce_per_thread_s: 0.0,
            trip_s: f64::NAN,
            lock_s: f64::NAN,
            warnings: vec![],
        };
        let values = optional_values(&pool, &lines(3.5));
        assert_eq!(values["line_bounce_pair_spread"], 3.5);
        // No parallel-iterator calls measured: no item count for them.
        assert!(!values.contains_key("par_call_items"), "{values:?}");
        let values = optional_values(&pool, &lines(f64::NAN));
        assert!(
            !values.contains_key("line_bounce_pair_spread"),
            "{values:?}"
        );
        // The file's text reads back with the key.
        let text = "latency_s = 1e-7\nbandwidth_bytes_per_s = 1e9\nline_bounce_pair_spread = 3.5\n";
        let m = Machine::parse("m.txt", text).unwrap();
        assert_eq!(m.values["line_bounce_pair_spread"], 3.5);
        assert!(Machine::parse("m.txt", &text.replace("3.5", "0.5")).is_err());
    }
}
