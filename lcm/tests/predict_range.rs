//! The 2x-range warning of `lcm predict` and `lcm compare`: a models file whose fragments
//! carry `// lcm: range` lines (as `lca model --emit annotation` writes them), predictions
//! inside, at and beyond twice the measured range, on stderr and in --json.

#[path = "support/run.rs"]
mod support;
use support::lcm;

/// A program with a serial fragment `setup` and two joined fragments `left` / `right`
/// (each task gets p/2 processors), and a models file measured on n = 64..1024, p = 1..16.
/// `setup`'s models do not use p, `right`'s do not use n.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("prog.rs"),
        "fn main() {\n    // lcm: fragment setup\n    setup();\n\n    rayon::join(\n        || {\n            // lcm: fragment left\n            left();\n        },\n        || {\n            // lcm: fragment right\n            right();\n        },\n    );\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("prog.models"),
        "# measured on n = 64..1024, p = 1..16\n// lcm: fragment setup\n// lcm: range n = 64..1024, p = 1..16\n// lcm: rt = 1e-6*n\n\n// lcm: fragment left\n// lcm: range n = 64..1024, p = 1..16\n// lcm: rt = 2e-9*n^2\n// lcm: li = 1e-5*p\n\n// lcm: fragment right\n// lcm: range n = 64..1024, p = 1..16\n// lcm: rt = 0.01\n// lcm: ip = 1e-4*(p - 1)\n",
    )
    .unwrap();
    dir
}

#[test]
fn inside_twice_the_range_no_warning() {
    let dir = fixture();
    // n = 2048 is exactly 2x the largest n; p = 64 gives each joined task p/2 = 32 = 2 x 16.
    let (code, out, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "prog.models",
            "--set",
            "n=2048",
            "--set",
            "p=64",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(out.lines().last().unwrap().starts_with("predicted: T="));
}

#[test]
fn beyond_twice_the_range_warns_naming_fragment_and_categories() {
    let dir = fixture();
    let (code, out, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "prog.models",
            "--set",
            "n=4096",
            "--set",
            "p=8",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().last().unwrap().starts_with("predicted: T="));
    // Only the fragments whose models use n carry the risk.
    assert!(
        err.contains("prog.rs: warning: fragment `setup` (rt): n = 4096 beyond 2x the measured range n = 64..1024"),
        "{err}"
    );
    assert!(err.contains("fragment `left` (rt): n = 4096"), "{err}");
    assert!(!err.contains("`right`"), "{err}");
    // p is checked at the fragment's own processors: p = 66 gives the joined tasks 33 > 32,
    // while `setup` (p = 66 too) has no model that uses p.
    let (code, _, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "prog.models",
            "--set",
            "n=512",
            "--set",
            "p=66",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("fragment `left` (li): p = 33"), "{err}");
    assert!(err.contains("fragment `right` (ip): p = 33"), "{err}");
    assert!(!err.contains("`setup`"), "{err}");
    // Below half the smallest n.
    let (_, _, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "prog.models",
            "--set",
            "n=16",
            "--set",
            "p=4",
        ],
        dir.path(),
    );
    assert!(err.contains("n = 16 beyond 2x"), "{err}");
}

