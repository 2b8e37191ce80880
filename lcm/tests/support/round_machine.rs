//! A machine file of round numbers for the tests of machine costs (written by hand, so that
//! every expected time can be worked out on paper): fork/join 1 us + 1 us per doubling,
//! task 0.1 us, item 1 ns, hand-off 0.1 us spinning, 10 us waking; memory-bound work 1.5x
//! slower two at a time.

use std::path::{Path, PathBuf};

/// The machine file's text.
pub const ROUND: &str = "\
latency_s = 1e-7
bandwidth_bytes_per_s = 1e10
calibrated_p = 2
fork_join_base_s = 1e-6
fork_join_log2p_s = 1e-6
fork_join_s_p1 = 1e-6
fork_join_s_p2 = 2e-6
task_s = 1e-7
par_item_s = 1e-9
handoff_spin_s = 1e-7
handoff_wake_s = 1e-5
transfer_s_4096 = 3e-7
mem_slowdown_k1 = 1
mem_slowdown_k2 = 1.5
";

/// Writes it as `round.txt` in `dir` and returns its path.
pub fn round_machine(dir: &Path) -> PathBuf {
    let path = dir.join("round.txt");
    std::fs::write(&path, ROUND).unwrap();
    path
}

/// `a` equals `b` within 1e-9 relative.
pub fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-12), "{a} vs {b}");
}
