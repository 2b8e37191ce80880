//! Per-thread stacks of open constructs (docs/predicates.md) and the state they imply.

use pplib::log::{EventCode, EventKind, NameId, Nanos, Position};

/// A construct that can be open on a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Construct {
    /// The profiled program's session (serial code while innermost).
    Session,
    /// A fragment (profiling tag).
    Frag(NameId),
    /// A fork point: the thread waits for the join.
    Par,
    /// A piece of parallel work.
    Task,
    /// A synchronization wait of the named kind.
    Wait(NameId),
}

impl Construct {
    /// What a thread with this construct innermost is doing.
    #[inline]
    pub fn state(self) -> ThreadState {
        // A table indexed by the variant: no branch on which construct it is.
        const STATES: [ThreadState; 5] = [
            ThreadState::Busy,
            ThreadState::Busy,
            ThreadState::Idle,
            ThreadState::Busy,
            ThreadState::Spinning,
        ];
        let variant = match self {
            Construct::Session => 0,
            Construct::Frag(_) => 1,
            Construct::Par => 2,
            Construct::Task => 3,
            Construct::Wait(_) => 4,
        };
        STATES[variant]
    }

    /// The event that opens this construct, as written in a `.pptrace` (names not resolved).
    pub fn begin_event(self) -> &'static str {
        match self {
            Construct::Session => "session_begin",
            Construct::Frag(_) => "frag_begin",
            Construct::Par => "par_begin",
            Construct::Task => "task_begin",
            Construct::Wait(_) => "wait_begin",
        }
    }

    /// The event that closes this construct.
    pub fn end_event(self) -> &'static str {
        match self {
            Construct::Session => "session_end",
            Construct::Frag(_) => "frag_end",
            Construct::Par => "par_end",
            Construct::Task => "task_end",
            Construct::Wait(_) => "wait_end",
        }
    }
}

/// What a thread is doing at an instant, decided by its innermost construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadState {
    /// Empty stack, or a `par` innermost.
    Idle,
    /// `session`, `frag` or `task` innermost.
    Busy,
    /// `wait` innermost.
    Spinning,
}

/// An open construct with where and when it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// The construct.
    pub construct: Construct,
    /// When it was opened.
    pub begin: Nanos,
    /// Where its begin event is in the log.
    pub pos: Position,
}

/// What an event does to its thread's stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackOp {
    /// Push a construct.
    Push(Construct),
    /// Pop a construct, which must be the innermost one.
    Pop(Construct),
    /// No change (counter samples).
    None,
}

impl StackOp {
    /// The stack operation of an event kind. For a `task_end`, the popped construct is
    /// [`Construct::Task`] (wastedness is carried by the event).
    pub fn of(kind: &EventKind) -> StackOp {
        match kind {
            EventKind::SessionBegin => StackOp::Push(Construct::Session),
            EventKind::SessionEnd => StackOp::Pop(Construct::Session),
            EventKind::FragBegin(n) => StackOp::Push(Construct::Frag(*n)),
            EventKind::FragEnd(n) => StackOp::Pop(Construct::Frag(*n)),
            EventKind::ParBegin => StackOp::Push(Construct::Par),
            EventKind::ParEnd => StackOp::Pop(Construct::Par),
            EventKind::TaskBegin => StackOp::Push(Construct::Task),
            EventKind::TaskEnd { .. } => StackOp::Pop(Construct::Task),
            EventKind::WaitBegin(n) => StackOp::Push(Construct::Wait(*n)),
            EventKind::WaitEnd => StackOp::Pop(Construct::Wait(NameId(u32::MAX))),
            EventKind::Counters(_) => StackOp::None,
        }
    }

    /// The stack operation of an event code with its argument (a name id, where the event
    /// has one).
    #[inline]
    pub fn of_code(code: EventCode, arg: u32) -> StackOp {
        let n = NameId(arg);
        match code {
            EventCode::SessionBegin => StackOp::Push(Construct::Session),
            EventCode::SessionEnd => StackOp::Pop(Construct::Session),
            EventCode::FragBegin => StackOp::Push(Construct::Frag(n)),
            EventCode::FragEnd => StackOp::Pop(Construct::Frag(n)),
            EventCode::ParBegin => StackOp::Push(Construct::Par),
            EventCode::ParEnd => StackOp::Pop(Construct::Par),
            EventCode::TaskBegin => StackOp::Push(Construct::Task),
            EventCode::TaskEnd | EventCode::TaskEndWasted => StackOp::Pop(Construct::Task),
            EventCode::WaitBegin => StackOp::Push(Construct::Wait(n)),
            EventCode::WaitEnd => StackOp::Pop(Construct::Wait(NameId(u32::MAX))),
            EventCode::Counters => StackOp::None,
        }
    }
}

