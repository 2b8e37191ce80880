//! The instrumentation calls: fragments, `par`, `task` and `wait`, as RAII guards and as
//! closures (docs/predicates.md).
//!
//! Every call first reads whether a session is recording; when none is, it does nothing
//! else (about a nanosecond). A guard remembers the session it began in and records its end
//! only in that session, so a guard that outlives its session is harmless.

use crate::recorder::{self, raw};

/// A synchronization wait kind (recorded as the `wait` construct's name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitKind {
    /// Waiting for a lock (`lock`).
    Lock,
    /// Waiting at a barrier (`barrier`).
    Barrier,
    /// Waiting on a condition variable (`condvar`).
    Condvar,
    /// Waiting to receive from (or send to) a channel (`channel`).
    Channel,
    /// Spinning (`spin`).
    Spin,
    /// Any other kind of wait, by name.
    Other(&'static str),
}

impl WaitKind {
    /// The name recorded in the log.
    pub fn name(self) -> &'static str {
        match self {
            WaitKind::Lock => "lock",
            WaitKind::Barrier => "barrier",
            WaitKind::Condvar => "condvar",
            WaitKind::Channel => "channel",
            WaitKind::Spin => "spin",
            WaitKind::Other(name) => name,
        }
    }

    /// The string-table id in session `state` (the five standard kinds are pre-defined).
    fn id(self, state: u64) -> Option<u32> {
        match self {
            WaitKind::Lock => Some(0),
            WaitKind::Barrier => Some(1),
            WaitKind::Condvar => Some(2),
            WaitKind::Channel => Some(3),
            WaitKind::Spin => Some(4),
            WaitKind::Other(name) => recorder::name_id(state, name),
        }
    }
}

/// An open fragment (profiling tag); dropping it records `frag_end`.
#[must_use = "the fragment ends when the guard is dropped"]
#[derive(Debug)]
pub struct FragGuard {
    state: u64,
    name: u32,
}

/// Opens fragment `name` on the calling thread until the guard is dropped.
///
/// Fragments nest (a fragment inside another, or inside a `task`), and fragments of different
/// threads overlap freely in time (the profile of fragment NAME covers every instant at which
/// it is open on at least one thread). On one thread, constructs end innermost first: drop
/// guards in reverse order of creation (the natural order of scoped guards), since `pp`
/// rejects an end that does not match the innermost open construct. Names are interned: the
/// first use of a name on a thread takes a lock, later uses a small per-thread cache.
#[inline(always)]
pub fn frag(name: &str) -> FragGuard {
    let state = recorder::state();
    if state == 0 {
        return FragGuard { state: 0, name: 0 };
    }
    frag_begin(state, name)
}

/// The recording part of [`frag`], kept out of line so that the disabled path (a load and
/// a branch) is all that callers inline.
#[inline(never)]
fn frag_begin(state: u64, name: &str) -> FragGuard {
    match recorder::emit_named(state, raw::FRAG_BEGIN, name) {
        Some(id) => FragGuard { state, name: id },
        None => FragGuard { state: 0, name: 0 },
    }
}

impl Drop for FragGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if self.state != 0 {
            construct_end(self.state, raw::FRAG_END, self.name);
        }
    }
}

/// Runs `f` inside fragment `name`.
#[inline]
pub fn frag_scope<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let _guard = frag(name);
    f()
}

/// An open `par` (fork point); dropping it records `par_end`.
#[must_use = "the par ends when the guard is dropped"]
#[derive(Debug)]
pub struct ParGuard {
    state: u64,
}

/// Opens a `par` on the calling thread: it forked work and will wait for the join.
///
/// Fork and join points are where a thread's scheduling sample (CPU time, involuntary
/// context switches) is refreshed when its last one is a millisecond old or more.
#[inline]
pub fn par() -> ParGuard {
    let state = recorder::state();
    if state != 0 {
        recorder::emit(state, raw::PAR_BEGIN, 0);
        recorder::sample_scheduling(state);
    }
    ParGuard { state }
}

impl Drop for ParGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if self.state != 0 {
            par_end(self.state);
        }
    }
}

