//! Histogram behind one mutex: every increment locks the whole histogram.
//!
//! This file is also the input of `lcm predict`.

use super::{bucket_of, BUCKETS, KEYS_PER_ITEM};
use pplib::prelude::*;
use pplib::sync::Mutex;

/// An empty histogram behind its lock.
pub fn histogram() -> Mutex<Vec<u64>> {
    Mutex::new(vec![0u64; BUCKETS])
}

/// One increment of bucket b under the histogram's lock (the critical section).
#[inline]
pub fn add(hist: &Mutex<Vec<u64>>, b: usize) {
    hist.lock().expect("histogram lock")[b] += 1;
}

/// Fills the histogram of keys 0..n in the current rayon pool.
pub fn fill(n: u64) -> Vec<u64> {
    let hist = histogram();
    let items = n.div_ceil(KEYS_PER_ITEM as u64);
    pplib::frag_scope("fill", || {
        (0..items).into_par_iter().pp_for_each(|item| {
            let first = item * KEYS_PER_ITEM as u64;
            for i in first..(first + KEYS_PER_ITEM as u64).min(n) {
                add(&hist, bucket_of(i));
            }
        })
    });

    hist.into_inner().expect("histogram lock")
}
