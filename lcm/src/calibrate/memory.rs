//! Kernels that price the memory system: cache-to-cache transfer of a buffer another thread
//! just wrote ([`transfer_once`], a few sizes from L1 to beyond the last-level cache), the
//! same read of a buffer the reading thread wrote itself ([`local_read_once`]: their
//! difference is what the move between processors adds), the copy bandwidth of such a buffer ([`copy_bandwidth_once`]) and the slowdown of a
//! memory-bound kernel (a STREAM triad) when k threads run it at once ([`triad_slowdown_once`]).

use super::clock::{time_it, Clock};
use super::placement::{allowed_cpus, cpus_for, pin_current_thread};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;

/// One timed read kernel's result: seconds per read, and whether its threads ran pinned
/// where the kernel meant them to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedRead {
    /// Seconds per read, the mean over the rounds.
    pub seconds: f64,
    /// Whether every thread of the kernel was pinned to its processor (for
    /// [`transfer_once`]: writer and reader on two distinct processors). False where fewer
    /// than two processors are allowed or the system refuses pinning: the threads then ran
    /// where the scheduler put them.
    pub pinned: bool,
}

/// The writer's and the reader's processors for repetition `rotation`: two distinct
/// allowed ones, drawn as [`cpus_for`] draws them (repetitions visit different pairs, as
/// the line kernels do); fewer when fewer are allowed.
pub fn transfer_cpus(rotation: usize) -> Vec<usize> {
    cpus_for(&allowed_cpus(), 2, rotation)
}

/// Pins the calling thread to `cpus[i]`; false when there is no such processor or the
/// system refuses.
fn pin(cpus: &[usize], i: usize) -> bool {
    cpus.get(i).is_some_and(|&c| pin_current_thread(c))
}

/// Seconds for one thread to read (sum) a buffer of `bytes` that another thread has just
/// written: `rounds` rounds of write-there, read-here, the reads timed and averaged.
///
/// Writer and reader are threads of their own, pinned to two distinct processors of those
/// allowed ([`transfer_cpus`] of `rotation`): left to the scheduler, the two may share one
/// processor, taking turns, and then no line moves and the "transfer" is a local read. The
/// caller's thread keeps its placement. Where pinning fails the kernel still runs, and
/// [`PlacedRead::pinned`] says so.
pub fn transfer_once<C: Clock + ?Sized>(
    clock: &C,
    bytes: usize,
    rounds: usize,
    rotation: usize,
) -> PlacedRead {
    let cpus = transfer_cpus(rotation);
    let rounds = rounds.max(1) as u64;
    let buf = buffer(bytes);
    let turn = AtomicU64::new(0);
    let (writer_pinned, (reader_pinned, seconds)) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let pinned = pin(&cpus, 0);
            for r in 0..rounds {
                wait_for(&turn, 2 * r);
                write_all(&buf, r);
                turn.store(2 * r + 1, Ordering::Release);
            }
            pinned
        });
        let reader = s.spawn(|| {
            let pinned = pin(&cpus, 1);
            let mut total = 0.0;
            for r in 0..rounds {
                wait_for(&turn, 2 * r + 1);
                total += time_it(clock, || {
                    black_box(read_all(&buf));
                });
                turn.store(2 * r + 2, Ordering::Release);
            }
            (pinned, total / rounds as f64)
        });
        (
            writer.join().unwrap_or(false),
            reader.join().unwrap_or((false, f64::NAN)),
        )
    });
    PlacedRead {
        seconds,
        pinned: writer_pinned && reader_pinned,
    }
}

/// Seconds for one thread to read (sum) a buffer of `bytes` that it has just written
/// itself: `rounds` rounds of write-here, read-here, the reads timed and averaged. The
/// same buffer, stores and reads as [`transfer_once`], on a thread of its own pinned to the
/// processor [`transfer_once`]'s reader runs on in repetition `rotation`, so the two
/// differ only by where the written lines sit when the read starts.
pub fn local_read_once<C: Clock + ?Sized>(
    clock: &C,
    bytes: usize,
    rounds: usize,
    rotation: usize,
) -> PlacedRead {
    let cpus = transfer_cpus(rotation);
    let reader = cpus.get(1).or(cpus.first()).copied();
    let rounds = rounds.max(1) as u64;
    let buf = buffer(bytes);
    let (pinned, seconds) = std::thread::scope(|s| {
        s.spawn(|| {
            let pinned = reader.is_some_and(pin_current_thread);
            let mut total = 0.0;
            for r in 0..rounds {
                write_all(&buf, r);
                total += time_it(clock, || {
                    black_box(read_all(&buf));
                });
            }
            (pinned, total / rounds as f64)
        })
        .join()
        .unwrap_or((false, f64::NAN))
    });
    PlacedRead { seconds, pinned }
}

/// A zeroed buffer of `bytes` (at least one word).
fn buffer(bytes: usize) -> Vec<AtomicU64> {
    (0..(bytes / 8).max(1)).map(|_| AtomicU64::new(0)).collect()
}

/// Stores `index ^ round` into every word (relaxed atomics compile to plain stores).
fn write_all(buf: &[AtomicU64], round: u64) {
    for (i, w) in buf.iter().enumerate() {
        w.store(i as u64 ^ round, Ordering::Relaxed);
    }
}

/// The sum of every word.
pub(super) fn read_all(buf: &[AtomicU64]) -> u64 {
    buf.iter()
        .map(|w| w.load(Ordering::Relaxed))
        .fold(0, u64::wrapping_add)
}

/// Spins (yielding) until `turn` holds `value`.
pub(super) fn wait_for(turn: &AtomicU64, value: u64) {
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
        let t = transfer_once(&clock, 4096, 5, 0).seconds;
        assert!((t - 2e-6).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 10);
    }

    #[test]
    fn writer_and_reader_are_pinned_to_two_processors_where_two_are_allowed() {
        // A real run of 64 KiB, 50 rounds (a few milliseconds): on Linux with two
        // processors or more both threads are pinned, and the pair is two distinct ones.
        let clock = super::super::clock::MonotonicClock::new();
        let two = allowed_cpus().len() >= 2;
        for rotation in 0..3 {
            let cpus = transfer_cpus(rotation);
            if two {
                assert_eq!(cpus.len(), 2);
                assert_ne!(cpus[0], cpus[1]);
            }
            let t = transfer_once(&clock, 64 << 10, 50, rotation);
            let r = local_read_once(&clock, 64 << 10, 50, rotation);
            assert!(t.seconds > 0.0 && r.seconds > 0.0, "{t:?} {r:?}");
            if cfg!(target_os = "linux") {
                assert_eq!(t.pinned, two, "{t:?}");
                assert!(r.pinned, "{r:?}");
            }
        }
    }

    #[test]
    fn local_read_averages_the_timed_reads() {
        let clock = StepClock::new(3e-6);
        let t = local_read_once(&clock, 4096, 4, 0).seconds;
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
