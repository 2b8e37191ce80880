//! The standalone program binaries run at a given (n, p), print their result line, and
//! record a readable pplib log with `PPLIB_LOG`.

use std::process::Command;

fn run(bin: &str, args: &[&str], log: Option<&std::path::Path>) -> String {
    let mut cmd = Command::new(bin);
    cmd.args(args).env_remove("PPLIB_LOG");
    if let Some(log) = log {
        cmd.env("PPLIB_LOG", log);
    }
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{bin} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn queens_counts_the_first_k_solutions_both_ways() {
    let bin = env!("CARGO_BIN_EXE_queens");
    // 8-queens has 92 solutions: asking for 50 finds 50, asking for 1000 finds all 92.
    for imp in ["tree", "loop"] {
        let out = run(
            bin,
            &["--impl", imp, "-n", "8", "-k", "50", "-p", "2"],
            None,
        );
        assert!(out.trim_end().ends_with("solutions=50"), "{out}");
        let out = run(
            bin,
            &["--impl", imp, "-n", "8", "-k", "1000", "-p", "2"],
            None,
        );
        assert!(out.trim_end().ends_with("solutions=92"), "{out}");
    }
}

#[test]
fn histogram_counts_every_key_and_records_a_log() {
    let bin = env!("CARGO_BIN_EXE_histogram");
    let dir = std::env::temp_dir().join(format!("examples-bins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("h.pplog");
    for imp in ["locked", "sharded"] {
        let out = run(bin, &["--impl", imp, "-n", "100000", "-p", "2"], Some(&log));
        assert!(out.trim_end().ends_with("total=100000"), "{out}");
        let reader = pplib::log::LogReader::open(&log).expect("a readable log");
        assert_eq!(reader.header().processors, 2);
        let events: usize = reader.streams().into_iter().map(|s| s.count()).sum();
        assert!(events > 0);
    }
    std::fs::remove_dir_all(&dir).ok();
}
