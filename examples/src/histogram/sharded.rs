//! Histogram split into shards, each behind its own mutex: an increment locks only the
//! shard that holds its bucket.
//!
//! This file is also the input of `lcm predict`, with the locked version's models file
//! (`--models`): the rules above `frag_scope("fill", ..)` derive the sharded fill from the
//! measured locked one (docs/models.md, "Derived models"). Variables: `shards` (the shard
//! count, an input like `n`) and the machine file's `line_bounce_s` (`lcm calibrate`: what
//! an atomic update adds when another processor wrote the line last; docs/machine.md).

use super::{bucket_of, BUCKETS, KEYS_PER_ITEM, SHARDS};
use pplib::prelude::*;
use pplib::sync::Mutex;

/// Buckets per shard.
pub const WIDTH: usize = BUCKETS / SHARDS;

/// The shards of an empty histogram, each behind its own lock.
pub fn shards() -> Vec<Mutex<Vec<u64>>> {
    (0..SHARDS).map(|_| Mutex::new(vec![0; WIDTH])).collect()
}

/// One increment of bucket b under its shard's lock (the critical section).
#[inline]
pub fn add(shards: &[Mutex<Vec<u64>>], b: usize) {
    shards[b / WIDTH].lock().expect("shard lock")[b % WIDTH] += 1;
}

/// Fills the histogram of keys 0..n in the current rayon pool.
pub fn fill(n: u64) -> Vec<u64> {
    let shards = shards();
    let items = n.div_ceil(KEYS_PER_ITEM as u64);
    // With keys spread evenly, an acquisition finds its lock held 1/shards as often. The
    // work per key is the locked version's. In place of its lock-line bouncing (paid while
    // the one lock serializes the threads), the threads now write shared lines at once:
    // per key the shard's lock line and its bucket line, each last written by another
    // thread with the chance (p - 1)/p.
    // lcm: like fill
    // lcm: sl = fill.sl / shards
    // lcm: ml = n * 2*(p - 1)/p * line_bounce_s
    pplib::frag_scope("fill", || {
        (0..items).into_par_iter().pp_for_each(|item| {
            let first = item * KEYS_PER_ITEM as u64;
            for i in first..(first + KEYS_PER_ITEM as u64).min(n) {
                add(&shards, bucket_of(i));
            }
        })
    });

    shards
        .into_iter()
        .flat_map(|s| s.into_inner().expect("shard lock"))
        .collect()
}
