//! The hot loop of the fast pipeline: runs of transitions applied with the common case
//! written out (one window, the session; window totals only; not oversubscribed).
//!
//! [`Sweep::transitions`] does what [`Sweep::transition`] does for each transition, in
//! the same order and with the same results bit for bit (the differential tests in
//! `tests/engines.rs` hold it to that): floating-point amounts with the same operations
//! in the same order, integer amounts as the same sums (perhaps split differently: a
//! thread's Busy time is charged at every transition, not only where its segment ends).
//! It leaves out the loops over windows and the per-thread amounts (which a sweep that
//! keeps totals only never reads) when the sweep has a single window and keeps totals
//! only ([`Sweep::totals_only`]), has no branch on which event comes next (see
//! `Sweep::hot_chunk`), and hands every other case (session and fragment events,
//! oversubscribed intervals, the session snapshot, the first event) to
//! [`Sweep::transition`].

use pplib::log::EventCode;

use super::Sweep;
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
        if !self.started
            || self.snapshot_due
            || p > MAX_HOT_PROCESSORS
            || self.slots.len() as u64 > COUNT_MASK
        {
            return 0;
        }
        // The window's unit is wall time (under 2^64 ns); the loop keeps it in a `u64`.
        if self.windows[0].totals.unit.exact >= MAX_HOT_UNIT {
            return 0;
        }
        // The scaled part of the unit only grows, from 0, and not in the loop: while it is
        // 0 every segment's is too, and the loop leaves it out.
        let scaled = self.windows[0].totals.unit.scaled != 0.0;
        let mut done = 0;
        for chunk in items.chunks(HOT_CHUNK) {
            let n = if scaled {
                self.hot_chunk::<true>(chunk, p)
            } else {
                self.hot_chunk::<false>(chunk, p)
            };
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
    ///
    /// Which event comes next, and on which thread, is data: the loop has no branch on
    /// it (tables and masks instead), so nothing mispredicts but the rare cases it hands
    /// back. The task stack of a thread is pushed and cut back to its new depth on every
    /// transition (a task event moves it by one, others by none), and a thread's Busy time
    /// is charged to its owning task on every transition: integer sums, the same as
    /// charging once where the segment ends. In this mode every open task has one charge
    /// (one window), so the stack's invariants are `pending.len() == tasks.len() + 1`,
    /// `tasks[k] == (k + 1, 1)` and `owner0 == tasks.len()`.
    /// `SCALED`: the window's unit has a scaled part (oversubscribed time so far).
    #[inline(always)]
    fn hot_chunk<const SCALED: bool>(&mut self, items: &[Transition], p: u64) -> usize {
        let now0 = self.now;
        let mut now = now0;
        // The counts of present threads per state, packed (see `COUNT_ONE`).
        let [idle0, busy0, spin0] = self.counts;
        let mut counts = idle0 | busy0 << COUNT_BITS | spin0 << (2 * COUNT_BITS);
        let mut par_open = self.par_open;
        let mut running = self.running;
        let unit0 = self.windows[0].totals.unit;
        // Under `MAX_HOT_UNIT` (see `Sweep::hot_run`): no chunk overflows it.
        let mut unit = unit0.exact as u64;
        let scaled = unit0.scaled;
        // Sums of the chunk: spinning, busy and idle under a par construct. The span is
        // the clock's advance; idle time outside par constructs follows from the sums
        // (p * span - busy - spinning - idle under par). Idle time that no present idle
        // thread takes (before enough threads appear) is rare: added where it happens.
        let (mut sl, mut busy_t, mut li, mut fj) = (0u64, 0u64, 0u64, 0u64);
        let mut done = items.len();
        for (i, tr) in items.iter().enumerate() {
            let bits = tr.code_bits() as usize;
            let idle_present = counts & COUNT_MASK;
            let busy = (counts >> COUNT_BITS) & COUNT_MASK;
            let spin = counts >> (2 * COUNT_BITS);
            let t = tr.time;
            let dt = t.saturating_sub(now);
            if (COMMON >> bits) & 1 == 0 || busy + spin > p || dt >> MAX_HOT_STEP_BITS != 0 {
                done = i;
                break;
            }
            // `Sweep::advance` with one active window, n <= p, without the idle shares:
            // a step of 0 adds exact zeros.
            now += dt;
            unit += dt;
            let idle = (p - busy - spin) * dt;
            let work_mask = u64::from(par_open > 0).wrapping_neg();
            let fj_mask = work_mask & u64::from(running == 0).wrapping_neg();
            sl += spin * dt;
            busy_t += busy * dt;
            li += idle & work_mask;
            fj += idle & fj_mask;
            if (idle_present == 0) & (idle != 0) {
                let totals = &mut self.windows[0].totals;
                totals.unattributed_li += u128::from(idle & work_mask);
                totals.unattributed_ip += u128::from(idle & !work_mask);
            }
            // `Sweep::transition` for par, task and wait events, with
            // `Sweep::close_segment_charges` for one window.
            let new_bits = tr.state_bits();
            let new = tr.state();
            let s = &mut self.slots[tr.slot()];
            if s.seg.is_empty() {
                s.widen(1);
            }
            let old = s.state;
            let present = s.present;
            let busy_now = present & (old == ThreadState::Busy);
            let seg = &mut s.seg[0].unit;
            let charge = &mut s.pending[s.owner0];
            // The segment's length fits in 64 bits (it is wall time).
            let d = unit.wrapping_sub(seg.exact as u64);
            charge.exact += u128::from(d & u64::from(busy_now).wrapping_neg());
            seg.exact = u128::from(unit);
            if SCALED {
                // The scaled part is charged where the segment ends (as
                // `Sweep::transition` does): a split would round differently.
                if !present | (new != old) | (TASK_DEPTH[bits] != 0) {
                    let d = scaled - seg.scaled;
                    if d != 0.0 && busy_now {
                        charge.scaled += d;
                    }
                    seg.scaled = scaled;
                }
            }
            if bits == WASTED {
                // `Sweep::task_closed` for a wasted task: its charge moves to `wc`. (The
                // thread's own amounts, `acc`, are not kept in this mode.)
                let d = *charge;
                if !d.is_zero() {
                    self.windows[0].totals.wasted += d;
                }
            }
            // The task stack to its new depth: `Sweep::task_opened` / `task_closed`.
            let depth = s.pending.len();
            s.pending.push(ThreadNanos::ZERO);
            s.tasks.push((depth, 1));
            let depth = depth.wrapping_add(TASK_DEPTH[bits] as usize);
            s.pending.truncate(depth);
            s.tasks.truncate(depth - 1);
            s.owner0 = depth - 1;
            // `Sweep::nest_step`, and the thread-count flags.
            let (before, after) = s.nest.step(bits);
            running = running + u64::from(after) - u64::from(before);
            s.ran_task |= bits == EventCode::TaskBegin as usize;
            s.was_busy |= new == ThreadState::Busy;
            s.present = true;
            s.state = new;
            // The counts: the new state gains the thread, the old one loses it if it
            // was present.
            let present_mask = u64::from(present).wrapping_neg();
            counts = counts + COUNT_ONE[new_bits as usize & 3]
                - (COUNT_ONE[state_bits(old) as usize] & present_mask);
            par_open = par_open.wrapping_add(PAR_DELTA[bits]);
        }
        let span = now - now0;
        self.now = now;
        self.last_time = self.last_time.max(now);
        self.counts = [
            counts & COUNT_MASK,
            (counts >> COUNT_BITS) & COUNT_MASK,
            counts >> (2 * COUNT_BITS),
        ];
        self.par_open = par_open;
        self.running = running;
        let totals = &mut self.windows[0].totals;
        let idle = p * span - busy_t - sl;
        totals.span += u128::from(span);
        totals.unit.exact = u128::from(unit);
        totals.sl.exact += u128::from(sl);
        totals.busy.exact += u128::from(busy_t);
        totals.li += u128::from(li);
        totals.fj += u128::from(fj);
        totals.ip += u128::from(idle - li);
        done
    }
}

