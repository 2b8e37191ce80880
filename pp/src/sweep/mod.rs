//! The profile engine: one streaming sweep over the time-ordered events of all threads.
//!
//! The sweep keeps, per thread, its [`ThreadStack`] and a few counters, and, per window of
//! interest (the session, and each selected fragment), cumulative amounts. Between two
//! consecutive event times the state of the run is constant: B threads Busy, S Spinning,
//! `Work_Exists` true or false, a set of windows active. [`Sweep::event`] first integrates
//! that interval into every active window (O(active windows)), then applies the event to its
//! thread (O(windows)). Memory is independent of the number of events: per-thread state plus,
//! per open task, one amount per window.
//!
//! Two ways in, with the same results bit for bit (`tests/engines.rs`):
//! - [`Sweep::event`]: whole events in global time order; the sweep keeps the stacks. The
//!   reference, and the path for timelines (an [`Observer`]) and duration histograms.
//! - [`Sweep::transition`] / [`Sweep::transitions`]: events whose stack effect the
//!   per-thread lanes ([`crate::lane`]) already worked out, without the *inert* ones
//!   ([`Sweep::is_inert`]: fragment events that select no window and change no state).
//!   `transitions` is the hot loop (`hot.rs`) for the common shape: window totals only
//!   ([`Sweep::totals_only`]: no per-thread rows, what the table and record lines need),
//!   one window, not oversubscribed.
//!
//! Both integrate only up to events that are not inert (the next one, or the end of the
//! log, covers an inert event's interval too), so dropping inert events before the merge
//! changes no rounding. Per thread, where a segment ends, every amount of the thread's
//! state is updated; the branch-free variant ([`Sweep::transition`]) updates the others
//! with exact zeros, which leaves them as they were.
//!
//! # Semantics (docs/predicates.md)
//! - Idle processors I = p − (B + S) (B counts Busy threads, wasted or not). While any `par`
//!   is open on any thread, I counts as `li`, otherwise as `ip`. The part of `li` while,
//!   in addition, no thread runs a task is also counted as `fj`, fork/join latency (the
//!   exact predicate, with nesting and concurrent `par`s, is in `forkjoin.rs`).
//! - `sl` = S, `rt` + `wc` = B. If B + S > p, each Busy or Spinning thread counts p/(B + S) of
//!   a processor and `over` gets (B + S − p) thread-time.
//! - Wastedness is only known when a task ends, so the Busy time of a thread is charged to
//!   its innermost open `task` (or to nothing for serial code): when that task ends with
//!   `wasted`, its charge moves from `rt` to `wc`. Work inside a nested task on the same
//!   thread is charged to the nested task only. A task still open at the end of the session
//!   window counts as not wasted.
//! - Windows: the session window runs from the first `session_begin` to the last
//!   `session_end` (if the log has no `session_begin`, from its first to its last event); the
//!   window of fragment NAME is the union of intervals during which NAME is open on at least
//!   one thread.
//! - Per thread (Crovella's Table 4.2): a thread's Busy / Wasted / Spinning time (scaled like
//!   the totals); the idle processors of an instant are shared equally among the threads that
//!   are present (from their first event on) and Idle; idle processor-time with no such
//!   thread (before enough threads have appeared) is reported as unattributed.
//! - Counters: the increase of a cumulative per-thread counter between two samples is taken
//!   to have come during the thread's Busy time in that interval and is shared among the
//!   windows in proportion to the thread's Busy wall time in each (`counters.rs`; a sample
//!   after the last `session_end` still counts for the session up to its end).
//!   `os` = Busy wall time − Busy CPU time (`cpu_ns`), never negative per interval;
//!   `llc_misses` during Busy time feed `cl`; `nivcsw` (involuntary context switches) is
//!   shared the same way and reported as a count.
//! - End of the log: constructs still open are closed at the time of the last event (with a
//!   warning); the session window still ends at the last `session_end` if there is one and no
//!   session is open.
//! - An end event that does not close its thread's innermost construct fails the sweep, or,
//!   after [`Sweep::drop_unmatched_ends`], is dropped before it changes anything (not even
//!   the integration point), so the rest is profiled as if it were not in the log.

