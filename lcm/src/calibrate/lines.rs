//! The price of a cache line written alternately by two processors: what an atomic
//! read-modify-write (a lock's acquisition, an increment) pays when another processor wrote
//! the line last, so that the line must travel from that processor's cache
//! ([`line_bounce_once`]).
//!
//! Two threads run at once, each updating lines picked at random among [`LINES`] shared
//! lines, against one thread doing the same alone (every line in its own cache). The extra
//! processor-seconds per update, over the chance that the other thread wrote the line last
//! (one half with two threads picking uniformly), is the price of one line that bounces.

use super::clock::Clock;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Lines the threads update (each on its own 128-byte block: no false sharing between
/// neighbours, adjacent-line prefetch included).
pub const LINES: usize = 64;

/// Least share of the longer thread's time during which both threads must have run for a
/// repetition to count (on a shared machine the second thread sometimes gets no processor
/// of its own and runs after the first: such a repetition prices nothing).
pub const MIN_OVERLAP: f64 = 0.9;

#[repr(align(128))]
struct Line(AtomicU64);

/// `updates` increments of lines picked by a xorshift generator seeded with `seed`,
/// timed: (start, end) on `clock`.
fn run<C: Clock + ?Sized>(clock: &C, lines: &[Line], updates: u64, seed: u64) -> (f64, f64) {
    let mut x = seed | 1;
    let start = clock.now_s();
    for _ in 0..updates {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        lines[(x % LINES as u64) as usize]
            .0
            .fetch_add(1, Ordering::AcqRel);
    }
    black_box(x);
    (start, clock.now_s())
}

/// The time both intervals ran at once, as a share of the longer one.
pub fn overlap(a: (f64, f64), b: (f64, f64)) -> f64 {
    let longest = (a.1 - a.0).max(b.1 - b.0);
    let both = (a.1.min(b.1) - a.0.max(b.0)).max(0.0);
    if longest > 0.0 {
        both / longest
    } else {
        0.0
    }
}

/// The bounce price from the two measurements: `alone` seconds per update on one thread,
/// `together` processor-seconds per update with two threads at once; the extra over the
/// chance 1/2 that the other thread wrote the line last, at least 0.
pub fn bounce_price(alone: f64, together: f64) -> f64 {
    (2.0 * (together - alone)).max(0.0)
}

/// One repetition: seconds one line bounce adds to an update (see the module docs); NaN
/// when the two threads did not run side by side ([`MIN_OVERLAP`]).
pub fn line_bounce_once<C: Clock + ?Sized>(clock: &C, updates: u64) -> f64 {
    let updates = updates.max(1);
    let lines: Vec<Line> = (0..LINES).map(|_| Line(AtomicU64::new(0))).collect();
    run(clock, &lines, updates / 4, 7);
    let (s, e) = run(clock, &lines, updates, 11);
    let alone = (e - s) / updates as f64;
    let ready = AtomicUsize::new(0);
    let side = |seed: u64| {
        ready.fetch_add(1, Ordering::AcqRel);
        let mut spins = 0u32;
        while ready.load(Ordering::Acquire) < 2 {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(1 << 12) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        run(clock, &lines, updates, seed)
    };
    let (a, b) = std::thread::scope(|sc| {
        let other = sc.spawn(|| side(13));
        let mine = side(17);
        (mine, other.join().unwrap_or((f64::NAN, f64::NAN)))
    });
    // NaN times (a thread that panicked) overlap nothing.
    let both = overlap(a, b);
    if both.is_nan() || both < MIN_OVERLAP {
        return f64::NAN;
    }
    let together = ((a.1 - a.0) + (b.1 - b.0)) / (2 * updates) as f64;
    bounce_price(alone, together)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_price_is_twice_the_extra_per_update() {
        // 10 ns alone, 60 ns per update with two at once: half of the updates found the
        // line in the other cache, each paying 100 ns.
        assert!((bounce_price(10e-9, 60e-9) - 100e-9).abs() < 1e-18);
        assert_eq!(bounce_price(10e-9, 8e-9), 0.0);
    }

    #[test]
    fn overlap_tells_side_by_side_from_one_after_the_other() {
        assert!((overlap((0.0, 10.0), (1.0, 10.0)) - 0.9).abs() < 1e-12);
        assert_eq!(overlap((0.0, 10.0), (10.0, 20.0)), 0.0);
        assert!((overlap((0.0, 10.0), (5.0, 15.0)) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_real_repetition_is_finite_and_not_negative_or_unjudged() {
        let clock = super::super::clock::MonotonicClock::new();
        let x = line_bounce_once(&clock, 200_000);
        assert!(x.is_nan() || (x.is_finite() && x >= 0.0), "{x}");
    }
}
