//! `lcm calibrate`: microbenchmarks of what parallel execution costs on this machine, kept
//! as the machine file that `lcm predict --machine` reads ([`crate::predict::machine`]
//! documents its keys and units).
//!
//! Kernels (each one repetition; [`quiet::median_of_quiet`] repeats it and keeps the median
//! of the quiet repetitions):
//! - [`pool`]: fork/join of a rayon pool by its threads q = 1 … p, the cost of a task
//!   spawned in a scope, of a `rayon::join` in a recursion, of an item of a parallel
//!   iterator;
//! - [`par_call`]: one small parallel-iterator call (a fold/reduce of a thousand cheap
//!   items) issued from inside a pool of q = 1 … p threads, beyond its items' work;
//! - [`handoff`]: hand-off latency between two threads that spin;
//! - [`channel_handoff`]: hand-offs over a channel after the receiver waited a swept delay,
//!   read twice: [`spin_window`], the longest wait a receiver blocked on a channel still
//!   spends spinning (beyond it, a send wakes a parked thread), and [`wake_prices`], what a
//!   send to a receiver parked for long costs the sender and how much later the receiver
//!   runs than a spinning one;
//! - [`memory`]: cache-to-cache transfer by size (L1 to beyond the last-level cache), the
//!   same read of a buffer the reader wrote itself, copy bandwidth, and the slowdown of a
//!   STREAM triad when k of p threads run it at once;
//! - [`lines`]: the price of a cache line written by K processors at once (an atomic update
//!   that finds the line in another processor's cache), K = 2 … p, each thread on a
//!   processor of its own ([`placement`]), and how much each further processor adds.
//!
//! A calibration also says which of its numbers not to trust blindly
//! ([`Calibration::warnings`]): a line price no repetition could measure (and what stands
//! in for it), or one whose repetitions lie more than [`LINE_SPREAD_LIMIT`] times apart,
//! and the same spread of `handoff_wake_s`'s repetitions.
//!
//! None of them runs a program's own code: they price the runtime and the machine, so one
//! file serves every program. The clock is behind [`clock::Clock`] (tests drive the kernels'
//! arithmetic with a fake one) and the load probe behind [`quiet::LoadProbe`].
//!
//! ```no_run
//! let c = lcm::calibrate::calibrate(&lcm::calibrate::CalibrateOptions::quick());
//! println!("{}", c.machine.to_text());
//! ```

pub mod channel_handoff;
pub mod clock;
pub mod handoff;
pub mod lines;
pub mod memory;
pub mod par_call;
pub mod placement;
pub mod pool;
pub mod quiet;
pub mod spin_window;
pub mod wake_prices;
mod warnings;

use crate::predict::machine::{Costs, Machine};
use clock::{Clock, MonotonicClock};
use quiet::{median_of_quiet, median_of_quiet_each, Kept, LoadProbe, ProcProbe};
use std::collections::BTreeMap;

/// What to measure and how long.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrateOptions {
    /// Repetitions of each kernel (the median of the quiet ones is kept).
    pub repetitions: usize,
    /// Threads to measure up to (fork/join by q, memory slowdown by k).
    pub max_threads: usize,
    /// Back-to-back fork/joins per repetition.
    pub fork_joins: usize,
    /// Tasks spawned per repetition.
    pub tasks: usize,
    /// Levels of the binary join tree per repetition (`2^join_depth - 1` joins).
    pub join_depth: u32,
    /// Parallel-iterator items per repetition.
    pub items: usize,
    /// Back-to-back parallel-iterator calls (of [`par_call::ITEMS`] items) per repetition.
    pub par_calls: usize,
    /// Spinning hand-off round trips per repetition.
    pub spin_trips: u64,
    /// Trips over every delay per repetition of the channel hand-off sweep (the spin window
    /// and the prices of a wake-up: [`wake_prices`] reads the trips' delays of 1 ms and more).
    pub spin_window_trips: u64,
    /// Buffer sizes of the transfer kernel, bytes.
    pub transfer_bytes: Vec<usize>,
    /// Atomic updates per repetition of the shared-line kernel, per thread at 2 threads
    /// (at K threads, `2 / K` of it per thread: the same updates in all).
    pub bounce_updates: u64,
    /// Bytes of the copy-bandwidth buffer.
    pub copy_bytes: usize,
    /// Doubles per triad array (three arrays per thread).
    pub triad_len: usize,
}

