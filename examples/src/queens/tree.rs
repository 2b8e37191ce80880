//! Tree-parallel n-queens: every depth-2 subtree is a task of one parallel loop; subtrees
//! after the one that completes the quota of k solutions are speculative and stop early
//! (their tasks are closed as wasted).
//!
//! This file is also the input of `lcm predict`: the whole count is repeated `iters` times
//! (so that one run is long enough to time), each repetition one parallel loop. Its
//! `search` derives from the loop version's measured `search` (`--models`; docs/models.md,
//! "Derived models"), with variables `groups` (the depth-1 groups the loop version needed
//! for the first k solutions, a property of the input) and `span` (the largest thread
//! block's share of the useful work, [`super::tree_span`]).

use super::{depth2_groups, search_item, Quota};
use rayon::prelude::*;

/// Counts the first k solutions of n-queens in the current rayon pool, `iters` times over
/// (each count from scratch); returns the last count.
pub fn count(n: u32, k: u64, iters: u64) -> u64 {
    let items: Vec<_> = depth2_groups(n).into_iter().flatten().collect();
    let mut total = 0;
    // lcm: iterations = iters
    for _ in 0..iters {
        let quota = Quota::new(items.len(), k);
        // One parallel loop instead of one per group: its load imbalance and insufficient
        // parallelism are paid once, not `groups` times, and so is the call itself, whose
        // cost on one thread (`par_call_s_p1`, a machine key) the loop version's measured
        // work holds once per group. Speculation: one thread per
        // contiguous block of items; the processors' time beyond the useful work while the
        // count waits for the longest block, in place of the loop version's wc. The loop
        // version's measured ml is its speculative items that ended before the quota was
        // known (the search shares no data: no memory-system loss), which this wc counts.
        // Not priced, so where the first group holds the first k solutions (groups = 1,
        // span = base_span) the two versions predict alike: every item after the quota is
        // still walked and checks the quota (all (n-1)(n-2) items per count here, the
        // needed groups' items in the loop version; pp counts that walk as fork/join
        // latency), and once the quota is met each speculating thread still runs its
        // current item up to the search's next stop check (a shorter tail here, where
        // those items lie far from the needed ones, than in the loop version).
        // lcm: like search
        // lcm: pc = search.pc - (groups - 1) * par_call_s_p1
        // lcm: li = search.li / groups
        // lcm: ip = search.ip / groups
        // lcm: wc = search.pc * (p*span - 1)
        // lcm: ml = 0
        let tag = pplib::frag("search");
        let forked = pplib::par();
        items
            .par_iter()
            .enumerate()
            .for_each(|(i, node)| search_item(*node, n, i, &quota));
        drop(forked);
        drop(tag);

        total = quota.total();
    }
    total
}
