//! The hot loop of the fast pipeline: runs of transitions applied with the common case
//! written out (one window, the session; window totals only; not oversubscribed).
//!
//! [`Sweep::transitions`] does exactly what [`Sweep::transition`] does for each
//! transition, in the same order and with the same arithmetic (the differential tests in
//! `tests/engines.rs` hold it to that); it only leaves out the loops over windows and the
//! per-thread amounts when the sweep has a single window and keeps totals only
//! ([`Sweep::totals_only`]), and hands every other case (session and fragment events,
//! oversubscribed intervals, the session snapshot, the first event) to
//! [`Sweep::transition`].

use pplib::log::EventCode;

use super::{state_index, SegStart, Sweep, ThreadTotals};
use crate::lane::Transition;
use crate::stack::ThreadState;

impl Sweep {
    /// Applies `items` in order up to the first marker or `counters` transition (which
    /// need more than the transition: an error, counter values); returns how many were
    /// applied.
    pub fn transitions(&mut self, items: &[Transition]) -> usize {
        let mut i = 0;
        while i < items.len() {
            if self.hot_mode() {
                i += self.hot_run(&items[i..]);
            }
            let Some(tr) = items.get(i) else { break };
            let code = tr.code();
            if tr.is_marker() || code == EventCode::Counters {
                return i;
            }
            // What the hot loop leaves: the general path.
            self.transition(tr.slot(), tr.time, code, tr.arg(), tr.state(), &[]);
            i += 1;
        }
        items.len()
    }

    /// Whether the sweep is in the shape the hot loop handles: totals only, one window.
    /// Only [`Sweep::transition`] changes that.
    fn hot_mode(&self) -> bool {
        !self.per_thread && self.windows.len() == 1 && self.active.len() == 1
    }

    /// Applies the leading transitions of `items` that are the common case (see the module
    /// docs; the sweep must be in [`Sweep::hot_mode`]) and returns how many; stops before
    /// the first one that is not. The clock, the counts and the session window's integer
    /// totals live in locals meanwhile.
    fn hot_run(&mut self, items: &[Transition]) -> usize {
        let p = u64::from(self.config.processors);
        if !self.started || self.snapshot_due {
            return 0;
        }
        let mut now = self.now;
        let mut last_time = self.last_time;
        let mut counts = self.counts;
        let mut par_open = self.par_open;
        let totals = &self.windows[0].totals;
        let (mut span, mut unit, mut sl, mut busy_t) =
            (totals.span, totals.unit, totals.sl.exact, totals.busy.exact);
        let (mut li, mut ip) = (totals.li, totals.ip);
        let (mut un_li, mut un_ip) = (totals.unattributed_li, totals.unattributed_ip);
        let mut done = items.len();
        for (i, tr) in items.iter().enumerate() {
            let code = tr.code();
            let [idle_present, busy, spin] = counts;
            let rare_code = matches!(
                code,
                EventCode::SessionBegin
                    | EventCode::SessionEnd
                    | EventCode::FragBegin
                    | EventCode::FragEnd
                    | EventCode::Counters
            );
            if rare_code | tr.is_marker() | (busy + spin > p) {
                done = i;
                break;
            }
            let t = tr.time;
            let slot = tr.slot();
            let new = tr.state();
            // `Sweep::advance` with one active window, n <= p, without the idle shares.
            last_time = last_time.max(t);
            if t > now {
                let dt = u128::from(t - now);
                now = t;
                let idle = u128::from(p - busy - spin) * dt;
                let work_mask = u128::from(par_open > 0).wrapping_neg();
                span += dt;
                unit.exact += dt;
                sl += u128::from(spin) * dt;
                busy_t += u128::from(busy) * dt;
                li += idle & work_mask;
                ip += idle & !work_mask;
                // Idle time no present idle thread takes (adding an exact 0 otherwise):
                // whether there is one is data, so no branch.
                let unattributed = idle & u128::from(idle_present == 0).wrapping_neg();
                un_li += unattributed & work_mask;
                un_ip += unattributed & !work_mask;
            }
            // `Sweep::transition` for par, task and wait events, with
            // `Sweep::close_segment_charges` for one window.
            let s = &mut self.slots[slot];
            let old = s.state;
            // Task events always end the segment; which event comes next is data, so a
            // table, not a branch on the code.
            const TASK: [bool; 16] = {
                let mut t = [false; 16];
                t[EventCode::TaskBegin as usize] = true;
                t[EventCode::TaskEnd as usize] = true;
                t[EventCode::TaskEndWasted as usize] = true;
                t
            };
            if !s.present | (new != old) | TASK[code as usize & 15] {
                if s.seg.is_empty() {
                    s.seg.resize(1, SegStart::default());
                    s.acc.resize(1, ThreadTotals::default());
                }
                let busy_now = s.present & (old == ThreadState::Busy);
                let d = unit - s.seg[0].unit;
                let charge = &mut s.pending[s.owner0];
                charge.exact += d.exact & u128::from(busy_now).wrapping_neg();
                if d.scaled != 0.0 && busy_now {
                    charge.scaled += d.scaled;
                }
                s.seg[0].unit = unit;
            }
            if !s.present {
                s.present = true;
                counts[state_index(old)] += 1;
            }
            match code {
                EventCode::ParBegin => par_open += 1,
                EventCode::ParEnd => par_open -= 1,
                EventCode::TaskBegin => self.task_opened(slot),
                EventCode::TaskEnd => self.task_closed(slot, false),
                EventCode::TaskEndWasted => self.task_closed(slot, true),
                _ => {}
            }
            counts[state_index(old)] -= 1;
            counts[state_index(new)] += 1;
            self.slots[slot].state = new;
        }
        self.now = now;
        self.last_time = last_time;
        self.counts = counts;
        self.par_open = par_open;
        let totals = &mut self.windows[0].totals;
        totals.span = span;
        totals.unit = unit;
        totals.sl.exact = sl;
        totals.busy.exact = busy_t;
        totals.li = li;
        totals.ip = ip;
        totals.unattributed_li = un_li;
        totals.unattributed_ip = un_ip;
        done
    }
}
