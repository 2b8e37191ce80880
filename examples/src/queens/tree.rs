//! Tree-parallel n-queens: every depth-2 subtree is a task of one parallel loop; subtrees
//! after the one that completes the quota of k solutions are speculative and stop early
//! (their tasks are closed as wasted).
//!
//! This file is also the input of `lcm predict`.

use super::{depth2_groups, search_item, Quota};
use rayon::prelude::*;

/// Counts the first k solutions of n-queens in the current rayon pool.
pub fn count(n: u32, k: u64) -> u64 {
    let items: Vec<_> = depth2_groups(n).into_iter().flatten().collect();
    let quota = Quota::new(items.len(), k);
    // lcm: fragment search
    let tag = pplib::frag("search");
    let forked = pplib::par();
    items
        .par_iter()
        .enumerate()
        .for_each(|(i, node)| search_item(*node, n, i, &quota));
    drop(forked);
    drop(tag);

    quota.total()
}