/// Records `par_end` for a `par` begun in session `state`, then refreshes the thread's
/// scheduling sample if it is old.
#[inline(never)]
fn par_end(state: u64) {
    if recorder::state() == state {
        recorder::emit(state, raw::PAR_END, 0);
        recorder::sample_scheduling(state);
    }
}

/// Runs `f` inside a `par`.
#[inline]
pub fn par_scope<R>(f: impl FnOnce() -> R) -> R {
    let _guard = par();
    f()
}

/// An open `task` (a piece of parallel work); dropping it records `task_end`, and
/// [`TaskGuard::wasted`] records `task_end wasted`.
#[must_use = "the task ends when the guard is dropped"]
#[derive(Debug)]
pub struct TaskGuard {
    state: u64,
    wasted: bool,
}

/// Opens a `task` on the calling thread.
#[inline]
pub fn task() -> TaskGuard {
    let state = recorder::state();
    if state != 0 {
        recorder::emit(state, raw::TASK_BEGIN, 0);
    }
    TaskGuard {
        state,
        wasted: false,
    }
}

impl TaskGuard {
    /// Closes the task as wasted: speculative work that did not contribute (counted as `wc`).
    #[inline]
    pub fn wasted(mut self) {
        self.wasted = true;
    }
}

impl Drop for TaskGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if self.state != 0 {
            if self.wasted {
                wasted_task_end(self.state);
            } else {
                construct_end(self.state, raw::TASK_END, 0);
            }
        }
    }
}

/// Records the end event `code` of a construct begun in session `state` (if it is still
/// recording). Guards' `drop` only tests their state and calls this, so that the disabled
/// path inlines to a compare and a branch wherever a guard is dropped.
#[inline]
fn construct_end(state: u64, code: u8, arg: u32) {
    recorder::emit_if_current(state, code, arg);
}

/// Records `task_end wasted` for a task begun in session `state` (out of line: rare).
#[inline(never)]
fn wasted_task_end(state: u64) {
    recorder::emit_if_current(state, raw::TASK_END_WASTED, 0);
}

/// Runs `f` inside a `task`.
#[inline]
pub fn task_scope<R>(f: impl FnOnce() -> R) -> R {
    let _guard = task();
    f()
}

/// An open `wait`; dropping it records `wait_end`.
#[must_use = "the wait ends when the guard is dropped"]
#[derive(Debug)]
pub struct WaitGuard {
    state: u64,
}

/// Opens a `wait` of `kind` on the calling thread (the thread is Spinning while it is the
/// innermost construct).
#[inline]
pub fn wait_guard(kind: WaitKind) -> WaitGuard {
    let state = recorder::state();
    if state == 0 {
        return WaitGuard { state: 0 };
    }
    match kind.id(state) {
        Some(id) => {
            recorder::emit(state, raw::WAIT_BEGIN, id);
            WaitGuard { state }
        }
        None => WaitGuard { state: 0 },
    }
}

impl Drop for WaitGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if self.state != 0 {
            construct_end(self.state, raw::WAIT_END, 0);
        }
    }
}

/// Runs `f` (a blocking wait: a channel receive, a spin loop, ...) inside a `wait` of `kind`.
#[inline]
pub fn wait<R>(kind: WaitKind, f: impl FnOnce() -> R) -> R {
    let _guard = wait_guard(kind);
    f()
}

/// Makes the calling thread part of the recording session now: it gets its log thread id
/// and its name is recorded, so that it appears in the log (and counts as one of the
/// team's threads in timelines) even if it never records an event. Threads otherwise join
/// on their first event; [`crate::pool`] registers its workers this way. No-op when no
/// session is recording.
pub fn register_thread() {
    recorder::register_thread();
}

/// Unpaired begin/end calls for the C ABI (the caller keeps them balanced).
pub(crate) mod unpaired {
    use super::*;

    pub(crate) fn event(code: u8, arg: u32) {
        let state = recorder::state();
        if state != 0 {
            recorder::emit(state, code, arg);
            if matches!(code, raw::PAR_BEGIN | raw::PAR_END) {
                recorder::sample_scheduling(state);
            }
        }
    }

    pub(crate) fn named(code: u8, name: &str) {
        let state = recorder::state();
        if state != 0 {
            recorder::emit_named(state, code, name);
        }
    }
}
