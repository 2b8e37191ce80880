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

use super::{state_index, SegStart, Slot, Sweep, ThreadTotals};
use crate::accum::ThreadNanos;
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
        if !self.started || self.snapshot_due || p > MAX_HOT_PROCESSORS {
            return 0;
        }
        let mut done = 0;
        for chunk in items.chunks(HOT_CHUNK) {
            let n = self.hot_chunk(chunk, p);
            done += n;
            if n < chunk.len() {
                break;
            }
        }
        done
    }

    /// [`Sweep::hot_run`] on at most [`HOT_CHUNK`] transitions. The time amounts of the
    /// chunk are summed in `u64` (each step is under 2^[`MAX_HOT_STEP_BITS`] ns times at
    /// most [`MAX_HOT_PROCESSORS`] threads, so a chunk's sums cannot overflow) and added
    /// to the window's exact `u128` totals at the end: integer sums, so the totals are
    /// the same as adding step by step.
    #[inline(always)]
    fn hot_chunk(&mut self, items: &[Transition], p: u64) -> usize {
        let mut now = self.now;
        let mut last_time = self.last_time;
        let mut counts = self.counts;
        let mut par_open = self.par_open;
        let mut unit = self.windows[0].totals.unit;
        let scaled_any = unit.scaled != 0.0;
        // Sums of the chunk: time, spinning, busy, idle under a par construct, idle that
        // no present idle thread takes, and the part of it under a par construct. Idle
        // time outside par constructs follows from them (p * time - busy - spinning -
        // idle under par; likewise for the unattributed part).
        let (mut span, mut sl, mut busy_t, mut li, mut un, mut un_li) =
            (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
        let mut done = items.len();
        for (i, tr) in items.iter().enumerate() {
            let code = tr.code();
            let [idle_present, busy, spin] = counts;
            // par, task and wait events (not session, fragment or counters events, nor a
            // marker): one table bit per code.
            const COMMON: u16 = 1 << EventCode::ParBegin as u16
                | 1 << EventCode::ParEnd as u16
                | 1 << EventCode::TaskBegin as u16
                | 1 << EventCode::TaskEnd as u16
                | 1 << EventCode::TaskEndWasted as u16
                | 1 << EventCode::WaitBegin as u16
                | 1 << EventCode::WaitEnd as u16;
            let common = (COMMON >> tr.code_bits()) & 1 != 0;
            let t = tr.time;
            let long_step = t.saturating_sub(now) >> MAX_HOT_STEP_BITS != 0;
            if !common | (busy + spin > p) | long_step {
                done = i;
                break;
            }
            let slot = tr.slot();
            let new = tr.state();
            // `Sweep::advance` with one active window, n <= p, without the idle shares.
            last_time = last_time.max(t);
            if t > now {
                let dt = t - now;
                now = t;
                let idle = (p - busy - spin) * dt;
                let work_mask = u64::from(par_open > 0).wrapping_neg();
                span += dt;
                unit.exact += u128::from(dt);
                sl += spin * dt;
                busy_t += busy * dt;
                li += idle & work_mask;
                // Idle time no present idle thread takes (adding an exact 0 otherwise):
                // whether there is one is data, so no branch.
                let unattributed = idle & u64::from(idle_present == 0).wrapping_neg();
                un += unattributed;
                un_li += unattributed & work_mask;
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
                let seg = &mut s.seg[0].unit;
                let charge = &mut s.pending[s.owner0];
                charge.exact += (unit.exact - seg.exact) & u128::from(busy_now).wrapping_neg();
                // The scaled part of the unit only grows, from 0, and not in this loop:
                // while it is 0 every segment's is too.
                if scaled_any {
                    let d = unit.scaled - seg.scaled;
                    if d != 0.0 && busy_now {
                        charge.scaled += d;
                    }
                }
                *seg = unit;
            }
            if !s.present {
                s.present = true;
                counts[state_index(old)] += 1;
            }
            match code {
                EventCode::ParBegin => par_open += 1,
                EventCode::ParEnd => par_open -= 1,
                EventCode::TaskBegin => {
                    // `Sweep::task_opened` with one window.
                    let off = s.pending.len();
                    s.pending.push(ThreadNanos::ZERO);
                    s.tasks.push((off, 1));
                    s.owner0 = off;
                }
                EventCode::TaskEnd | EventCode::TaskEndWasted => {
                    // `Sweep::task_closed` with one window (a task opened when there were
                    // more has no charge beyond the first: windows are never removed).
                    let (off, width) = s.tasks.pop().expect("a task frame per open task");
                    if code == EventCode::TaskEndWasted && width > 0 {
                        let d = s.pending[off];
                        if !d.is_zero() {
                            s.acc[0].wasted += d;
                            self.windows[0].totals.wasted += d;
                        }
                    }
                    s.pending.truncate(off);
                    s.owner0 = Slot::owner_of(&s.tasks);
                }
                _ => {}
            }
            counts[state_index(old)] -= 1;
            counts[state_index(new)] += 1;
            s.state = new;
        }
        self.now = now;
        self.last_time = last_time;
        self.counts = counts;
        self.par_open = par_open;
        let totals = &mut self.windows[0].totals;
        let idle = p * span - busy_t - sl;
        totals.span += u128::from(span);
        totals.unit = unit;
        totals.sl.exact += u128::from(sl);
        totals.busy.exact += u128::from(busy_t);
        totals.li += u128::from(li);
        totals.ip += u128::from(idle - li);
        totals.unattributed_li += u128::from(un_li);
        totals.unattributed_ip += u128::from(un - un_li);
        done
    }
}

/// Most transitions [`Sweep::hot_chunk`] sums in `u64` before adding to the totals.
const HOT_CHUNK: usize = 1 << 14;

/// Steps of the clock the hot loop takes: under 2^`MAX_HOT_STEP_BITS` ns (longer ones go
/// to [`Sweep::transition`]).
const MAX_HOT_STEP_BITS: u32 = 32;

/// Most processors the hot loop handles (more go to [`Sweep::transition`]): with
/// [`HOT_CHUNK`] and [`MAX_HOT_STEP_BITS`], a chunk's sums stay under 2^(14 + 32 + 16)
/// = 2^62.
const MAX_HOT_PROCESSORS: u64 = 1 << 16;
