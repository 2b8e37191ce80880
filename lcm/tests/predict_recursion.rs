//! A recursive divide and conquer restructured by its cutoff (docs/models.md, "Recursive
//! parallelism"): the fixtures in `recursion/` (each says how it was made and what it must
//! give) are a measured merge sort's models, a machine file of round numbers and the
//! annotated source of the restructured sort, whose rule prices the recursion's extra
//! joins with the machine file's `join_s`.

#[path = "support/run.rs"]
mod support;
use std::path::{Path, PathBuf};
use support::lcm;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recursion")
}

/// `lcm predict fine.rs` at n = 2^20 over `p`, in `dir`: the JSON's times by p.
fn predict_times(dir: &Path, machine: &str) -> (i32, Vec<(f64, f64)>, String) {
    let (code, out, err) = lcm(
        &[
            "predict",
            "fine.rs",
            "--models",
            "measured.models",
            "--machine",
            machine,
            "--set",
            "n=1048576",
            "--grid",
            "p=1,2",
            "--json",
        ],
        dir,
    );
    if code != 0 {
        return (code, Vec::new(), err);
    }
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let points = v.as_array().unwrap_or_else(|| panic!("{out}"));
    let times = points
        .iter()
        .map(|pt| {
            (
                pt["bindings"]["p"].as_f64().unwrap(),
                pt["seconds"].as_f64().unwrap(),
            )
        })
        .collect();
    (code, times, err)
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
}

#[test]
fn a_finer_cutoff_pays_join_s_per_extra_join_of_the_recursion() {
    let (code, times, err) = predict_times(&fixtures(), "machine.txt");
    assert_eq!(code, 0, "{err}");
    // Worked out in fine.rs's header: 16376 extra joins at 20 ns each.
    assert_eq!(times.len(), 2, "{times:?}");
    close(times[0].1, 10.288992e-3);
    close(times[1].1, 5.718784e-3);
}

#[test]
fn a_machine_file_without_join_s_says_where_the_key_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["fine.rs", "measured.models"] {
        std::fs::copy(fixtures().join(f), dir.path().join(f)).unwrap();
    }
    // A file of an lcm that did not write join_s yet: the same file without the key.
    let old: String = std::fs::read_to_string(fixtures().join("machine.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("join_s"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("old.txt"), old).unwrap();
    let (code, _, err) = predict_times(dir.path(), "old.txt");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`join_s`")
            && err.contains("a key of the machine file, which old.txt does not hold")
            && err.contains("lcm calibrate")
            && err.contains("--set join_s=VALUE"),
        "{err}"
    );
}

#[test]
fn a_negative_join_s_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["fine.rs", "measured.models"] {
        std::fs::copy(fixtures().join(f), dir.path().join(f)).unwrap();
    }
    let bad = std::fs::read_to_string(fixtures().join("machine.txt"))
        .unwrap()
        .replace("join_s = 2e-8", "join_s = -2e-8");
    std::fs::write(dir.path().join("bad.txt"), bad).unwrap();
    let (code, _, err) = predict_times(dir.path(), "bad.txt");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("join_s") && err.contains("bad.txt"), "{err}");
}
