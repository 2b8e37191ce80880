//! `pp`: predicate profiles (lost cycles) from pplib event logs.
//!
//! `pp` reads a log written by `pplib` (binary) or a hand-written `.pptrace` text trace and
//! computes Crovella's lost-cycles profile (docs/predicates.md): for the whole session and for
//! each fragment (profiling tag), how many processor-seconds went to Load Imbalance (`li`),
//! Insufficient Parallelism (`ip`), Synchronization Loss (`sl`), Wasted Computation (`wc`)
//! and Remaining Time (`rt`), which add up to Total Time (`tt` = p × elapsed). With a p = 1
//! baseline it adds Pure Computation (`pc`) and Memory Loss (`ml`); with counters, OS loss
//! (`os`), Communication Loss (`cl`) and Resource Contention (`rc`). Within `li` it reports
//! the runtime's fork/join latency (`fj`: parallel work open, no thread running a task; the
//! exact predicate is in [`category`]), so that fork and join costs are not read as uneven
//! tasks. `checks` warns when p does not match the threads of the log, when the scheduler
//! disturbed the run or preempted its threads ([`disturbance`]), or when the recording itself took more than 2 % of the
//! profiled time ([`recording`]: the events recorded times the cost of one event, which
//! pplib measures at the end of each session).
//!
//! # Usage story
//! A performance engineer records a run (`PPLIB_LOG=run.pplog ./prog`), looks at the table
//! (`pp run.pplog`), finds the fragment that loses most (`pp --all-tags`), looks at its
//! threads and task-time spread (`--per-thread`, `--histograms`, `--timeline`), and collects
//! one record line per run and fragment (`pp -l "n=1024" run.pplog >> fft.pp`) for `lca`.
//! Programs (the end-to-end study) do the same through this library:
//!
//! ```
//! use pp::{analyze_bytes, Options};
//!
//! // The example of docs/predicates.md: one serial ms, then a loop whose two tasks take
//! // 1 ms and 2 ms on p = 2.
//! let trace = "pptrace 1\nprocessors 2\n\
//!     0 0 session_begin\n1000000 0 par_begin\n1000000 0 task_begin\n1000000 1 task_begin\n\
//!     2000000 0 task_end\n3000000 1 task_end\n3000000 0 par_end\n3000000 0 session_end\n";
//! let analysis = analyze_bytes(trace.as_bytes().to_vec(), "example.pptrace", &Options::all_tags())?;
//! let session = analysis.session();
//! assert_eq!((session.li, session.ip, session.rt, session.tt), (0.001, 0.001, 0.004, 0.006));
//! assert!(session.invariant_error() < 1e-9);
//!
//! // Record lines (docs/records.md), the user's note first.
//! let note = pp::parse_note("n=1024 impl=dp")?;
//! assert_eq!(
//!     analysis.record_lines(&note),
//!     ["n=1024 impl=dp p=2 li=0.001 fj=0 ip=0.001 sl=0 wc=0 rt=0.004 tt=0.006"]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! From files, with a baseline: [`profile_log`]`(path, Some(baseline_path))` gives the
//! session and every fragment with `pc`/`ml`; [`analyze`] with [`Options`] selects tags,
//! the miss latency and histograms; [`Analysis::apply_baseline`] combines any two analyses.
//!
//! # Layout
//! - [`analysis`]: entry points ([`analyze`], [`analyze_bytes`], [`profile_log`]) and
//!   [`Analysis`]; `profile`: [`Profile`] (seconds, per-thread rows, durations);
//!   [`record`]: record lines.
//! - The engine, two pipelines with the same results (held byte for byte to each other by
//!   `tests/engines.rs`; [`Engine`] picks one):
//!   - fast (the default): [`lane`]s, one per thread, decode its stream, keep its
//!     [`stack::ThreadStack`] and hand on compact transitions, dropping the events that
//!     change nothing (each lane on a thread of its own); [`pipeline`] merges them by
//!     time (frontiers, radix-sorted) on another thread and feeds [`sweep`]'s hot loop on
//!     the calling thread. With an observer (timelines), duration histograms or more
//!     than [`analysis::MAX_LANES`] threads, the reference is used.
//!   - reference: [`merge`] (time-ordered k-way merge of the decoded events, on a thread
//!     of its own) into [`sweep::Sweep::event`], which keeps the stacks itself.
//!
//!   [`sweep`] is the single streaming pass (its module docs state the exact semantics
//!   and the decisions docs/predicates.md leaves open), `accum` exact integer thread-nanoseconds.
//!   Cost: O(E log T) for E events of T threads; memory: per thread, its stack and a few
//!   batches, independent of E. A thread's stack holds at most [`stack::MAX_DEPTH`]
//!   (10 000) open constructs: a begin event past it fails `--strict` and is otherwise
//!   dropped with a warning, like an end event that matches nothing; of the events
//!   dropped, a count and the first [`sweep::Dropped::LISTED`] are kept
//!   (docs/event-logs.md).
//! - [`recording`]: what the recording itself cost ([`Analysis::recording`]).
//! - [`app`]: what the `pp` command does, over a plain [`app::Config`].
//! - [`campaign`]: measurement campaigns (the `pp-campaign` command): a program run over a
//!   grid of sizes, p and repetitions, round robin behind a quiet-machine gate, profiled
//!   into records with the p = 1 baseline (docs/campaigns.md).
//! - Views: [`table`] (human text), `timeline` (Chrome trace-event JSON for
//!   ui.perfetto.dev), `plot` (stacked bars, SVG or PNG by the file name), [`report`] (the
//!   JSON document).
//!
//! Testing: `tests/fixtures/*.pptrace` carry hand-computed expectations in their comments
//! (checked by `tests/fixtures.rs`); `tests/random_traces.rs` checks the invariants on
//! random traces; `tests/real_runs.rs` profiles pplib-instrumented rayon programs; the
//! cargo-fuzz project in the workspace's `fuzz/` directory runs the readers and this engine
//! on arbitrary bytes (`RUSTC_BOOTSTRAP=1 cargo fuzz run readers`; `fast_engine` holds the
//! default threaded pipeline to the reference, `file_reader` the file-backed reader to the
//! in-memory one; `fuzz/seed_corpus.sh` seeds the corpora from the fixtures).
//! `tests/many_threads.rs` and `tests/hostile_inputs.rs` run the `pp` binary on huge and
//! hostile logs under time and memory limits.
//!
//! Units: every `f64` in a [`Profile`] is seconds (processor-seconds for categories); inside
//! the engine times are integer nanoseconds ([`pplib::log::Nanos`]).
#![deny(missing_docs)]

pub(crate) mod accum;
pub mod analysis;
pub mod app;
pub(crate) mod baseline;
pub mod campaign;
pub mod category;
pub(crate) mod checks;
pub mod disturbance;
pub(crate) mod error;
pub mod lane;
pub mod merge;
pub mod pipeline;
pub(crate) mod plot;
pub(crate) mod profile;
pub mod record;
pub mod recording;
pub mod report;
pub(crate) mod sort;
pub(crate) mod source;
#[doc(hidden)]
pub mod stack;
pub mod sweep;
pub mod table;
pub(crate) mod timeline;

pub use analysis::{
    analyze, analyze_bytes, analyze_reader, analyze_reader_with, analyze_with, profile_log,
    Analysis, Engine, Options,
};
pub use category::Category;
pub use disturbance::Disturbance;
pub use error::PpError;
pub use profile::{Profile, ThreadProfile};
pub use record::{format_record, format_seconds, parse_note, profile_record, ProfileRecord};
pub use sweep::{TagSelection, ThreadCounts};
