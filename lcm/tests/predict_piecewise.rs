//! A piecewise power law `pw(k, …)` in a models file (as `lca model` writes one for work
//! that changes regime between measured points): `lcm predict` evaluates it exactly at the
//! measured points, warns outside its first and last point (not 2x), and refuses a bad
//! table with the file's line.

#[path = "support/run.rs"]
mod support;
use support::lcm;

/// A serial fragment `search` measured at k = 1, 100 and 10000 (p = 1..2).
fn fixture(pc: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("prog.rs"),
        "fn main() {\n    // lcm: fragment search\n    search();\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("prog.models"),
        format!(
            "// lcm: fragment search\n// lcm: range k = 1..10000, p = 1..2\n// lcm: pc = {pc}\n"
        ),
    )
    .unwrap();
    dir
}

const TABLE: &str = "pw(k, 1, 3e-7, 100, 3.4e-5, 10000, 5.2e-3)";

fn predict(dir: &tempfile::TempDir, k: &str) -> (i32, String, String) {
    lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "prog.models",
            "--set",
            k,
            "--set",
            "p=1",
        ],
        dir.path(),
    )
}

#[test]
fn exact_at_a_measured_point_and_silent_inside() {
    let dir = fixture(TABLE);
    let (code, out, err) = predict(&dir, "k=100");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(out.contains("3.4000e-5"), "{out}");
    let (code, _, err) = predict(&dir, "k=5000");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn outside_the_measured_points_warns_even_within_2x() {
    let dir = fixture(TABLE);
    let (code, _, err) = predict(&dir, "k=15000");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: fragment `search` (pc): k = 15000 lies outside the measured points k = 1..10000 of its piecewise model"),
        "{err}"
    );
    assert!(!err.contains("beyond 2x"), "{err}");
}

#[test]
fn a_bad_table_is_an_error_naming_the_line() {
    for bad in [
        "pw(k, 100, 3e-7, 1, 3.4e-5)",
        "pw(k, 1, 3e-7)",
        "pw(k, 1, (0/0), 100, 2)",
    ] {
        let dir = fixture(bad);
        let (code, _, err) = predict(&dir, "k=100");
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains(":3:"), "{bad}: {err}");
        assert!(!err.contains("panicked"), "{bad}: {err}");
    }
}