mod config;
mod counters;
mod events;
mod finish;
mod forkjoin;
mod hot;
mod integrate;
mod mismatch;
mod results;
mod transition;
mod windows;

pub use config::{CounterRoles, Observer, Rates, SweepConfig, TagSelection};
pub use mismatch::{mismatch_error, Dropped};
pub use results::{
    Durations, SweepError, SweepErrorKind, SweepResult, ThreadCounts, ThreadTotals, WindowResult,
    WindowTotals,
};

use pplib::log::{
    CompactEvent, CounterId, Event, EventCode, EventKind, NameId, Nanos, Position, ThreadId,
};

use crate::accum::ThreadNanos;
use crate::stack::{Construct, Mismatch, StackOp, ThreadStack, ThreadState, MAX_DEPTH};

/// Per event code: whether the event opens a construct (pushes on its thread's stack).
const OPENS: [bool; 12] = [
    true, false, true, false, true, false, true, false, false, true, false, false,
];
use forkjoin::Nest;

#[derive(Debug, Clone, Copy, Default)]
struct SegStart {
    unit: ThreadNanos,
    span: u128,
    g_li: f64,
    g_ip: f64,
}

impl SegStart {
    /// The readings of window totals `c` that a segment starting now subtracts.
    #[inline(always)]
    fn of(c: &WindowTotals) -> SegStart {
        SegStart {
            unit: c.unit,
            span: c.span,
            g_li: c.g_li,
            g_ip: c.g_ip,
        }
    }
}

#[derive(Debug, Clone)]
struct CounterTrack {
    value: u64,
    time: u64,
    busy_wall: Vec<u128>,
}

#[derive(Debug)]
struct Slot {
    id: ThreadId,
    stack: ThreadStack,
    present: bool,
    state: ThreadState,
    seg: Vec<SegStart>,
    acc: Vec<ThreadTotals>,
    /// Per open task: (offset into `pending`, number of windows when it opened).
    /// `pending[0]` belongs to no task: Busy time outside tasks is charged there (and never
    /// read), which spares [`Sweep::close_segment`] a branch.
    tasks: Vec<(usize, usize)>,
    pending: Vec<ThreadNanos>,
    /// Where in `pending` the innermost open task's charge for the session window is (0:
    /// no task; see [`Slot::owner_of`]).
    owner0: usize,
    cpu: Option<CounterTrack>,
    misses: Option<CounterTrack>,
    switches: Option<CounterTrack>,
    /// The thread's open `task` and `par` constructs (for `fj`, see `forkjoin.rs`).
    nest: Nest,
    /// Whether the thread opened a task (for the thread-count check).
    ran_task: bool,
    /// Whether the thread was ever Busy (for the thread-count check).
    was_busy: bool,
    /// Start of the current state interval (for observers).
    seg_time: u64,
    /// The session snapshot (see [`Sweep::snap_epoch`]) this thread's `snap_row` is of.
    snap_epoch: u64,
    /// The thread's session-window amounts at the snapshot `snap_epoch`.
    snap_row: ThreadTotals,
}

/// `x as f64` (the same value), with the cheap signed conversion when `x < 2^63`.
#[inline(always)]
fn as_f64(x: u64) -> f64 {
    match i64::try_from(x) {
        Ok(i) => i as f64,
        Err(_) => x as f64,
    }
}

/// `if on { x } else { 0.0 }` without a branch (bit masking).
#[inline(always)]
pub(super) fn f64_if(on: bool, x: f64) -> f64 {
    f64::from_bits(x.to_bits() & u64::from(on).wrapping_neg())
}

