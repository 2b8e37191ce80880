//! Runs the `pp` binary as a child under a time limit and measures its peak resident
//! memory, for the tests that hold `pp` to time and memory bounds on hostile or huge
//! inputs.
//!
//! The peak is the child's `VmHWM` (Linux `/proc/PID/status`: the most resident memory it
//! has had so far), read every millisecond until it exits: a lower bound that misses at
//! most the growth of the last millisecond. A child still running at the time limit is
//! killed and the test fails with what it had printed.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a limited run gave.
#[derive(Debug)]
pub struct Outcome {
    /// The exit status.
    pub status: ExitStatus,
    /// Wall-clock time from spawn to exit.
    pub wall: Duration,
    /// Peak resident memory seen, in MiB.
    pub peak_mib: f64,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Everything it wrote to stderr.
    pub stderr: String,
}

impl Outcome {
    /// Fails unless the run took at most `seconds` and `mib` MiB at its peak.
    pub fn within(&self, what: &str, seconds: f64, mib: f64) -> &Outcome {
        assert!(
            self.wall.as_secs_f64() <= seconds && self.peak_mib <= mib,
            "{what}: took {:.2} s and {:.0} MiB; limits {seconds} s and {mib} MiB",
            self.wall.as_secs_f64(),
            self.peak_mib
        );
        eprintln!(
            "{what}: {:.2} s, peak {:.0} MiB (limits {seconds} s, {mib} MiB)",
            self.wall.as_secs_f64(),
            self.peak_mib
        );
        self
    }
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `pp ARGS` (with `envs` set, `PPLIB_LOG` unset, stdout and stderr to files in
/// `dir`), killing it after `kill_after`.
pub fn run_pp(args: &[&str], envs: &[(&str, &str)], dir: &Path, kill_after: Duration) -> Outcome {
    let out_path = dir.join("limits.stdout");
    let err_path = dir.join("limits.stderr");
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pp"))
        .args(args)
        .env_remove("PPLIB_LOG")
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > kill_after {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "pp {args:?} still running after {kill_after:?} (peak {} MiB); stderr: {}",
                peak / 1024,
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let wall = start.elapsed();
    let read = |p: &Path| {
        let bytes = std::fs::read(p).unwrap();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Outcome {
        status,
        wall,
        peak_mib: peak as f64 / 1024.0,
        stdout: read(&out_path),
        stderr: read(&err_path),
    }
}

/// The value of `key` in a record line (not every test binary reads record lines).
#[allow(dead_code)]
pub fn field(record: &str, key: &str) -> f64 {
    record
        .split(' ')
        .find_map(|t| t.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in {record}"))
        .parse()
        .unwrap()
}
