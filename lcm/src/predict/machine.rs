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
        let text = std::fs::read_to_string(path).map_err(|e| PredictError::Io {
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
pub fn measure_latency(round_trips: u64, repeats: usize) -> f64 {
    let mut samples = Vec::new();
    for _ in 0..repeats.max(1) {
        let flag = Arc::new(AtomicU64::new(0));
        let f2 = Arc::clone(&flag);
        let partner = std::thread::spawn(move || {
            for i in 0..round_trips {
                spin_until(&f2, 2 * i + 1);
                f2.store(2 * i + 2, Ordering::Release);
            }
        });
        let start = Instant::now();
        for i in 0..round_trips {
            flag.store(2 * i + 1, Ordering::Release);
            spin_until(&flag, 2 * i + 2);
        }
        let secs = start.elapsed().as_secs_f64();
        let _ = partner.join();
        samples.push(secs / (2.0 * round_trips as f64));
    }
    median(&mut samples)
}

/// Spins until `flag` holds `value`, yielding now and then so a loaded machine that runs
/// both threads on one core still makes progress.
fn spin_until(flag: &AtomicU64, value: u64) {
    let mut spins = 0u32;
    while flag.load(Ordering::Acquire) != value {
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