#[test]
fn grid_warnings_are_grouped_and_in_json() {
    let dir = fixture();
    let (code, out, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "prog.models",
            "--grid",
            "n=1024,4096,8192",
            "--set",
            "p=4",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    // One stderr line per fragment and variable, listing the values.
    let setup: Vec<&str> = err.lines().filter(|l| l.contains("`setup`")).collect();
    assert_eq!(setup.len(), 1, "{err}");
    assert!(setup[0].contains("n = 4096, 8192 beyond"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["warnings"].as_array().unwrap().len(), 0);
    let w = v[1]["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!(w[0]["fragment"], "setup");
    assert_eq!(w[0]["categories"][0], "rt");
    assert_eq!(w[0]["variable"], "n");
    assert_eq!(w[0]["value"], 4096.0);
    assert_eq!(w[0]["min"], 64.0);
    assert_eq!(w[0]["max"], 1024.0);
}

#[test]
fn compare_warns_for_each_version() {
    let dir = fixture();
    std::fs::write(
        dir.path().join("serial.rs"),
        "fn main() {\n    // lcm: fragment setup\n    setup();\n}\n",
    )
    .unwrap();
    let (code, out, err) = lcm(
        &[
            "compare",
            "prog.rs",
            "serial.rs",
            "--models",
            "prog.models",
            "--grid",
            "p=2,4",
            "--set",
            "n=8192",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("prog.rs: warning: fragment `left` (rt)"),
        "{err}"
    );
    assert!(
        err.contains("serial.rs: warning: fragment `setup` (rt)"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["points"][0]["warnings_b"][0]["fragment"], "setup");
    assert_eq!(v["points"][0]["warnings_a"].as_array().unwrap().len(), 2);
}

#[test]
fn range_lines_in_the_source_count_too_and_bad_ones_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: range p = 1..4\n    // lcm: li = 1e-3*p\n    f();\n}\n",
    )
    .unwrap();
    let (code, _, err) = lcm(&["predict", "a.rs", "--set", "p=16"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("fragment `f` (li): p = 16 (the processors it runs on) beyond 2x the measured range p = 1..4"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("b.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: range p = 4..1\n    // lcm: li = 1e-3*p\n    f();\n}\n",
    )
    .unwrap();
    let (code, _, err) = lcm(&["predict", "b.rs", "--set", "p=16"], dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("b.rs:3:23: expected `MIN..MAX`"), "{err}");
}

/// The models file `lca model --all-tags --emit annotation` writes (here through the same
/// library call, lca::models_file) is read by `lcm predict --models` as is: fragments
/// `work` (records tagged work, rt = 2e-6*n) and `session`, ranges n = 100..1600,
/// p = 1..16; the program runs `work` once.
#[test]
fn lca_models_file_feeds_lcm_predict() {
    use lca::extraction::Extraction;
    let mut text = String::new();
    for n in [100.0, 200.0, 400.0, 800.0, 1600.0] {
        for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
            let rt = 2e-6 * n;
            text += &format!("n={n} tag=work p={p} rt={rt} tt={rt}\nn={n} p={p} rt=1 tt=1\n");
        }
    }
    let records = lca::record::parse_records(&text).unwrap();
    let vars = ["n".to_string(), "p".to_string()];
    let none = Extraction::default();
    let fits = lca::models_file::fit_all(
        &records,
        "work.pp",
        &vars,
        &none,
        &lca::search::SearchOptions::default(),
    );
    let file = lca::models_file::models_file(&fits, &records, &vars, &none, "work.pp").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("work.models"), &file).unwrap();
    std::fs::write(
        dir.path().join("prog.rs"),
        "fn main() {\n    // lcm: fragment work\n    work();\n}\n",
    )
    .unwrap();
    let (code, out, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "work.models",
            "--set",
            "n=1000",
            "--set",
            "p=4",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{file}\n{err}");
    assert!(err.is_empty(), "{err}");
    let t: f64 = out
        .lines()
        .last()
        .unwrap()
        .strip_prefix("predicted: T=")
        .unwrap()
        .parse()
        .unwrap();
    assert!((t - 2e-3 / 4.0).abs() < 1e-12, "{t}\n{file}");
    let (code, _, err) = lcm(
        &[
            "predict",
            "prog.rs",
            "--models",
            "work.models",
            "--set",
            "n=4000",
            "--set",
            "p=4",
        ],
        dir.path(),
    );
    assert_eq!(code, 0);
    assert!(
        err.contains("fragment `work` (rt): n = 4000 beyond 2x the measured range n = 100..1600"),
        "{err}"
    );
}
