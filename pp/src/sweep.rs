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
//! # Semantics (DESIGN section 2)
//! - Idle processors I = p − (B + S) (B counts Busy threads, wasted or not). While any `par`
//!   is open on any thread, I counts as `li`, otherwise as `ip`.
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
//! - Counters: the increase of a cumulative per-thread counter between two samples is shared
//!   among the windows in proportion to the thread's Busy wall time in each window during that
//!   interval. `os` = Busy wall time − Busy CPU time (`cpu_ns`), never negative per interval;
//!   `llc_misses` during Busy time feed `cl`.
//! - End of the log: constructs still open are closed at the time of the last event (with a
//!   warning); the session window still ends at the last `session_end` if there is one and no
//!   session is open.

use hdrhistogram::Histogram;
use pplib::log::{CounterId, Event, EventKind, NameId, Nanos, Position, ThreadId};

use crate::accum::ThreadNanos;
use crate::stack::{Construct, Frame, Mismatch, StackOp, ThreadStack, ThreadState};

/// Which fragment windows to profile besides the session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TagSelection {
    /// The session only.
    #[default]
    None,
    /// The session and fragment NAME.
    One(String),
    /// The session and every fragment.
    All,
}

/// Which counters of the log mean what (ids from the log header).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterRoles {
    /// Cumulative CPU time of the thread in nanoseconds (`cpu_ns`).
    pub cpu_ns: Option<CounterId>,
    /// Cumulative last-level-cache misses of the thread (`llc_misses`).
    pub llc_misses: Option<CounterId>,
}

impl CounterRoles {
    /// Finds the roles by counter name (`cpu_ns`, `llc_misses`) in a header's counter list.
    pub fn from_names(names: &[String]) -> CounterRoles {
        let find = |n: &str| {
            names
                .iter()
                .position(|c| c == n)
                .and_then(|i| u16::try_from(i).ok())
                .map(CounterId)
        };
        CounterRoles {
            cpu_ns: find("cpu_ns"),
            llc_misses: find("llc_misses"),
        }
    }
}

/// Configuration of one sweep.
#[derive(Debug, Clone, Default)]
pub struct SweepConfig {
    /// p, the number of processors (>= 1).
    pub processors: u32,
    /// Fragment windows to profile.
    pub tags: TagSelection,
    /// Record task and wait durations per window.
    pub histograms: bool,
    /// Counter roles.
    pub counters: CounterRoles,
}

/// Receives the intervals and constructs of the sweep as they complete (for timelines).
///
/// Threads are identified by their slot (the index in the `threads` given to
/// [`Sweep::new`]).
pub trait Observer {
    /// A thread was in `state` from `start` to `end`; `in_task` says whether its innermost
    /// open task owns the time (Busy time that becomes Wasted if that task ends wasted).
    fn segment(&mut self, slot: usize, state: ThreadState, in_task: bool, start: Nanos, end: Nanos);
    /// A construct was opened.
    fn opened(&mut self, slot: usize, frame: &Frame);
    /// A construct was closed at `end`; `wasted` for a task closed as wasted.
    fn closed(&mut self, slot: usize, frame: &Frame, end: Nanos, wasted: bool);
    /// The numbers of processors in each state changed at `time` (session-wide view; Busy
    /// includes work that may later prove wasted).
    fn rates(&mut self, time: Nanos, rates: Rates);
}

/// Processors in each category at an instant (may be fractional when oversubscribed).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates {
    /// Idle processors while work exists.
    pub li: f64,
    /// Idle processors while no work exists.
    pub ip: f64,
    /// Spinning processors.
    pub sl: f64,
    /// Busy processors.
    pub busy: f64,
}

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
    fn new() -> Durations {
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
    /// Non-fatal findings (unclosed constructs, no session, ...), one line each.
    pub warnings: Vec<String>,
    /// Events consumed.
    pub events: u64,
}

/// An error found by the sweep (the caller adds the file name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepError {
    /// Where the offending event is.
    pub pos: Position,
    /// Its thread.
    pub thread: ThreadId,
    /// The event as written.
    pub found: String,
    /// What was expected instead.
    pub expected: String,
}

