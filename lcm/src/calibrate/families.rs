//! The kernel families of `lcm calibrate`, one function each: it runs its kernels through
//! [`median_of_quiet`], records how every number was kept under its machine-file key
//! ([`Recorder`]) and returns the family's numbers as measured (NaN where a kernel could not
//! run). The floors, stand-ins and warnings of the machine file are [`super::assemble`]'s.
//!
//! [`super::calibrate_with`] calls the families in the order of the module docs' list, which
//! is the order the kernels run in.

use super::clock::Clock;
use super::quiet::{median_of_quiet, median_of_quiet_each, Kept, LoadProbe};
use super::warnings::{line_warning, pair_warning, wake_spread_warning};
use super::{
    channel_handoff, handoff, lines, memory, pairs, par_call, placement, pool, spin_window,
    wake_prices, CalibrateOptions,
};
use std::collections::BTreeMap;

/// Repeats kernels and keeps, per machine-file key, how each number was kept.
pub(super) struct Recorder<'a> {
    /// Repetitions of each kernel.
    pub repetitions: usize,
    /// Judges whether a repetition ran on a quiet machine.
    pub probe: &'a dyn LoadProbe,
    /// Per machine-file key: how its number was kept.
    pub kept: BTreeMap<String, Kept>,
}

impl Recorder<'_> {
    /// Records `k` under `key` and returns the value kept.
    fn keep(&mut self, key: String, k: Kept) -> f64 {
        let value = k.value;
        self.kept.insert(key, k);
        value
    }

    /// Repeats `once`, records the median of its quiet repetitions under `key` and returns
    /// it.
    fn measure(&mut self, key: String, once: impl FnMut() -> f64) -> f64 {
        let k = median_of_quiet(self.repetitions, self.probe, once);
        self.keep(key, k)
    }
}

/// The rayon pool's prices, as measured.
pub(super) struct PoolPrices {
    /// Fork/join seconds by the pool's threads q = 1 … p (pools that could not be built are
    /// left out).
    pub fork_join_by_p: Vec<(usize, f64)>,
    /// The fork/join fit `base + log2p * log2(q)`: its base, seconds.
    pub fork_join_base_s: f64,
    /// The fork/join fit's seconds per doubling of the threads.
    pub fork_join_log2p_s: f64,
    /// One small parallel-iterator call by the pool's threads q = 1 … p, seconds.
    pub par_call_by_p: Vec<(usize, f64)>,
    /// Processor-seconds per task spawned in a scope.
    pub task_s: f64,
    /// Processor-seconds per parallel-iterator item.
    pub par_item_s: f64,
    /// Processor-seconds per `rayon::join` of a recursion.
    pub join_s: f64,
}

/// Fork/join and parallel calls on pools of 1 … `max_threads` threads, then tasks, items and
/// joins on the largest pool ([`pool`], [`par_call`]).
pub(super) fn measure_pool(
    rec: &mut Recorder,
    clock: &dyn Clock,
    opts: &CalibrateOptions,
    max_threads: usize,
) -> PoolPrices {
    let mut fork_join_by_p = Vec::new();
    for q in 1..=max_threads {
        if let Some(pool) = pool::pool(q) {
            let t = rec.measure(format!("fork_join_s_p{q}"), || {
                pool::fork_join_once(clock, &pool, opts.fork_joins)
            });
            fork_join_by_p.push((q, t));
        }
    }
    let (fork_join_base_s, fork_join_log2p_s) = pool::fit_log2p(&fork_join_by_p);
    let mut par_call_by_p = Vec::new();
    for q in 1..=max_threads {
        if let Some(pool) = pool::pool(q) {
            let t = rec.measure(format!("par_call_s_p{q}"), || {
                par_call::par_call_once(clock, &pool, opts.par_calls, par_call::ITEMS)
            });
            par_call_by_p.push((q, t));
        }
    }
    let (task_s, par_item_s) = match pool::pool(max_threads) {
        Some(pool) => (
            rec.measure("task_s".into(), || {
                pool::task_once(clock, &pool, opts.tasks)
            }),
            rec.measure("par_item_s".into(), || {
                pool::item_once(clock, &pool, opts.items)
            }),
        ),
        None => (f64::NAN, f64::NAN),
    };
    let join_s = match pool::pool(max_threads) {
        Some(pool) => rec.measure("join_s".into(), || {
            pool::join_once(clock, &pool, opts.join_depth)
        }),
        None => f64::NAN,
    };
    PoolPrices {
        fork_join_by_p,
        fork_join_base_s,
        fork_join_log2p_s,
        par_call_by_p,
        task_s,
        par_item_s,
        join_s,
    }
}

