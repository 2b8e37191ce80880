//! Decoded events: what a log reader yields, one per recorded event.
//!
//! These types are the contract between the writer side of `pplib` and its readers
//! (`pp`). Their meaning is in docs/event-logs.md: every event changes only its own thread's
//! stack of open constructs.

use std::fmt;

/// A time stamp or a duration in nanoseconds. Time stamps have an arbitrary origin (the log
/// header says which clock); only differences between them are meaningful.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Nanos(pub u64);

impl Nanos {
    /// The value in seconds (as `f64`).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
}

/// A thread of the recorded program, numbered by the log (not the OS thread id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId(pub u32);

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An index into the log's string table (fragment names, wait kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameId(pub u32);

/// An index into the header's list of counter names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CounterId(pub u16);

/// Where an event came from in its file: a line of a `.pptrace`, or the byte offset of a
/// record in a binary log. Errors about an event name this position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// 1-based line number in a text trace.
    Line(u64),
    /// Byte offset of the record in a binary log.
    Offset(u64),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(l) => write!(f, "line {l}"),
            Position::Offset(o) => write!(f, "byte offset {o}"),
        }
    }
}

/// What happened (docs/event-logs.md, table of events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// Push `session` (the profiled program's serial code).
    SessionBegin,
    /// Pop `session`.
    SessionEnd,
    /// Push `frag NAME` (a profiling tag).
    FragBegin(NameId),
    /// Pop `frag NAME`.
    FragEnd(NameId),
    /// Push `par`: a fork point; the thread waits for the join (Idle while innermost).
    ParBegin,
    /// Pop `par`.
    ParEnd,
    /// Push `task`: a piece of parallel work (Busy while innermost).
    TaskBegin,
    /// Pop `task`; `wasted` marks speculative work that did not contribute.
    TaskEnd {
        /// The task's work was wasted (counted as `wc`, not `rt`).
        wasted: bool,
    },
    /// Push `wait KIND`; the kind (`lock`, `barrier`, `condvar`, `channel`, `spin`, ...) is a
    /// name in the string table.
    WaitBegin(NameId),
    /// Pop `wait`.
    WaitEnd,
    /// Cumulative per-thread counter values; ids index [`crate::log::Header::counters`].
    Counters(Vec<(CounterId, u64)>),
}

/// One decoded event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// When it happened.
    pub time: Nanos,
    /// On which thread.
    pub thread: ThreadId,
    /// What happened.
    pub kind: EventKind,
    /// Where it was read from.
    pub pos: Position,
}
