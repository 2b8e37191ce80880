//! Histogram split into shards, each behind its own mutex: an increment locks only the
//! shard that holds its bucket.
//!
//! This file is also the input of `lcm predict`, with the locked version's models file
//! (`--models`): the rules above `frag_scope("fill", ..)` derive the sharded fill from the
//! measured locked one (docs/models.md, "Derived models"). Variables: `shards` (the shard
//! count, an input like `n`) and the machine file's `line_lock_s` (an update under a lock
//! of its own when another processor did the last one) and `line_bounce_per_thread_s`
//! (what each processor beyond two adds to a contended line's trip; `lcm calibrate`,
//! docs/machine.md).

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
    // the one lock serializes the threads), the threads now update shards at once: a key's
    // shard was last updated by another thread with the chance (p - 1)/p, and its update
    // then moves the shard's lock line and its bucket line. The machine's `line_lock_s`
    // (`lcm calibrate`) prices such an update (a lock guarding a line of its own, the next
    // lock known only after the last update, as here only after the key's work): whether
    // the two lines' trips overlap depends on the processor. With more processors each
    // line's trip waits behind the others' trips of the same line:
    // `line_bounce_per_thread_s` more per line and processor beyond two.
    //
    // The load imbalance is the tail of the last items while the others finish, a share
    // of an item's time: the locked version's `li` scaled by how much shorter an item
    // is now (its busy time per key, the same items in both).
    // lcm: like fill
    // lcm: sl = fill.sl / shards
    // lcm: ml = (p - 1)/p * n * (line_lock_s + 2*line_bounce_per_thread_s * (p - 2))
    // lcm: li = fill.li * (fill.pc + fill.sl / shards + (p - 1)/p * n * (line_lock_s + 2*line_bounce_per_thread_s * (p - 2))) / (fill.pc + fill.sl + fill.ml)
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
