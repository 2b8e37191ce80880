//! The price of a cache line written by several processors at once: what an atomic
//! read-modify-write (a lock's acquisition, an increment) pays when another processor wrote
//! the line last, so that the line must travel from that processor's cache, with K
//! processors updating the same lines at once ([`line_bounce_once`]).
//!
//! K threads, each on a processor of its own ([`super::placement`]), update lines picked at
//! random among [`LINES`] shared lines back to back, against one thread doing the same alone
//! (every line in its own cache). The next line is picked from a generator alone
//! ([`Updates::Overlapping`]), as a program whose next key does not depend on the last
//! update: the processor may fetch the next lines while one is on its way, as it does in
//! such a program, so the price is what such updates pay, a fraction of a whole trip.
//! [`Updates::Chained`] makes each update's line depend on the value the previous one read
//! (trips cannot overlap): the whole trip, `line_trip_s`. The extra processor-seconds per
//! update, over the chance
//! (K − 1)/K that another thread wrote the line last, is the price of one line that
//! bounces among K processors. [`Updates::Locked`] makes each update a lock-protected
//! one: a lock on a block of its own guards a data line on another, and the update moves
//! both when another processor did the last one, `line_lock_s`. With more processors a
//! line's trip can wait behind other trips of the same line and the traffic of the
//! others; [`per_thread_growth`] reads how much each further processor adds.
//!
//! With K = 2 the calibration times many distinct pairs of processors and keeps the mean of
//! the pairs' prices ([`super::pairs`]): pairs may differ, and a program's threads use them
//! all. With K > 2 each repetition draws its K processors anew and the median is kept.
//!
//! A repetition counts only if the K threads ran side by side ([`side_by_side`]): their
//! timed intervals overlap by [`MIN_OVERLAP`] of the longest, and each thread ran on its
//! processor for [`MIN_ON_CPU`] of its interval (a repetition tries up to [`ATTEMPTS`]
//! times). The second test catches threads that took turns on one processor (both
//! intervals span the run, yet no line moves while one waits): such a repetition would
//! price a bounce at about twice the update alone.

use super::clock::Clock;
use super::placement::{allowed_cpus, cpus_for, pin_current_thread, thread_cpu_s};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Lines the threads update (each on its own 128-byte block: no false sharing between
/// neighbours, adjacent-line prefetch included).
pub const LINES: usize = 64;

/// Least share of the longest thread's interval during which all threads must have run for
/// a repetition to count (on a shared machine a thread sometimes gets no processor of its
/// own and runs after the others: such a repetition prices nothing).
pub const MIN_OVERLAP: f64 = 0.9;

/// Least share of its timed interval each thread must have spent running (its own
/// processor time over its wall time) for a repetition to count.
pub const MIN_ON_CPU: f64 = 0.9;

/// Times a repetition runs its threads again when they did not run side by side, before it
/// gives up (other load comes and goes: a later try often finds the processors free).
pub const ATTEMPTS: usize = 4;

#[repr(align(128))]
struct Line(AtomicU64);

/// A lock on a block of its own, apart from the data line it guards (as a shard's
/// `Mutex<Vec<T>>`, whose items lie elsewhere).
#[repr(align(128))]
struct LockLine(Mutex<()>);

/// What the threads update: the shared lines and a lock for each ([`Updates::Locked`]).
struct SharedLines {
    lines: Vec<Line>,
    locks: Vec<LockLine>,
}

impl SharedLines {
    fn new() -> SharedLines {
        SharedLines {
            lines: (0..LINES).map(|_| Line(AtomicU64::new(0))).collect(),
            locks: (0..LINES).map(|_| LockLine(Mutex::new(()))).collect(),
        }
    }

    /// Update `i`: the atomic increment of line `i`, or under `Locked`, lock `i` taken, the
    /// line it guards, (7·i + 3) mod [`LINES`] (a block apart from the lock's),
    /// incremented with a plain load and store, the lock released. Returns the value read.
    fn update(&self, i: usize, how: Updates) -> u64 {
        if how != Updates::Locked {
            return self.lines[i].0.fetch_add(1, Ordering::AcqRel);
        }
        let guard = self.locks[i].0.lock().unwrap_or_else(|e| e.into_inner());
        let data = &self.lines[(i * 7 + 3) % LINES].0;
        let seen = data.load(Ordering::Relaxed);
        data.store(seen + 1, Ordering::Relaxed);
        drop(guard);
        seen
    }
}

/// One thread's timed run: wall-clock start and end on the kernel's clock, and the
/// processor-seconds the thread ran in between (None where the system cannot say).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThreadRun {
    /// Start, seconds on the kernel's clock.
    pub start: f64,
    /// End, seconds on the kernel's clock.
    pub end: f64,
    /// Seconds the thread ran on a processor between start and end.
    pub cpu_s: Option<f64>,
}

