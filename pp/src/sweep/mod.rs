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

mod config;
mod counters;
mod finish;
mod results;
mod windows;

pub use config::{CounterRoles, Observer, Rates, SweepConfig, TagSelection};
pub use results::{Durations, SweepError, SweepResult, ThreadTotals, WindowResult, WindowTotals};

use pplib::log::{Event, EventKind, NameId, Nanos, ThreadId};

use crate::accum::ThreadNanos;
use crate::stack::{Construct, Frame, Mismatch, StackOp, ThreadStack, ThreadState};

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
}
