//! Fork/join latency (`fj`): the part of Load Imbalance during which parallel work is
//! open but no thread runs a task of it.
//!
//! The predicate, with nesting and concurrent `par`s, is documented with the categories
//! ([`crate::category`]).
//!
//! # Bookkeeping
//! Each thread keeps a [`Nest`]: the `task`/`par` kinds of its open constructs (other
//! constructs do not change what its innermost `task`/`par` is). The sweep counts the
//! threads whose nest has a `task` on top; `fj` accrues while `par`s are open and that
//! count is 0.

use pplib::log::EventCode;

use super::Sweep;

/// A thread's open `task` and `par` constructs as a stack of bits (1: a task), the
/// innermost 64 in a word (innermost in bit 0), deeper ones spilled to a vector: the hot
/// loop updates it with shifts and masks, without a branch on the event.
#[derive(Debug, Clone, Default)]
pub(super) struct Nest {
    /// The innermost 64 entries, innermost in bit 0.
    bits: u64,
    /// Entries open.
    depth: u32,
    /// Entries below the innermost 64, outermost first.
    spill: Vec<bool>,
}

impl Nest {
    /// Nothing open.
    pub(super) fn new() -> Nest {
        Nest::default()
    }

    /// Whether the thread runs a task: its innermost `task`/`par` is a task.
    #[inline(always)]
    pub(super) fn running(&self) -> bool {
        self.bits & 1 == 1
    }

    /// Applies an event of code bits `bits` (see [`EventCode`]): a `task`/`par` begin
    /// pushes its kind, an end pops, other events change nothing. Returns whether the
    /// thread ran a task before and after. An end must close an open construct of its kind
    /// (the lanes and the sweep's stacks check that first).
    #[inline(always)]
    pub(super) fn step(&mut self, bits: usize) -> (bool, bool) {
        let before = self.running();
        let d = NEST_DEPTH[bits & 15];
        if self.depth >= 64 {
            self.step_deep(d, NEST_KIND[bits & 15]);
        } else {
            // Per code: the new word from the old one shifted left (with the kind), right,
            // or kept, as a select of three candidates.
            let w = self.bits;
            let cands = [w, (w << 1) | u64::from(NEST_KIND[bits & 15]), w >> 1];
            self.bits = cands[NEST_MOVE[bits & 15]];
            self.depth = self.depth.wrapping_add(d as u32);
        }
        (before, self.running())
    }

    /// [`Nest::step`] of a push or pop 64 or more entries deep (rare): the entry that
    /// leaves the word goes to the spill, or comes back from it.
    #[cold]
    #[inline(never)]
    fn step_deep(&mut self, d: i32, task: bool) {
        if d == 0 {
            return;
        }
        if d > 0 {
            self.spill.push(self.bits >> 63 == 1);
            self.bits = (self.bits << 1) | u64::from(task);
            self.depth += 1;
        } else {
            let outer = self.spill.pop().unwrap_or(false);
            self.bits = (self.bits >> 1) | (u64::from(outer) << 63);
            self.depth -= 1;
        }
    }
}

/// Per code: whether a `task_begin` (true) or another code (false) would be pushed.
const NEST_KIND: [bool; 16] = {
    let mut k = [false; 16];
    k[EventCode::TaskBegin as usize] = true;
    k
};

/// Per code: which candidate [`Nest::step`] takes: 0 keep, 1 push, 2 pop.
const NEST_MOVE: [usize; 16] = {
    let mut m = [0usize; 16];
    m[EventCode::ParBegin as usize] = 1;
    m[EventCode::TaskBegin as usize] = 1;
    m[EventCode::ParEnd as usize] = 2;
    m[EventCode::TaskEnd as usize] = 2;
    m[EventCode::TaskEndWasted as usize] = 2;
    m
};

/// Per code: how the depth of a nest changes: +1 for `task_begin` / `par_begin`, −1 for a
/// task end or `par_end`, 0 otherwise.
const NEST_DEPTH: [i32; 16] = {
    let mut d = [0i32; 16];
    d[EventCode::ParBegin as usize] = 1;
    d[EventCode::TaskBegin as usize] = 1;
    d[EventCode::ParEnd as usize] = -1;
    d[EventCode::TaskEnd as usize] = -1;
    d[EventCode::TaskEndWasted as usize] = -1;
    d
};

impl Sweep {
    /// Applies an event of code `code` to the nest of `slot` and to the count of threads
    /// running a task.
    #[inline(always)]
    pub(super) fn nest_step(&mut self, slot: usize, code: EventCode) {
        let (before, after) = self.slots[slot].nest.step(code as usize);
        self.running = self.running + u64::from(after) - u64::from(before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_runs_until_a_par_opens_inside_it() {
        let mut n = Nest::new();
        assert!(!n.running());
        assert_eq!(n.step(EventCode::ParBegin as usize), (false, false));
        assert_eq!(n.step(EventCode::TaskBegin as usize), (false, true));
        // Waits, fragments and counters leave the nest as it is.
        assert_eq!(n.step(EventCode::WaitBegin as usize), (true, true));
        assert_eq!(n.step(EventCode::FragEnd as usize), (true, true));
        // A nested fork: the task waits in its par, it does not run.
        assert_eq!(n.step(EventCode::ParBegin as usize), (true, false));
        assert_eq!(n.step(EventCode::TaskBegin as usize), (false, true));
        assert_eq!(n.step(EventCode::TaskEndWasted as usize), (true, false));
        assert_eq!(n.step(EventCode::ParEnd as usize), (false, true));
        assert_eq!(n.step(EventCode::TaskEnd as usize), (true, false));
        assert_eq!(n.step(EventCode::ParEnd as usize), (false, false));
        assert_eq!((n.bits, n.depth), (0, 0));
    }

    #[test]
    fn deep_nesting_spills_and_comes_back() {
        // Against a plain stack, through depths beyond the word's 64 entries.
        let mut n = Nest::new();
        let mut model: Vec<bool> = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut deepest = 0;
        for i in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Mostly pushes for the first half, mostly pops after.
            let push = if i < 2500 { x % 10 < 7 } else { x % 10 < 3 };
            let code = if push || model.is_empty() {
                let task = x & 0x100 != 0;
                model.push(task);
                if task {
                    EventCode::TaskBegin
                } else {
                    EventCode::ParBegin
                }
            } else {
                match model.pop() {
                    Some(true) => EventCode::TaskEnd,
                    _ => EventCode::ParEnd,
                }
            };
            let (_, after) = n.step(code as usize);
            assert_eq!(after, model.last().copied().unwrap_or(false), "step {i}");
            assert_eq!(n.depth as usize, model.len());
            deepest = deepest.max(model.len());
            // Other events leave it as it is.
            assert_eq!(n.step(EventCode::WaitBegin as usize), (after, after));
        }
        assert!(deepest > 200, "the walk reached depth {deepest} only");
    }
}
