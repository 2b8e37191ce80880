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

/// A thread's open `task` and `par` constructs, innermost last (`true`: a task), above a
/// bottom entry `false` (nothing open) that is never removed.
#[derive(Debug, Clone)]
pub(super) struct Nest(Vec<bool>);

impl Nest {
    /// Nothing open.
    pub(super) fn new() -> Nest {
        Nest(vec![false])
    }

    /// Whether the thread runs a task: its innermost `task`/`par` is a task.
    #[inline(always)]
    pub(super) fn running(&self) -> bool {
        self.0[self.0.len() - 1]
    }

    /// Applies an event of code bits `bits` (see [`EventCode`]) without a branch on it:
    /// pushes its kind, then cuts the nest to its new depth (a `task`/`par` begin keeps the
    /// push, an end removes it and the construct it closes, other events only the push).
    /// Returns whether the thread ran a task before and after. An end must close an open
    /// construct of its kind (the lanes and the sweep's stacks check that first).
    #[inline(always)]
    pub(super) fn step(&mut self, bits: usize) -> (bool, bool) {
        let before = self.running();
        let len = self.0.len();
        self.0.push(NEST_KIND[bits & 15]);
        let depth = len.wrapping_add(NEST_DEPTH[bits & 15] as usize);
        self.0.truncate(depth.max(1));
        (before, self.running())
    }
}

/// Per code: whether a `task_begin` (true) or another code (false) would be pushed.
const NEST_KIND: [bool; 16] = {
    let mut k = [false; 16];
    k[EventCode::TaskBegin as usize] = true;
    k
};

/// Per code: how the depth of a nest changes: +1 for `task_begin` / `par_begin`, −1 for a
/// task end or `par_end`, 0 otherwise.
const NEST_DEPTH: [isize; 16] = {
    let mut d = [0isize; 16];
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
        assert_eq!(n.0, [false]);
    }
}
