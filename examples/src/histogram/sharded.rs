//! Histogram split into shards, each behind its own mutex: an increment locks only the
//! shard that holds its bucket.
//!
//! This file is also the input of `lcm predict`.

use super::{bucket_of, BUCKETS, KEYS_PER_ITEM, SHARDS};
use pplib::prelude::*;
use pplib::sync::Mutex;

/// Fills the histogram of keys 0..n in the current rayon pool.
pub fn fill(n: u64) -> Vec<u64> {
    let width = BUCKETS / SHARDS;
    let shards: Vec<Mutex<Vec<u64>>> = (0..SHARDS).map(|_| Mutex::new(vec![0; width])).collect();
    let items = n.div_ceil(KEYS_PER_ITEM as u64);
    // lcm: fragment fill
    pplib::frag_scope("fill", || {
        (0..items).into_par_iter().pp_for_each(|item| {
            let first = item * KEYS_PER_ITEM as u64;
            for i in first..(first + KEYS_PER_ITEM as u64).min(n) {
                let b = bucket_of(i);
                shards[b / width].lock().expect("shard lock")[b % width] += 1;
            }
        })
    });

    shards
        .into_iter()
        .flat_map(|s| s.into_inner().expect("shard lock"))
        .collect()
}
