//! `pplib`: the instrumentation runtime of the lost-cycles toolchain.
//!
//! A program linked with pplib records, per thread, when it enters and leaves the constructs
//! of docs/predicates.md — the session, code fragments (profiling tags), fork points (`par`),
//! pieces of parallel work (`task`) and synchronization waits (`wait`) — into an event log
//! that `pp` turns into lost-cycles profiles. Recording is cheap (one clock read and a few
//! stores into a per-thread buffer per event, no lock) and, when no session is recording,
//! every call costs about a nanosecond, so instrumentation can stay compiled in. The
//! `overhead` example measures this on a given machine
//! (`cargo run --release -p pplib --example overhead`). Each session also measures, after
//! its last event, what recording one event costs (about 0.1 ms of bursts into a scratch
//! buffer) and writes it into its log's header ([`log::Header::event_cost_ps`]), from
//! which `pp` says how much of the profile the recording took.
//!
//! Environment: `PPLIB_LOG` (log path, [`Session::from_env`]), `PPLIB_PROCESSORS` (p),
//! `PPLIB_COUNTERS=1` (counters), `PPLIB_CLOCK=monotonic` (clock, [`clock`]), `PPLIB_OMPT=0`
//! (the OpenMP tool off, [`ompt`]).
//!
//! # Usage
//!
//! One call sets everything up: [`run`] builds a rayon pool of p threads, starts a session
//! on it (configured by the environment: `PPLIB_LOG=run.pplog ./prog` records, without it
//! nothing is), runs the profiled code and finishes the session. p is the pool's size, the
//! log holds the pool's threads (idle ones too) and no thread waiting outside the pool.
//! [`SessionBuilder::run`] does the same with a session configured in code. Inside, mark
//! fragments with [`frag`] and record parallel work with [`prelude::PpParallelIterator::recorded`]
//! (any rayon pipeline: `map`, `filter`, `fold`, `reduce`, `sum`, `collect`, `for_each`,
//! ...), [`prelude::PpParallelIterator::pp_for_each`], [`join`] and [`scope`], thread
//! helpers ([`thread`]) and locks ([`sync`]); or mark `par`/`task`/`wait` yourself.
//!
//! ```
//! use pplib::prelude::*;
//!
//! let log = std::env::temp_dir().join(format!("pplib-doc-{}.pplog", std::process::id()));
//! let total = pplib::Session::builder().path(&log).run(2, || {
//!     let mut xs: Vec<f64> = (0..100_000).map(f64::from).collect();
//!     {
//!         let _tag = pplib::frag("scale"); // a profiling tag around a parallel loop
//!         xs.par_chunks_mut(1000).pp_for_each(|c| c.iter_mut().for_each(|x| *x = x.sqrt()));
//!     }
//!     let sum: f64 = xs.par_iter().recorded().sum(); // any consumer, recorded
//!     let (a, b) = pplib::join(|| xs[..50_000].iter().sum::<f64>(), || xs[50_000..].iter().sum::<f64>());
//!     assert!((a + b - sum).abs() < 1e-6 * sum);
//!     sum
//! })?; // p = 2, the pool's size
//! assert!(total > 0.0);
//!
//! // What pp will read: p, the pool's two threads, and per thread the events in time order.
//! let reader = pplib::log::LogReader::open(&log)?;
//! assert_eq!(reader.header().processors, 2);
//! assert_eq!(reader.threads().len(), 2);
//! let pars = reader.streams().into_iter().flatten()
//!     .filter(|e| matches!(e.as_ref().map(|e| &e.kind), Ok(pplib::log::EventKind::ParBegin)))
//!     .count();
//! assert_eq!(pars, 3); // the loop, the sum, the join
//! # std::fs::remove_file(&log).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Timing a run.** A recorded run takes longer than its session: building the pool,
//! starting its threads, creating the log and writing out its last buffers lie outside the
//! session. Where the clock is the processor's time-stamp counter (the default where the
//! kernel uses it), pplib measures the counter's rate against CLOCK_MONOTONIC across the
//! session ([`clock`]): the first session of a process busy-waits 100 µs before
//! `session_begin`, and one that lasts less than 20 ms sleeps the rest of those 20 ms after
//! `session_end`, while the log is finished. None of this is in any record pp writes. So a
//! program that prints its own time for comparison with the profile or with a prediction
//! (pp-campaign's `--time-key`) times the region **inside** the closure given to [`run`],
//! not the call to [`run`]; or compare with the session's record (its `tt / p`, which is
//! the session's elapsed time). With `PPLIB_CLOCK=monotonic` nothing is measured
//! (CLOCK_MONOTONIC, read through the vDSO, costs more per event than the time-stamp
//! counter). An unrecorded run (no `PPLIB_LOG`) measures nothing either.
//!
//! ```
//! let secs = pplib::run(2, || {
//!     let start = std::time::Instant::now(); // inside the session: no pool, no log to open
//!     let _tag = pplib::frag("work");
//!     let x: u64 = (1..=1000u64).sum();
//!     assert_eq!(x, 500_500);
//!     start.elapsed().as_secs_f64()
//! })?;
//! println!("time_s={secs}"); // what pp-campaign --time-key time_s reads
//! # Ok::<(), pplib::PplibError>(())
//! ```
//!
//! Without [`run`]: start a [`Session`] inside `pool.install` of a [`pool`] so that p is
//! the pool's size and no thread outside the pool is counted while it blocks in `install`
//! (a session started outside any pool takes p from rayon's global pool). C and OpenMP
//! programs: [`ffi`]; there p defaults to the OpenMP team size.
//!
//! # What gets recorded
//!
//! - [`Session`]: `session_begin` / `session_end` on the thread that starts / finishes it.
//! - [`frag`] / [`frag_scope`]: `frag_begin NAME` / `frag_end NAME` (nesting and overlap allowed).
//! - [`par`] / [`par_scope`]: the calling thread forked work and waits for it (Idle while
//!   innermost); [`task`] / [`task_scope`]: a piece of parallel work (Busy), closed as
//!   wasted with [`TaskGuard::wasted`].
//! - [`wait`] / [`wait_guard`]: a blocking wait of a [`WaitKind`] (Spinning).
//! - Scheduling samples: `counters` events with each thread's CPU time (`cpu_ns`) and
//!   involuntary context switches (`nivcsw`) at cheap points ([`log`]'s counter names).
//! - With counters on, a `counters` event after each of these ([`counters`]).
//!
//! The log format is [`log::binary`]; [`log::LogReader`] reads it and `.pptrace` text traces.
//!
//! # Robustness
//!
//! Memory is bounded: each thread encodes its events into a 32 KiB buffer, which, full, is
//! handed whole to a writer thread that writes it to the file while its thread fills another
//! (the writer sleeps until a buffer comes and runs at Linux's `SCHED_BATCH` with nice 10:
//! a small share of the processors that nothing can take away, without preempting the
//! program when it wakes); a thread uses 8 buffers, up to 32 (1 MiB) when the writer is slow to release
//! them (it waits for the writer only when all 32 are in flight; 2 suffice when the writer
//! keeps up). Threads that exit give their
//! buffers back for reuse. A panicking program unwinds through its guards and its `Session`,
//! so its log is complete; a program that calls `std::process::exit` (or returns from `main`
//! with the session still open) gets its log completed by an exit hook; a log cut short
//! (killed process, full disk) reads up to its last whole record and says it is truncated.
//! pplib never panics or aborts the host: an I/O error is reported once on stderr and
//! recording stops. A C ABI ([`ffi`], `include/pplib.h`) serves C and OpenMP programs, and
//! the shared library is an OpenMP tool ([`ompt`]) that profiles unmodified OpenMP programs.
#![deny(missing_docs)]