impl ThreadRun {
    /// A run that did not happen (a thread that panicked): it overlaps nothing.
    const NONE: ThreadRun = ThreadRun {
        start: f64::NAN,
        end: f64::NAN,
        cpu_s: None,
    };

    fn wall_s(&self) -> f64 {
        self.end - self.start
    }
}

/// Whether an update's line depends on the previous update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Updates {
    /// The next line comes from the generator alone: trips may overlap.
    Overlapping,
    /// The next line depends on the value the previous update read: each trip is paid whole.
    Chained,
    /// Each update takes a lock (a `std::sync::Mutex` on a block of its own), increments
    /// the data line it guards (another block) with a plain load and store and releases
    /// the lock; the next lock depends on the value read, as in `Chained`. Two lines move
    /// when another processor did the last update, and whether their trips overlap is the
    /// processor's business: what a sharded lock's update pays.
    Locked,
}

/// `updates` increments of lines picked by a xorshift generator seeded with `seed`, timed.
fn run<C: Clock + ?Sized>(
    clock: &C,
    shared: &SharedLines,
    updates: u64,
    seed: u64,
    how: Updates,
) -> ThreadRun {
    let chained = u64::from(how != Updates::Overlapping);
    let mut x = seed | 1;
    let cpu0 = thread_cpu_s();
    let start = clock.now_s();
    for _ in 0..updates {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let seen = shared.update((x % LINES as u64) as usize, how);
        // Chained: the next line depends on what this update read, so the processor cannot
        // fetch it while this one is on its way (a multiply, not a branch, either way).
        x = x.wrapping_add((seen | 1) * chained);
    }
    black_box(x);
    let end = clock.now_s();
    let cpu_s = thread_cpu_s().zip(cpu0).map(|(b, a)| b - a);
    ThreadRun { start, end, cpu_s }
}

/// The time all intervals ran at once, as a share of the longest one (0 for none, and when
/// a run did not happen).
pub fn overlap(runs: &[ThreadRun]) -> f64 {
    if runs.iter().any(|r| r.start.is_nan() || r.end.is_nan()) {
        return 0.0;
    }
    let longest = runs.iter().map(ThreadRun::wall_s).fold(0.0, f64::max);
    let first_end = runs.iter().map(|r| r.end).fold(f64::INFINITY, f64::min);
    let last_start = runs
        .iter()
        .map(|r| r.start)
        .fold(f64::NEG_INFINITY, f64::max);
    let all = (first_end - last_start).max(0.0);
    if longest > 0.0 && !runs.is_empty() {
        all / longest
    } else {
        0.0
    }
}

/// Whether the threads ran side by side: their intervals overlap by [`MIN_OVERLAP`] and
/// each ran for [`MIN_ON_CPU`] of its interval (where the system says).
pub fn side_by_side(runs: &[ThreadRun]) -> bool {
    let o = overlap(runs);
    let on_cpu = runs.iter().all(|r| match r.cpu_s {
        Some(c) => c >= MIN_ON_CPU * r.wall_s(),
        None => true,
    });
    !o.is_nan() && o >= MIN_OVERLAP && on_cpu
}

/// The bounce price among `k` threads from the two measurements: `alone` seconds per update
/// on one thread, `together` processor-seconds per update with `k` threads at once; the
/// extra over the chance (k − 1)/k that another thread wrote the line last, at least 0.
pub fn bounce_price(alone: f64, together: f64, k: usize) -> f64 {
    if k < 2 {
        return 0.0;
    }
    ((together - alone) * k as f64 / (k - 1) as f64).max(0.0)
}

