//! `lca model --all-tags` (every fragment in one run, a complete models file) and `lca eval`
//! (a models file at points, with the 2x-range warning). Fixture: tests/data/fft.pp (its
//! header says how it was made and what it must give).

#[path = "support/run.rs"]
mod run;
use run::lca;

const ALL: [&str; 8] = [
    "model",
    "-f",
    "tests/data/fft.pp",
    "-v",
    "n,p",
    "--all-tags",
    "--emit",
    "annotation",
];

#[test]
fn all_tags_writes_every_fragment_with_its_range() {
    let (code, out, err) = lca(&ALL);
    assert_eq!(code, 0, "{err}");
    let m = lca::annotation::parse_models(&out).unwrap();
    let names: Vec<&str> = m.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["cols", "session"], "{out}");
    for f in &m {
        let r: Vec<String> = f.ranges.iter().map(|r| r.to_string()).collect();
        assert_eq!(r, ["n = 256..4096", "p = 1..16"], "{out}");
    }
    assert!(m[0]
        .category("rt")
        .unwrap()
        .to_string()
        .ends_with("*n^2*log2(n)"));
    assert_eq!(m[1].category("rt").unwrap().to_string(), "0.001*p");
    // The one-fragment path writes the same block for `cols`.
    let (_, one, _) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--tag",
        "cols",
        "--emit",
        "annotation",
    ]);
    assert_eq!(lca::annotation::parse_models(&one).unwrap()[0], m[0]);
    // Text: one table per fragment, each with the T line scripts read.
    let (code, text, _) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--all-tags",
    ]);
    assert_eq!(code, 0);
    assert_eq!(text.matches("T(n, p) = ").count(), 2, "{text}");
    assert!(text.contains("Fragment: cols") && text.contains("Fragment: (session)"));
    for line in text.lines().filter(|l| l.starts_with("T(n, p) = ")) {
        assert!(line.ends_with("   [seconds]"), "{line}");
    }
    // JSON: one document per fragment.
    let (code, json, _) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--all-tags",
        "--json",
    ]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(j["fragments"].as_array().unwrap().len(), 2);
    assert_eq!(j["fragments"][0]["fragment"], "cols");
    assert!(j["fragments"][1]["fragment"].is_null());
    assert_eq!(j["skipped"].as_array().unwrap().len(), 0);
    // One category (`lca -c`) writes the fragment's range too.
    let (code, one, _) = lca(&[
        "-c",
        "li",
        "-v",
        "n,p",
        "-f",
        "tests/data/fft.pp",
        "--tag",
        "cols",
        "--auto",
        "--emit",
        "annotation",
    ]);
    assert_eq!(code, 0);
    let f = &lca::annotation::parse_models(&one).unwrap()[0];
    // The same bounds; the error growth beyond them is the whole fragment's time's
    // (`lca model`), not one category's.
    let bounds = |r: &[lca::range::VarRange]| -> Vec<(String, f64, f64)> {
        r.iter().map(|r| (r.var.clone(), r.min, r.max)).collect()
    };
    assert_eq!(bounds(&f.ranges), bounds(&m[0].ranges));
    assert!(f.ranges.iter().all(|r| r.growth.is_none()));
    assert!(f.category("li").is_some());
    // --all-tags and --tag exclude each other.
    let (code, _, _) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--all-tags",
        "--tag",
        "cols",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn all_tags_skips_a_fragment_that_cannot_be_fitted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.pp");
    let mut text = String::new();
    for p in [1, 2, 4, 8, 16] {
        text += &format!(
            "tag=big p={p} rt={} tt={}\n",
            0.5 * p as f64,
            0.5 * p as f64
        );
    }
    // One point: too few for any model.
    text += "tag=tiny p=1 rt=1 tt=1\n";
    std::fs::write(&path, text).unwrap();
    let (code, out, err) = lca(&[
        "model",
        "-f",
        path.to_str().unwrap(),
        "-v",
        "p",
        "--all-tags",
        "--emit",
        "annotation",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("fragment `tiny` skipped"), "{err}");
    assert!(out.contains("# fragment `tiny` not fitted:"), "{out}");
    let m = lca::annotation::parse_models(&out).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].category("rt").unwrap().to_string(), "0.5*p");
    // None fittable: bad input.
    std::fs::write(&path, "tag=tiny p=1 rt=1 tt=1\n").unwrap();
    let (code, _, err) = lca(&[
        "model",
        "-f",
        path.to_str().unwrap(),
        "-v",
        "p",
        "--all-tags",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no fragment could be fitted"), "{err}");
}

/// A fragment whose name a `// lcm: fragment` line cannot hold (here `a@b`, as OpenMP tools
/// name regions) is refused with `--emit annotation` for one tag, as `--all-tags` leaves it
/// out: the block would be a models file that neither `lca eval` nor `lcm` can read.
#[test]
fn one_tag_annotation_refuses_a_name_a_fragment_line_cannot_hold() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.pp");
    let text: String = [1, 2, 4, 8, 16]
        .iter()
        .map(|p| {
            format!(
                "tag=a@b p={p} rt={} tt={}\n",
                0.5 * *p as f64,
                0.5 * *p as f64
            )
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    let fit = [
        "model",
        "-f",
        path.to_str().unwrap(),
        "-v",
        "p",
        "--tag",
        "a@b",
    ];
    let annotation = [&fit[..], &["--emit", "annotation"]].concat();
    let (code, out, err) = lca(&annotation);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("expected a fragment name that a `// lcm: fragment` line can hold")
            && err.contains("found `a@b`"),
        "{err}"
    );
    // The same fit as a table is fine: only the annotation needs the name.
    let (code, _, err) = lca(&fit);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn eval_warns_beyond_twice_the_measured_range() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("fft.models");
    let (_, out, _) = lca(&ALL);
    std::fs::write(&models, out).unwrap();
    let m = models.to_str().unwrap();
    // Inside 2x (n <= 8192, p <= 32): no warning; session rt = 0.001*p, T = 0.001.
    let (code, out, err) = lca(&[
        "eval",
        "--models",
        m,
        "--at",
        "n=8192,p=32",
        "--fragment",
        "session",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(out.contains("session at n=8192 p=32"), "{out}");
    assert!(out.contains("T         1.000000e-3  seconds"), "{out}");
    // Beyond: n = 16384 concerns `cols` (rt and li use n), not `session` (rt uses p only).
    let (code, out, err) = lca(&["eval", "--models", m, "--at", "n=16384,p=8", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("lca: warning: fragment `cols` (rt, li): n = 16384 lies beyond 2x the measured range n = 256..4096"),
        "{err}"
    );
    assert!(!err.contains("`session`"), "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j[0]["fragment"], "cols");
    assert_eq!(j[0]["warnings"][0]["variable"], "n");
    assert_eq!(j[0]["warnings"][0]["max"], 4096.0);
    assert_eq!(j[1]["warnings"].as_array().unwrap().len(), 0);
    // p below half the smallest measured p (1): both fragments' p-models carry the risk.
    let (_, _, err) = lca(&["eval", "--models", m, "--at", "n=1024,p=0.25"]);
    assert!(err.contains("fragment `session` (rt): p = 0.25"), "{err}");
    // Usage and input errors.
    assert_eq!(lca(&["eval", "--models", m, "--at", "n"]).0, 2);
    assert_eq!(lca(&["eval", "--models", m]).0, 2);
    assert_eq!(
        lca(&["eval", "--models", m, "--at", "p=2"]).0,
        1,
        "n unbound"
    );
    assert_eq!(
        lca(&["eval", "--models", m, "--at", "n=1,p=2", "--fragment", "x"]).0,
        1
    );
    let bad = dir.path().join("bad.models");
    std::fs::write(&bad, "// lcm: fragment a\n// lcm: range n = 9..1\n").unwrap();
    let (code, _, err) = lca(&["eval", "--models", bad.to_str().unwrap(), "--at", "n=1"]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.models:2:19:"), "{err}");
}

/// The human output of `lca eval` on a hand-written models file (snapshot): session
/// rt = 0.002*n + 0.01*p, ip = 1e-4*(p - 1); T = (rt + ip)/p at n = 1000, p = 4 is
/// (2 + 0.04 + 0.0003)/4 = 0.510075 s.
#[test]
fn eval_table_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("hand.models");
    std::fs::write(
        &models,
        "// lcm: fragment session\n// lcm: range n = 100..800, p = 1..8\n// lcm: rt = 0.002*n + 0.01*p\n// lcm: ip = 1e-4*(p - 1)\n",
    )
    .unwrap();
    let (code, out, err) = lca(&[
        "eval",
        "--models",
        models.to_str().unwrap(),
        "--at",
        "n=1000,p=4",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    insta::assert_snapshot!(out);
}

/// The queens records (tests/data/queens-2core.pp, see tests/data/README.md): `lca model`
/// writes the work of fragment `search` as a piecewise power law, `lca eval` gives its
/// measured median at a measured k, says nothing inside k = 1..73712 and warns (text and
/// JSON `piecewise: true`) outside it, even within 2x; a models file with a bad table is
/// an input error naming its line and column.
#[test]
fn eval_of_a_piecewise_model_warns_outside_its_measured_points() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = lca(&[
        "model",
        "-f",
        "tests/data/queens-2core.pp",
        "-v",
        "k,p",
        "--tag",
        "search",
        "--emit",
        "annotation",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("// lcm: pc = pw(k, 1, "), "{out}");
    let models = dir.path().join("queens.models");
    std::fs::write(&models, &out).unwrap();
    let m = models.to_str().unwrap();
    let (code, out, err) = lca(&["eval", "--models", m, "--at", "k=1000,p=1", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pc = j[0]["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c[0] == "pc")
        .unwrap()[1]
        .as_f64()
        .unwrap();
    // The record's pc at k = 1000, p = 1 is 6.730948860759495e-4 (4 digits kept).
    assert!((pc / 6.730948860759495e-4 - 1.0).abs() < 1e-3, "{pc}");
    let (code, out, err) = lca(&["eval", "--models", m, "--at", "k=100000,p=2", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("fragment `search` (pc): k = 100000 lies outside the measured points k = 1..73712 of its piecewise model"),
        "{err}"
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j[0]["warnings"][0]["piecewise"], true);
    let bad = dir.path().join("bad.models");
    std::fs::write(
        &bad,
        "// lcm: fragment a\n// lcm: pc = pw(k, 10, 1e-6, 10, 2e-6)\n",
    )
    .unwrap();
    let (code, _, err) = lca(&["eval", "--models", bad.to_str().unwrap(), "--at", "k=1"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.models:2:"), "{err}");
    assert!(err.contains("above the previous one"), "{err}");
}

/// A model whose negative term takes over beyond its data: `lca eval` evaluates it as it
/// is, and warns that the work (and the time) came out negative, naming the fragment; the
/// JSON lists them in `negative`. Inside the range nothing is said.
#[test]
fn eval_flags_a_negative_time() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("merge.models");
    // 3e-3*n - 1e-5*n^2 is positive up to n = 300 and negative beyond.
    std::fs::write(
        &models,
        "// lcm: fragment merge\n// lcm: range n = 1..16, p = 1..2\n// lcm: pc = 3e-3*n - 1e-5*n^2\n// lcm: ml = -1e-6*n\n",
    )
    .unwrap();
    let m = models.to_str().unwrap();
    let (code, _, err) = lca(&["eval", "--models", m, "--at", "n=16,p=1"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("negative"), "{err}");
    let (code, out, err) = lca(&["eval", "--models", m, "--at", "n=1000,p=2", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("lca: warning: fragment `merge` at n=1000 p=2: pc, T negative"),
        "{err}"
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j[0]["negative"], serde_json::json!(["pc", "T"]));
}
