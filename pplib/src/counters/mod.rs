//! Per-thread hardware and software counters, behind a small trait.
//!
//! With counters on ([`crate::SessionBuilder::counters`] or `PPLIB_COUNTERS=1`), every
//! construct boundary (begin or end of a session, fragment, `par`, `task` or `wait`) is
//! followed by a `counters` event carrying the thread's cumulative values. The log header
//! lists the counters present: those the backend could open on the thread that started
//! the session. A counter that cannot be opened or read on some thread is left out of that
//! thread's `counters` events; recording never stops because of a counter.
//!
//! The default backend is [`PerfEvents`] (Linux `perf_event_open` through the `perf-event`
//! crate). Machines without a hardware PMU (most virtual machines) still have the software
//! task clock, so `cpu_ns` is present while `cycles`, `instructions` and `llc_misses` are
//! not. Tests use [`FakeCounters`].

mod fake;
mod perf;
pub(crate) mod tsc;

pub use fake::FakeCounters;
pub use perf::PerfEvents;

use crate::log::CounterId;

/// A counter pplib can record, with its name in the log header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counter {
    /// CPU cycles (`cycles`).
    Cycles,
    /// Retired instructions (`instructions`).
    Instructions,
    /// Last-level-cache misses (`llc_misses`), the evidence for communication loss.
    LlcMisses,
    /// The software task clock: nanoseconds of CPU time of the thread (`cpu_ns`).
    TaskClock,
}

impl Counter {
    /// Every counter, in the order the header lists those present.
    pub const ALL: [Counter; 4] = [
        Counter::Cycles,
        Counter::Instructions,
        Counter::LlcMisses,
        Counter::TaskClock,
    ];

    /// The name used in logs (`cycles`, `instructions`, `llc_misses`, `cpu_ns`).
    pub fn name(self) -> &'static str {
        match self {
            Counter::Cycles => "cycles",
            Counter::Instructions => "instructions",
            Counter::LlcMisses => "llc_misses",
            Counter::TaskClock => "cpu_ns",
        }
    }
}

/// Why a counter is not available or could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CounterError {
    /// The counter cannot be opened on this machine or thread.
    #[error("counter `{counter}` is not available: {reason}")]
    Unavailable {
        /// The counter's name.
        counter: &'static str,
        /// What the backend said (e.g. the OS error).
        reason: String,
    },
    /// Reading an opened counter failed.
    #[error("reading counter `{counter}` failed: {reason}")]
    Read {
        /// The counter's name.
        counter: &'static str,
        /// What the backend said.
        reason: String,
    },
}

/// A source of per-thread counters.
pub trait CounterBackend: Send + Sync + std::fmt::Debug {
    /// Opens `counter` for the calling thread, counting from now.
    fn open(&self, counter: Counter) -> Result<Box<dyn CounterReader>, CounterError>;
}

/// One opened counter of one thread.
pub trait CounterReader: Send {
    /// The cumulative value since the counter was opened (for the task clock: ns).
    fn read(&mut self) -> Result<u64, CounterError>;
}

/// Which counters open on the calling thread, in [`Counter::ALL`] order.
pub(crate) fn probe(backend: &dyn CounterBackend) -> Vec<Counter> {
    Counter::ALL
        .into_iter()
        .filter(|c| backend.open(*c).is_ok())
        .collect()
}

/// The counters of one thread during one session.
pub(crate) struct ThreadCounters {
    readers: Vec<(CounterId, Box<dyn CounterReader>)>,
    values: Vec<(CounterId, u64)>,
}

impl ThreadCounters {
    /// Opens the `present` counters (ids are their indices) on the calling thread; those that
    /// fail are left out.
    pub(crate) fn open(backend: &dyn CounterBackend, present: &[Counter]) -> ThreadCounters {
        let readers = present
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((CounterId(i as u16), backend.open(*c).ok()?)))
            .collect();
        ThreadCounters {
            readers,
            values: Vec::with_capacity(present.len()),
        }
    }

    /// Reads every counter that reads; failures are left out.
    pub(crate) fn read(&mut self) -> &[(CounterId, u64)] {
        self.values.clear();
        for (id, r) in &mut self.readers {
            if let Ok(v) = r.read() {
                self.values.push((*id, v));
            }
        }
        &self.values
    }
}
