//! The errors for events a thread's stack cannot take: an end event that matches no begin,
//! a begin event past [`MAX_DEPTH`] (shared by [`super::Sweep`] and the lanes of the fast
//! pipeline, so both word them the same), and [`Dropped`], what is kept of such events when
//! they are dropped instead.

use pplib::log::{EventCode, NameId, Position, ThreadId};

use super::{SweepError, SweepErrorKind};
use crate::stack::{Construct, Mismatch, StackOp, MAX_DEPTH};

/// The error for an event (`code`, `arg`, read at `pos` on `thread`) that its thread's
/// stack cannot take (`m` says why; `names`: the string table).
pub fn mismatch_error(
    names: &[String],
    thread: ThreadId,
    code: EventCode,
    arg: u32,
    pos: Position,
    m: Mismatch,
) -> SweepError {
    let name = |id: NameId| {
        crate::error::shorten(
            names
                .get(id.0 as usize)
                .map_or("<undefined>", String::as_str),
        )
    };
    let found = match code {
        EventCode::FragEnd => format!("frag_end {}", name(NameId(arg))),
        EventCode::FragBegin => format!("frag_begin {}", name(NameId(arg))),
        EventCode::WaitBegin => format!("wait_begin {}", name(NameId(arg))),
        EventCode::TaskEndWasted => "task_end wasted".to_owned(),
        code => match StackOp::of_code(code, arg) {
            StackOp::Pop(c) => c.end_event(),
            StackOp::Push(c) => c.begin_event(),
            StackOp::None => "?",
        }
        .to_owned(),
    };
    let (kind, expected) = match m {
        Mismatch::NothingOpen => (
            SweepErrorKind::Unmatched,
            "a begin event (nothing is open on this thread)".to_owned(),
        ),
        Mismatch::Innermost(f) => {
            let (end, begin) = match f.construct {
                Construct::Frag(n) => (
                    format!("frag_end {}", name(n)),
                    format!("frag_begin {}", name(n)),
                ),
                Construct::Wait(n) => ("wait_end".to_owned(), format!("wait_begin {}", name(n))),
                c => (c.end_event().to_owned(), c.begin_event().to_owned()),
            };
            (
                SweepErrorKind::Unmatched,
                format!("{end} (for {begin} at {})", f.pos),
            )
        }
        Mismatch::TooDeep => (
            SweepErrorKind::TooDeep,
            format!("an end event: {MAX_DEPTH} constructs are open on this thread already"),
        ),
    };
    SweepError {
        kind,
        pos,
        thread,
        found,
        expected,
    }
}

/// The events dropped in non-strict mode (see [`super::Sweep::drop_unmatched_ends`]): how
/// many of each kind, and the first [`Dropped::LISTED`] in the order they were read. Its
/// size does not grow with the log, however many events a hostile log makes it drop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dropped {
    /// The first [`Dropped::LISTED`] dropped events.
    pub first: Vec<SweepError>,
    /// How many end events matched no open construct.
    pub unmatched: u64,
    /// How many begin events came with [`MAX_DEPTH`] constructs open.
    pub too_deep: u64,
}

impl Dropped {
    /// At most this many dropped events are kept (and listed one by one) per log.
    pub const LISTED: usize = 20;

    /// Whether the next dropped event will be kept in [`Dropped::first`] (callers make
    /// its [`SweepError`] only then).
    #[inline]
    pub fn wants_detail(&self) -> bool {
        self.first.len() < Dropped::LISTED
    }

    /// Counts a dropped event of `kind`, keeping `error` (made only if
    /// [`Dropped::wants_detail`]) among the first.
    pub fn add(&mut self, kind: SweepErrorKind, error: impl FnOnce() -> SweepError) {
        match kind {
            SweepErrorKind::Unmatched => self.unmatched += 1,
            SweepErrorKind::TooDeep => self.too_deep += 1,
        }
        if self.wants_detail() {
            self.first.push(error());
        }
    }

    /// Appends `other` (the events dropped after these, or on a later thread).
    pub fn append(&mut self, other: Dropped) {
        self.unmatched += other.unmatched;
        self.too_deep += other.too_deep;
        let room = Dropped::LISTED.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
    }

    /// All the dropped events.
    pub fn total(&self) -> u64 {
        self.unmatched + self.too_deep
    }

    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
}