/// Runs `work(i)` on `k` scoped threads at once, thread i pinned to `cpus[i]` (where
/// pinning works), released together once all have started.
fn together<T: Send>(k: usize, cpus: &[usize], work: impl Fn(usize) -> T + Sync) -> Vec<Option<T>> {
    let ready = AtomicU64::new(0);
    let side = |i: usize| {
        if let Some(&cpu) = cpus.get(i) {
            pin_current_thread(cpu);
        }
        ready.fetch_add(1, Ordering::AcqRel);
        super::handoff::spin_until(&ready, |v| v >= k as u64, 1 << 12);
        work(i)
    };
    std::thread::scope(|sc| {
        let handles: Vec<_> = (0..k).map(|i| sc.spawn(move || side(i))).collect();
        handles.into_iter().map(|h| h.join().ok()).collect()
    })
}

/// One repetition: seconds one line bounce adds to an update when `k` threads update the
/// [`LINES`] lines at once, `updates` each (see the module docs); `rotation` seeds the draw
/// of the allowed processors the threads run on (repetitions visit different ones). NaN when
/// the threads did not run side by side in any of [`ATTEMPTS`] tries, or fewer than `k`
/// processors are allowed.
pub fn line_bounce_once<C: Clock + ?Sized>(
    clock: &C,
    k: usize,
    updates: u64,
    rotation: usize,
    how: Updates,
) -> f64 {
    let cpus = cpus_for(&allowed_cpus(), k, rotation);
    if k < 2 || cpus.len() < k {
        return f64::NAN;
    }
    line_bounce_tries(clock, &cpus, updates, how)
}

/// [`line_bounce_on`] tried up to [`ATTEMPTS`] times: the first price of a try whose
/// threads ran side by side, NaN when none did. A repetition on given processors, as
/// [`super::pairs`] times each pair.
pub fn line_bounce_tries<C: Clock + ?Sized>(
    clock: &C,
    cpus: &[usize],
    updates: u64,
    how: Updates,
) -> f64 {
    (0..ATTEMPTS)
        .map(|_| line_bounce_on(clock, cpus, updates, how))
        .find(|x| !x.is_nan())
        .unwrap_or(f64::NAN)
}

/// [`line_bounce_once`] with one thread on each of `cpus` (the alone run on the first); NaN
/// when they did not run side by side (as when two of them are the same processor).
pub fn line_bounce_on<C: Clock + ?Sized>(
    clock: &C,
    cpus: &[usize],
    updates: u64,
    how: Updates,
) -> f64 {
    let updates = updates.max(1);
    match runs_on(clock, cpus, updates, how) {
        Some((alone, runs)) if side_by_side(&[alone]) && side_by_side(&runs) => {
            let alone_s = alone.wall_s() / updates as f64;
            let total: f64 = runs.iter().map(ThreadRun::wall_s).sum();
            bounce_price(
                alone_s,
                total / (runs.len() as u64 * updates) as f64,
                runs.len(),
            )
        }
        _ => f64::NAN,
    }
}

/// The kernel's timed runs: one thread alone on `cpus[0]`, then one thread on each of
/// `cpus` at once, `updates` each; None when the alone thread did not finish.
fn runs_on<C: Clock + ?Sized>(
    clock: &C,
    cpus: &[usize],
    updates: u64,
    how: Updates,
) -> Option<(ThreadRun, Vec<ThreadRun>)> {
    let shared = SharedLines::new();
    // Alone: one thread on the first of the processors, its lines in its own cache.
    let alone = together(1, &cpus[..1.min(cpus.len())], |_| {
        run(clock, &shared, updates / 4, 7, how);
        run(clock, &shared, updates, 11, how)
    });
    let alone = alone.into_iter().next().flatten()?;
    let runs = together(cpus.len(), cpus, |i| {
        run(clock, &shared, updates, 13 + 4 * i as u64, how)
    })
    .into_iter()
    .map(|r| r.unwrap_or(ThreadRun::NONE))
    .collect();
    Some((alone, runs))
}