/// The hand-off prices, as measured.
pub(super) struct HandoffPrices {
    /// One-way hand-off between two spinning threads, seconds (the median kept).
    pub spin_s: f64,
    /// The least kept repetition of `spin_s` (the one other load disturbed least).
    pub spin_least_s: f64,
    /// Longest wait a channel's receiver still spends spinning, seconds.
    pub spin_window_s: f64,
    /// What a send to a parked receiver costs the sender beyond one to a spinning one,
    /// seconds.
    pub notify_s: f64,
    /// How much later a parked receiver runs after the send than a spinning one, seconds.
    pub wake_s: f64,
    /// The whole one-way hand-off to a parked receiver, seconds (not a key of the file).
    pub one_way_s: f64,
    /// What to say when `wake_s`'s repetitions lie far apart.
    pub wake_spread_warning: Option<String>,
}

/// The spinning hand-off ([`handoff`]), then the channel sweep read as the spin window
/// ([`spin_window`]) and the prices of a wake-up ([`wake_prices`]).
pub(super) fn measure_handoffs(
    rec: &mut Recorder,
    clock: &dyn Clock,
    opts: &CalibrateOptions,
) -> HandoffPrices {
    let spin_k = median_of_quiet(rec.repetitions, rec.probe, || {
        handoff::spin_once(clock, opts.spin_trips)
    });
    let spin_least_s = spin_k.low;
    let spin_s = rec.keep("handoff_spin_s".into(), spin_k);
    let window_delays = spin_window::default_delays();
    let [window_k, notify_k, wake_k, one_way_k] =
        median_of_quiet_each(rec.repetitions, rec.probe, || {
            let h = channel_handoff::handoffs_once(clock, &window_delays, opts.spin_window_trips);
            let prices = wake_prices::wake_prices_of(&h);
            [
                spin_window::window_of(&spin_window::sweep_of(&h, &window_delays)),
                prices.notify_s,
                prices.wake_s,
                prices.one_way_s,
            ]
        });
    let spin_window_s = rec.keep("handoff_spin_window_s".into(), window_k);
    let notify_s = rec.keep("handoff_notify_s".into(), notify_k);
    let wake_spread_warning = wake_spread_warning(&wake_k);
    let wake_s = rec.keep("handoff_wake_s".into(), wake_k);
    HandoffPrices {
        spin_s,
        spin_least_s,
        spin_window_s,
        notify_s,
        wake_s,
        one_way_s: one_way_k.value,
        wake_spread_warning,
    }
}

/// Reads of a buffer by size, as measured.
pub(super) struct TransferPrices {
    /// Seconds to read a buffer another thread wrote, by its bytes.
    pub transfer_by_bytes: Vec<(usize, f64)>,
    /// Seconds to read a buffer this thread wrote, by its bytes.
    pub local_read_by_bytes: Vec<(usize, f64)>,
    /// Whether some repetition could not pin writer and reader to two distinct processors.
    pub unpinned: bool,
}

/// Cache-to-cache transfers and local reads at every size of
/// [`CalibrateOptions::transfer_bytes`] ([`memory`]), each repetition on the next pair of
/// processors (the local read on the same repetition's reader processor).
pub(super) fn measure_transfers(
    rec: &mut Recorder,
    clock: &dyn Clock,
    opts: &CalibrateOptions,
) -> TransferPrices {
    let (mut transfer_by_bytes, mut local_read_by_bytes) = (Vec::new(), Vec::new());
    let mut unpinned = false;
    for &b in &opts.transfer_bytes {
        // At least 64 MiB read per repetition, at least 2 rounds.
        let rounds = ((64usize << 20) / b.max(1)).clamp(2, 4096);
        let mut rotation = 0usize;
        let t = rec.measure(format!("transfer_s_{b}"), || {
            rotation += 1;
            let read = memory::transfer_once(clock, b, rounds, rotation);
            unpinned |= !read.pinned;
            read.seconds
        });
        transfer_by_bytes.push((b, t));
        let mut rotation = 0usize;
        let t = rec.measure(format!("local_read_s_{b}"), || {
            rotation += 1;
            let read = memory::local_read_once(clock, b, rounds, rotation);
            unpinned |= !read.pinned;
            read.seconds
        });
        local_read_by_bytes.push((b, t));
    }
    TransferPrices {
        transfer_by_bytes,
        local_read_by_bytes,
        unpinned,
    }
}

/// The prices of a shared cache line, as measured.
pub(super) struct LinePrices {
    /// Overlapping updates' line price by the processors K = 2 … p writing it (K = 2 is
    /// `line_bounce_s`, the mean over pairs of processors; the list is never empty).
    pub bounce_by_k: Vec<(usize, f64)>,
    /// How far the pairs' prices of `line_bounce_s` lie apart, largest over least (NaN with
    /// fewer than two priced pairs).
    pub bounce_pair_spread: f64,
    /// What each processor beyond two adds to the line price (fit over `bounce_by_k`).
    pub bounce_per_thread_s: f64,
    /// The whole trip of a line between two processors (chained updates; the mean over
    /// pairs), seconds.
    pub trip_s: f64,
    /// A lock-protected update's price between two processors (the lock's line and the
    /// data's; chained; the mean over pairs), seconds.
    pub lock_s: f64,
    /// What to say of prices no repetition measured or whose repetitions or pairs lie far
    /// apart, in the order of the keys above.
    pub warnings: Vec<String>,
}

