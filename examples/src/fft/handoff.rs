//! The price of the task-parallel version's hand-offs on this machine: a microbenchmark of
//! a two-stage pipeline wired like [`super::tp`] (a bounded channel of 2 from stage A to
//! stage B, a pool of 2 buffers going back, blocking waits), whose stages do nothing but
//! busy work of given lengths.
//!
//! A blocked thread is woken through the kernel (futex wake, an inter-processor interrupt,
//! the scheduler: microseconds, more in a virtual machine), and the sender pays for the
//! wake-up too. When the stages are balanced, every hand-off is on the critical path; when
//! one stage is much slower, the other's waits hide behind it. The fragment models measured
//! in the data-parallel version have no such waits, so the study measures them here, at the
//! stage times its models predict, before the task-parallel version ever runs.
//!
//! When the stages are nearly balanced, a run settles in one of two states: the waiting
//! thread catches the next item while it still spins (a hand-off costs well under a
//! microsecond), or it has gone to sleep and is woken through the kernel (tens of
//! microseconds on a virtual machine: measured 4.7 to 24 µs per item over 15 runs of
//! 13.6 µs and 11.9 µs stages here). The real program, whose stage times vary from item to
//! item, sleeps more often than the microbenchmark's exact busy loops; the study takes the
//! median of the quiet runs, not the least.

use crossbeam_channel::bounded;
use std::time::{Duration, Instant};

/// Busy work for `d` (the stage's computation in the microbenchmark).
fn spin(d: Duration) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

/// Seconds one run of `items` items through the two-stage pipeline takes, stage A busy for
/// `a` and stage B for `b` per item.
fn pipeline_seconds(a: Duration, b: Duration, items: usize) -> f64 {
    let (tx, rx) = bounded::<Vec<u8>>(2);
    let (free_tx, free_rx) = bounded::<Vec<u8>>(2);
    for _ in 0..2 {
        let _ = free_tx.send(vec![0u8; 64]);
    }
    let start = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..items {
                let Ok(buf) = free_rx.recv() else { return };
                spin(a);
                if tx.send(buf).is_err() {
                    return;
                }
            }
        });
        s.spawn(|| {
            for _ in 0..items {
                let Ok(buf) = rx.recv() else { return };
                spin(b);
                let _ = free_tx.try_send(buf);
            }
        });
    });
    start.elapsed().as_secs_f64()
}

/// Items per run for stages of `a` and `b` seconds: some 20 ms of pipeline, between 10 and
/// 4000 items.
pub fn items_for(a: f64, b: f64) -> usize {
    let slow = a.max(b).max(1e-7);
    ((0.02 / slow).round() as usize).clamp(10, 4000)
}

/// Seconds per item by which the pipeline is slower than its slower stage when the stages
/// take `a` and `b` seconds per item: `(T − a − b − (items − 1)·max(a, b)) / items`, the
/// least of `tries` runs (other load only makes a run slower), at least 0. NaN when a stage
/// time is not finite or negative.
pub fn handoff_overhead(a: f64, b: f64, tries: usize) -> f64 {
    if !(a.is_finite() && b.is_finite() && a >= 0.0 && b >= 0.0) {
        return f64::NAN;
    }
    (0..tries.max(1))
        .map(|_| handoff_overhead_once(a, b))
        .fold(f64::INFINITY, f64::min)
}

/// One run of [`handoff_overhead`]'s measurement (the caller chooses which runs count, e.g.
/// only those during which no other load held a processor: with one processor for both
/// stages the "overhead" is the faster stage, not a hand-off).
pub fn handoff_overhead_once(a: f64, b: f64) -> f64 {
    if !(a.is_finite() && b.is_finite() && a >= 0.0 && b >= 0.0) {
        return f64::NAN;
    }
    let items = items_for(a, b);
    let (da, db) = (Duration::from_secs_f64(a), Duration::from_secs_f64(b));
    overhead_of(pipeline_seconds(da, db, items), a, b, items)
}

/// The hand-off overhead per item of a pipeline run that took `t` seconds for `items` items
/// through stages of `a` and `b` seconds: `(t − a − b − (items − 1)·max(a, b)) / items`, at
/// least 0 (fill, then one item per slower stage).
pub fn overhead_of(t: f64, a: f64, b: f64, items: usize) -> f64 {
    let ideal = a + b + (items as f64 - 1.0) * a.max(b);
    ((t - ideal) / items.max(1) as f64).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overhead_is_small_and_finite_for_millisecond_stages() {
        // Stages of 2 ms and 1 ms: 10 items, 20 ms of work per run. The hand-off costs
        // microseconds on a quiet machine; on a loaded one anything (the study keeps only
        // quiet runs), so only its sign and finiteness are asserted here.
        let h = handoff_overhead(2e-3, 1e-3, 5);
        assert!(h.is_finite() && h >= 0.0, "{h}");
        // The formula: 10 items of stages 2 ms and 1 ms take 1 + 10·2 ms ideally.
        assert!((overhead_of(0.021 + 10.0 * 5e-6, 2e-3, 1e-3, 10) - 5e-6).abs() < 1e-12);
        assert_eq!(overhead_of(0.015, 2e-3, 1e-3, 10), 0.0);
        assert!(handoff_overhead(f64::NAN, 1.0, 1).is_nan());
        assert!(handoff_overhead(-1.0, 1.0, 1).is_nan());
    }

    #[test]
    fn items_cover_some_twenty_milliseconds() {
        assert_eq!(items_for(2e-3, 1e-3), 10);
        assert_eq!(items_for(1e-5, 1e-5), 2000);
        assert_eq!(items_for(0.0, 0.0), 4000);
    }
}