/// The most constructs a thread may have open at once (docs/event-logs.md): far above
/// any real program (a recursion that deep would overflow its own stack first), and what
/// keeps a hostile log (a run of zero bytes decodes as nested `session_begin`s) from
/// growing a thread's stack without bound. A begin event past it is rejected like an
/// unmatched end event: `--strict` fails, otherwise it is dropped with a warning.
pub const MAX_DEPTH: usize = 10_000;

/// Why an event could not be applied to its thread's stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// An end event while the stack was empty.
    NothingOpen,
    /// An end event while the innermost construct is a different one.
    Innermost(Frame),
    /// A begin event while [`MAX_DEPTH`] constructs are open already.
    TooDeep,
}

/// The stack of open constructs of one thread.
#[derive(Debug, Clone, Default)]
pub struct ThreadStack {
    frames: Vec<Frame>,
}

impl ThreadStack {
    /// An empty stack.
    pub fn new() -> ThreadStack {
        ThreadStack::default()
    }

    /// The thread's state: decided by the innermost construct; Idle when empty.
    #[inline]
    pub fn state(&self) -> ThreadState {
        self.frames
            .last()
            .map_or(ThreadState::Idle, |f| f.construct.state())
    }

    /// The state the thread will be in once the innermost construct is closed.
    #[inline]
    pub fn state_after_pop(&self) -> ThreadState {
        match self.frames.len() {
            0 | 1 => ThreadState::Idle,
            n => self.frames[n - 2].construct.state(),
        }
    }

    /// Opens a construct.
    #[inline]
    pub fn push(&mut self, frame: Frame) {
        self.frames.push(frame);
    }

    /// Closes the innermost construct if it is `construct` (wait kinds are not compared:
    /// `wait_end` carries no kind; fragment names are).
    #[inline]
    pub fn pop(&mut self, construct: Construct) -> Result<Frame, Mismatch> {
        self.check_pop(construct)?;
        Ok(self
            .frames
            .pop()
            .expect("check_pop found an innermost frame"))
    }

    /// Whether [`ThreadStack::pop`] of `construct` would succeed, without changing the
    /// stack.
    #[inline]
    pub fn check_pop(&self, construct: Construct) -> Result<(), Mismatch> {
        let Some(top) = self.frames.last() else {
            return Err(Mismatch::NothingOpen);
        };
        match (top.construct, construct) {
            (Construct::Wait(_), Construct::Wait(_)) => Ok(()),
            (a, b) if a == b => Ok(()),
            _ => Err(Mismatch::Innermost(*top)),
        }
    }

    /// The open constructs, outermost first.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The number of open constructs.
    #[inline]
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// True when nothing is open.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Removes every frame (used when the log ends with constructs still open).
    pub fn clear(&mut self) {
        self.frames.clear();
    }
}

impl StackOp {
    /// The construct an end event pops, if it is one.
    pub fn popped(self) -> Option<Construct> {
        match self {
            StackOp::Pop(c) => Some(c),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(c: Construct) -> Frame {
        Frame {
            construct: c,
            begin: Nanos(0),
            pos: Position::Line(1),
        }
    }

    #[test]
    fn innermost_construct_decides_the_state() {
        let mut s = ThreadStack::new();
        assert_eq!(s.state(), ThreadState::Idle);
        s.push(frame(Construct::Session));
        assert_eq!(s.state(), ThreadState::Busy);
        s.push(frame(Construct::Par));
        assert_eq!(s.state(), ThreadState::Idle);
        s.push(frame(Construct::Task));
        assert_eq!(s.state(), ThreadState::Busy);
        s.push(frame(Construct::Wait(NameId(0))));
        assert_eq!(s.state(), ThreadState::Spinning);
        assert!(s.pop(Construct::Wait(NameId(7))).is_ok());
        assert_eq!(s.depth(), 3);
    }

    #[test]
    fn mismatched_end_names_the_innermost_construct() {
        let mut s = ThreadStack::new();
        assert_eq!(s.pop(Construct::Task), Err(Mismatch::NothingOpen));
        s.push(frame(Construct::Frag(NameId(1))));
        assert_eq!(
            s.pop(Construct::Frag(NameId(2))),
            Err(Mismatch::Innermost(frame(Construct::Frag(NameId(1)))))
        );
        assert!(s.pop(Construct::Frag(NameId(1))).is_ok());
    }
}