/// What each further thread adds to a bounce among three processors or more, seconds, from
/// `(K, price)` pairs (NaN prices left out), at least 0:
///
/// - with prices at two K ≥ 3 or more, the least-squares slope of the price over those K
///   (intercept free). The price at K = 2 is left out: it is a mean over pairs of
///   processors that may hold a stand-in (the one-way hand-off, where no repetition ran
///   side by side), and the step from two processors to more can be a jump far larger
///   than the growth beyond (docs/machine.md, "The price of a shared line"), which a line
///   through K = 2 would mix into the slope;
/// - with one price at K ≥ 3, the slope from the price at K = 2 to it;
/// - otherwise (a 2-processor machine) 0.
pub fn per_thread_growth(by_k: &[(usize, f64)]) -> f64 {
    let beyond: Vec<(f64, f64)> = by_k
        .iter()
        .filter(|(k, b)| *k >= 3 && b.is_finite())
        .map(|&(k, b)| (k as f64, b))
        .collect();
    let slope = match beyond.as_slice() {
        [] => 0.0,
        [(k, b)] => match by_k.iter().find(|(k2, b2)| *k2 == 2 && b2.is_finite()) {
            Some(&(_, b2)) => (b - b2) / (k - 2.0),
            None => 0.0,
        },
        _ => least_squares_slope(&beyond),
    };
    slope.max(0.0)
}

