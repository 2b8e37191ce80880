//! Errors of the profile engine and its outputs.

use std::path::PathBuf;

use pplib::log::{LogError, Position};

/// Why a profile could not be computed or written.
///
/// Every error about the input names the file and the line (text trace) or byte offset
/// (binary log); `Display` is one line.
#[derive(Debug, thiserror::Error)]
pub enum PpError {
    /// The log reader rejected the file (bad magic, unknown version, syntax, unknown event,
    /// time going backwards, truncation, ...).
    #[error(transparent)]
    Log(#[from] LogError),
    /// An end event that does not close the innermost open construct of its thread.
    #[error("{}: {pos}: {found} on thread {thread} does not match the innermost open construct: expected {expected}", path.display())]
    Unmatched {
        /// The log.
        path: PathBuf,
        /// Where the end event is.
        pos: Position,
        /// The thread.
        thread: u32,
        /// The end event as written (e.g. `frag_end cols`).
        found: String,
        /// What would have been accepted (e.g. `par_end (par_begin at line 5)` or
        /// `a begin event (nothing is open)`).
        expected: String,
    },
    /// A begin event on a thread that has the most constructs open that pp accepts
    /// ([`crate::stack::MAX_DEPTH`]).
    #[error("{}: {pos}: {found} on thread {thread} would open more than {limit} nested constructs, the most pp accepts on a thread (docs/event-logs.md)", path.display())]
    TooDeep {
        /// The log.
        path: PathBuf,
        /// Where the begin event is.
        pos: Position,
        /// The thread.
        thread: u32,
        /// The begin event as written (e.g. `session_begin`).
        found: String,
        /// The limit.
        limit: usize,
    },
    /// The header says the run had no processors.
    #[error("{}: expected a processor count p >= 1 in the header, found p = 0", path.display())]
    NoProcessors {
        /// The log.
        path: PathBuf,
    },
    /// `--tag NAME` names a fragment the log does not contain.
    #[error("{}: no fragment named {tag:?} in this log (fragments: {available}; wait kinds, \
             which are not fragments: {wait_kinds})", path.display())]
    NoSuchTag {
        /// The log.
        path: PathBuf,
        /// The requested tag.
        tag: String,
        /// The fragments that do occur, comma separated (or `none`).
        available: String,
        /// The other names of the log (wait kinds), comma separated (or `none`).
        wait_kinds: String,
    },
    /// The baseline log could not be used.
    #[error("{}: baseline: {message}", path.display())]
    Baseline {
        /// The baseline log.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// An output file (timeline, plot) could not be written.
    #[error("{}: cannot write: {message}", path.display())]
    Output {
        /// The output file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl PpError {
    /// True when the error is about the input (exit status 1); output errors also map to 1.
    pub fn is_input_error(&self) -> bool {
        !matches!(self, PpError::Output { .. })
    }
}

/// The most characters of a name (fragment, wait kind, tag) a message shows.
pub const SHORT_NAME: usize = 40;

/// `name` as messages show it: cut to [`SHORT_NAME`] characters (then `...`), so that an
/// error never echoes more of the input than a line.
pub fn shorten(name: &str) -> String {
    match name.char_indices().nth(SHORT_NAME) {
        Some((at, _)) => format!("{}...", &name[..at]),
        None => name.to_owned(),
    }
}