impl LinePrices {
    /// `line_bounce_s`: the line price at K = 2.
    pub fn bounce_s(&self) -> f64 {
        self.bounce_by_k[0].1
    }
}

/// What stands in for `line_bounce_s` when no repetition measured it (the warning's words).
const BOUNCE_STAND_IN: &str = "the file holds the least repetition of handoff_spin_s (the one-way trip of a line between two spinning threads, the one other load disturbed least) in its place";

/// The line written by two processors, over pairs of processors ([`pairs`]), then by
/// K = 3 … `max_threads` at once, then the chained trip between two, over the same pairs
/// ([`lines`]).
pub(super) fn measure_lines(
    rec: &mut Recorder,
    clock: &dyn Clock,
    opts: &CalibrateOptions,
    max_threads: usize,
) -> LinePrices {
    let mut warnings = Vec::new();
    let allowed = placement::allowed_cpus();
    let plan = pairs::plan_pairs(&allowed, rec.repetitions, opts.bounce_updates, 1);
    let bounce = pairs::over_pairs(&plan, rec.probe, |pair, updates| {
        lines::line_bounce_tries(clock, &pair, updates, lines::Updates::Overlapping)
    });
    let bounce_pair_spread = bounce.pair_spread();
    warnings.extend(pair_warning(
        "line_bounce_s",
        &bounce,
        BOUNCE_STAND_IN,
        Some("line_bounce_pair_spread"),
    ));
    let mut bounce_by_k = vec![(2, rec.keep("line_bounce_s".into(), bounce.kept))];
    let mut rotation = 0usize;
    for k in 3..=max_threads {
        let key = format!("line_bounce_s_k{k}");
        let updates = (opts.bounce_updates * 2 / k as u64).max(1);
        let kk = median_of_quiet(rec.repetitions, rec.probe, || {
            rotation += 1;
            lines::line_bounce_once(clock, k, updates, rotation, lines::Updates::Overlapping)
        });
        warnings.extend(line_warning(&key, &kk, "the key is left out"));
        bounce_by_k.push((k, rec.keep(key, kk)));
    }
    let bounce_per_thread_s = lines::per_thread_growth(&bounce_by_k);
    // The whole trip of a line between two processors (updates chained): what an update
    // pays when nothing overlaps it, beside line_bounce_s's overlapping updates; and a
    // lock-protected update (lock and data on two lines), chained as the trip is.
    let mut chained_price = |key: &str, how: lines::Updates| {
        let over = pairs::over_pairs(&plan, rec.probe, |pair, updates| {
            lines::line_bounce_tries(clock, &pair, updates, how)
        });
        warnings.extend(pair_warning(key, &over, "the key is left out", None));
        rec.keep(key.into(), over.kept)
    };
    let trip_s = chained_price("line_trip_s", lines::Updates::Chained);
    let lock_s = chained_price("line_lock_s", lines::Updates::Locked);
    LinePrices {
        bounce_by_k,
        bounce_pair_spread,
        bounce_per_thread_s,
        trip_s,
        lock_s,
        warnings,
    }
}

/// Memory bandwidth and contention, as measured.
pub(super) struct MemoryPrices {
    /// Bytes per second copying a buffer another thread wrote.
    pub bandwidth_bytes_per_s: f64,
    /// A STREAM triad's slowdown when k threads run it at once, k = 1 … p (1 at k = 1).
    pub mem_slowdown_by_k: Vec<(usize, f64)>,
}

/// Copy bandwidth, then the triad's slowdown at k = 2 … `max_threads` threads ([`memory`]).
pub(super) fn measure_memory(
    rec: &mut Recorder,
    clock: &dyn Clock,
    opts: &CalibrateOptions,
    max_threads: usize,
) -> MemoryPrices {
    let mut seed = 0u64;
    let bandwidth_bytes_per_s = rec.measure("bandwidth_bytes_per_s".into(), || {
        seed += 1;
        memory::copy_bandwidth_once(clock, opts.copy_bytes, seed)
    });
    let mut mem_slowdown_by_k = vec![(1, 1.0)];
    for k in 2..=max_threads {
        let s = rec.measure(format!("mem_slowdown_k{k}"), || {
            memory::triad_slowdown_once(clock, k, opts.triad_len)
        });
        mem_slowdown_by_k.push((k, s));
    }
    MemoryPrices {
        bandwidth_bytes_per_s,
        mem_slowdown_by_k,
    }
}
