//! The machine file: what a data transfer between processors costs here, measured once per
//! machine by `lcm calibrate` and read by `lcm predict --machine FILE`.
//!
//! Format: UTF-8 text, one `key = value` per line, `#` starts a comment. Keys:
//! - `latency_s`: seconds for one cache-line handoff between two threads (one way);
//! - `bandwidth_bytes_per_s`: bytes per second copying a buffer another thread wrote.
//!
//! Unknown keys are kept out of the way (ignored) so later versions can add some; a missing
//! required key, a value that is not a positive finite number, or a line without `=` is an
//! error naming the line.
//!
//! ```
//! use lcm::predict::machine::Machine;
//! let m = Machine::parse("m.txt", "# lcm machine\nlatency_s = 1e-7\nbandwidth_bytes_per_s = 5e9\n").unwrap();
//! assert_eq!(m.latency_s, 1e-7);
//! assert!(m.to_text().contains("bandwidth_bytes_per_s = 5000000000"));
//! ```

use super::error::PredictError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Communication prices of a machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// One-way latency of a transfer between two processors, seconds.
    pub latency_s: f64,
    /// Copy bandwidth between processors, bytes per second.
    pub bandwidth_bytes_per_s: f64,
    /// Where the numbers came from (file name, or `default`).
    pub origin: String,
}

impl Default for Machine {
    /// Typical figures of a current multicore (200 ns, 5 GB/s) for when no machine file is
    /// given; `lcm calibrate` measures the real ones.
    fn default() -> Self {
        Machine {
            latency_s: 2e-7,
            bandwidth_bytes_per_s: 5e9,
            origin: "default (run `lcm calibrate` for this machine's)".into(),
        }
    }
}

impl Machine {
    /// Parses a machine file's text (`name` is used in messages).
    pub fn parse(name: &str, text: &str) -> Result<Machine, PredictError> {
        let err = |line: usize, message: String| PredictError::Machine {
            file: name.to_string(),
            line,
            message,
        };
        let mut lat = None;
        let mut bw = None;
        for (i, raw) in text.lines().enumerate() {
            let l = raw.split('#').next().unwrap_or("").trim();
            if l.is_empty() {
                continue;
            }
            let Some((k, v)) = l.split_once('=') else {
                return Err(err(i + 1, format!("expected `key = value`, found `{l}`")));
            };
            let k = k.trim();
            let parse = |v: &str| -> Result<f64, PredictError> {
                v.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| {
                        err(
                            i + 1,
                            format!("expected a positive number for `{k}`, found `{}`", v.trim()),
                        )
                    })
            };
            match k {
                "latency_s" => lat = Some(parse(v)?),
                "bandwidth_bytes_per_s" => bw = Some(parse(v)?),
                _ => {}
            }
        }
        let lines = text.lines().count().max(1);
        Ok(Machine {
            latency_s: lat.ok_or_else(|| {
                err(
                    lines,
                    "expected a `latency_s = SECONDS` line, found none".into(),
                )
            })?,
            bandwidth_bytes_per_s: bw.ok_or_else(|| {
                err(
                    lines,
                    "expected a `bandwidth_bytes_per_s = BYTES_PER_S` line, found none".into(),
                )
            })?,
            origin: name.to_string(),
        })
    }

    /// Reads a machine file.
    pub fn load(path: &std::path::Path) -> Result<Machine, PredictError> {
        let text = crate::read_input(path).map_err(|e| PredictError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        Machine::parse(&path.display().to_string(), &text)
    }

    /// The file text (`lcm calibrate` writes it).
    pub fn to_text(&self) -> String {
        format!(
            "# lcm machine file: communication prices for lcm predict --machine\n# measured by: {}\nlatency_s = {}\nbandwidth_bytes_per_s = {}\n",
            self.origin, self.latency_s, self.bandwidth_bytes_per_s
        )
    }
}

/// Measurements of `lcm calibrate`.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// The machine prices (medians).
    pub machine: Machine,
    /// Round trips measured for the latency.
    pub round_trips: u64,
    /// Bytes per copy measured for the bandwidth.
    pub copy_bytes: usize,
    /// Copies timed.
    pub copies: usize,
}

