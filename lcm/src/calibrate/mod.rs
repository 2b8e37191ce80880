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
//! - [`memory`]: cache-to-cache transfer by size (L1 to beyond the last-level cache), its
//!   writer and reader pinned to two distinct processors ([`placement`], a new pair each
//!   repetition), the same read of a buffer the reader wrote itself on the reader's
//!   processor, copy bandwidth, and the slowdown of a STREAM triad when k of p threads run
//!   it at once;
//! - [`lines`]: the price of a cache line written by K processors at once (an atomic update
//!   that finds the line in another processor's cache), K = 2 … p, each thread on a
//!   processor of its own ([`placement`]), and how much each further processor adds. At
//!   K = 2 (`line_bounce_s`, and the whole trip `line_trip_s`) the kernel visits up to
//!   [`pairs::MAX_PAIRS`] distinct pairs of processors and keeps the mean of the pairs'
//!   medians ([`pairs`]): the pairs of one machine may differ, and a program's threads use
//!   them all.
//!
//! [`claim`] holds two kernels the calibration does not run: a write of a buffer another
//! processor read last against one the writer read itself, with back-to-back and with
//! computed stores. Their numbers are why lcm prices no write to data another processor
//! read (the module's docs; `cargo run --release -p lcm --example claimbench` runs them).
//!
//! A calibration also says which of its numbers not to trust blindly
//! ([`Calibration::warnings`]): a line price no repetition could measure (and what stands
//! in for it), or one whose repetitions, or pairs of processors, lie more than
//! [`LINE_SPREAD_LIMIT`] times apart (the pairs' spread is also the key
//! `line_bounce_pair_spread`), transfers whose threads could not be pinned, and the same
//! spread of `handoff_wake_s`'s repetitions.
//!
//! None of them runs a program's own code: they price the runtime and the machine, so one
//! file serves every program. The clock is behind [`clock::Clock`] (tests drive the kernels'
//! arithmetic with a fake one) and the load probe behind [`quiet::LoadProbe`].
//!
//! ```no_run
//! let c = lcm::calibrate::calibrate(&lcm::calibrate::CalibrateOptions::quick());
//! println!("{}", c.machine.to_text());
//! ```

mod assemble;
pub mod channel_handoff;
pub mod claim;
pub mod clock;
mod families;
pub mod handoff;
pub mod lines;
pub mod memory;
pub mod pairs;
pub mod par_call;
pub mod placement;
pub mod pool;
pub mod quiet;
pub mod spin_window;
pub mod wake_prices;
mod warnings;

use crate::predict::machine::Machine;
use assemble::Measured;
use clock::{Clock, MonotonicClock};
use families::Recorder;
use quiet::{Kept, LoadProbe, ProcProbe};
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

pub use warnings::{BUSY_SHARE, LINE_SPREAD_LIMIT, SPIN_HANDOFF_LIMIT_S, TRANSFER_BELOW_LOCAL};

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

/// How many times [`calibrate_with`] measures the line prices again when their whole trip
/// (`line_trip_s`) and the spinning hand-off (`handoff_spin_s`) disagree by more than
/// 2 (`LINE_SPREAD_LIMIT`): on a virtual machine the host may have placed the two
/// processors differently for the two kernels; the warning stays if they still disagree.
pub const LINE_RETRIES: usize = 2;

/// Runs every kernel with the real clock and the `/proc` load probe.
pub fn calibrate(opts: &CalibrateOptions) -> Calibration {
    calibrate_with(opts, &MonotonicClock::new(), &ProcProbe)
}

/// Runs every kernel on `clock`, judging quiet with `probe`: each family of kernels in the
/// order of the module docs, then the machine file and its warnings from their numbers.
pub fn calibrate_with(
    opts: &CalibrateOptions,
    clock: &dyn Clock,
    probe: &dyn LoadProbe,
) -> Calibration {
    let max_threads = opts.max_threads.max(1);
    let mut rec = Recorder {
        repetitions: opts.repetitions,
        probe,
        kept: BTreeMap::new(),
    };
    let pool = families::measure_pool(&mut rec, clock, opts, max_threads);
    let handoffs = families::measure_handoffs(&mut rec, clock, opts);
    let transfers = families::measure_transfers(&mut rec, clock, opts);
    let spin_s = assemble::spin_for_file(&handoffs);
    let lines = agreeing_with_spin(
        spin_s,
        |l: &families::LinePrices| l.trip_s,
        || families::measure_lines(&mut rec, clock, opts, max_threads),
    );
    let memory = families::measure_memory(&mut rec, clock, opts, max_threads);
    let (machine, warnings) = assemble::machine_of(Measured {
        max_threads,
        repetitions: opts.repetitions,
        pool,
        handoffs,
        transfers,
        lines,
        memory,
    });
    let mut warnings = warnings;
    warnings.extend(warnings::busy_machine(&rec.kept));
    Calibration {
        machine,
        kept: rec.kept,
        warnings,
    }
}

/// What `measure` gives, measured again up to [`LINE_RETRIES`] times while its whole trip
/// (`trip`) and the spinning hand-off `spin_s` disagree (the warning of
/// `warnings::line_against_spin`): both price a line's trip between two processors, so a
/// disagreement says the host placed the processors differently for the two kernels, or
/// other load hit one. The last measurement is kept (the warning then says so).
fn agreeing_with_spin<T>(
    spin_s: f64,
    trip: impl Fn(&T) -> f64,
    mut measure: impl FnMut() -> T,
) -> T {
    let mut got = measure();
    for _ in 0..LINE_RETRIES {
        if warnings::line_against_spin(trip(&got), spin_s).is_none() {
            break;
        }
        got = measure();
    }
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trip 3x the spinning hand-off is measured again; one that agrees is kept at once;
    /// one that never agrees is measured 1 + LINE_RETRIES times and the last kept.
    #[test]
    fn line_prices_that_disagree_with_the_hand_off_are_measured_again() {
        let mut calls = 0;
        let mut trips = [123e-9, 35e-9, 36e-9].into_iter();
        let got = agreeing_with_spin(
            41e-9,
            |t: &f64| *t,
            || {
                calls += 1;
                trips.next().unwrap()
            },
        );
        assert_eq!((got, calls), (35e-9, 2));
        let mut calls = 0;
        let got = agreeing_with_spin(
            41e-9,
            |t: &f64| *t,
            || {
                calls += 1;
                40e-9
            },
        );
        assert_eq!((got, calls), (40e-9, 1));
        let mut calls = 0;
        let got = agreeing_with_spin(
            41e-9,
            |t: &f64| *t,
            || {
                calls += 1;
                200e-9 + calls as f64 * 1e-9
            },
        );
        assert_eq!((got, calls), (203e-9, 1 + LINE_RETRIES));
    }

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
        assert_eq!(back.values["par_call_items"], par_call::ITEMS as f64);
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
