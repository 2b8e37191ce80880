//! `pplib`: the instrumentation runtime of the lost-cycles toolchain.
//!
//! A program linked with pplib records, per thread, when it enters and leaves the constructs
//! of docs/predicates.md — the session, code fragments (profiling tags), fork points (`par`),
//! pieces of parallel work (`task`) and synchronization waits (`wait`) — into an event log
//! that `pp` turns into lost-cycles profiles. Recording is cheap (one clock read and a few
//! stores into a per-thread buffer per event, no lock) and, when no session is recording,
//! every call costs about a nanosecond, so instrumentation can stay compiled in. The
//! `overhead` example measures this on a given machine
//! (`cargo run --release -p pplib --example overhead`).
//!
//! Environment: `PPLIB_LOG` (log path, [`Session::from_env`]), `PPLIB_PROCESSORS` (p),
//! `PPLIB_COUNTERS=1` (counters), `PPLIB_CLOCK=monotonic` (clock, [`clock`]).
//!
//! # Usage
//!
//! Start a [`Session`] (from the environment: `PPLIB_LOG=run.pplog ./prog`, or with a
//! builder), mark fragments with [`frag`], and use the instrumented rayon helpers
//! ([`pool`], [`join`], [`scope`], [`prelude::PpParallelIterator::pp_for_each`], or
//! [`prelude::PpParallelIterator::pp_for_each_run`] for items of a microsecond or less), thread
//! helpers ([`thread`]) and locks ([`sync`]); or mark `par`/`task`/`wait` yourself. Run the
//! profiled program inside the pool (start the session inside `pool.install`) so that p is
//! the pool's size and no thread outside the pool is counted while it blocks in `install`.
//!
//! ```
//! use pplib::prelude::*;
//!
//! let log = std::env::temp_dir().join(format!("pplib-doc-{}.pplog", std::process::id()));
//! let pool = pplib::pool(2)?;
//! let total = pool.install(|| -> Result<f64, pplib::PplibError> {
//!     let session = pplib::Session::builder().path(&log).start()?; // p = 2, the pool's size
//!     let mut xs: Vec<f64> = (0..100_000).map(f64::from).collect();
//!     {
//!         let _tag = pplib::frag("scale"); // a profiling tag around a parallel loop
//!         xs.par_chunks_mut(1000).pp_for_each(|c| c.iter_mut().for_each(|x| *x = x.sqrt()));
//!     }
//!     let (a, b) = pplib::join(|| xs[..50_000].iter().sum::<f64>(), || xs[50_000..].iter().sum::<f64>());
//!     session.finish()?;
//!     Ok(a + b)
//! })?;
//! assert!(total > 0.0);
//!
//! // What pp will read: p, and per thread the events in time order.
//! let reader = pplib::log::LogReader::open(&log)?;
//! assert_eq!(reader.header().processors, 2);
//! let tasks = reader.streams().into_iter().flatten()
//!     .filter(|e| matches!(e.as_ref().map(|e| &e.kind), Ok(pplib::log::EventKind::TaskBegin)))
//!     .count();
//! assert_eq!(tasks, 100 + 2); // one per chunk, one per joined closure
//! # std::fs::remove_file(&log).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What gets recorded
//!
//! - [`Session`]: `session_begin` / `session_end` on the thread that starts / finishes it.
//! - [`frag`] / [`frag_scope`]: `frag_begin NAME` / `frag_end NAME` (nesting and overlap allowed).
//! - [`par`] / [`par_scope`]: the calling thread forked work and waits for it (Idle while
//!   innermost); [`task`] / [`task_scope`]: a piece of parallel work (Busy), closed as
//!   wasted with [`TaskGuard::wasted`].
//! - [`wait`] / [`wait_guard`]: a blocking wait of a [`WaitKind`] (Spinning).
//! - With counters on, a `counters` event after each of these ([`counters`]).
//!
//! The log format is [`log::binary`]; [`log::LogReader`] reads it and `.pptrace` text traces.
//!
//! # Robustness
//!
//! Memory is bounded: each thread encodes its events into a 32 KiB buffer, which, full, is
//! handed whole to a writer thread that writes it to the file while its thread fills another
//! (the writer runs at Linux's `SCHED_IDLE`, on processors the program leaves idle, so it
//! does not preempt the program); a thread uses at most 8 buffers (it waits for the writer
//! when all are in flight; 2 suffice when the writer keeps up). Threads that exit give their
//! buffers back for reuse. A panicking program unwinds through its guards and its `Session`,
//! so its log is complete; a program that calls `std::process::exit` (or returns from `main`
//! with the session still open) gets its log completed by an exit hook; a log cut short
//! (killed process, full disk) reads up to its last whole record and says it is truncated.
//! pplib never panics or aborts the host: an I/O error is reported once on stderr and
//! recording stops. A C ABI ([`ffi`], `include/pplib.h`) serves C and OpenMP programs.
#![deny(missing_docs)]

pub mod clock;
mod constructs;
pub mod counters;
pub mod ffi;
pub mod log;
#[cfg(feature = "rayon")]
mod rayon_support;
mod recorder;
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
pub use rayon_support::{join, pool, scope, PpParallelIterator, Scope};
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
