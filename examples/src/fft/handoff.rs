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
//! microseconds on a virtual machine). The real program, whose stage times vary from item to
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

/// The steady-state period of the two-stage pipeline, stage A busy for `a` and stage B for
/// `b` per item: seconds per item between the end of item `warm` and the end of the last of
/// `items` items, at stage B. The first items are left out: the two threads are new, and
/// the kernel often starts them on one processor and spreads them only some milliseconds
/// later (until then the pipeline runs its stages one after the other); the real program's
/// stages run on long-lived pool threads for thousands of items.
fn pipeline_period(a: Duration, b: Duration, items: usize, warm: usize) -> f64 {
    let (tx, rx) = bounded::<Vec<u8>>(2);
    let (free_tx, free_rx) = bounded::<Vec<u8>>(2);
    for _ in 0..2 {
        let _ = free_tx.send(vec![0u8; 64]);
    }
    let warm = warm.min(items.saturating_sub(1));
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
        let b_stage = s.spawn(|| {
            let mut since = Instant::now();
            for i in 0..items {
                let Ok(buf) = rx.recv() else { break };
                spin(b);
                let _ = free_tx.try_send(buf);
                if i + 1 == warm {
                    since = Instant::now();
                }
            }
            since.elapsed().as_secs_f64() / (items - warm).max(1) as f64
        });
        b_stage.join().unwrap_or(f64::NAN)
    })
}

/// Items per run for stages of `a` and `b` seconds, and how many of them are warm-up: some
/// 60 ms of pipeline, between 40 and 4000 items, the first quarter (at least 20 ms, at
/// most half the items) not timed.
pub fn items_for(a: f64, b: f64) -> (usize, usize) {
    let slow = a.max(b).max(1e-7);
    let items = ((0.06 / slow).round() as usize).clamp(40, 4000);
    let warm = (items / 4)
        .max((0.02 / slow).ceil() as usize)
        .min(items / 2);
    (items, warm)
}

/// Seconds per item by which the pipeline's steady-state period exceeds its slower stage
/// when the stages take `a` and `b` seconds per item, the least of `tries` runs (other
/// load only makes a run slower), at least 0. NaN when a stage time is not finite or
/// negative.
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
    let (items, warm) = items_for(a, b);
    let (da, db) = (Duration::from_secs_f64(a), Duration::from_secs_f64(b));
    overhead_of(pipeline_period(da, db, items, warm), a, b)
}

/// The hand-off overhead per item of a pipeline whose steady-state period is `period`
/// seconds per item through stages of `a` and `b` seconds: `period − max(a, b)`, at least
/// 0 (NaN stays NaN).
pub fn overhead_of(period: f64, a: f64, b: f64) -> f64 {
    if period.is_nan() {
        return f64::NAN;
    }
    (period - a.max(b)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overhead_is_small_and_finite_for_millisecond_stages() {
        // Stages of 2 ms and 1 ms: the hand-off costs microseconds on a quiet machine; on a
        // loaded one anything (the study keeps only quiet runs), so only its sign and
        // finiteness are asserted here.
        let h = handoff_overhead(2e-3, 1e-3, 3);
        assert!(h.is_finite() && h >= 0.0, "{h}");
        // The formula: a period of 2.005 ms through stages of 2 ms and 1 ms.
        assert!((overhead_of(2.005e-3, 2e-3, 1e-3) - 5e-6).abs() < 1e-12);
        assert_eq!(overhead_of(1.5e-3, 2e-3, 1e-3), 0.0);
        assert!(overhead_of(f64::NAN, 2e-3, 1e-3).is_nan());
        assert!(handoff_overhead(f64::NAN, 1.0, 1).is_nan());
        assert!(handoff_overhead(-1.0, 1.0, 1).is_nan());
    }

    #[test]
    fn items_cover_some_sixty_milliseconds_after_a_warm_up() {
        // 30 items of 2 ms: 40 at least; 20 ms of warm-up is 10 items.
        assert_eq!(items_for(2e-3, 1e-3), (40, 10));
        // 6000 items of 10 µs: 4000 at most; a quarter of them, 2000, is the 20 ms.
        assert_eq!(items_for(1e-5, 1e-5), (4000, 2000));
        assert_eq!(items_for(1e-4, 1e-5), (600, 200));
        // Tiny stages: the warm-up is at most half the items.
        assert_eq!(items_for(0.0, 0.0), (4000, 2000));
        // Slow stages: 40 items, a quarter of them warm-up.
        assert_eq!(items_for(7e-3, 1e-3), (40, 10));
    }
}
