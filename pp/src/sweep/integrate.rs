//! Integration between events: the interval since the previous event goes into every
//! active window ([`Sweep::advance`]), and a thread's segment closes into its own amounts
//! when its state changes ([`Sweep::close_segment`]).

use super::{as_f64, f64_if, state_index, SegStart, Sweep};
use crate::stack::ThreadState;

impl Sweep {
    /// Integrates the interval from the previous event to `t` into every active window.
    #[inline(always)]
    pub(super) fn advance(&mut self, t: u64) {
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
        let [idle_present, busy, spin] = self.counts;
        let n = busy + spin;
        let work = self.par_open > 0;
        if n <= p {
            let idle_n = p - n;
            let idle = u128::from(idle_n) * dt;
            let attributed = idle_present > 0;
            let sl = u128::from(spin) * dt;
            let b = u128::from(busy) * dt;
            let work_mask = u128::from(work).wrapping_neg();
            let fj_mask = work_mask & u128::from(self.running == 0).wrapping_neg();
            for &w in &self.active {
                let a = &mut self.windows[w].totals;
                a.span += dt;
                a.unit.exact += dt;
                a.sl.exact += sl;
                a.busy.exact += b;
                // Work_Exists flips often (every fork and join): masks, not a branch.
                a.li += idle & work_mask;
                a.fj += idle & fj_mask;
                a.ip += idle & !work_mask;
            }
            if self.per_thread {
                // The share of the idle processors of each present Idle thread (none:
                // nothing is attributed). `as_f64` is `as f64`, cheaper.
                let share = if !attributed {
                    0.0
                } else if idle_n == idle_present && idle < 1 << 53 {
                    // As many idle processors as idle threads (the usual case once p
                    // threads are present): k·dt is exact in f64, so (k·dt)/k rounds to
                    // dt exactly, the value the division gives, without its latency.
                    as_f64(dt64)
                } else {
                    as_f64(idle_n) * as_f64(dt64) / as_f64(idle_present)
                };
                for &w in &self.active {
                    let a = &mut self.windows[w].totals;
                    a.g_li += f64_if(work, share);
                    a.g_ip += f64_if(!work, share);
                }
            }
            if !attributed {
                // Only before enough threads have appeared: a predictable branch.
                for &w in &self.active {
                    let a = &mut self.windows[w].totals;
                    a.unattributed_li += idle & work_mask;
                    a.unattributed_ip += idle & !work_mask;
                }
            }
        } else {
            let f = dt64 as f64 * (p as f64 / n as f64);
            for &w in &self.active {
                let a = &mut self.windows[w].totals;
                a.span += dt;
                a.unit.scaled += f;
                a.sl.scaled += spin as f64 * f;
                a.busy.scaled += busy as f64 * f;
                a.over += u128::from(n - p) * dt;
            }
        }
    }

    /// Closes the current segment of `slot` at the present time and starts a new one.
    ///
    /// One branch on the thread's state (it mispredicts at times: the state of the thread
    /// that has the next event is effectively random), then a loop over the windows that
    /// touches only the amounts of that state. Skipping an amount that does not apply is
    /// the same as adding an exact zero, as an unspecialized loop would.
    #[inline(always)]
    pub(super) fn close_segment(&mut self, slot: usize) {
        self.catch_up_snapshot(slot);
        let s = &mut self.slots[slot];
        let nw = self.windows.len();
        if s.seg.len() < nw {
            s.widen(nw);
        }
        let windows = &self.windows[..nw];
        let segs = &mut s.seg[..nw];
        let accs = &mut s.acc[..nw];
        let state = s.present.then_some(s.state);
        match state {
            Some(ThreadState::Busy) => {
                // The owning task's charges, or the unowned slot 0 (see `Slot::pending`).
                let (off, width) = s.tasks.last().copied().unwrap_or((0, 0));
                let pending = &mut s.pending[..];
                for (w, (win, (seg, acc))) in
                    windows.iter().zip(segs.iter_mut().zip(accs)).enumerate()
                {
                    let c = &win.totals;
                    let d = c.unit - seg.unit;
                    acc.busy += d;
                    acc.busy_wall += c.span - seg.span;
                    let at = if w < width { off + w } else { 0 };
                    pending[at] += d;
                    *seg = SegStart::of(c);
                }
            }
            Some(ThreadState::Spinning) => {
                for (win, (seg, acc)) in windows.iter().zip(segs.iter_mut().zip(accs)) {
                    let c = &win.totals;
                    acc.sl += c.unit - seg.unit;
                    *seg = SegStart::of(c);
                }
            }
            Some(ThreadState::Idle) => {
                for (win, (seg, acc)) in windows.iter().zip(segs.iter_mut().zip(accs)) {
                    let c = &win.totals;
                    acc.li += c.g_li - seg.g_li;
                    acc.ip += c.g_ip - seg.g_ip;
                    *seg = SegStart::of(c);
                }
            }
            None => {
                for (win, seg) in windows.iter().zip(segs.iter_mut()) {
                    *seg = SegStart::of(&win.totals);
                }
            }
        }
    }

    /// Moves a present thread from state `old` to `new` in the counts.
    #[inline(always)]
    pub(super) fn recount(&mut self, old: ThreadState, new: ThreadState) {
        self.counts[state_index(old)] -= 1;
        self.counts[state_index(new)] += 1;
    }
}
