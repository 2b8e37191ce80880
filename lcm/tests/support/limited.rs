//! Runs the `lcm` binary of this build under limits: an address-space cap (`ulimit -v`; an
//! allocation beyond it aborts the child) and a wall-clock limit (the child is killed and
//! the test fails), reading its peak resident memory (`VmHWM` of /proc/PID/status, polled
//! while it runs: a lower bound of the true peak, which the address-space cap bounds from
//! above).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a limited run gave.
pub struct Run {
    /// Exit status (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// The largest resident set seen, in MiB (0 where /proc is missing).
    pub peak_rss_mb: u64,
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `lcm args` in `dir` with at most `limit_mb` MiB of address space and `time` of
/// wall clock; panics when the time passes.
pub fn lcm_limited(dir: &Path, args: &[&str], limit_mb: u64, time: Duration) -> Run {
    let out_path = dir.join("limited-stdout.txt");
    let err_path = dir.join("limited-stderr.txt");
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {}; exec \"$0\" \"$@\"", limit_mb * 1024))
        .arg(env!("CARGO_BIN_EXE_lcm"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("sh runs");
    let mut peak_kb = 0;
    let status = loop {
        if let Some(kb) = vm_hwm_kb(child.id()) {
            peak_kb = peak_kb.max(kb);
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > time {
            child.kill().ok();
            child.wait().ok();
            panic!("lcm {args:?} ran past {time:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: std::fs::read_to_string(out_path).unwrap(),
        stderr: std::fs::read_to_string(err_path).unwrap(),
        elapsed: start.elapsed(),
        peak_rss_mb: peak_kb / 1024,
    }
}
