//! Errors of the log readers.

use std::path::PathBuf;

use super::event::{Nanos, Position, ThreadId};

/// Why a log (binary or `.pptrace`) could not be read.
///
/// Every variant that concerns a place in the file carries the file's path and a
/// [`Position`]; `Display` is one line such as
/// `run.pptrace: line 7: expected a time in nanoseconds, found "x7"`.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be opened or read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is neither a binary pplib log nor a `.pptrace` text trace.
    #[error("{}: {pos}: expected a pplib log (binary magic \"PPLOG\" or a first line `pptrace 1`), found {found}", path.display())]
    NotALog {
        /// The file.
        path: PathBuf,
        /// Where the unexpected content starts.
        pos: Position,
        /// What was found instead (quoted, shortened).
        found: String,
    },
    /// The format version is not one this reader understands.
    #[error("{}: {pos}: unsupported log format version {found} (this reader reads version {supported})", path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Where the version is.
        pos: Position,
        /// The version in the file.
        found: u32,
        /// The version this reader reads.
        supported: u16,
    },
    /// A line or record does not have the expected shape.
    #[error("{}: {pos}: expected {expected}, found {found}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The offending line or record.
        pos: Position,
        /// What the reader expected.
        expected: String,
        /// What it found (quoted, shortened).
        found: String,
    },
    /// An event name or code that is not one of docs/event-logs.md.
    #[error("{}: {pos}: unknown event {found} (expected one of session_begin session_end frag_begin frag_end par_begin par_end task_begin task_end wait_begin wait_end counters)", path.display())]
    UnknownEvent {
        /// The file.
        path: PathBuf,
        /// The offending line or record.
        pos: Position,
        /// The unknown event name (text) or code (binary).
        found: String,
    },
    /// An event whose time is earlier than the previous event of the same thread.
    #[error("{}: {pos}: time goes backwards on thread {thread}: {} ns after {} ns", path.display(), time.0, previous.0)]
    TimeBackwards {
        /// The file.
        path: PathBuf,
        /// The offending line or record.
        pos: Position,
        /// The thread.
        thread: ThreadId,
        /// The event's time.
        time: Nanos,
        /// The time of the thread's previous event.
        previous: Nanos,
    },
    /// A `counters` event whose value cannot be right: a counter going backwards, or
    /// rising faster than time allows (see the rules in the `log` module's docs).
    #[error("{}: {pos}: thread {thread} at {} ns: {detail}", path.display(), time.0)]
    Counter {
        /// The file.
        path: PathBuf,
        /// The offending line or record.
        pos: Position,
        /// The thread.
        thread: ThreadId,
        /// The event's time.
        time: Nanos,
        /// Which counter and what is wrong with it.
        detail: String,
    },
    /// The log ends before its end marker (the recording process died, or the file was cut):
    /// every event before `pos` was read; nothing after it exists.
    #[error("{}: {pos}: log truncated: {detail}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Where the readable data stops.
        pos: Position,
        /// What was cut (e.g. "the last record of thread 3 is incomplete").
        detail: String,
    },
}

impl LogError {
    /// The position in the file the error is about, if any.
    pub fn position(&self) -> Option<Position> {
        match self {
            LogError::Io { .. } => None,
            LogError::NotALog { pos, .. }
            | LogError::UnsupportedVersion { pos, .. }
            | LogError::Syntax { pos, .. }
            | LogError::UnknownEvent { pos, .. }
            | LogError::TimeBackwards { pos, .. }
            | LogError::Counter { pos, .. }
            | LogError::Truncated { pos, .. } => Some(*pos),
        }
    }

    /// True for [`LogError::Truncated`]: the events before it are valid.
    pub fn is_truncated(&self) -> bool {
        matches!(self, LogError::Truncated { .. })
    }
}

/// Quotes a found token for an error message, shortened to a readable length.
pub(crate) fn quote(found: &str) -> String {
    const MAX: usize = 40;
    if found.chars().nth(MAX).is_some() {
        let short: String = found.chars().take(MAX).collect();
        format!("{short:?}...")
    } else {
        format!("{found:?}")
    }
}