/// par, task and wait events (not session, fragment or counters events, nor a marker):
/// what the hot loop takes, one bit per code.
const COMMON: u16 = 1 << EventCode::ParBegin as u16
    | 1 << EventCode::ParEnd as u16
    | 1 << EventCode::TaskBegin as u16
    | 1 << EventCode::TaskEnd as u16
    | 1 << EventCode::TaskEndWasted as u16
    | 1 << EventCode::WaitBegin as u16
    | 1 << EventCode::WaitEnd as u16;

/// The code bits of `task_end wasted`.
const WASTED: usize = EventCode::TaskEndWasted as usize;

/// Per code: how the length of a thread's charge stack changes with the push the hot
/// loop makes on every transition: +1 for `task_begin` (the push stays), -1 for a task
/// end (the push and the task's charge go), 0 otherwise (the push goes).
const TASK_DEPTH: [i64; 16] = {
    let mut d = [0i64; 16];
    d[EventCode::TaskBegin as usize] = 1;
    d[EventCode::TaskEnd as usize] = -1;
    d[EventCode::TaskEndWasted as usize] = -1;
    d
};

/// Bits per state count in the hot loop's packed counts (more threads go to
/// [`Sweep::transition`]).
const COUNT_BITS: u32 = 21;

/// The mask of one packed count.
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

/// Per state bits (0 Idle, 1 Busy, 2 Spinning): one thread in that state's packed count
/// (Idle in bits 0..21, Busy in 21..42, Spinning in 42..63).
const COUNT_ONE: [u64; 4] = [1, 1 << COUNT_BITS, 1 << (2 * COUNT_BITS), 0];

/// +1 for `par_begin`, -1 for `par_end`, 0 otherwise.
const PAR_DELTA: [u64; 16] = {
    let mut d = [0u64; 16];
    d[EventCode::ParBegin as usize] = 1;
    d[EventCode::ParEnd as usize] = u64::MAX;
    d
};

/// The state bits of a transition ([`Transition::state_bits`]) of `state`.
#[inline(always)]
fn state_bits(state: ThreadState) -> u32 {
    match state {
        ThreadState::Idle => 0,
        ThreadState::Busy => 1,
        ThreadState::Spinning => 2,
    }
}

/// Most transitions [`Sweep::hot_chunk`] sums in `u64` before adding to the totals.
const HOT_CHUNK: usize = 1 << 14;

/// Steps of the clock the hot loop takes: under 2^`MAX_HOT_STEP_BITS` ns (longer ones go
/// to [`Sweep::transition`]).
const MAX_HOT_STEP_BITS: u32 = 32;

/// The window's unit (wall time, ns) below which the hot loop runs: a `u64` that a chunk
/// cannot overflow (2^[`MAX_HOT_STEP_BITS`] ns a step, [`HOT_CHUNK`] steps).
const MAX_HOT_UNIT: u128 = 1 << 63;

/// Most processors the hot loop handles (more go to [`Sweep::transition`]): with
/// [`HOT_CHUNK`] and [`MAX_HOT_STEP_BITS`], a chunk's sums stay under 2^(14 + 32 + 16)
/// = 2^62.
const MAX_HOT_PROCESSORS: u64 = 1 << 16;