pub mod clock;
mod constructs;
pub mod counters;
pub mod ffi;
pub mod log;
pub mod ompt;
mod padded;
#[cfg(feature = "rayon")]
mod rayon_recorded;
#[cfg(feature = "rayon")]
mod rayon_support;
mod recorder;
mod run;
mod session;
pub mod sync;
mod sys;
pub mod thread;

pub use constructs::{
    frag, frag_scope, par, par_scope, register_thread, task, task_scope, wait, wait_guard,
};
pub use constructs::{FragGuard, ParGuard, TaskGuard, WaitGuard, WaitKind};
#[cfg(feature = "rayon")]
pub use rayon;
#[cfg(feature = "rayon")]
pub use rayon_recorded::Recorded;
#[cfg(feature = "rayon")]
pub use rayon_support::{join, pool, scope, PpParallelIterator, Scope};
#[cfg(feature = "rayon")]
pub use run::run;
pub use session::{PplibError, Session, SessionBuilder};

/// Makes every later allocation of at least `min_bytes` come from fresh pages of the
/// kernel, and every free of one give them back (glibc's `M_MMAP_THRESHOLD`; by default
/// glibc raises that threshold after the first such free and then serves large blocks from
/// pages the process already touched).
///
/// For a program measured many times in one process (a benchmark harness, a scaling
/// study): each run then pays the page faults of its first touch of fresh memory, as it
/// does when it runs in a process of its own, instead of a cost that depends on what
/// earlier runs left in the heap. Returns false where the C library refused or is not
/// glibc (then nothing changed).
///
/// ```
/// // Blocks of 128 KiB and more: mapped afresh, as in a new process.
/// let fresh = pplib::fresh_large_allocations(128 << 10);
/// assert!(fresh || !cfg!(target_env = "gnu"));
/// ```
pub fn fresh_large_allocations(min_bytes: usize) -> bool {
    sys::set_mmap_threshold(min_bytes)
}

/// `use pplib::prelude::*;`: the instrumented iterator consumers plus rayon's prelude.
pub mod prelude {
    #[cfg(feature = "rayon")]
    pub use crate::rayon_support::PpParallelIterator;
    pub use crate::WaitKind;
    #[cfg(feature = "rayon")]
    pub use rayon::prelude::*;
}
