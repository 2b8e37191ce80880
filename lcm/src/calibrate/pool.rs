//! Kernels that price the rayon pool: a fork/join over its p threads, a task spawned in a
//! scope, a `rayon::join` of a recursion, an item of a parallel iterator. Each returns one repetition's number; the
//! repetition rule is in [`super::quiet`].

use super::clock::{time_it, Clock};
use rayon::prelude::*;
use rayon::ThreadPool;
use std::hint::black_box;

/// A rayon pool of `threads` threads (falls back to rayon's global pool size if the
/// system refuses threads).
pub fn pool(threads: usize) -> Option<ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .ok()
}

/// Seconds of one fork/join over all of `pool`'s threads: `rounds` back-to-back
/// `rayon::broadcast`s from inside the pool (an empty closure run once on every thread of
/// the pool, the calling worker waiting for all of them), timed together. Every thread takes part in every round, as every
/// processor does in a parallel loop over at least p items; the workers stay awake
/// between rounds (they spin a while before sleeping), as in a loop of parallel constructs.
pub fn fork_join_once<C: Clock + ?Sized>(clock: &C, pool: &ThreadPool, rounds: usize) -> f64 {
    let rounds = rounds.max(1);
    let elapsed = pool.install(|| {
        time_it(clock, || {
            for r in 0..rounds {
                rayon::broadcast(|ctx| {
                    black_box(r ^ ctx.index());
                });
            }
        })
    });
    elapsed / rounds as f64
}

/// Processor-seconds per task of `pool`: one `rayon::scope` spawning `tasks` empty tasks,
/// its time times the pool's threads over the tasks (all threads take part: the spawner
/// pushes, the others steal).
pub fn task_once<C: Clock + ?Sized>(clock: &C, pool: &ThreadPool, tasks: usize) -> f64 {
    let p = pool.current_num_threads();
    let tasks = tasks.max(1);
    let elapsed = pool.install(|| {
        time_it(clock, || {
            rayon::scope(|s| {
                for i in 0..tasks {
                    s.spawn(move |_| {
                        black_box(i);
                    });
                }
            })
        })
    });
    elapsed * p as f64 / tasks as f64
}

/// Processor-seconds per `rayon::join` of a recursive divide and conquer on `pool`: a
/// binary tree of joins `depth` levels deep with empty leaves (`2^depth - 1` joins, the
/// pool's idle threads stealing halves as they do in a recursion that splits down to a
/// cutoff), its time times the pool's threads, less the same recursion with plain calls
/// run on one thread, over the joins; at least 0. A join whose second half is not stolen
/// costs far less than a task spawned in a scope (no allocation, no queue shared by all
/// threads): this is the price of the joins a recursion makes, `task_s` that of spawns.
pub fn join_once<C: Clock + ?Sized>(clock: &C, pool: &ThreadPool, depth: u32) -> f64 {
    let p = pool.current_num_threads();
    let depth = depth.clamp(1, 30);
    let joins = (1usize << depth) - 1;
    let parallel = pool.install(|| {
        time_it(clock, || {
            black_box(join_tree(depth));
        })
    });
    let serial = time_it(clock, || {
        black_box(call_tree(depth));
    });
    item_cost(parallel, serial, p, joins)
}

/// The leaves of a binary `rayon::join` tree `depth` levels deep.
fn join_tree(depth: u32) -> u64 {
    if depth == 0 {
        return black_box(1);
    }
    let (a, b) = rayon::join(|| join_tree(depth - 1), || join_tree(depth - 1));
    a + b
}

/// [`join_tree`] with plain calls in place of the joins.
fn call_tree(depth: u32) -> u64 {
    if depth == 0 {
        return black_box(1);
    }
    call_tree(depth - 1) + call_tree(depth - 1)
}

/// Processor-seconds per item that a parallel iterator adds over a sequential loop:
/// `(0..items).into_par_iter().for_each` of an empty body on `pool` (time times threads)
/// less the same loop run sequentially, over the items; at least 0.
pub fn item_once<C: Clock + ?Sized>(clock: &C, pool: &ThreadPool, items: usize) -> f64 {
    let p = pool.current_num_threads();
    let items = items.max(1);
    let parallel = pool.install(|| {
        time_it(clock, || {
            (0..items).into_par_iter().for_each(|i| {
                black_box(i);
            })
        })
    });
    let serial = time_it(clock, || {
        (0..items).for_each(|i| {
            black_box(i);
        })
    });
    item_cost(parallel, serial, p, items)
}