/// The index of a state in [`Sweep`]'s counts.
#[inline]
fn state_index(state: ThreadState) -> usize {
    match state {
        ThreadState::Idle => 0,
        ThreadState::Busy => 1,
        ThreadState::Spinning => 2,
    }
}

/// An event as the sweep applies it.
struct Step<'a> {
    code: EventCode,
    arg: u32,
    pos: Position,
    values: &'a [(CounterId, u64)],
}

const UNSEEN: u32 = u32::MAX;
const IGNORED: u32 = u32::MAX - 1;

#[derive(Debug)]
struct Window {
    tag: Option<String>,
    open: u64,
    totals: WindowTotals,
    durations: Option<Durations>,
}

/// The session window as it was at the last `session_end` that closed every session. The
/// threads' rows at that instant are taken lazily (see `Sweep::catch_up_snapshot`).
#[derive(Debug, Clone)]
struct SessionSnapshot {
    totals: WindowTotals,
    durations: Option<Durations>,
}

/// The streaming profile engine. Feed it events in global time order ([`crate::merge`]
/// produces that order), then call [`Sweep::finish`].
#[derive(Debug)]
pub struct Sweep {
    config: SweepConfig,
    names: Vec<String>,
    /// Per name id: whether a fragment of that name has a window (see [`Sweep::is_inert`]).
    selected: Vec<bool>,
    frag_window: Vec<u32>,
    windows: Vec<Window>,
    active: Vec<usize>,
    slots: Vec<Slot>,
    started: bool,
    /// Whether per-thread amounts are kept (see [`Sweep::totals_only`]).
    per_thread: bool,
    /// The time up to which the windows are integrated (the last event that was not
    /// inert, see [`Sweep::is_inert`]).
    now: u64,
    /// The time of the last event, inert or not (the end of the log).
    last_time: u64,
    /// Present threads per state, indexed by [`state_index`]: Idle, Busy, Spinning.
    counts: [u64; 3],
    par_open: u64,
    /// Threads running a task (see `forkjoin.rs`): while 0 and a `par` is open, idle
    /// processors count as `fj` too.
    running: u64,
    session_seen: bool,
    session_open: u64,
    snapshot: Option<SessionSnapshot>,
    snapshot_due: bool,
    /// How many session snapshots with per-thread rows were taken: a thread whose
    /// `snap_epoch` is behind has not yet closed its session-window segment at the latest
    /// one, which it does, against `snap_reading`, before its amounts next change.
    snap_epoch: u64,
    /// The session window's clocks at the latest snapshot.
    snap_reading: SegStart,
    cpu_sampled: bool,
    misses_sampled: bool,
    switches_sampled: bool,
    events: u64,
    warnings: Vec<String>,
    last_rates: Option<Rates>,
    /// Whether an end event that does not match its thread's innermost construct is
    /// dropped (see [`Sweep::drop_unmatched_ends`]) instead of failing the sweep.
    drop_unmatched: bool,
    /// The events dropped so far.
    dropped: Dropped,
}

impl Sweep {
    /// A sweep over a log with string table `names` and threads `threads` (one slot each, in
    /// this order; events are given with their slot).
    pub fn new(config: SweepConfig, names: Vec<String>, threads: &[ThreadId]) -> Sweep {
        let p = config.processors.max(1);
        let config = SweepConfig {
            processors: p,
            ..config
        };
        let histograms = config.histograms;
        let session = Window {
            tag: None,
            open: 0,
            totals: WindowTotals::default(),
            durations: histograms.then(Durations::new),
        };
        Sweep {
            frag_window: vec![UNSEEN; names.len()],
            selected: config.tags.selected_names(&names),
            names,
            windows: vec![session],
            active: vec![0],
            slots: threads
                .iter()
                .map(|&id| Slot {
                    id,
                    stack: ThreadStack::new(),
                    present: false,
                    state: ThreadState::Idle,
                    seg: Vec::new(),
                    acc: Vec::new(),
                    tasks: Vec::new(),
                    pending: vec![ThreadNanos::ZERO],
                    owner0: 0,
                    cpu: None,
                    misses: None,
                    switches: None,
                    nest: Nest::new(),
                    ran_task: false,
                    was_busy: false,
                    seg_time: 0,
                    snap_epoch: 0,
                    snap_row: ThreadTotals::default(),
                })
                .collect(),
            config,
            started: false,
            per_thread: true,
            now: 0,
            last_time: 0,
            counts: [0; 3],
            par_open: 0,
            running: 0,
            session_seen: false,
            session_open: 0,
            snapshot: None,
            snapshot_due: false,
            snap_epoch: 0,
            snap_reading: SegStart::default(),
            cpu_sampled: false,
            misses_sampled: false,
            switches_sampled: false,
            events: 0,
            warnings: Vec::new(),
            last_rates: None,
            drop_unmatched: false,
            dropped: Dropped::default(),
        }
    }

