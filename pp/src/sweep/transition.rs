//! Applying a *transition*: an event whose effect on its thread's stack was already worked
//! out by that thread's lane ([`crate::lane`]), so the sweep only updates what is global.
//!
//! [`Sweep::transition`] does exactly what [`Sweep::event`] does for the same event, minus
//! the stack (the lane validated the event and gives the thread's new state), the observer
//! and the duration histograms (pipelines with either use [`Sweep::event`]). The
//! differential tests (`tests/engines.rs`) hold the two to byte-identical profiles.

use pplib::log::{CounterId, EventCode, NameId, Nanos, ThreadId};

use super::{f64_if, SegStart, Slot, Sweep, ThreadTotals};
use crate::accum::ThreadNanos;
use crate::stack::{ThreadStack, ThreadState};

impl Sweep {
    /// Applies one transition of thread slot `slot` at time `t` (transitions must come in
    /// global time order): an event with code `code` and argument `arg` (a name id, or the
    /// number of counter values) after which the thread is in state `new`; `values` are
    /// the counter values of a `counters` event. Inert events (see [`Sweep::is_inert`])
    /// must not be given; count them with [`Sweep::add_events`].
    #[inline(always)]
    pub fn transition(
        &mut self,
        slot: usize,
        t: u64,
        code: EventCode,
        arg: u32,
        new: ThreadState,
        values: &[(CounterId, u64)],
    ) {
        self.last_time = self.last_time.max(t);
        self.advance(t);
        if matches!(
            code,
            EventCode::Counters
                | EventCode::SessionBegin
                | EventCode::SessionEnd
                | EventCode::FragBegin
                | EventCode::FragEnd
        ) {
            return self.rare_transition(slot, t, code, arg, new, values);
        }
        // par, task and wait events: the bulk of a log.
        let s = &self.slots[slot];
        let old = s.state;
        let task = matches!(
            code,
            EventCode::TaskBegin | EventCode::TaskEnd | EventCode::TaskEndWasted
        );
        // As in `Sweep::open` / `Sweep::close`: a segment ends where the thread's state or
        // the task owning its Busy time changes.
        if !s.present || new != old || task {
            if self.per_thread {
                self.close_segment_flat(slot);
            } else {
                self.close_segment_charges(slot);
            }
        }
        self.mark_present(slot);
        // +1 for par_begin, -1 for par_end, 0 otherwise: no branch on the code.
        const PAR_DELTA: [u64; 16] = {
            let mut d = [0u64; 16];
            d[EventCode::ParBegin as usize] = 1;
            d[EventCode::ParEnd as usize] = u64::MAX;
            d
        };
        self.par_open = self.par_open.wrapping_add(PAR_DELTA[code as usize & 15]);
        self.nest_step(slot, code);
        match code {
            EventCode::TaskBegin => self.task_opened(slot),
            EventCode::TaskEnd => self.task_closed(slot, false),
            EventCode::TaskEndWasted => self.task_closed(slot, true),
            _ => {}
        }
        self.recount(old, new);
        let s = &mut self.slots[slot];
        s.state = new;
        s.was_busy |= new == ThreadState::Busy;
    }

    /// [`Sweep::transition`] for `counters`, `session_*` and `frag_*` events.
    #[inline(never)]
    fn rare_transition(
        &mut self,
        slot: usize,
        t: u64,
        code: EventCode,
        arg: u32,
        new: ThreadState,
        values: &[(CounterId, u64)],
    ) {
        let s = &self.slots[slot];
        let old = s.state;
        if code == EventCode::Counters {
            // A counter sample reads the Busy time so far: the segment ends here.
            self.close_segment(slot);
            self.mark_present(slot);
            if !values.is_empty() {
                self.sample_counters(slot, values, t);
            }
            return;
        }
        if !s.present || new != old {
            self.close_segment(slot);
        }
        self.mark_present(slot);
        match code {
            EventCode::SessionBegin => {
                self.begin_session();
                self.session_open += 1;
            }
            EventCode::SessionEnd => {
                self.session_open -= 1;
                self.snapshot_due = true;
            }
            EventCode::FragBegin => self.frag_open(NameId(arg)),
            EventCode::FragEnd => self.frag_close(NameId(arg)),
            _ => unreachable!("not a rare transition: {code:?}"),
        }
        self.recount(old, new);
        let s = &mut self.slots[slot];
        s.state = new;
        s.was_busy |= new == ThreadState::Busy;
    }

    /// A task opened on `slot`: it gets a charge per window (see `Slot::pending`).
    #[inline(always)]
    pub(super) fn task_opened(&mut self, slot: usize) {
        let nw = self.windows.len();
        let s = &mut self.slots[slot];
        let off = s.pending.len();
        for _ in 0..nw {
            s.pending.push(ThreadNanos::ZERO);
        }
        s.tasks.push((off, nw));
        s.owner0 = if nw > 0 { off } else { 0 };
        s.ran_task = true;
    }

