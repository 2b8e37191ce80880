//! The breakdown of one point (`lcm predict` at a single point) and a fragment's own
//! losses. A fragment's time is its categories summed over p (docs/models.md), but the
//! breakdown shows only that sum (`T_f`), and its summary line `structural load imbalance
//! LI+ = 0` speaks of the imbalance *between* fragments that the composition adds. In a
//! trial on a static partition of the Mandelbrot set (tests/tests/mandelbrot_trial) the
//! measured `image` held a load imbalance of 87 % of its work at p = 2, and the breakdown of
//! both versions read `structural load imbalance LI+ = 0 … +0`: nothing said that the
//! restructuring's gain was the `li` its rule removed.
//!
//! The models file holds one fragment, `image`, with work `pc` and imbalance `li`.

#[path = "support/run.rs"]
mod support;
use support::lcm;

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("blocks.rs"),
        "fn main() {\n    pplib::frag_scope(\"image\", || render());\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("blocks.models"),
        "// lcm: fragment image\n// lcm: range n = 256..1024, p = 1..2\n// lcm: pc = 1.7e-7*n^2\n// lcm: li = (p - 1)*(1.4e-7*n^2)\n",
    )
    .unwrap();
    dir
}

/// What the breakdown gives today: the fragment's time, li included (n = 1000, p = 2:
/// (0.17 + 0.14) / 2 s).
#[test]
fn the_fragment_time_holds_its_load_imbalance() {
    let dir = fixture();
    let (code, out, err) = lcm(
        &[
            "predict",
            "blocks.rs",
            "--models",
            "blocks.models",
            "--set",
            "n=1000",
            "--set",
            "p=2",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = v[0]["seconds"].as_f64().unwrap();
    assert!((t / 0.155 - 1.0).abs() < 1e-9, "{t}");
}

/// The fix: each fragment row of the breakdown carries its categories' processor-seconds
/// per execution (`--json` `accounting.fragments[].categories`: `{"li": 0.14, "pc":
/// 0.17}`), and the text names the fragments' own load imbalance beside the structural
/// one (a line such as `load imbalance inside fragments (their li models): +0.07`), so
/// that a user comparing two versions sees which loss the restructuring removed.
#[test]

fn the_breakdown_names_the_load_imbalance_inside_a_fragment() {
    let dir = fixture();
    let args = [
        "predict",
        "blocks.rs",
        "--models",
        "blocks.models",
        "--set",
        "n=1000",
        "--set",
        "p=2",
    ];
    let (code, text, err) = lcm(&args, dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("load imbalance inside fragments"), "{text}");
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let (_, out, _) = lcm(&json_args, dir.path());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let li = v[0]["accounting"]["fragments"][0]["categories"]["li"].as_f64();
    assert!(li.is_some_and(|li| (li / 0.14 - 1.0).abs() < 1e-9), "{out}");
}
