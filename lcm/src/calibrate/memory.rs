//! Kernels that price the memory system: cache-to-cache transfer of a buffer another thread
//! just wrote ([`transfer_once`], a few sizes from L1 to beyond the last-level cache), the
//! same read of a buffer the reading thread wrote itself ([`local_read_once`]: their
//! difference is what the move between processors adds), the copy bandwidth of such a buffer ([`copy_bandwidth_once`]) and the slowdown of a
//! memory-bound kernel (a STREAM triad) when k threads run it at once ([`triad_slowdown_once`]).

use super::clock::{time_it, Clock};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

/// Seconds for one thread to read (sum) a buffer of `bytes` that another thread has just
/// written: `rounds` rounds of write-there, read-here, the reads timed and averaged.
pub fn transfer_once<C: Clock + ?Sized>(clock: &C, bytes: usize, rounds: usize) -> f64 {
    let words = (bytes / 8).max(1);
    let rounds = rounds.max(1) as u64;
    let buf: Arc<Vec<AtomicU64>> = Arc::new((0..words).map(|_| AtomicU64::new(0)).collect());
    let turn = Arc::new(AtomicU64::new(0));
    let (b2, t2) = (Arc::clone(&buf), Arc::clone(&turn));
    let writer = std::thread::spawn(move || {
        for r in 0..rounds {
            wait_for(&t2, 2 * r);
            for (i, w) in b2.iter().enumerate() {
                w.store(i as u64 ^ r, Ordering::Relaxed);
            }
            t2.store(2 * r + 1, Ordering::Release);
        }
    });
    let mut total = 0.0;
    for r in 0..rounds {
        wait_for(&turn, 2 * r + 1);
        total += time_it(clock, || {
            let s: u64 = buf.iter().map(|w| w.load(Ordering::Relaxed)).sum();
            black_box(s);
        });
        turn.store(2 * r + 2, Ordering::Release);
    }
    let _ = writer.join();
    total / rounds as f64
}

/// Seconds for one thread to read (sum) a buffer of `bytes` that it has just written
/// itself: `rounds` rounds of write-here, read-here, the reads timed and averaged. The
/// same buffer, stores and reads as [`transfer_once`], so the two differ only by where the
/// written lines sit when the read starts.
pub fn local_read_once<C: Clock + ?Sized>(clock: &C, bytes: usize, rounds: usize) -> f64 {
    let words = (bytes / 8).max(1);
    let buf: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
    let mut total = 0.0;
    for r in 0..rounds.max(1) as u64 {
        for (i, w) in buf.iter().enumerate() {
            w.store(i as u64 ^ r, Ordering::Relaxed);
        }
        total += time_it(clock, || {
            let s: u64 = buf.iter().map(|w| w.load(Ordering::Relaxed)).sum();
            black_box(s);
        });
    }
    total / rounds.max(1) as f64
}

/// Spins (yielding) until `turn` holds `value`.
fn wait_for(turn: &AtomicU64, value: u64) {
    super::handoff::spin_until(turn, |v| v == value, 256);
}

/// Bytes per second of copying a buffer of `bytes` that another thread wrote.
pub fn copy_bandwidth_once<C: Clock + ?Sized>(clock: &C, bytes: usize, seed: u64) -> f64 {
    let words = (bytes / 8).max(1);
    let src = std::thread::spawn(move || (0..words as u64).map(|i| i ^ seed).collect::<Vec<_>>())
        .join()
        .unwrap_or_else(|_| vec![0; words]);
    let mut dst = vec![0u64; words];
    let secs = time_it(clock, || dst.copy_from_slice(&src));
    black_box(&dst);
    (words * 8) as f64 / secs
}

/// One STREAM triad pass `a[i] = b[i] + 3 * c[i]` over arrays of `len` doubles.
fn triad(a: &mut [f64], b: &[f64], c: &[f64]) {
    for ((x, y), z) in a.iter_mut().zip(b).zip(c) {
        *x = y + 3.0 * z;
    }
    black_box(a);
}

/// Seconds of one triad pass on each of `k` threads started together (a barrier), arrays
/// of `len` doubles each (three per thread, so `24 * len` bytes a thread): the mean of
/// the threads' times. Each thread makes one untimed pass first (page faults).
pub fn triad_time_once<C: Clock + ?Sized>(clock: &C, k: usize, len: usize) -> f64 {
    let k = k.max(1);
    let start = Barrier::new(k);
    let times: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..k)
            .map(|_| {
                let start = &start;
                s.spawn(move || {
                    let mut a = vec![0.0f64; len];
                    let b = vec![1.0f64; len];
                    let c = vec![2.0f64; len];
                    triad(&mut a, &b, &c);
                    start.wait();
                    time_it(clock, || triad(&mut a, &b, &c))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(f64::NAN))
            .collect()
    });
    times.iter().sum::<f64>() / times.len() as f64
}

/// Slowdown of memory-bound work when `k` threads run it at once: the triad time with `k`
/// threads over the time with one, both measured in this repetition.
pub fn triad_slowdown_once<C: Clock + ?Sized>(clock: &C, k: usize, len: usize) -> f64 {
    let alone = triad_time_once(clock, 1, len);
    let together = triad_time_once(clock, k, len);
    together / alone
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::StepClock;
    use super::*;

    #[test]
    fn transfer_averages_the_timed_reads() {
        // Each read is bracketed by two readings one step apart.
        let clock = StepClock::new(2e-6);
        let t = transfer_once(&clock, 4096, 5);
        assert!((t - 2e-6).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 10);
    }

    #[test]
    fn local_read_averages_the_timed_reads() {
        let clock = StepClock::new(3e-6);
        let t = local_read_once(&clock, 4096, 4);
        assert!((t - 3e-6).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 8);
    }

    #[test]
    fn copy_bandwidth_is_bytes_over_the_copy_time() {
        let clock = StepClock::new(1e-3);
        let bw = copy_bandwidth_once(&clock, 8 << 10, 1);
        assert!((bw - 8192.0 / 1e-3).abs() < 1e-6, "{bw}");
    }

    #[test]
    fn triad_slowdown_is_the_ratio_of_mean_times() {
        // One thread alone and "together": each timed pass spans one step, slowdown 1.
        let clock = StepClock::new(1e-3);
        let s = triad_slowdown_once(&clock, 1, 1000);
        assert!((s - 1.0).abs() < 1e-12, "{s}");
    }
}
