//! The thread ids of a text trace: the set that opening it collects, line by line, and
//! the map from id to slot that its streams look threads up in.

use std::collections::{BTreeSet, HashMap};

use super::event::ThreadId;

/// The thread ids of a trace, collected line by line: a bit per id for small ids (the
/// usual case: looking one up costs no search), a set for the others.
#[derive(Default)]
pub(super) struct ThreadSet {
    bits: Vec<u64>,
    others: BTreeSet<ThreadId>,
}

impl ThreadSet {
    /// Ids below this have a bit (at most 2 MiB of bits).
    const DENSE: u32 = 1 << 24;

    /// Adds `t` to the set.
    pub(super) fn insert(&mut self, t: ThreadId) {
        if t.0 >= ThreadSet::DENSE {
            self.others.insert(t);
            return;
        }
        let (word, bit) = ((t.0 / 64) as usize, t.0 % 64);
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << bit;
    }

    /// The ids, in increasing order.
    pub(super) fn into_sorted(self) -> Vec<ThreadId> {
        let mut out = Vec::new();
        for (w, &word) in self.bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let bit = rest.trailing_zeros();
                out.push(ThreadId(w as u32 * 64 + bit));
                rest &= rest - 1;
            }
        }
        out.extend(self.others);
        out
    }
}

/// Thread id to slot (its index among the trace's threads, in id order): a table for the
/// ids below a bound proportional to the number of threads, a map for the others.
#[derive(Debug)]
pub(super) struct Slots {
    dense: Vec<u32>,
    sparse: HashMap<ThreadId, usize>,
}

impl Slots {
    /// The slots of `threads` (in increasing order).
    pub(super) fn new(threads: &[ThreadId]) -> Slots {
        let bound = threads.len().saturating_mul(4).saturating_add(1 << 16);
        let max = threads.last().map_or(0, |t| t.0 as usize + 1);
        let mut dense = vec![u32::MAX; max.min(bound)];
        let mut sparse = HashMap::new();
        for (slot, t) in threads.iter().enumerate() {
            match dense.get_mut(t.0 as usize) {
                Some(d) => *d = slot as u32,
                None => {
                    sparse.insert(*t, slot);
                }
            }
        }
        Slots { dense, sparse }
    }

    /// The slot of thread `t`, if the trace has it.
    #[inline]
    pub(super) fn get(&self, t: ThreadId) -> Option<usize> {
        match self.dense.get(t.0 as usize) {
            Some(&u32::MAX) => None,
            Some(&slot) => Some(slot as usize),
            None => self.sparse.get(&t).copied(),
        }
    }
}