impl CalibrateOptions {
    /// The full calibration (some seconds on 2 cores).
    pub fn full() -> CalibrateOptions {
        CalibrateOptions {
            repetitions: 9,
            max_threads: available_threads(),
            fork_joins: 4_000,
            tasks: 100_000,
            join_depth: 17,
            items: 20_000_000,
            par_calls: 2_000,
            spin_trips: 20_000,
            spin_window_trips: 30,
            transfer_bytes: vec![4 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20],
            bounce_updates: 2_000_000,
            copy_bytes: 64 << 20,
            triad_len: 4 << 20,
        }
    }

    /// A shorter calibration (about a second on 2 cores).
    pub fn quick() -> CalibrateOptions {
        CalibrateOptions {
            repetitions: 5,
            fork_joins: 1_000,
            tasks: 20_000,
            join_depth: 15,
            items: 2_000_000,
            par_calls: 2_000,
            spin_trips: 5_000,
            spin_window_trips: 10,
            transfer_bytes: vec![4 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20],
            bounce_updates: 500_000,
            copy_bytes: 16 << 20,
            triad_len: 2 << 20,
            ..CalibrateOptions::full()
        }
    }
}

/// The processors this process may use (1 when unknown).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

use warnings::{handoff_warnings, line_against_spin, line_warning, wake_spread_warning};
pub use warnings::{LINE_SPREAD_LIMIT, SPIN_HANDOFF_LIMIT_S};

/// The result of a calibration: the machine file and how each number was kept.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The machine prices.
    pub machine: Machine,
    /// Per machine-file key: repetitions run, quiet, unknown, the value kept.
    pub kept: BTreeMap<String, Kept>,
    /// Numbers not to trust blindly, one sentence each naming its key (see the module docs).
    pub warnings: Vec<String>,
}

/// Runs every kernel with the real clock and the `/proc` load probe.
pub fn calibrate(opts: &CalibrateOptions) -> Calibration {
    calibrate_with(opts, &MonotonicClock::new(), &ProcProbe)
}