    /// [`Sweep::close_segment`] without a branch on the thread's state: every amount is
    /// updated, those of the other states with an exact zero (integer 0, or +0.0 added to
    /// a sum that is never -0.0), which leaves them bit for bit as they were. The state of
    /// the thread that has the next event is effectively random, so this is cheaper than
    /// the branch it replaces.
    #[inline(always)]
    pub(super) fn close_segment_flat(&mut self, slot: usize) {
        self.catch_up_snapshot(slot);
        let nw = self.windows.len();
        let s = &mut self.slots[slot];
        if s.seg.len() < nw {
            s.widen(nw);
        }
        let busy = s.present & (s.state == ThreadState::Busy);
        let spin = s.present & (s.state == ThreadState::Spinning);
        let idle = s.present & (s.state == ThreadState::Idle);
        let busy_mask = u128::from(busy).wrapping_neg();
        let spin_mask = u128::from(spin).wrapping_neg();
        // The owning task's charges, or the unowned slot 0 (see `Slot::pending`).
        let (off, width) = s.tasks.last().copied().unwrap_or((0, 0));
        let windows = &self.windows[..nw];
        let segs = &mut s.seg[..nw];
        let accs = &mut s.acc[..nw];
        let pending = &mut s.pending[..];
        for (w, (win, (seg, acc))) in windows.iter().zip(segs.iter_mut().zip(accs)).enumerate() {
            let c = &win.totals;
            let d = c.unit - seg.unit;
            acc.busy.exact += d.exact & busy_mask;
            acc.busy.scaled += f64_if(busy, d.scaled);
            acc.busy_wall += (c.span - seg.span) & busy_mask;
            let at = if w < width { off + w } else { 0 };
            pending[at].exact += d.exact & busy_mask;
            pending[at].scaled += f64_if(busy, d.scaled);
            acc.sl.exact += d.exact & spin_mask;
            acc.sl.scaled += f64_if(spin, d.scaled);
            acc.li += f64_if(idle, c.g_li - seg.g_li);
            acc.ip += f64_if(idle, c.g_ip - seg.g_ip);
            *seg = SegStart::of(c);
        }
    }

    /// [`Sweep::close_segment_flat`] for a sweep that keeps no per-thread amounts (see
    /// [`Sweep::totals_only`]): only the charge of the task owning the Busy time, which
    /// becomes `wc` if that task ends wasted.
    #[inline(always)]
    fn close_segment_charges(&mut self, slot: usize) {
        let nw = self.windows.len();
        let s = &mut self.slots[slot];
        if s.seg.len() < nw {
            s.widen(nw);
        }
        let busy = s.present & (s.state == ThreadState::Busy);
        let busy_mask = u128::from(busy).wrapping_neg();
        let (off, width) = s.tasks.last().copied().unwrap_or((0, 0));
        let windows = &self.windows[..nw];
        let pending = &mut s.pending[..];
        for (w, (win, seg)) in windows.iter().zip(s.seg[..nw].iter_mut()).enumerate() {
            let unit = win.totals.unit;
            let d = unit - seg.unit;
            let at = if w < width { off + w } else { 0 };
            pending[at].exact += d.exact & busy_mask;
            if d.scaled != 0.0 {
                // Oversubscribed time in the segment (rare).
                pending[at].scaled += f64_if(busy, d.scaled);
            }
            seg.unit = unit;
        }
    }

    /// Keeps the window totals only, not the per-thread amounts (Crovella's Table 4.2):
    /// what the default table, record lines and plots show, for less work per event. The result's windows then have no
    /// thread rows. Call before the first event; logs with counters that `pp` uses
    /// (`cpu_ns`, `llc_misses`, `nivcsw`) need the per-thread Busy time, so for them this does
    /// nothing.
    pub fn totals_only(&mut self) {
        let counters = self.config.counters;
        if counters.cpu_ns.is_none() && counters.llc_misses.is_none() && counters.nivcsw.is_none() {
            self.per_thread = false;
        }
    }

    /// Counts `n` events consumed outside [`Sweep::event`] (by lanes: their transitions
    /// and inert events alike).
    pub fn add_events(&mut self, n: u64) {
        self.events += n;
    }

    /// Notes that the log's last event (perhaps inert) is at `t`: the windows still open
    /// at the end are integrated up to there by [`Sweep::finish`].
    pub fn extend_to(&mut self, t: Nanos) {
        if self.started {
            self.last_time = self.last_time.max(t.0);
        }
    }

    /// Hands the sweep the stack a lane kept for thread slot `slot` (what is still open at
    /// the end of the log, for [`Sweep::finish`]'s warning).
    pub fn set_stack(&mut self, slot: usize, stack: ThreadStack) {
        self.slots[slot].stack = stack;
    }

    /// The thread id of slot `slot`.
    pub fn thread(&self, slot: usize) -> ThreadId {
        self.slots[slot].id
    }

    /// The fragment or wait name `id` (`<undefined>` outside the string table).
    pub fn name_of(&self, id: NameId) -> &str {
        self.name(id)
    }

    /// Whether thread slot `slot` has had an event yet.
    pub fn is_present(&self, slot: usize) -> bool {
        self.slots[slot].present
    }

    /// The state of thread slot `slot` as the sweep counts it.
    pub fn state_of(&self, slot: usize) -> ThreadState {
        self.slots[slot].state
    }

    /// The innermost task of `slot` ended: if `wasted`, its charges move from `rt` to
    /// `wc` (per window and for the thread); its charge slots are freed.
    #[inline]
    pub(super) fn task_closed(&mut self, slot: usize, wasted: bool) {
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
        s.owner0 = Slot::owner_of(&s.tasks);
    }
}

impl Slot {
    /// Gives the thread a segment start and amounts for each of `nw` windows, with no
    /// room to spare (a log may have a hundred thousand threads and one window).
    #[cold]
    pub(super) fn widen(&mut self, nw: usize) {
        self.seg.reserve_exact(nw - self.seg.len());
        self.seg.resize(nw, SegStart::default());
        self.acc.reserve_exact(nw.saturating_sub(self.acc.len()));
        self.acc.resize(nw, ThreadTotals::default());
    }

    /// The index in `pending` of the session-window charge of the innermost of `tasks`,
    /// or 0 (the unowned charge) when no task is open.
    pub(super) fn owner_of(tasks: &[(usize, usize)]) -> usize {
        match tasks.last() {
            Some(&(off, width)) if width > 0 => off,
            _ => 0,
        }
    }
}
