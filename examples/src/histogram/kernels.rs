//! Prices of the histogram's kernels on this machine: a microbenchmark of the program's own
//! per-key work (`bucket_of` and the version's locked increment, [`locked::add`],
//! [`sharded::add`]), uninstrumented, for the study's prediction of the sharded version
//! from measurements of the locked one.
//!
//! Two things differ between the versions and neither shows in the locked version's runs:
//!
//! - **the work per key on one processor**: the sharded increment finds its shard first (one
//!   more dependent load, a lock that changes from key to key); timed on one thread for a
//!   sample of keys, both kernels alternating ([`KernelTimes::locked_key`],
//!   [`KernelTimes::sharded_key`]);
//! - **what an increment costs while another processor increments the same shards**: in the
//!   sharded version the threads run at once, each increment locks a random shard whose lock
//!   and bucket lines the other thread wrote a moment ago (in the locked version the one lock
//!   serializes the threads instead, which its own measurements carry). Timed with two
//!   threads running the sharded kernel at once over halves of the same sample
//!   ([`KernelTimes::concurrent_key`]): on this machine (2 vCPUs) two threads incrementing
//!   64 shards at once run *slower* per key than one, a loss no locked run shows.

use super::{bucket_of, locked, sharded};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// One run of the microbenchmark: mean seconds per key of each kernel (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelTimes {
    /// The locked version's kernel on one thread (lock always free, its line in this
    /// thread's cache).
    pub locked_key: f64,
    /// The sharded version's kernel on one thread.
    pub sharded_key: f64,
    /// The sharded kernel run by two threads at once on the same shards: processor-seconds
    /// per key (the two threads' times summed over all keys).
    pub concurrent_key: f64,
}

/// Keys of the work-per-key sample (some 2 ms of each kernel).
const SAMPLE_KEYS: u64 = 1 << 15;
/// Alternations of the kernels over the sample.
const SAMPLE_ROUNDS: usize = 4;

fn time_keys(keys: impl Iterator<Item = u64>, mut add: impl FnMut(usize)) -> (f64, u64) {
    let start = Instant::now();
    let mut count = 0;
    for i in keys {
        add(bucket_of(std::hint::black_box(i)));
        count += 1;
    }
    (start.elapsed().as_secs_f64(), count)
}

/// One run of the microbenchmark (some 20 ms). The study repeats it and keeps the least of
/// each time over the runs during which no other load held a processor.
pub fn kernel_times_once() -> KernelTimes {
    let hist = locked::histogram();
    let shards = sharded::shards();
    let (mut lk, mut sk, mut ck, mut count) = (0.0, 0.0, 0.0, 0u64);
    // Warm-up: both structures in this thread's cache, the second thread started once.
    time_keys(0..SAMPLE_KEYS / 8, |b| locked::add(&hist, b));
    time_keys(0..SAMPLE_KEYS / 8, |b| sharded::add(&shards, b));
    std::thread::scope(|s| {
        s.spawn(|| time_keys(0..SAMPLE_KEYS / 8, |b| sharded::add(&shards, b)));
    });
    for r in 0..SAMPLE_ROUNDS as u64 {
        let keys = r * SAMPLE_KEYS..(r + 1) * SAMPLE_KEYS;
        let (t, c) = time_keys(keys.clone(), |b| locked::add(&hist, b));
        lk += t;
        count += c;
        sk += time_keys(keys.clone(), |b| sharded::add(&shards, b)).0;
        // Both halves at once: each thread waits for the other to be ready, then times
        // its own half.
        let mid = keys.start + SAMPLE_KEYS / 2;
        let ready = AtomicUsize::new(0);
        let go = |range: std::ops::Range<u64>| {
            ready.fetch_add(1, Ordering::AcqRel);
            let mut spins = 0u32;
            while ready.load(Ordering::Acquire) < 2 {
                spins = spins.saturating_add(1);
                if spins > 1 << 16 {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
            time_keys(range, |b| sharded::add(&shards, b)).0
        };
        ck += std::thread::scope(|s| {
            let other = s.spawn(|| go(mid..keys.end));
            let mine = go(keys.start..mid);
            mine + other.join().unwrap_or(f64::NAN)
        });
    }
    std::hint::black_box((&hist, &shards));
    let count = count.max(1) as f64;
    KernelTimes {
        locked_key: lk / count,
        sharded_key: sk / count,
        concurrent_key: ck / count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_timed() {
        // Finiteness and sign only: the differences are the machine's business.
        let t = kernel_times_once();
        for x in [t.locked_key, t.sharded_key, t.concurrent_key] {
            assert!(x.is_finite() && x > 0.0, "{t:?}");
        }
    }
}
