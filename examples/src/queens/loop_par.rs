//! Loop-parallel n-queens: the depth-1 subtrees are visited in serial order and only the
//! children of one depth-1 node are searched in parallel; the search ends after the group
//! that completes the quota of k solutions.
//!
//! This file is also the input of `lcm predict`: the whole count is repeated `iters` times
//! (so that one run is long enough to time), and in each repetition the inner loop runs
//! `groups` times (the groups that hold the first k solutions, [`super::groups_needed`]).

use super::{depth2_groups, search_item, Quota};
use rayon::prelude::*;

/// Counts the first k solutions of n-queens in the current rayon pool, `iters` times over
/// (each count from scratch); returns the last count.
pub fn count(n: u32, k: u64, iters: u64) -> u64 {
    let groups = depth2_groups(n);
    let mut total = 0;
    // lcm: iterations = iters
    for _ in 0..iters {
        total = 0;
        // lcm: iterations = groups
        for group in &groups {
            let quota = Quota::new(group.len(), k - total);
            // The models are per count (all groups): one group's share is 1/groups.
            // Speculation within a group follows its blocks' useful work (`base_span`,
            // [`super::loop_span`]), a step function of k that a fitted wc cannot follow:
            // wc is all the processors' time beyond the useful work while a group waits
            // for its longest block, speculating or idle. The search shares no data
            // between tasks (each searches its subtree in registers), so the measured
            // work inflation (ml = rt - rt at p = 1) is not memory-system loss: it is the
            // speculative items that ended before the quota was known (pplib closes a
            // task as wasted only when it ends), time that wc already counts.
            // lcm: iterations = groups
            // lcm: like search
            // lcm: wc = search.pc * (p*base_span - 1)
            // lcm: ml = 0
            let tag = pplib::frag("search");
            let forked = pplib::par();
            group
                .par_iter()
                .enumerate()
                .for_each(|(i, node)| search_item(*node, n, i, &quota));
            drop(forked);
            drop(tag);

            total += quota.total();
            if total >= k {
                break;
            }
        }
    }
    total
}