/// The least-squares slope of y over x (intercept free) of at least two points with
/// distinct x.
fn least_squares_slope(xy: &[(f64, f64)]) -> f64 {
    let n = xy.len() as f64;
    let mx = xy.iter().map(|(x, _)| x).sum::<f64>() / n;
    let my = xy.iter().map(|(_, y)| y).sum::<f64>() / n;
    let (num, den) = xy.iter().fold((0.0, 0.0), |(num, den), (x, y)| {
        (num + (x - mx) * (y - my), den + (x - mx) * (x - mx))
    });
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: f64, end: f64, cpu_s: Option<f64>) -> ThreadRun {
        ThreadRun { start, end, cpu_s }
    }

    #[test]
    fn the_price_is_the_extra_per_update_over_the_chance_another_wrote_last() {
        // Two threads: 10 ns alone, 60 ns per update at once: half of the updates found the
        // line in the other cache, each paying 100 ns.
        assert!((bounce_price(10e-9, 60e-9, 2) - 100e-9).abs() < 1e-18);
        assert_eq!(bounce_price(10e-9, 8e-9, 2), 0.0);
        // Four threads: 3/4 of the updates find the line elsewhere.
        assert!((bounce_price(10e-9, 85e-9, 4) - 100e-9).abs() < 1e-17);
        assert_eq!(bounce_price(10e-9, 85e-9, 1), 0.0);
    }

    #[test]
    fn overlap_tells_side_by_side_from_one_after_the_other() {
        assert!((overlap(&[r(0.0, 10.0, None), r(1.0, 10.0, None)]) - 0.9).abs() < 1e-12);
        assert_eq!(overlap(&[r(0.0, 10.0, None), r(10.0, 20.0, None)]), 0.0);
        assert!((overlap(&[r(0.0, 10.0, None), r(5.0, 15.0, None)]) - 0.5).abs() < 1e-12);
        // Three threads: the time all three ran.
        let three = [r(0.0, 10.0, None), r(2.0, 10.0, None), r(0.0, 8.0, None)];
        assert!((overlap(&three) - 0.6).abs() < 1e-12);
        assert_eq!(overlap(&[r(0.0, 10.0, None), ThreadRun::NONE]), 0.0);
    }

    #[test]
    fn threads_that_took_turns_on_one_processor_are_not_side_by_side() {
        // Both intervals span the run, but each thread ran only half of it.
        let turns = [r(0.0, 10.0, Some(5.0)), r(0.0, 10.0, Some(5.1))];
        assert!((overlap(&turns) - 1.0).abs() < 1e-12);
        assert!(!side_by_side(&turns));
        let own = [r(0.0, 10.0, Some(9.8)), r(0.1, 10.0, Some(9.9))];
        assert!(side_by_side(&own));
        // Without a per-thread clock only the overlap judges.
        assert!(side_by_side(&[r(0.0, 10.0, None), r(0.5, 10.0, None)]));
    }

    #[test]
    fn a_locked_update_increments_its_data_line_once() {
        let shared = SharedLines::new();
        assert_eq!(shared.update(5, Updates::Locked), 0);
        assert_eq!(shared.update(5, Updates::Locked), 1);
        // Lock 5 guards another block than line 5.
        assert_eq!(shared.update(5, Updates::Overlapping), 0);
        assert_eq!(
            shared.lines[(5 * 7 + 3) % LINES].0.load(Ordering::Relaxed),
            2
        );
    }

    #[test]
    fn the_growth_per_thread_is_the_slope_over_three_threads_and_more() {
        // 75 ns at 2 threads, 6.5 ns more per further thread.
        let by_k: Vec<(usize, f64)> = (2..=16)
            .map(|k| (k, 75e-9 + 6.5e-9 * (k - 2) as f64))
            .collect();
        assert!((per_thread_growth(&by_k) - 6.5e-9).abs() < 1e-15);
        // A price at 2 of another kind (a stand-in, or overlapping trips) does not move it:
        // 20 ns at 2, then 55 ns at 4 and 3 ns more per thread.
        let mut jump: Vec<(usize, f64)> = (4..=16)
            .map(|k| (k, 55e-9 + 3e-9 * (k - 4) as f64))
            .collect();
        jump.push((2, 20e-9));
        assert!((per_thread_growth(&jump) - 3e-9).abs() < 1e-15);
        // With one price beyond 2 (a NaN is left out): the slope from the price at 2.
        let gappy = [(2, 75e-9), (3, f64::NAN), (4, 88e-9)];
        assert!((per_thread_growth(&gappy) - 6.5e-9).abs() < 1e-15);
        // Falling prices give 0; a 2-processor machine, or one price beyond 2 and none at
        // 2, gives 0.
        assert_eq!(per_thread_growth(&[(2, 75e-9), (3, 60e-9)]), 0.0);
        assert_eq!(per_thread_growth(&[(3, 90e-9), (4, 80e-9)]), 0.0);
        assert_eq!(per_thread_growth(&[(2, 75e-9)]), 0.0);
        assert_eq!(per_thread_growth(&[(2, f64::NAN), (3, 80e-9)]), 0.0);
    }

    #[test]
    fn two_threads_on_one_processor_price_nothing() {
        // They take turns (or run one after the other): each runs about half of its
        // interval, and the repetition is left out rather than priced at about twice an
        // update alone. 2 million updates each: tens of milliseconds.
        let clock = super::super::clock::MonotonicClock::new();
        let cpu = allowed_cpus()[0];
        if cfg!(target_os = "linux") {
            assert!(line_bounce_on(&clock, &[cpu, cpu], 2_000_000, Updates::Overlapping).is_nan());
        }
    }

    /// Prints, for each pair of processors the calibration visits ([`super::super::pairs`]),
    /// the price from two threads on the pair and on its first processor alone (unchecked):
    /// run by hand
    /// (`cargo test --release -p lcm --lib placement_report -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn placement_report() {
        let clock = super::super::clock::MonotonicClock::new();
        let cpus = allowed_cpus();
        let unchecked = |cpus: &[usize]| {
            let (alone, runs) = runs_on(&clock, cpus, 2_000_000, Updates::Overlapping).unwrap();
            let a = alone.wall_s() / 2e6;
            let t = runs.iter().map(ThreadRun::wall_s).sum::<f64>() / (runs.len() as f64 * 2e6);
            let on: Vec<f64> = runs
                .iter()
                .map(|r| r.cpu_s.unwrap_or(f64::NAN) / r.wall_s())
                .collect();
            (a, bounce_price(a, t, runs.len()), side_by_side(&runs), on)
        };
        for pair in super::super::pairs::distinct_pairs(&cpus, super::super::pairs::MAX_PAIRS, 1) {
            let two = pair.to_vec();
            println!("two processors {two:?}: {:?}", unchecked(&two));
            println!(
                "one processor {:?}: {:?}",
                two[0],
                unchecked(&[two[0], two[0]])
            );
        }
    }

    #[test]
    fn a_real_repetition_is_finite_and_not_negative_or_unjudged() {
        let clock = super::super::clock::MonotonicClock::new();
        for how in [Updates::Chained, Updates::Locked] {
            let x = line_bounce_once(&clock, 2, 200_000, 0, how);
            assert!(x.is_nan() || (x.is_finite() && x >= 0.0), "{x}");
        }
        // More threads than allowed processors: no price.
        let too_many = allowed_cpus().len() + 1;
        assert!(line_bounce_once(&clock, too_many, 1000, 0, Updates::Overlapping).is_nan());
    }
}