#[derive(Debug, Clone, Copy, Default)]
struct SegStart {
    unit: ThreadNanos,
    span: u128,
    g_li: f64,
    g_ip: f64,
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
    tasks: Vec<(usize, usize)>,
    pending: Vec<ThreadNanos>,
    cpu: Option<CounterTrack>,
    misses: Option<CounterTrack>,
    /// Start of the current state interval (for observers).
    seg_time: u64,
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

#[derive(Debug, Clone)]
struct SessionSnapshot {
    totals: WindowTotals,
    threads: Vec<(ThreadId, ThreadTotals)>,
    durations: Option<Durations>,
}

/// The streaming profile engine. Feed it events in global time order ([`crate::merge`]
/// produces that order), then call [`Sweep::finish`].
#[derive(Debug)]
pub struct Sweep {
    config: SweepConfig,
    names: Vec<String>,
    frag_window: Vec<u32>,
    windows: Vec<Window>,
    active: Vec<usize>,
    slots: Vec<Slot>,
    started: bool,
    now: u64,
    busy: u64,
    spin: u64,
    idle_present: u64,
    par_open: u64,
    session_seen: bool,
    session_open: u64,
    snapshot: Option<SessionSnapshot>,
    snapshot_due: bool,
    cpu_sampled: bool,
    misses_sampled: bool,
    events: u64,
    warnings: Vec<String>,
    last_rates: Option<Rates>,
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
                    pending: Vec::new(),
                    cpu: None,
                    misses: None,
                    seg_time: 0,
                })
                .collect(),
            config,
            started: false,
            now: 0,
            busy: 0,
            spin: 0,
            idle_present: 0,
            par_open: 0,
            session_seen: false,
            session_open: 0,
            snapshot: None,
            snapshot_due: false,
            cpu_sampled: false,
            misses_sampled: false,
            events: 0,
            warnings: Vec::new(),
            last_rates: None,
        }
    }

    /// The time of the last event consumed.
    pub fn now(&self) -> Nanos {
        Nanos(self.now)
    }

    /// Integrates the interval from the previous event to `t` into every active window.
    #[inline]
    fn advance(&mut self, t: u64) {
        if !self.started {
            self.started = true;
            self.now = t;
            return;
        }
        if t <= self.now {
            return;
        }
        if self.snapshot_due {
            // The session ended at `now`; events of other threads at that same instant
            // (a task ending as the session closes) have been applied: take the snapshot.
            self.snapshot_session();
        }
        let dt64 = t - self.now;
        let dt = u128::from(dt64);
        self.now = t;
        let p = u64::from(self.config.processors);
        let n = self.busy + self.spin;
        let work = self.par_open > 0;
        for &w in &self.active {
            let a = &mut self.windows[w].totals;
            a.span += dt;
            if n <= p {
                a.unit.exact += dt;
                a.sl.exact += u128::from(self.spin) * dt;
                a.busy.exact += u128::from(self.busy) * dt;
                let idle = u128::from(p - n) * dt;
                if idle > 0 {
                    if work {
                        a.li += idle;
                    } else {
                        a.ip += idle;
                    }
                    if self.idle_present > 0 {
                        let share = (p - n) as f64 * dt64 as f64 / self.idle_present as f64;
                        if work {
                            a.g_li += share;
                        } else {
                            a.g_ip += share;
                        }
                    } else if work {
                        a.unattributed_li += idle;
                    } else {
                        a.unattributed_ip += idle;
                    }
                }
            } else {
                let f = dt64 as f64 * (p as f64 / n as f64);
                a.unit.scaled += f;
                a.sl.scaled += self.spin as f64 * f;
                a.busy.scaled += self.busy as f64 * f;
                a.over += u128::from(n - p) * dt;
            }
        }
    }

    /// Closes the current segment of `slot` at the present time and starts a new one.
    #[inline]
    fn close_segment(&mut self, slot: usize) {
        let s = &mut self.slots[slot];
        let nw = self.windows.len();
        if s.seg.len() < nw {
            s.seg.resize(nw, SegStart::default());
            s.acc.resize(nw, ThreadTotals::default());
        }
        let owner = s.tasks.last().copied();
        for (w, win) in self.windows.iter().enumerate() {
            let c = &win.totals;
            let start = s.seg[w];
            if s.present {
                let acc = &mut s.acc[w];
                match s.state {
                    ThreadState::Busy => {
                        let d = c.unit - start.unit;
                        acc.busy += d;
                        acc.busy_wall += c.span - start.span;
                        if let Some((off, width)) = owner {
                            if w < width {
                                s.pending[off + w] += d;
                            }
                        }
                    }
                    ThreadState::Spinning => acc.sl += c.unit - start.unit,
                    ThreadState::Idle => {
                        acc.li += c.g_li - start.g_li;
                        acc.ip += c.g_ip - start.g_ip;
                    }
                }
            }
            s.seg[w] = SegStart {
                unit: c.unit,
                span: c.span,
                g_li: c.g_li,
                g_ip: c.g_ip,
            };
        }
    }

    fn count(&mut self, state: ThreadState, present: bool, delta: i64) {
        if !present {
            return;
        }
        let c = match state {
            ThreadState::Busy => &mut self.busy,
            ThreadState::Spinning => &mut self.spin,
            ThreadState::Idle => &mut self.idle_present,
        };
        *c = c.wrapping_add_signed(delta);
    }

    /// Consumes one event of thread slot `slot` (events must come in global time order, and
    /// in each thread's own order).
    pub fn event(
        &mut self,
        slot: usize,
        ev: &Event,
        observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        self.events += 1;
        let t = ev.time.0.max(self.now);
        self.advance(t);
        if let Some(obs) = observer {
            let s = &self.slots[slot];
            if s.present && s.seg_time < t {
                obs.segment(
                    slot,
                    s.state,
                    !s.tasks.is_empty(),
                    Nanos(s.seg_time),
                    Nanos(t),
                );
            }
            self.slots[slot].seg_time = t;
            self.apply(slot, ev, t, Some(obs))
        } else {
            self.slots[slot].seg_time = t;
            self.apply(slot, ev, t, None)
        }
    }

    fn apply(
        &mut self,
        slot: usize,
        ev: &Event,
        t: u64,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        let op = StackOp::of(&ev.kind);
        let s = &self.slots[slot];
        let old = s.state;
        // A segment must end where the thread's state or the task owning its Busy time
        // changes (and at counter samples, which read the Busy time so far). Other events
        // (fragments, nested session) leave the running segment as it is: window clocks
        // that stop or start do not need it split.
        let next_state = match op {
            StackOp::Push(c) => c.state(),
            StackOp::Pop(_) => s.stack.state_after_pop(),
            StackOp::None => old,
        };
        let must_close = !s.present
            || next_state != old
            || matches!(
                op,
                StackOp::Push(Construct::Task) | StackOp::Pop(Construct::Task) | StackOp::None
            );
        if must_close {
            self.close_segment(slot);
        }
        if !self.slots[slot].present {
            self.slots[slot].present = true;
            self.count(old, true, 1);
        }
        match op {
            StackOp::None => {
                if let EventKind::Counters(values) = &ev.kind {
                    self.sample_counters(slot, values, t);
                }
            }
            StackOp::Push(c) => {
                if c == Construct::Session {
                    self.begin_session();
                }
                let frame = Frame {
                    construct: c,
                    begin: Nanos(t),
                    pos: ev.pos,
                };
                match c {
                    Construct::Par => self.par_open += 1,
                    Construct::Task => {
                        let nw = self.windows.len();
                        let s = &mut self.slots[slot];
                        let off = s.pending.len();
                        s.pending.resize(off + nw, ThreadNanos::ZERO);
                        s.tasks.push((off, nw));
                    }
                    Construct::Frag(name) => self.frag_open(name),
                    Construct::Session => self.session_open += 1,
                    Construct::Wait(_) => {}
                }
                self.slots[slot].stack.push(frame);
                if let Some(obs) = observer.as_deref_mut() {
                    obs.opened(slot, &frame);
                }
            }
            StackOp::Pop(c) => {
                let frame = match self.slots[slot].stack.pop(c) {
                    Ok(f) => f,
                    Err(m) => return Err(self.mismatch(slot, ev, m)),
                };
                let wasted = matches!(ev.kind, EventKind::TaskEnd { wasted: true });
                match c {
                    Construct::Par => self.par_open -= 1,
                    Construct::Task => self.task_closed(slot, wasted),
                    Construct::Frag(name) => self.frag_close(name),
                    Construct::Session => self.session_open -= 1,
                    Construct::Wait(_) => {}
                }
                if let Some(d) = self.slot_duration_kind(c) {
                    self.record_duration(d, t - frame.begin.0);
                }
                if let Some(obs) = observer.as_deref_mut() {
                    obs.closed(slot, &frame, Nanos(t), wasted);
                }
                if c == Construct::Session {
                    self.snapshot_due = true;
                }
            }
        }
        let new = self.slots[slot].stack.state();
        if new != old {
            self.count(old, true, -1);
            self.count(new, true, 1);
            self.slots[slot].state = new;
        }
        if let Some(obs) = observer {
            let r = self.rates();
            if self.last_rates != Some(r) {
                self.last_rates = Some(r);
                obs.rates(Nanos(t), r);
            }
        }
        Ok(())
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
        let n = (self.busy + self.spin) as f64;
        let (f, idle) = if n > p { (p / n, 0.0) } else { (1.0, p - n) };
        let work = self.par_open > 0;
        Rates {
            li: if work { idle } else { 0.0 },
            ip: if work { 0.0 } else { idle },
            sl: self.spin as f64 * f,
            busy: self.busy as f64 * f,
        }
    }

    fn mismatch(&self, slot: usize, ev: &Event, m: Mismatch) -> SweepError {
        let found = match &ev.kind {
            EventKind::FragEnd(n) => format!("frag_end {}", self.name(*n)),
            EventKind::TaskEnd { wasted: true } => "task_end wasted".to_owned(),
            k => StackOp::of(k)
                .popped()
                .map_or("?", Construct::end_event)
                .to_owned(),
        };
        let expected = match m {
            Mismatch::NothingOpen => "a begin event (nothing is open on this thread)".to_owned(),
            Mismatch::Innermost(f) => {
                let (end, begin) = match f.construct {
                    Construct::Frag(n) => (
                        format!("frag_end {}", self.name(n)),
                        format!("frag_begin {}", self.name(n)),
                    ),
                    Construct::Wait(n) => (
                        "wait_end".to_owned(),
                        format!("wait_begin {}", self.name(n)),
                    ),
                    c => (c.end_event().to_owned(), c.begin_event().to_owned()),
                };
                format!("{end} (for {begin} at {})", f.pos)
            }
        };
        SweepError {
            pos: ev.pos,
            thread: self.slots[slot].id,
            found,
            expected,
        }
    }

    fn name(&self, id: NameId) -> &str {
        self.names
            .get(id.0 as usize)
            .map_or("<undefined>", String::as_str)
    }

    fn begin_session(&mut self) {
        if self.session_seen {
            return;
        }
        self.session_seen = true;
        // Until now the session window stood in for the whole log (in case the log has no
        // session at all); it starts afresh here.
        let keep_hist = self.windows[0].durations.is_some();
        self.windows[0].totals = WindowTotals::default();
        if keep_hist {
            self.windows[0].durations = Some(Durations::new());
        }
        for s in &mut self.slots {
            if let Some(seg) = s.seg.first_mut() {
                *seg = SegStart::default();
            }
            if let Some(acc) = s.acc.first_mut() {
                *acc = ThreadTotals::default();
            }
            for &(off, width) in &s.tasks {
                if width > 0 {
                    s.pending[off] = ThreadNanos::ZERO;
                }
            }
            for track in [s.cpu.as_mut(), s.misses.as_mut()].into_iter().flatten() {
                if let Some(b) = track.busy_wall.first_mut() {
                    *b = 0;
                }
            }
        }
    }

    fn frag_open(&mut self, name: NameId) {
        let Some(w) = self.frag_window_of(name) else {
            return;
        };
        let win = &mut self.windows[w];
        win.open += 1;
        if win.open == 1 {
            self.active.push(w);
        }
    }

    fn frag_close(&mut self, name: NameId) {
        let Some(w) = self.frag_window_of(name) else {
            return;
        };
        let win = &mut self.windows[w];
        win.open -= 1;
        if win.open == 0 {
            self.active.retain(|&a| a != w);
        }
    }

    fn frag_window_of(&mut self, name: NameId) -> Option<usize> {
        let i = name.0 as usize;
        if i >= self.frag_window.len() {
            // Not in the string table (readers reject such ids): no window.
            return None;
        }
        match self.frag_window[i] {
            IGNORED => None,
            UNSEEN => {
                let tag = self.name(name).to_owned();
                let wanted = match &self.config.tags {
                    TagSelection::None => false,
                    TagSelection::One(t) => *t == tag,
                    TagSelection::All => true,
                };
                if wanted {
                    let w = self.windows.len();
                    self.windows.push(Window {
                        tag: Some(tag),
                        open: 0,
                        totals: WindowTotals::default(),
                        durations: self.config.histograms.then(Durations::new),
                    });
                    self.frag_window[i] = w as u32;
                    self.widen_open_tasks(w + 1);
                    Some(w)
                } else {
                    self.frag_window[i] = IGNORED;
                    None
                }
            }
            w => Some(w as usize),
        }
    }

    /// Gives every open task a charge slot for windows created after it opened.
    fn widen_open_tasks(&mut self, nw: usize) {
        for s in &mut self.slots {
            if s.tasks.iter().all(|&(_, width)| width >= nw) {
                continue;
            }
            let mut pending = Vec::with_capacity(s.tasks.len() * nw);
            for (off, width) in &mut s.tasks {
                let start = pending.len();
                pending.extend_from_slice(&s.pending[*off..*off + *width]);
                pending.resize(start + nw, ThreadNanos::ZERO);
                *off = start;
                *width = nw;
            }
            s.pending = pending;
        }
    }

    fn task_closed(&mut self, slot: usize, wasted: bool) {
        let s = &mut self.slots[slot];
        let (off, width) = s.tasks.pop().expect("a task frame per open task");
        if wasted {
            for w in 0..width {
                let d = s.pending[off + w];
                if !d.is_zero() {
                    s.acc[w].wasted += d;
                    self.windows[w].totals.wasted += d;
                }
            }
        }
        s.pending.truncate(off);
    }

    fn sample_counters(&mut self, slot: usize, values: &[(CounterId, u64)], t: u64) {
        let roles = self.config.counters;
        for &(id, value) in values {
            let is_cpu = roles.cpu_ns == Some(id);
            let is_miss = roles.llc_misses == Some(id);
            if !is_cpu && !is_miss {
                continue;
            }
            let s = &mut self.slots[slot];
            let busy_wall: Vec<u128> = s.acc.iter().map(|a| a.busy_wall).collect();
            let track = if is_cpu { &mut s.cpu } else { &mut s.misses };
            if let Some(prev) = track.as_ref() {
                let wall = t.saturating_sub(prev.time);
                if wall > 0 {
                    let delta = value.saturating_sub(prev.value) as f64;
                    for (w, &bw_now) in busy_wall.iter().enumerate() {
                        let bw_prev = prev.busy_wall.get(w).copied().unwrap_or(0);
                        let bw = bw_now.saturating_sub(bw_prev) as f64;
                        if bw <= 0.0 {
                            continue;
                        }
                        let share = delta * (bw / wall as f64);
                        let totals = &mut self.windows[w].totals;
                        if is_cpu {
                            totals.cpu_sampled_busy_wall += bw;
                            totals.os += (bw - share).max(0.0);
                        } else {
                            totals.misses += share;
                        }
                    }
                    if is_cpu {
                        self.cpu_sampled = true;
                    } else {
                        self.misses_sampled = true;
                    }
                }
            }
            *track = Some(CounterTrack {
                value,
                time: t,
                busy_wall,
            });
        }
    }

    /// Closes every thread's segment at the present time.
    fn flush_all(&mut self) {
        for slot in 0..self.slots.len() {
            self.close_segment(slot);
        }
    }

    fn thread_totals(&self, w: usize) -> Vec<(ThreadId, ThreadTotals)> {
        self.slots
            .iter()
            .map(|s| (s.id, s.acc.get(w).copied().unwrap_or_default()))
            .collect()
    }

    fn snapshot_session(&mut self) {
        self.snapshot_due = false;
        self.flush_all();
        self.snapshot = Some(SessionSnapshot {
            totals: self.windows[0].totals,
            threads: self.thread_totals(0),
            durations: self.windows[0].durations.clone(),
        });
    }

    /// A thread's stream ended. The thread stays present (its state, Idle with an empty
    /// stack, still offers a processor to the per-thread view) until the end of the log:
    /// a log has no thread-exit event, and pool workers that run out of tasks early are
    /// exactly the threads that load imbalance leaves idle.
    pub fn thread_ended(&mut self, slot: usize) {
        debug_assert!(slot < self.slots.len());
    }

    /// Ends the sweep: closes what is still open (with warnings) and returns the windows.
    pub fn finish(mut self, observer: Option<&mut dyn Observer>) -> SweepResult {
        if self.snapshot_due {
            self.snapshot_session();
        }
        self.flush_all();
        if let Some(obs) = observer {
            let end = self.now;
            for (slot, s) in self.slots.iter().enumerate() {
                if s.present && s.seg_time < end {
                    obs.segment(
                        slot,
                        s.state,
                        !s.tasks.is_empty(),
                        Nanos(s.seg_time),
                        Nanos(end),
                    );
                }
                let mut frames = s.stack.frames().to_vec();
                while let Some(f) = frames.pop() {
                    obs.closed(slot, &f, Nanos(end), false);
                }
            }
        }
        let mut open_frames = 0usize;
        let mut example: Option<(ThreadId, Frame)> = None;
        for s in &self.slots {
            open_frames += s.stack.depth();
            if example.is_none() {
                if let Some(f) = s.stack.frames().last() {
                    example = Some((s.id, *f));
                }
            }
        }
        if let Some((thread, f)) = example {
            let what = match f.construct {
                Construct::Frag(n) => format!("frag_begin {}", self.name(n)),
                Construct::Wait(n) => format!("wait_begin {}", self.name(n)),
                c => c.begin_event().to_owned(),
            };
            self.warnings.push(format!(
                "{open_frames} construct(s) still open at the end of the log (e.g. {what} at {} on thread {thread}); closed at the last event, t = {} ns",
                f.pos, self.now
            ));
        }
        if !self.session_seen {
            self.warnings.push(
                "no session_begin in the log: the session window is the whole log (first to last event)"
                    .to_owned(),
            );
        }
        let session = match (&self.snapshot, self.session_open) {
            (Some(snap), 0) => WindowResult {
                tag: None,
                totals: snap.totals,
                threads: snap.threads.clone(),
                durations: snap.durations.clone(),
            },
            _ => WindowResult {
                tag: None,
                totals: self.windows[0].totals,
                threads: self.thread_totals(0),
                durations: self.windows[0].durations.clone(),
            },
        };
        let mut windows = vec![session];
        for w in 1..self.windows.len() {
            windows.push(WindowResult {
                tag: self.windows[w].tag.clone(),
                totals: self.windows[w].totals,
                threads: self.thread_totals(w),
                durations: self.windows[w].durations.take(),
            });
        }
        SweepResult {
            processors: self.config.processors,
            windows,
            cpu_sampled: self.cpu_sampled,
            misses_sampled: self.misses_sampled,
            warnings: self.warnings,
            events: self.events,
        }
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
