//! `lcm ... | head`: when the reader of standard output goes away, lcm stops quietly with
//! exit 0 instead of panicking on the closed pipe, on every printing path (a grid table, a
//! streamed JSON grid, one point, the PAMELA text).

use std::process::{Command, Stdio};

#[test]
fn a_closed_standard_output_ends_lcm_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.rs");
    std::fs::write(
        &src,
        "fn main() {\n    // lcm: pc = 1e-9*n\n    pplib::frag_scope(\"work\", || {});\n}\n",
    )
    .unwrap();
    let src = src.to_str().unwrap();
    for args in [
        vec!["predict", src, "--set", "p=2", "--grid", "n=1..20000"],
        vec![
            "predict",
            src,
            "--set",
            "p=2",
            "--grid",
            "n=1..20000",
            "--json",
        ],
        vec!["predict", src, "--set", "p=2", "--set", "n=4"],
        vec!["predict", src, "--set", "p=2", "--set", "n=4", "--pamela"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lcm"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before lcm writes
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "lcm {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "lcm {args:?}: {stderr}");
    }
}
