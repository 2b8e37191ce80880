//! Applying one event to its thread: the stack operation, the segment it ends, and the
//! counts of threads per state (see the semantics in the parent module).

use pplib::log::{EventCode, NameId, Nanos};

use super::{state_index, Observer, Step, Sweep, SweepError};
use crate::stack::{Construct, Frame, ThreadState};

impl Sweep {
    /// Applies one event to its thread. One dispatch on the event code; each arm is the
    /// inlined [`Sweep::open`] / [`Sweep::close`] for a known construct, so the branches
    /// left inside an arm follow that construct's own (predictable) pattern.
    #[inline(always)]
    pub(super) fn apply(
        &mut self,
        slot: usize,
        ev: &Step<'_>,
        t: u64,
        observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        let n = NameId(ev.arg);
        match ev.code {
            EventCode::SessionBegin => self.open(slot, Construct::Session, ev, t, observer),
            EventCode::FragBegin => self.open(slot, Construct::Frag(n), ev, t, observer),
            EventCode::ParBegin => self.open(slot, Construct::Par, ev, t, observer),
            EventCode::TaskBegin => self.open(slot, Construct::Task, ev, t, observer),
            EventCode::WaitBegin => self.open(slot, Construct::Wait(n), ev, t, observer),
            EventCode::SessionEnd => self.close(slot, Construct::Session, ev, t, observer)?,
            EventCode::FragEnd => self.close(slot, Construct::Frag(n), ev, t, observer)?,
            EventCode::ParEnd => self.close(slot, Construct::Par, ev, t, observer)?,
            EventCode::TaskEnd | EventCode::TaskEndWasted => {
                self.close(slot, Construct::Task, ev, t, observer)?
            }
            EventCode::WaitEnd => {
                self.close(slot, Construct::Wait(NameId(u32::MAX)), ev, t, observer)?
            }
            EventCode::Counters => {
                // A counter sample reads the Busy time so far: the segment ends here.
                self.close_segment(slot);
                self.mark_present(slot);
                if !ev.values.is_empty() {
                    self.sample_counters(slot, ev.values, t);
                }
                self.observe_rates(t, observer);
            }
        }
        Ok(())
    }

    /// Makes `slot` present (counted in its state) from its first event on.
    #[inline(always)]
    pub(super) fn mark_present(&mut self, slot: usize) {
        let s = &mut self.slots[slot];
        if !s.present {
            s.present = true;
            self.counts[state_index(s.state)] += 1;
        }
    }

    /// Tells the observer the new processor counts, if they changed.
    #[inline]
    fn observe_rates(&mut self, t: u64, observer: Option<&mut dyn Observer>) {
        if let Some(obs) = observer {
            let r = self.rates();
            if self.last_rates != Some(r) {
                self.last_rates = Some(r);
                obs.rates(Nanos(t), r);
            }
        }
    }

    /// Moves `slot` from state `old` into `new`, the state its stack now implies.
    #[inline(always)]
    fn settle(&mut self, slot: usize, old: ThreadState, new: ThreadState) {
        debug_assert_eq!(new, self.slots[slot].stack.state());
        self.recount(old, new);
        let s = &mut self.slots[slot];
        s.state = new;
        s.was_busy |= new == ThreadState::Busy;
    }

    /// A begin event: pushes `c` on the thread's stack.
    #[inline(always)]
    fn open(
        &mut self,
        slot: usize,
        c: Construct,
        ev: &Step<'_>,
        t: u64,
        mut observer: Option<&mut dyn Observer>,
    ) {
        let s = &self.slots[slot];
        let old = s.state;
        // A segment must end where the thread's state or the task owning its Busy time
        // changes. Other events (fragments, nested session) leave the running segment as
        // it is: window clocks that stop or start do not need it split.
        if !s.present || c.state() != old || c == Construct::Task {
            self.close_segment(slot);
        }
        self.mark_present(slot);
        match c {
            Construct::Par => {
                self.par_open += 1;
                self.nest_step(slot, ev.code);
            }
            Construct::Task => {
                self.task_opened(slot);
                self.nest_step(slot, ev.code);
            }
            Construct::Frag(name) => self.frag_open(name),
            Construct::Session => {
                self.begin_session();
                self.session_open += 1;
            }
            Construct::Wait(_) => {}
        }
        let frame = Frame {
            construct: c,
            begin: Nanos(t),
            pos: ev.pos,
        };
        self.slots[slot].stack.push(frame);
        if let Some(obs) = observer.as_deref_mut() {
            obs.opened(slot, &frame);
        }
        self.settle(slot, old, c.state());
        self.observe_rates(t, observer);
    }

    /// An end event: pops `c`, which must be the innermost construct of the thread.
    #[inline(always)]
    fn close(
        &mut self,
        slot: usize,
        c: Construct,
        ev: &Step<'_>,
        t: u64,
        mut observer: Option<&mut dyn Observer>,
    ) -> Result<(), SweepError> {
        let s = &self.slots[slot];
        let old = s.state;
        let next_state = s.stack.state_after_pop();
        if !s.present || next_state != old || c == Construct::Task {
            self.close_segment(slot);
        }
        self.mark_present(slot);
        let frame = match self.slots[slot].stack.pop(c) {
            Ok(f) => f,
            Err(m) => return Err(self.mismatch(slot, ev, m)),
        };
        let wasted = ev.code == EventCode::TaskEndWasted;
        match c {
            Construct::Par => {
                self.par_open -= 1;
                self.nest_step(slot, ev.code);
            }
            Construct::Task => {
                self.task_closed(slot, wasted);
                self.nest_step(slot, ev.code);
            }
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
        self.settle(slot, old, next_state);
        self.observe_rates(t, observer);
        Ok(())
    }
}
