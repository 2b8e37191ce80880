//! `lcm calibrate`: microbenchmarks of what parallel execution costs on this machine, kept
//! as the machine file that `lcm predict --machine` reads ([`crate::predict::machine`]
//! documents its keys and units).
//!
//! Kernels (each one repetition; [`quiet::median_of_quiet`] repeats it and keeps the median
//! of the quiet repetitions):
//! - [`pool`]: fork/join of a rayon pool by its threads q = 1 … p, the cost of a task
//!   spawned in a scope, the cost of an item of a parallel iterator;
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

/// The most the repetitions of a line price (`line_bounce_s`, `line_bounce_s_kK`) or of
/// `handoff_wake_s` may lie apart, largest over least, before [`Calibration::warnings`] says
/// so.
pub const LINE_SPREAD_LIMIT: f64 = 2.0;

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

/// What to say when the whole trip of a line (`line_trip_s`) and the one-way hand-off to a
/// spinning thread (both a line's whole trip between two processors) lie more than
/// [`LINE_SPREAD_LIMIT`] times apart (None: they agree, or one is missing).
fn line_against_spin(line_trip_s: f64, handoff_spin_s: f64) -> Option<String> {
    if !(line_trip_s > 0.0 && handoff_spin_s > 0.0) {
        return None;
    }
    let ratio = line_trip_s.max(handoff_spin_s) / line_trip_s.min(handoff_spin_s);
    (ratio > LINE_SPREAD_LIMIT).then(|| {
        format!(
            "line_trip_s: {line_trip_s:.3e} s and handoff_spin_s {handoff_spin_s:.3e} s both price a line's trip between two processors but lie {ratio:.1} times apart (more than {LINE_SPREAD_LIMIT}): the two kernels ran on processors placed differently (on a virtual machine the host may move them), or the machine was busy; calibrate again"
        )
    })
}

/// A one-way hand-off between two spinning threads slower than this (seconds) is not a
/// cache line's trip: a partner lost its processor to other load.
pub const SPIN_HANDOFF_LIMIT_S: f64 = 10e-6;

/// What to say of the hand-off keys: the channel sweep's optional keys when the file leaves
/// them out (on a loaded machine no repetition may show a receiver that parked after a 1 ms
/// sleep beside one caught spinning, and `lcm predict` then prices hand-offs as if the key
/// were absent), a wake price that stands in or was clamped (`wake_s` as measured, before
/// [`wake_prices::wake_for_file`]), and a spinning hand-off too slow to be one.
fn handoff_warnings(notify_s: f64, spin_window_s: f64, wake_s: f64, spin_s: f64) -> Vec<String> {
    let mut out = Vec::new();
    if !(notify_s.is_finite() && notify_s > 0.0) {
        out.push(
            "handoff_notify_s: not measured (no repetition of the channel sweep showed a send to a parked receiver dearer than one to a spinning receiver; a busy machine hides it): the file leaves it out and lcm predict charges a stage that wakes its partner nothing for the wake-up call; calibrate again on a quiet machine"
                .to_string(),
        );
    }
    if !(spin_window_s.is_finite() && spin_window_s > 0.0) {
        out.push(
            "handoff_spin_window_s: not measured (the channel sweep found no delay below which its receiver stayed awake and above which it parked in most trips: it parked at every delay, or at none): the file leaves it out and lcm predict counts every pipeline wait as caught spinning; calibrate again on a quiet machine"
                .to_string(),
        );
    }
    if wake_s.is_nan() {
        out.push(
            "handoff_wake_s: not measured (no repetition of the channel sweep had a receiver park after a 1 ms sleep beside one caught spinning): the file holds handoff_spin_s in its place; calibrate again on a quiet machine"
                .to_string(),
        );
    } else if wake_s < 1e-9 {
        out.push(format!(
            "handoff_wake_s: a receiver parked 1 ms or more ran no later after the send than a spinning one (measured {wake_s:.3e} s): the file holds 1 ns, its keys being positive; the machine was busy, or its wake-ups cost nothing; calibrate again on a quiet machine"
        ));
    }
    if spin_s > SPIN_HANDOFF_LIMIT_S {
        out.push(format!(
            "handoff_spin_s: {spin_s:.3e} s for a one-way hand-off between two spinning threads, more than {SPIN_HANDOFF_LIMIT_S:.0e} s: a partner lost its processor to other load, and every price built on it (latency_s, the line price's stand-in) is the machine's load, not its hardware; calibrate again on a quiet machine"
        ));
    }
    out
}

/// What to say of the line price `key` kept as `k` (None: nothing to say); `stand_in` says
/// what the file holds when no repetition gave a number.
fn line_warning(key: &str, k: &Kept, stand_in: &str) -> Option<String> {
    if k.measured == 0 {
        return Some(format!(
            "{key}: no repetition of {} ran its threads side by side on processors of their own; {stand_in}",
            k.repetitions
        ));
    }
    spread_warning(
        key,
        k,
        "the price depends on which processors the threads ran on, or the machine was busy",
    )
}

