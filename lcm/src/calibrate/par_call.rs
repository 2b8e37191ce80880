//! The kernel that prices one small parallel-iterator call issued from inside a rayon pool:
//! `par_call_s_pQ`, what a call of a thousand cheap items costs beyond its items' own work
//! spread over the pool's threads.
//!
//! A fork/join ([`super::pool::fork_join_once`]) prices one round in which every thread
//! runs a closure; a parallel iterator does more each time it is called: it splits its
//! range into jobs, pushes them on the calling worker's deque, other workers wake (or are
//! found spinning) and steal them, and the reduction tree joins the halves back. A loop of
//! n such calls of n items each (an n-body force as a parallel fold per body) pays that
//! every call; the kernel runs `calls` of them back to back in a pool of q threads, so the
//! workers are awake as they are in such a loop. Measured for every q = 1 … p (the
//! stealing and the depth of the join tree grow with the threads; one thread splits
//! nothing).

use super::clock::{time_it, Clock};
use rayon::prelude::*;
use rayon::ThreadPool;
use std::hint::black_box;

/// Items of each call of the kernel: small enough that the call's fixed cost shows, large
/// enough that rayon splits it over every thread of pools up to a few hundred.
pub const ITEMS: usize = 1000;

/// Dependent multiply-adds per item: a few nanoseconds, so that a call's work (some 2 µs
/// on one thread) lasts long enough for the other workers to steal their shares, as they
/// do in any call worth running in parallel. Items of nothing would let the calling worker
/// finish the whole range before anyone steals, and the kernel would time a serial loop.
const STEPS_PER_ITEM: usize = 4;

/// The items' work: a short chain of multiply-adds the optimizer cannot remove.
fn fold_item(acc: u64, i: usize) -> u64 {
    let mut x = i as u64;
    for _ in 0..STEPS_PER_ITEM {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
    acc.wrapping_add(x)
}

/// One call: `(0..items).into_par_iter().fold(..).reduce(..)`, a sum.
fn par_call(items: usize) -> u64 {
    (0..items)
        .into_par_iter()
        .fold(|| 0u64, fold_item)
        .reduce(|| 0u64, u64::wrapping_add)
}

/// The same items folded on the calling thread.
fn serial_call(items: usize) -> u64 {
    (0..items).fold(0u64, fold_item)
}

/// Seconds one parallel-iterator call of `items` items adds, issued from inside `pool`
/// back to back, beyond the items' work divided over the pool's threads: on one worker of
/// the pool, `calls` untimed calls (the pool settles into the state a loop of calls keeps
/// it in: workers spinning, or asleep and woken by every call), then `calls` back-to-back
/// fold/reduce calls timed together, then `calls` sequential folds of the same items on the
/// same worker, and [`call_cost`] of the two times.
pub fn par_call_once<C: Clock + ?Sized>(
    clock: &C,
    pool: &ThreadPool,
    calls: usize,
    items: usize,
) -> f64 {
    let q = pool.current_num_threads();
    let calls = calls.max(1);
    let (parallel, serial) = pool.install(|| {
        let run = || {
            for _ in 0..calls {
                black_box(par_call(items));
            }
        };
        run();
        let parallel = time_it(clock, run);
        let serial = time_it(clock, || {
            for _ in 0..calls {
                black_box(serial_call(items));
            }
        });
        (parallel, serial)
    });
    call_cost(parallel, serial, q, calls)
}

/// `(parallel − serial / q) / calls`, at least 0: the seconds per call beyond a perfect
/// division of the serial work over q threads.
pub fn call_cost(parallel_s: f64, serial_s: f64, q: usize, calls: usize) -> f64 {
    ((parallel_s - serial_s / q.max(1) as f64) / calls.max(1) as f64).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::StepClock;
    use super::super::pool::pool;
    use super::*;

    #[test]
    fn the_call_cost_is_the_parallel_time_less_the_serial_work_over_the_threads() {
        let pool = pool(2).unwrap();
        // Every reading advances 1 ms: the parallel calls and the serial folds each read
        // 1 ms (the warm-up is not timed). 100 calls on 2 threads: (1 ms − 1 ms / 2) / 100 = 5 µs a call.
        let clock = StepClock::new(1e-3);
        let t = par_call_once(&clock, &pool, 100, ITEMS);
        assert!((t - 5e-6).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 4);
    }

    #[test]
    fn on_one_thread_the_whole_serial_work_is_subtracted() {
        let pool = pool(1).unwrap();
        let clock = StepClock::new(1e-3);
        // (1 ms − 1 ms) / 10: the call adds nothing.
        assert_eq!(par_call_once(&clock, &pool, 10, ITEMS), 0.0);
    }

    #[test]
    fn call_cost_arithmetic_and_its_floor() {
        // 4 threads, 8 ms for 1000 calls whose serial work is 16 ms: (8 − 4) ms / 1000.
        assert!((call_cost(8e-3, 16e-3, 4, 1000) - 4e-6).abs() < 1e-18);
        // Faster than the work over q (noise): 0, never negative.
        assert_eq!(call_cost(1e-3, 8e-3, 2, 10), 0.0);
        // Zero calls or threads are read as one.
        assert_eq!(call_cost(2.0, 1.0, 0, 0), 1.0);
    }

    #[test]
    fn the_parallel_call_computes_what_the_serial_fold_does() {
        let pool = pool(2).unwrap();
        assert_eq!(pool.install(|| par_call(ITEMS)), serial_call(ITEMS));
        assert_ne!(serial_call(ITEMS), 0);
    }
}