/// Runs every kernel on `clock`, judging quiet with `probe`.
pub fn calibrate_with(
    opts: &CalibrateOptions,
    clock: &dyn Clock,
    probe: &dyn LoadProbe,
) -> Calibration {
    let mut kept = BTreeMap::new();
    let reps = opts.repetitions;
    let mut keep = |key: String, k: Kept| -> f64 {
        let v = k.value;
        kept.insert(key, k);
        v
    };
    let pmax = opts.max_threads.max(1);
    let mut fork_join_by_p = Vec::new();
    for q in 1..=pmax {
        if let Some(pool) = pool::pool(q) {
            let k = median_of_quiet(reps, probe, || {
                pool::fork_join_once(clock, &pool, opts.fork_joins)
            });
            fork_join_by_p.push((q, keep(format!("fork_join_s_p{q}"), k)));
        }
    }
    let (base, slope) = pool::fit_log2p(&fork_join_by_p);
    let mut par_call_by_p = Vec::new();
    for q in 1..=pmax {
        if let Some(pool) = pool::pool(q) {
            let k = median_of_quiet(reps, probe, || {
                par_call::par_call_once(clock, &pool, opts.par_calls, par_call::ITEMS)
            });
            par_call_by_p.push((q, keep(format!("par_call_s_p{q}"), k)));
        }
    }
    let (task_s, par_item_s) = match pool::pool(pmax) {
        Some(pool) => (
            keep(
                "task_s".into(),
                median_of_quiet(reps, probe, || pool::task_once(clock, &pool, opts.tasks)),
            ),
            keep(
                "par_item_s".into(),
                median_of_quiet(reps, probe, || pool::item_once(clock, &pool, opts.items)),
            ),
        ),
        None => (f64::NAN, f64::NAN),
    };
    let join_s = match pool::pool(pmax) {
        Some(pool) => keep(
            "join_s".into(),
            median_of_quiet(reps, probe, || {
                pool::join_once(clock, &pool, opts.join_depth)
            }),
        ),
        None => f64::NAN,
    };
    let spin = keep(
        "handoff_spin_s".into(),
        median_of_quiet(reps, probe, || handoff::spin_once(clock, opts.spin_trips)),
    );
    let window_delays = spin_window::default_delays();
    let [window_k, notify_k, wake_k, one_way_k] = median_of_quiet_each(reps, probe, || {
        let h = channel_handoff::handoffs_once(clock, &window_delays, opts.spin_window_trips);
        let prices = wake_prices::wake_prices_of(&h);
        [
            spin_window::window_of(&spin_window::sweep_of(&h, &window_delays)),
            prices.notify_s,
            prices.wake_s,
            prices.one_way_s,
        ]
    });
    let spin_window = keep("handoff_spin_window_s".into(), window_k);
    let notify = keep("handoff_notify_s".into(), notify_k);
    let wake_spread = wake_spread_warning(&wake_k);
    let wake = keep("handoff_wake_s".into(), wake_k);
    let one_way = one_way_k.value;
    let (mut transfer_by_bytes, mut local_read_by_bytes) = (Vec::new(), Vec::new());
    for &b in &opts.transfer_bytes {
        // At least 64 MiB read per repetition, at least 2 rounds.
        let rounds = ((64usize << 20) / b.max(1)).clamp(2, 4096);
        let k = median_of_quiet(reps, probe, || memory::transfer_once(clock, b, rounds));
        transfer_by_bytes.push((b, keep(format!("transfer_s_{b}"), k)));
        let k = median_of_quiet(reps, probe, || memory::local_read_once(clock, b, rounds));
        local_read_by_bytes.push((b, keep(format!("local_read_s_{b}"), k)));
    }
    let mut warnings = Vec::new();
    let mut line_bounce_by_k = Vec::new();
    let mut rotation = 0usize;
    for k in 2..=pmax.max(2) {
        let key = if k == 2 {
            "line_bounce_s".to_string()
        } else {
            format!("line_bounce_s_k{k}")
        };
        let updates = (opts.bounce_updates * 2 / k as u64).max(1);
        let kk = median_of_quiet(reps, probe, || {
            rotation += 1;
            lines::line_bounce_once(clock, k, updates, rotation, lines::Updates::Overlapping)
        });
        let stand_in = if k == 2 {
            "the file holds the least repetition of handoff_spin_s (the one-way trip of a line between two spinning threads, the one other load disturbed least) in its place"
        } else {
            "the key is left out"
        };
        warnings.extend(line_warning(&key, &kk, stand_in));
        line_bounce_by_k.push((k, keep(key, kk)));
    }
    let line_bounce = line_bounce_by_k[0].1;
    let line_bounce_per_thread = lines::per_thread_growth(&line_bounce_by_k);
    // The whole trip of a line between two processors (updates chained): what an update
    // pays when nothing overlaps it, beside line_bounce_s's overlapping updates.
    let trip_updates = opts.bounce_updates.max(1);
    let line_trip_k = median_of_quiet(reps, probe, || {
        rotation += 1;
        lines::line_bounce_once(clock, 2, trip_updates, rotation, lines::Updates::Chained)
    });
    warnings.extend(line_warning(
        "line_trip_s",
        &line_trip_k,
        "the key is left out",
    ));
    let line_trip = keep("line_trip_s".into(), line_trip_k);
    let mut seed = 0u64;
    let bandwidth = keep(
        "bandwidth_bytes_per_s".into(),
        median_of_quiet(reps, probe, || {
            seed += 1;
            memory::copy_bandwidth_once(clock, opts.copy_bytes, seed)
        }),
    );
    let mut mem_slowdown_by_k = vec![(1, 1.0)];
    for k in 2..=pmax {
        let kk = median_of_quiet(reps, probe, || {
            memory::triad_slowdown_once(clock, k, opts.triad_len)
        });
        mem_slowdown_by_k.push((k, keep(format!("mem_slowdown_k{k}"), kk)));
    }
    let positive = |x: f64, floor: f64| if x.is_finite() && x > 0.0 { x } else { floor };
    // A spinning partner that loses its processor (other load) hands off through the
    // scheduler: such a hand-off is never dearer than the whole one-way hand-off to a
    // parked receiver.
    let spin = if one_way.is_finite() && one_way > 0.0 {
        spin.min(one_way)
    } else {
        spin
    };
    warnings.extend(handoff_warnings(notify, spin_window, wake, spin));
    warnings.extend(wake_spread);
    let wake = wake_prices::wake_for_file(wake, spin);
    warnings.extend(line_against_spin(line_trip, spin));
    // Other load only lengthens a hand-off: the least repetition of the spinning hand-off
    // is the closest to a line's trip, the stand-in for a line price no repetition
    // measured.
    let spin_least = kept.get("handoff_spin_s").map_or(f64::NAN, |k| k.low);
    let line_stand_in = if spin_least.is_finite() && spin_least > 0.0 {
        spin_least.min(spin)
    } else {
        spin
    };
    let mut values = BTreeMap::new();
    for &(k, b) in &line_bounce_by_k[1..] {
        if b.is_finite() {
            values.insert(format!("line_bounce_s_k{k}"), b.max(0.0));
        }
    }
    if line_bounce.is_finite() {
        values.insert("line_bounce_per_thread_s".into(), line_bounce_per_thread);
    }
    if line_trip.is_finite() {
        values.insert("line_trip_s".into(), line_trip.max(0.0));
    }
    if join_s.is_finite() {
        values.insert("join_s".into(), join_s.max(0.0));
    }
    let machine = Machine {
        latency_s: positive(spin, 1e-9),
        bandwidth_bytes_per_s: positive(bandwidth, 1e9),
        costs: Some(Costs {
            fork_join_base_s: positive(base, 1e-9),
            fork_join_log2p_s: if slope.is_finite() { slope } else { 0.0 },
            fork_join_by_p: fork_join_by_p
                .into_iter()
                .map(|(q, t)| (q, positive(t, 1e-9)))
                .collect(),
            task_s: if task_s.is_finite() {
                task_s.max(0.0)
            } else {
                0.0
            },
            par_item_s: if par_item_s.is_finite() {
                par_item_s.max(0.0)
            } else {
                0.0
            },
            par_call_by_p: par_call_by_p
                .into_iter()
                .map(|(q, t)| (q, if t.is_finite() { t.max(0.0) } else { 0.0 }))
                .collect(),
            handoff_spin_s: positive(spin, 1e-9),
            handoff_wake_s: positive(wake, 1e-9),
            handoff_notify_s: (notify.is_finite() && notify > 0.0).then_some(notify),
            handoff_spin_window_s: (spin_window.is_finite() && spin_window > 0.0)
                .then_some(spin_window),
            transfer_by_bytes: transfer_by_bytes
                .into_iter()
                .map(|(b, t)| (b, positive(t, 1e-12)))
                .collect(),
            local_read_by_bytes: local_read_by_bytes
                .into_iter()
                .map(|(b, t)| (b, positive(t, 1e-12)))
                .collect(),
            // With no repetition side by side (a loaded machine), the one-way trip of a
            // line between two spinning threads, the same movement.
            line_bounce_s: Some(if line_bounce.is_finite() {
                line_bounce.max(0.0)
            } else {
                positive(line_stand_in, 1e-9)
            }),
            mem_slowdown_by_k: mem_slowdown_by_k
                .into_iter()
                .map(|(k, s)| (k, positive(s, 1.0)))
                .collect(),
            calibrated_p: pmax,
        }),
        origin: format!(
            "lcm calibrate ({} threads; median of the quiet ones of {} repetitions per number)",
            pmax, reps
        ),
        values,
    };
    Calibration {
        machine,
        kept,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_calibration_writes_every_key_and_reads_back() {
        let opts = CalibrateOptions {
            repetitions: 1,
            max_threads: 2,
            fork_joins: 10,
            tasks: 100,
            join_depth: 6,
            items: 1000,
            par_calls: 10,
            spin_trips: 64,
            spin_window_trips: 2,
            transfer_bytes: vec![4096],
            bounce_updates: 1000,
            copy_bytes: 1 << 16,
            triad_len: 1 << 12,
        };
        let c = calibrate(&opts);
        let back = Machine::parse("m.txt", &c.machine.to_text()).unwrap();
        let costs = back.costs.unwrap();
        assert_eq!(costs.fork_join_by_p.len(), 2);
        assert_eq!(costs.par_call_by_p.len(), 2);
        assert_eq!(costs.mem_slowdown_by_k.len(), 2);
        assert_eq!(costs.transfer_by_bytes[0].0, 4096);
        assert_eq!(costs.local_read_by_bytes[0].0, 4096);
        assert!(back.values["join_s"] >= 0.0);
        for key in [
            "fork_join_s_p1",
            "par_call_s_p2",
            "task_s",
            "join_s",
            "handoff_wake_s",
            "handoff_notify_s",
            "handoff_spin_window_s",
            "transfer_s_4096",
            "local_read_s_4096",
            "line_bounce_s",
        ] {
            assert_eq!(c.kept[key].repetitions, 1, "{key}");
        }
    }
}
