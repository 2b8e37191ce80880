//! What writing a buffer costs when another processor read it last: before its stores land
//! the writer must take every line back from the reader's cache (a request for ownership
//! that invalidates the reader's copy), where a buffer it read itself is already its own.
//! [`claim_once`] times one thread overwriting a buffer another thread has just read;
//! [`local_write_once`] times the same stores over a buffer the writing thread has just
//! read itself. Their difference is what taking the lines back adds.
//!
//! The stores come at one of two paces ([`WritePace`]): back to back, as a copy or a fill
//! writes, or each 16-byte element computed first from two integer remainders, as a
//! fragment that computes its output writes. The two answer differently: on a
//! 2-processor virtual machine (AMD EPYC, 2 MiB L2 per core; medians of 9-15
//! repetitions, load average 3-5 from other work) back-to-back stores over 64 KiB took
//! 7.7-34 µs after another processor's read against 1.3-1.8 µs after the writer's own
//! (256 KiB: 30-123 µs against 5-21 µs), while computed stores over 64 KiB took 10-12 µs
//! and at most 1.8 µs more than after the writer's own read (256 KiB: within ±2.4 µs of
//! 40-60 µs). The ownership requests overlap the computation: a writer pays for them only
//! when its stores come faster than the lines can be taken back. lcm's predictions
//! therefore do not price a write to data another processor read (docs/machine.md, "Data
//! moved between processors"), and `lcm calibrate` does not run these kernels: `cargo run
//! --release -p lcm --example claimbench` does.

use super::clock::{time_it, Clock};
use super::memory::{read_all, wait_for};
use super::placement::{allowed_cpus, cpus_for, pin_current_thread};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// How fast the timed stores come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WritePace {
    /// Back to back: one store per word, nothing computed (a fill, a copy).
    Plain,
    /// Each 16-byte element (two words) computed first from two integer remainders of its
    /// index and the round, as a fragment that computes what it writes (about 10 ns per
    /// 64-byte line on the machine of the module docs).
    Computed,
}

/// Seconds for one thread to overwrite a buffer of `bytes` that another thread has just
/// read: `rounds` rounds of read-there, write-here, the writes (at `pace`) timed and
/// averaged. The buffer is written here first, so every round the reader takes lines this
/// thread wrote, as the stage that consumes a pipeline's item does, and this thread then
/// takes them back. Both threads are spawned and pinned to two processors of those allowed,
/// drawn with `rotation` as the seed ([`super::placement::cpus_for`]): left to the
/// scheduler, the two may share one processor, and then no line moves.
pub fn claim_once<C: Clock + ?Sized>(
    clock: &C,
    bytes: usize,
    rounds: usize,
    rotation: usize,
    pace: WritePace,
) -> f64 {
    let cpus = cpus_for(&allowed_cpus(), 2, rotation);
    let pin = |i: usize| {
        if let Some(&c) = cpus.get(i) {
            pin_current_thread(c);
        }
    };
    let rounds = rounds.max(1) as u64;
    let buf = buffer(bytes);
    let turn = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            pin(1);
            for r in 0..rounds {
                wait_for(&turn, 2 * r + 1);
                black_box(read_all(&buf));
                turn.store(2 * r + 2, Ordering::Release);
            }
        });
        s.spawn(|| {
            pin(0);
            write_all(&buf, u64::MAX, pace);
            turn.store(1, Ordering::Release);
            let mut total = 0.0;
            for r in 0..rounds {
                wait_for(&turn, 2 * r + 2);
                total += time_it(clock, || write_all(&buf, r, pace));
                turn.store(2 * r + 3, Ordering::Release);
            }
            total / rounds as f64
        })
        .join()
        .unwrap_or(f64::NAN)
    })
}

/// Seconds for one thread to overwrite a buffer of `bytes` that it has just read itself:
/// `rounds` rounds of read-here, write-here (at `pace`), the writes timed and averaged. The
/// same buffer, reads and stores as [`claim_once`], so the two differ only by which cache
/// holds the lines when the writes start.
pub fn local_write_once<C: Clock + ?Sized>(
    clock: &C,
    bytes: usize,
    rounds: usize,
    pace: WritePace,
) -> f64 {
    let rounds = rounds.max(1) as u64;
    let buf = buffer(bytes);
    write_all(&buf, u64::MAX, pace);
    let mut total = 0.0;
    for r in 0..rounds {
        black_box(read_all(&buf));
        total += time_it(clock, || write_all(&buf, r, pace));
    }
    total / rounds as f64
}

/// A zeroed buffer of `bytes` (at least one word).
fn buffer(bytes: usize) -> Vec<AtomicU64> {
    (0..(bytes / 8).max(1)).map(|_| AtomicU64::new(0)).collect()
}

/// Stores into every word at `pace` (plain stores: relaxed atomics compile to them).
fn write_all(buf: &[AtomicU64], round: u64, pace: WritePace) {
    match pace {
        WritePace::Plain => {
            for (i, w) in buf.iter().enumerate() {
                w.store(i as u64 ^ round, Ordering::Relaxed);
            }
        }
        WritePace::Computed => {
            for (i, pair) in buf.chunks(2).enumerate() {
                let i = i as u64;
                let re = ((i * 7 + (i >> 6) * 13 + round * 3) % 17) as f64 - 8.0;
                let im = ((i * 5 + (i >> 6) * 3 + round) % 11) as f64 / 11.0 - 0.5;
                pair[0].store(re.to_bits(), Ordering::Relaxed);
                if let Some(w) = pair.get(1) {
                    w.store(im.to_bits(), Ordering::Relaxed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::clock::fake::StepClock;
    use super::*;

    #[test]
    fn claim_averages_the_timed_writes() {
        // Each write is bracketed by two readings one step apart, whatever the pace.
        for pace in [WritePace::Plain, WritePace::Computed] {
            let clock = StepClock::new(2e-6);
            let t = claim_once(&clock, 4096, 5, 0, pace);
            assert!((t - 2e-6).abs() < 1e-15, "{pace:?}: {t}");
            assert_eq!(clock.readings(), 10);
        }
    }

    #[test]
    fn local_write_averages_the_timed_writes() {
        let clock = StepClock::new(3e-6);
        let t = local_write_once(&clock, 4096, 4, WritePace::Computed);
        assert!((t - 3e-6).abs() < 1e-15, "{t}");
        assert_eq!(clock.readings(), 8);
    }

    #[test]
    fn both_paces_write_every_word_of_the_round() {
        // A buffer of 5 words: the plain pace writes index ^ round, the computed one an
        // element's two doubles, the odd last word too.
        let buf = buffer(40);
        write_all(&buf, 3, WritePace::Plain);
        let plain: Vec<u64> = buf.iter().map(|w| w.load(Ordering::Relaxed)).collect();
        assert_eq!(plain, vec![3, 2, 1, 0, 7]);
        write_all(&buf, 0, WritePace::Computed);
        let re = |i: u64| ((i * 7) % 17) as f64 - 8.0;
        let im = |i: u64| ((i * 5) % 11) as f64 / 11.0 - 0.5;
        let words: Vec<f64> = buf
            .iter()
            .map(|w| f64::from_bits(w.load(Ordering::Relaxed)))
            .collect();
        assert_eq!(words, vec![re(0), im(0), re(1), im(1), re(2)]);
        // Zero bytes still make a one-word buffer: the kernels never divide by zero.
        assert_eq!(buffer(0).len(), 1);
    }
}
