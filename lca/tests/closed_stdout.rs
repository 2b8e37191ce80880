//! `lca ... | head`: when the reader of standard output goes away, lca stops quietly with
//! exit 0 instead of panicking (exit 101) on the closed pipe.

use std::io::Write;
use std::process::{Command, Stdio};

/// 200 records of a linear work model, as `pp -l` writes them (few enough to fit in a
/// second; the read end is closed before lca prints, so its first write fails).
fn records() -> String {
    (1..=200)
        .map(|n| {
            let t = n as f64 * 1e-6;
            format!("n={n} p=1 tt={t} pc={t} rt={t} li=0 ip=0 sl=0 wc=0 ml=0\n")
        })
        .collect()
}

#[test]
fn a_closed_standard_output_ends_lca_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("big.pp");
    std::fs::File::create(&data)
        .unwrap()
        .write_all(records().as_bytes())
        .unwrap();
    for args in [
        vec!["model", "-f", data.to_str().unwrap(), "-v", "n,p"],
        vec![
            "-f",
            data.to_str().unwrap(),
            "-v",
            "n",
            "-c",
            "pc",
            "--auto",
        ],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lca"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before lca writes
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "lca {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "lca {args:?}: {stderr}");
    }
}
