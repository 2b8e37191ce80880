//! Histogram split into shards, each behind its own mutex: an increment locks only the
//! shard that holds its bucket.
//!
//! This file is also the input of `lcm predict`, with the locked version's models file
//! (`--models`): the rules above `frag_scope("fill", ..)` derive the sharded fill from the
//! measured locked one (docs/models.md, "Derived models"). Variables: `shards` (the shard
//! count) and the per-key prices of a microbenchmark of both kernels
//! ([`super::kernels`]): `locked_key_s`, `sharded_key_s` on one thread and
//! `concurrent_key_s` (processor-seconds per key with two threads on the same shards).

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
    // With keys spread evenly, an acquisition finds its lock held 1/shards as often.
    // The kernel's pure computation is the sharded kernel's per-key price. In place of the
    // locked version's lock-line bouncing, the concurrent kernel's loss: all of it at
    // p = 2, and with the chance (p - 1)/p that another thread wrote the lines last beyond.
    // lcm: like fill
    // lcm: sl = fill.sl / shards
    // lcm: pc = fill.pc * sharded_key_s / locked_key_s
    // lcm: ml = n * 2*(p - 1)/p * max(concurrent_key_s - sharded_key_s, 0)
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
