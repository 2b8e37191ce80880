//! Tree-parallel n-queens: every depth-2 subtree is a task of one parallel loop; subtrees
//! after the one that completes the quota of k solutions are speculative and stop early
//! (their tasks are closed as wasted).
//!
//! This file is also the input of `lcm predict`: the whole count is repeated `iters` times
//! (so that one run is long enough to time), each repetition one parallel loop. Its
//! `search` derives from the loop version's measured `search` (`--models`; docs/models.md,
//! "Derived models"), with variables `groups` (the depth-1 groups the loop version needed
//! for the first k solutions, a property of the input), `span` (the largest thread
//! block's share of the useful work, [`super::tree_span`]), and `walked` and
//! `base_walked` (the work items this version and the loop version start per count,
//! [`super::tree_items_walked`] and [`super::loop_items_walked`]).

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
        // work holds once per group. Speculation: one thread per contiguous block of items;
        // the processors' time beyond the useful work while the count waits for the longest
        // block, in place of the loop version's wc. The loop version's measured ml is its
        // speculative items that ended before the quota was known (the search shares no
        // data: no memory-system loss), which this wc counts.
        // Every item is started, needed or not: one after the quota checks it and returns
        // (no task is open, so pp counts that walk as fork/join latency, in li). This loop
        // starts all `walked` items of the board each count, the loop version only the
        // `base_walked` items of the groups it visits; each further item costs what a
        // parallel iterator adds per cheap item: `par_item_s` of processor time, and its
        // share of the scheduling of a small call at p threads (`par_call_s_pQ` prices a
        // call of `par_call_items` cheap items: splitting the range, stealing the pieces,
        // joining them back, which grows with the threads), while all p processors wait for
        // the count.
        // Not priced: the check itself (a few nanoseconds an item at one thread, the
        // program's own code, which the loop version runs too seldom for its models to
        // hold), and how far each speculating thread gets into its current item once the
        // quota is met, up to the search's next stop check.
        // lcm: like search
        // lcm: pc = search.pc - (groups - 1) * par_call_s_p1
        // lcm: li = search.li / groups + (walked - base_walked) * (par_item_s + p * par_call_s_pp / par_call_items)
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
