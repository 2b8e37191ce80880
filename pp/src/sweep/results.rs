//! What a sweep accumulates and returns.

use hdrhistogram::Histogram;
use pplib::log::{Position, ThreadId};

use crate::accum::ThreadNanos;

/// Cumulative amounts of one window. Thread-nanoseconds unless said otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowTotals {
    /// Wall-clock nanoseconds the window was active.
    pub span: u128,
    /// ∫ (share of a processor one running thread gets) dt: the clock per-thread amounts
    /// are read from.
    pub(crate) unit: ThreadNanos,
    /// ∫ I / (idle present threads) dt while work exists (per-thread idle share clock).
    pub(crate) g_li: f64,
    /// The same while no work exists.
    pub(crate) g_ip: f64,
    /// Idle processor-time while work exists.
    pub li: u128,
    /// The part of `li` while no thread runs a task: fork/join latency (see
    /// [`crate::category`]).
    pub fj: u128,
    /// Idle processor-time while no work exists.
    pub ip: u128,
    /// Spinning processor-time.
    pub sl: ThreadNanos,
    /// Busy processor-time (wasted included).
    pub busy: ThreadNanos,
    /// Busy processor-time in tasks that ended wasted.
    pub wasted: ThreadNanos,
    /// Thread-time in excess of p.
    pub over: u128,
    /// Idle processor-time (li) with no present idle thread to attribute it to.
    pub unattributed_li: u128,
    /// Idle processor-time (ip) with no present idle thread to attribute it to.
    pub unattributed_ip: u128,
    /// Busy wall time (unscaled) covered by `cpu_ns` samples, nanoseconds.
    pub cpu_sampled_busy_wall: f64,
    /// Busy wall time minus Busy CPU time over the sampled intervals, nanoseconds.
    pub os: f64,
    /// Last-level-cache misses during Busy time.
    pub misses: f64,
    /// Busy wall time (unscaled) covered by `nivcsw` samples, nanoseconds.
    pub switches_sampled_busy_wall: f64,
    /// Involuntary context switches during Busy time (`nivcsw`).
    pub switches: f64,
    /// Times the window opened: for a fragment, the intervals of the union of its
    /// executions on all threads (its executions, when they do not overlap); 0 for the
    /// session.
    pub openings: u64,
}

impl WindowTotals {
    /// Remaining time (Busy, not wasted).
    pub fn rt(&self) -> ThreadNanos {
        self.busy - self.wasted
    }
}

/// Per-thread amounts of one window (the thread's view of the categories), nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ThreadTotals {
    /// Busy, wasted included (scaled when oversubscribed).
    pub busy: ThreadNanos,
    /// Busy in tasks that ended wasted.
    pub wasted: ThreadNanos,
    /// Spinning.
    pub sl: ThreadNanos,
    /// Share of idle processor-time while work exists.
    pub li: f64,
    /// Share of idle processor-time while no work exists.
    pub ip: f64,
    /// Busy wall time (unscaled).
    pub busy_wall: u128,
}

/// Task and wait durations of one window, nanoseconds.
#[derive(Debug, Clone)]
pub struct Durations {
    /// Durations of tasks (begin to end, nested work included).
    pub tasks: Histogram<u64>,
    /// Durations of waits.
    pub waits: Histogram<u64>,
}

impl Durations {
    pub(crate) fn new() -> Durations {
        Durations {
            tasks: Histogram::new(3).expect("3 significant digits is valid"),
            waits: Histogram::new(3).expect("3 significant digits is valid"),
        }
    }
}

/// The result for one window.
#[derive(Debug, Clone)]
pub struct WindowResult {
    /// `None` for the session, `Some(NAME)` for fragment NAME.
    pub tag: Option<String>,
    /// The amounts.
    pub totals: WindowTotals,
    /// Per-thread amounts, in thread order (threads never present in the window included,
    /// with zeros).
    pub threads: Vec<(ThreadId, ThreadTotals)>,
    /// Durations (with histograms enabled).
    pub durations: Option<Durations>,
}

/// What the sweep found, once all events are in.
#[derive(Debug, Clone)]
pub struct SweepResult {
    /// p.
    pub processors: u32,
    /// The session window first, then fragment windows in order of first appearance.
    pub windows: Vec<WindowResult>,
    /// Whether `cpu_ns` samples covered at least one interval (then `os` is measured).
    pub cpu_sampled: bool,
    /// Whether `llc_misses` samples covered at least one interval.
    pub misses_sampled: bool,
    /// Whether `nivcsw` samples covered at least one interval.
    pub switches_sampled: bool,
    /// Which threads of the log appeared and worked (for the check of p).
    pub threads: ThreadCounts,
    /// Non-fatal findings (unclosed constructs, no session, ...), one line each.
    pub warnings: Vec<String>,
    /// Events consumed.
    pub events: u64,
}

/// How many threads of a log appeared and worked: what the check of p compares p with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ThreadCounts {
    /// Threads with at least one event.
    pub appeared: u32,
    /// Threads that opened at least one task.
    pub ran_tasks: u32,
    /// Threads that were ever Busy (serial code, fragments or tasks).
    pub busy: u32,
}

/// An error found by the sweep (the caller adds the file name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepError {
    /// What is wrong with the event.
    pub kind: SweepErrorKind,
    /// Where the offending event is.
    pub pos: Position,
    /// Its thread.
    pub thread: ThreadId,
    /// The event as written.
    pub found: String,
    /// What was expected instead.
    pub expected: String,
}

/// What a [`SweepError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepErrorKind {
    /// An end event that does not close the innermost open construct of its thread.
    Unmatched,
    /// A begin event on a thread that has [`crate::stack::MAX_DEPTH`] constructs open.
    TooDeep,
}