    /// The time up to which the windows are integrated: the last event consumed that was
    /// not inert (see [`Sweep::is_inert`]).
    pub fn now(&self) -> Nanos {
        Nanos(self.now)
    }

    /// Whether fragment name `name` has a window of its own (a selected tag).
    #[inline(always)]
    pub fn selects(&self, name: NameId) -> bool {
        self.selected.get(name.0 as usize).copied().unwrap_or(false)
    }

    /// An *inert* event changes nothing the sweep computes: a `frag_begin` or `frag_end`
    /// of a fragment that has no window, on a present thread whose state it leaves as it
    /// is. The sweep does not integrate up to an inert event (the next event that is not
    /// inert, or the end of the log, integrates over it), so the intervals the windows
    /// are integrated over, and with them every rounding, depend only on the events that
    /// are not inert: a pipeline that drops inert events before the merge
    /// ([`crate::lane`]) gives the same floating-point results, bit for bit.
    /// `state_after` is the thread's state after the event.
    #[inline(always)]
    pub fn is_inert(
        code: EventCode,
        present: bool,
        selected: bool,
        state_before: ThreadState,
        state_after: ThreadState,
    ) -> bool {
        matches!(code, EventCode::FragBegin | EventCode::FragEnd)
            && present
            && !selected
            && state_before == state_after
    }

    /// Consumes one event of thread slot `slot` (events must come in global time order, and
    /// in each thread's own order).
    pub fn event(
        &mut self,
        slot: usize,
        ev: &Event,
        observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        let (code, arg) = EventCode::of(&ev.kind);
        let values = match &ev.kind {
            EventKind::Counters(v) => &v[..],
            _ => &[],
        };
        self.step(slot, ev.time.0, code, arg, ev.pos, values, observer)
    }