/// `(parallel * p - serial) / items`, at least 0.
pub fn item_cost(parallel_s: f64, serial_s: f64, p: usize, items: usize) -> f64 {
    ((parallel_s * p as f64 - serial_s) / items.max(1) as f64).max(0.0)
}

/// Least-squares fit of `t(p) = base + slope * log2(p)` to fork/join latencies by p;
/// `(base, slope)`, the slope at least 0 (one point: slope 0).
pub fn fit_log2p(points: &[(usize, f64)]) -> (f64, f64) {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(p, t)| *p > 0 && t.is_finite())
        .map(|(p, t)| ((*p as f64).log2(), *t))
        .collect();
    let k = pts.len() as f64;
    if pts.is_empty() {
        return (f64::NAN, 0.0);
    }
    let mx = pts.iter().map(|x| x.0).sum::<f64>() / k;
    let my = pts.iter().map(|x| x.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|x| (x.0 - mx).powi(2)).sum();
    if sxx == 0.0 {
        return (my, 0.0);
    }
    let sxy: f64 = pts.iter().map(|x| (x.0 - mx) * (x.1 - my)).sum();
    let slope = (sxy / sxx).max(0.0);
    (my - slope * mx, slope)
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::StepClock;
    use super::*;

    #[test]
    fn fork_join_divides_the_elapsed_time_by_the_rounds() {
        let pool = pool(2).unwrap();
        let clock = StepClock::new(1e-3);
        // Two readings, 1 ms apart, around 100 rounds: 10 µs a fork/join.
        let t = fork_join_once(&clock, &pool, 100);
        assert!((t - 1e-5).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 2);
    }

    #[test]
    fn task_cost_is_processor_seconds_per_task() {
        let pool = pool(2).unwrap();
        let clock = StepClock::new(1e-3);
        // 1 ms for 1000 tasks on 2 threads: 2 µs of processor time each.
        let t = task_once(&clock, &pool, 1000);
        assert!((t - 2e-6).abs() < 1e-15, "{t}");
    }

    #[test]
    fn join_cost_is_processor_seconds_per_join_beyond_plain_calls() {
        let pool = pool(2).unwrap();
        let clock = StepClock::new(1e-3);
        // Four readings 1 ms apart: the join tree 1 ms on 2 threads (2 ms of processor
        // time), the plain recursion 1 ms; 2^10 - 1 joins share the 1 ms difference.
        let t = join_once(&clock, &pool, 10);
        assert!((t - 1e-3 / 1023.0).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 4);
    }

    #[test]
    fn join_trees_count_their_leaves() {
        let pool = pool(2).unwrap();
        assert_eq!(pool.install(|| join_tree(5)), 32);
        assert_eq!(call_tree(5), 32);
    }

    #[test]
    fn item_cost_subtracts_the_sequential_loop() {
        let pool = pool(2).unwrap();
        let clock = StepClock::new(1e-3);
        // Parallel 1 ms on 2 threads (2 ms of processor time) less serial 1 ms, per 1e6.
        let t = item_once(&clock, &pool, 1_000_000);
        assert!((t - 1e-9).abs() < 1e-18, "{t}");
        assert_eq!(item_cost(1.0, 3.0, 2, 10), 0.0);
    }

    #[test]
    fn log2p_fit_recovers_a_line_and_keeps_a_single_point_flat() {
        let (b, s) = fit_log2p(&[(1, 2e-6), (2, 3e-6), (4, 4e-6)]);
        assert!(
            (b - 2e-6).abs() < 1e-15 && (s - 1e-6).abs() < 1e-15,
            "{b} {s}"
        );
        assert_eq!(fit_log2p(&[(2, 5e-6)]), (5e-6, 0.0));
        // Falling latencies (noise) do not give a negative slope.
        assert_eq!(fit_log2p(&[(1, 4e-6), (2, 3e-6)]).1, 0.0);
    }
}
