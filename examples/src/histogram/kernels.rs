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
//!   64 shards at once run *slower* per key than one, a loss no locked run shows. A round
//!   counts only if the two threads' timed intervals overlap ([`overlap`]): on a shared host
//!   the second thread sometimes gets no processor of its own and runs after the first, a
//!   round that prices one thread's increments twice and, being the fastest, would be the
//!   one the study keeps.

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
    /// per key (the two threads' times summed over all keys), over the rounds in which the
    /// two threads really ran at the same time ([`overlap`] at least [`MIN_OVERLAP`]); NaN
    /// when none did.
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
    let mut concurrent_count = 0u64;
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
        // its own half. The round counts only if the two really ran at the same time; on
        // a loaded machine it is tried again, up to `CONCURRENT_ATTEMPTS` times.
        let mid = keys.start + SAMPLE_KEYS / 2;
        let side_by_side = (0..CONCURRENT_ATTEMPTS).find_map(|_| {
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
                let start = Instant::now();
                time_keys(range, |b| sharded::add(&shards, b));
                (start, Instant::now())
            };
            let halves = std::thread::scope(|s| {
                let other = s.spawn(|| go(mid..keys.end));
                let mine = go(keys.start..mid);
                other.join().ok().map(|theirs| [mine, theirs])
            });
            halves.filter(|h| overlap(h) >= MIN_OVERLAP)
        });
        if let Some(halves) = side_by_side {
            ck += halves
                .iter()
                .map(|(a, b)| b.duration_since(*a).as_secs_f64())
                .sum::<f64>();
            concurrent_count += SAMPLE_KEYS;
        }
    }
    std::hint::black_box((&hist, &shards));
    let count = count.max(1) as f64;
    KernelTimes {
        locked_key: lk / count,
        sharded_key: sk / count,
        concurrent_key: if concurrent_count > 0 {
            ck / concurrent_count as f64
        } else {
            f64::NAN
        },
    }
}

/// Least share of the longer half's time during which both halves of a concurrent round
/// must have run for the round to count.
pub const MIN_OVERLAP: f64 = 0.9;

/// Most tries of one concurrent round (about a millisecond each) until its two halves run
/// side by side: on a quiet machine the first one does; on a loaded one (the test suite
/// runs studies in parallel) tens may not.
const CONCURRENT_ATTEMPTS: usize = 50;

/// The time during which both halves (start, end) ran, as a share of the longer one: near 1
/// when the two threads ran side by side, near 0 when one ran after the other (both on one
/// processor, the other one taken by another process or the host: then each increment finds
/// its lines in its own cache and the round measures one thread's price twice, not the
/// price of two at once).
pub fn overlap(halves: &[(Instant, Instant); 2]) -> f64 {
    let [(s0, e0), (s1, e1)] = *halves;
    let longest = e0
        .duration_since(s0)
        .max(e1.duration_since(s1))
        .as_secs_f64();
    let both = e0
        .min(e1)
        .saturating_duration_since(s0.max(s1))
        .as_secs_f64();
    if longest > 0.0 {
        both / longest
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_timed() {
        // Finiteness and sign only: the differences are the machine's business. The
        // concurrent price is NaN when no round ran both threads at once (a loaded machine).
        let t = kernel_times_once();
        for x in [t.locked_key, t.sharded_key] {
            assert!(x.is_finite() && x > 0.0, "{t:?}");
        }
        assert!(t.concurrent_key.is_nan() || t.concurrent_key > 0.0, "{t:?}");
    }

    #[test]
    fn overlap_tells_side_by_side_from_one_after_the_other() {
        use std::time::Duration;
        let t0 = Instant::now();
        let ms = |m: u64| t0 + Duration::from_millis(m);
        // Side by side, one starting 1 ms late: 9 of the longer's 10 ms together.
        assert!((overlap(&[(ms(0), ms(10)), (ms(1), ms(10))]) - 0.9).abs() < 1e-9);
        // One after the other (one processor for both): no overlap.
        assert_eq!(overlap(&[(ms(0), ms(10)), (ms(10), ms(20))]), 0.0);
        assert_eq!(overlap(&[(ms(12), ms(20)), (ms(0), ms(10))]), 0.0);
        // Half overlapping.
        assert!((overlap(&[(ms(0), ms(10)), (ms(5), ms(15))]) - 0.5).abs() < 1e-9);
    }
}