    /// [`Sweep::event`] for an event in compact form (what [`crate::merge`] gives), with its
    /// counter values (empty unless it is a `counters` event).
    #[inline]
    pub fn compact_event(
        &mut self,
        slot: usize,
        ev: &CompactEvent,
        values: &[(CounterId, u64)],
        observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        self.step(slot, ev.time.0, ev.code, ev.arg, ev.pos(), values, observer)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step(
        &mut self,
        slot: usize,
        time: u64,
        code: EventCode,
        arg: u32,
        pos: Position,
        values: &[(CounterId, u64)],
        observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        self.events += 1;
        let t = time.max(self.now);
        self.last_time = self.last_time.max(t);
        if OPENS[code as usize] && self.slots[slot].stack.depth() >= MAX_DEPTH {
            let id = self.slots[slot].id;
            let names = &self.names;
            let e = || mismatch_error(names, id, code, arg, pos, Mismatch::TooDeep);
            if !self.drop_unmatched {
                return Err(e());
            }
            self.dropped.add(SweepErrorKind::TooDeep, e);
            return Ok(());
        }
        if self.drop_unmatched {
            if let Some(c) = StackOp::of_code(code, arg).popped() {
                if let Err(m) = self.slots[slot].stack.check_pop(c) {
                    let id = self.slots[slot].id;
                    let names = &self.names;
                    let e = || mismatch_error(names, id, code, arg, pos, m);
                    self.dropped.add(SweepErrorKind::Unmatched, e);
                    return Ok(());
                }
            }
        }
        let s = &self.slots[slot];
        let inert = match code {
            EventCode::FragBegin | EventCode::FragEnd => {
                let after = if code == EventCode::FragBegin {
                    ThreadState::Busy
                } else {
                    s.stack.state_after_pop()
                };
                Sweep::is_inert(code, s.present, self.selects(NameId(arg)), s.state, after)
            }
            _ => false,
        };
        if !inert {
            self.advance(t);
        }
        let ev = Step {
            code,
            arg,
            pos,
            values,
        };
        if let Some(obs) = observer {
            self.observe_segment(obs, slot, t);
            self.slots[slot].seg_time = t;
            self.apply(slot, &ev, t, Some(obs))
        } else {
            self.slots[slot].seg_time = t;
            self.apply(slot, &ev, t, None)
        }
    }

    /// Shows `obs` the segment thread `slot` has been in since its last event, ending at
    /// `end` (nothing for an absent thread or an empty segment).
    fn observe_segment(&self, obs: &mut dyn Observer, slot: usize, end: u64) {
        let s = &self.slots[slot];
        if s.present && s.seg_time < end {
            obs.segment(
                slot,
                s.state,
                !s.tasks.is_empty(),
                Nanos(s.seg_time),
                Nanos(end),
            );
        }
    }

    fn slot_duration_kind(&self, c: Construct) -> Option<bool> {
        if !self.config.histograms {
            return None;
        }
        match c {
            Construct::Task => Some(true),
            Construct::Wait(_) => Some(false),
            _ => None,
        }
    }

    fn record_duration(&mut self, task: bool, ns: u64) {
        for &w in &self.active {
            if let Some(d) = self.windows[w].durations.as_mut() {
                let h = if task { &mut d.tasks } else { &mut d.waits };
                // `record` grows the auto-resizing histogram; it only fails for values
                // beyond u64 range, which a u64 duration cannot be.
                if h.record(ns).is_err() {
                    h.saturating_record(ns);
                }
            }
        }
    }

    /// The processors in each state now (session-wide).
    pub fn rates(&self) -> Rates {
        let p = f64::from(self.config.processors);
        let [_, busy, spin] = self.counts;
        let n = (busy + spin) as f64;
        let (f, idle) = if n > p { (p / n, 0.0) } else { (1.0, p - n) };
        let work = self.par_open > 0;
        Rates {
            li: if work { idle } else { 0.0 },
            ip: if work { 0.0 } else { idle },
            sl: spin as f64 * f,
            busy: busy as f64 * f,
        }
    }

    /// From now on, an end event that does not match the innermost open construct of its
    /// thread (or comes when nothing is open), and a begin event on a thread that has
    /// [`MAX_DEPTH`] constructs open, are dropped: the thread's stack and state stay as
    /// they were, as if the event were not in the log, and the sweep goes on. The dropped
    /// events are counted, and the first few kept, for [`Sweep::take_dropped`]. Without
    /// this call such an event fails the sweep.
    pub fn drop_unmatched_ends(&mut self) {
        self.drop_unmatched = true;
    }

    /// The events dropped so far (see [`Sweep::drop_unmatched_ends`]): their numbers and
    /// the first [`Dropped::LISTED`], in the order they were read.
    pub fn take_dropped(&mut self) -> Dropped {
        std::mem::take(&mut self.dropped)
    }

    fn mismatch(&self, slot: usize, ev: &Step<'_>, m: Mismatch) -> SweepError {
        mismatch_error(&self.names, self.slots[slot].id, ev.code, ev.arg, ev.pos, m)
    }

    fn name(&self, id: NameId) -> &str {
        self.names
            .get(id.0 as usize)
            .map_or("<undefined>", String::as_str)
    }
}