/// Ping-pong between two threads through one atomic: median one-way latency in seconds.
///
/// Each repeat starts a partner thread and bounces the flag for [`LATENCY_WARM_UP`] before
/// it times `round_trips` round trips: a new thread often starts on its parent's processor,
/// and until the scheduler moves it each trip costs a spin budget and a yield (some 6 µs on
/// a 2-vCPU VM, a hundred times the trip between two processors). The trips are timed in
/// batches of [`LATENCY_BATCH`] and a repeat's latency is its median batch: one preemption
/// of either thread (a scheduler tick, milliseconds) spoils one batch, where it would add
/// microseconds to the mean of every trip. The result is the median over `repeats`.
pub fn measure_latency(round_trips: u64, repeats: usize) -> f64 {
    /// The flag's value that tells the partner to stop.
    const DONE: u64 = u64::MAX;
    let mut samples = Vec::new();
    for _ in 0..repeats.max(1) {
        let flag = Arc::new(AtomicU64::new(0));
        let f2 = Arc::clone(&flag);
        let partner = std::thread::spawn(move || {
            // Answers every odd value with the next even one until told to stop.
            let mut last = 0;
            loop {
                let v = spin_while(&f2, last);
                if v == DONE {
                    break;
                }
                last = v + 1;
                f2.store(last, Ordering::Release);
            }
        });
        let mut value = 0;
        let mut trip = || {
            flag.store(value + 1, Ordering::Release);
            value += 2;
            spin_while(&flag, value - 1);
        };
        let warm = Instant::now();
        while warm.elapsed() < LATENCY_WARM_UP {
            (0..64).for_each(|_| trip());
        }
        let mut batches = Vec::new();
        let mut left = round_trips.max(1);
        while left > 0 {
            let trips = left.min(LATENCY_BATCH);
            let start = Instant::now();
            (0..trips).for_each(|_| trip());
            batches.push(start.elapsed().as_secs_f64() / (2.0 * trips as f64));
            left -= trips;
        }
        flag.store(DONE, Ordering::Release);
        let _ = partner.join();
        samples.push(median(&mut batches));
    }
    median(&mut samples)
}

/// Round trips per timed batch of [`measure_latency`]: some microseconds between two
/// processors, so the clock readings around it cost under 1 %.
pub const LATENCY_BATCH: u64 = 64;

/// How long [`measure_latency`] bounces the flag before it times: long enough for the
/// scheduler to move a new thread off its parent's processor.
pub const LATENCY_WARM_UP: std::time::Duration = std::time::Duration::from_millis(5);

/// Spins while `flag` holds `value` and returns the value it changed to, yielding now and
/// then so a loaded machine that runs both threads on one core still makes progress.
fn spin_while(flag: &AtomicU64, value: u64) -> u64 {
    let mut spins = 0u32;
    loop {
        let v = flag.load(Ordering::Acquire);
        if v != value {
            return v;
        }
        spins += 1;
        if spins.is_multiple_of(4096) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// A thread writes a buffer, another copies it: median bytes per second of the copy.
pub fn measure_bandwidth(bytes: usize, repeats: usize) -> f64 {
    let words = (bytes / 8).max(1);
    let mut samples = Vec::new();
    let mut dst = vec![0u64; words];
    for r in 0..repeats.max(1) {
        let src = std::thread::spawn(move || {
            let v: Vec<u64> = (0..words as u64).map(|i| i ^ r as u64).collect();
            v
        })
        .join()
        .unwrap_or_default();
        let start = Instant::now();
        dst.copy_from_slice(&src);
        let secs = start.elapsed().as_secs_f64();
        std::hint::black_box(&dst);
        if secs > 0.0 {
            samples.push((words * 8) as f64 / secs);
        }
    }
    median(&mut samples)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs both microbenchmarks (`quick`: smaller sizes) and returns the machine prices.
pub fn calibrate(quick: bool) -> Calibration {
    let (trips, bytes, copies) = if quick {
        (20_000, 8 << 20, 5)
    } else {
        (200_000, 64 << 20, 9)
    };
    let latency_s = measure_latency(trips, 5);
    let bandwidth_bytes_per_s = measure_bandwidth(bytes, copies);
    Calibration {
        machine: Machine {
            latency_s,
            bandwidth_bytes_per_s,
            origin: format!(
                "lcm calibrate (ping-pong {trips} round trips; copy of {} MiB written by another thread, median of {copies})",
                bytes >> 20
            ),
        },
        round_trips: trips,
        copy_bytes: bytes,
        copies,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_pong_stops_its_partner_and_gives_a_positive_latency() {
        // Two repeats: each partner thread must see DONE and be joined, or this hangs.
        let lat = measure_latency(100, 2);
        assert!(lat.is_finite() && lat > 0.0, "{lat}");
    }
}