/// What to say when the repetitions of `key` kept as `k` lie more than
/// [`LINE_SPREAD_LIMIT`] times apart, largest over least (None: they agree, or fewer than
/// two gave a number); `cause` says what such a spread means for that key.
fn spread_warning(key: &str, k: &Kept, cause: &str) -> Option<String> {
    let spread = k.spread();
    let apart = if spread.is_finite() {
        format!("{spread:.1} times apart, more than {LINE_SPREAD_LIMIT}")
    } else {
        format!("the least of them 0, so more than {LINE_SPREAD_LIMIT} times apart")
    };
    (spread > LINE_SPREAD_LIMIT).then(|| {
        format!(
            "{key}: its repetitions disagree, {:.3e} to {:.3e} s ({apart}): {cause}; the median {:.3e} s is kept",
            k.low, k.high, k.value
        )
    })
}

/// What to say when the repetitions of `handoff_wake_s` (kept as `k`) disagree (see
/// [`spread_warning`]).
fn wake_spread_warning(k: &Kept) -> Option<String> {
    spread_warning(
        "handoff_wake_s",
        k,
        "the woken receiver waited for a processor that other load held, or the machine's wake-ups vary from moment to moment (lcm predict's pipelines depend on it only through how often a waiting stage parks); calibrate again on a quiet machine",
    )
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
    fn a_line_price_without_numbers_or_with_scattered_ones_is_warned_about() {
        let kept = |measured: usize, low: f64, high: f64| Kept {
            value: 0.5 * (low + high),
            repetitions: 5,
            quiet: 5,
            unknown: 0,
            measured,
            low,
            high,
        };
        let none = line_warning("line_bounce_s", &kept(0, f64::NAN, f64::NAN), "stand-in");
        let none = none.unwrap();
        assert!(
            none.starts_with("line_bounce_s: no repetition of 5"),
            "{none}"
        );
        assert!(none.ends_with("stand-in"), "{none}");
        let apart = line_warning("line_bounce_s_k3", &kept(5, 2e-8, 7.6e-8), "").unwrap();
        assert!(apart.contains("3.8 times apart"), "{apart}");
        // The wake price says the same, with what its spread means; a repetition of 0 is
        // said as such. (Three calibrations on the loaded 2-core machine kept repetitions
        // from 0 to 4.0 ms, 0 to 6.9 ms and 0 to 21 µs.)
        let wake = wake_spread_warning(&kept(3, 0.0, 4.0e-3)).unwrap();
        assert!(
            wake.starts_with("handoff_wake_s: its repetitions disagree, 0.000e0 to 4.000e-3 s (the least of them 0, so more than 2 times apart)"),
            "{wake}"
        );
        assert!(
            wake.contains("calibrate again on a quiet machine"),
            "{wake}"
        );
        let wake = wake_spread_warning(&kept(9, 1.9e-5, 4.2e-5)).unwrap();
        assert!(wake.contains("2.2 times apart"), "{wake}");
        assert_eq!(wake_spread_warning(&kept(9, 2.1e-5, 4.1e-5)), None);
        assert_eq!(wake_spread_warning(&kept(1, 0.0, 4.0e-3)), None);
        // The two prices of a line's trip: 5 ns against 34 ns is said, 27 against 34 not.
        let w = line_against_spin(5.3e-9, 3.4e-8).unwrap();
        assert!(w.contains("6.4 times apart"), "{w}");
        assert_eq!(line_against_spin(2.7e-8, 3.4e-8), None);
        assert_eq!(line_against_spin(f64::NAN, 3.4e-8), None);
        // Within the limit, or a single number: nothing to say.
        assert_eq!(
            line_warning("line_bounce_s", &kept(5, 5e-8, 9e-8), ""),
            None
        );
        assert_eq!(
            line_warning("line_bounce_s", &kept(1, 5e-8, 5e-8), ""),
            None
        );
    }

    #[test]
    fn a_hand_off_key_left_out_is_warned_about() {
        assert!(handoff_warnings(3e-6, 5e-6, 2e-5, 1e-7).is_empty());
        let both = handoff_warnings(f64::NAN, f64::NAN, 2e-5, 1e-7);
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(
            both[0].starts_with("handoff_notify_s: not measured"),
            "{both:?}"
        );
        assert!(
            both[1].starts_with("handoff_spin_window_s: not measured"),
            "{both:?}"
        );
        // A send to a parked receiver no dearer than to a spinning one is not a price.
        let cheaper = handoff_warnings(-1e-7, 5e-6, 2e-5, 1e-7);
        assert_eq!(cheaper.len(), 1, "{cheaper:?}");
        assert!(cheaper[0].contains("lcm predict charges"), "{cheaper:?}");
        // A wake price no repetition measured stands in; one of 0 is clamped; a spinning
        // hand-off of 102 us (a loaded machine) is no line's trip.
        let wake = handoff_warnings(3e-6, 5e-6, f64::NAN, 1e-7);
        assert!(
            wake[0].contains("holds handoff_spin_s in its place"),
            "{wake:?}"
        );
        let clamped = handoff_warnings(3e-6, 5e-6, 0.0, 1e-7);
        assert!(clamped[0].contains("holds 1 ns"), "{clamped:?}");
        let slow = handoff_warnings(3e-6, 5e-6, 2e-5, 1.02e-4);
        assert_eq!(slow.len(), 1, "{slow:?}");
        assert!(
            slow[0].starts_with("handoff_spin_s: 1.020e-4 s"),
            "{slow:?}"
        );
    }

    #[test]
    fn a_small_calibration_writes_every_key_and_reads_back() {
        let opts = CalibrateOptions {
            repetitions: 1,
            max_threads: 2,
            fork_joins: 10,
            tasks: 100,
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
        for key in [
            "fork_join_s_p1",
            "par_call_s_p2",
            "task_s",
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
