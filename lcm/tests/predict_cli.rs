//! The `lcm predict`, `compare`, `tree`, `calibrate` commands as users run them: output
//! shape, exit statuses, and messages naming file and line. Fixtures: tests/predict/*.rs
//! (headers say what they are) and small files written here.

#[path = "support/run.rs"]
mod support;
use std::path::PathBuf;
use support::lcm;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/predict")
}

#[test]
fn predict_single_point_ends_with_the_exact_line() {
    let (code, out, err) = lcm(
        &["predict", "fft_dp.rs", "--set", "n=1024", "--set", "p=8"],
        &fixtures(),
    );
    assert_eq!(code, 0, "{err}");
    let last = out.lines().last().unwrap();
    // setup 1e-3/8 + 8 iterations of (1e-9 + 4e-9 + 2e-9 + 4e-9)*n^2/8 + 2*1e-6*8/8:
    // 1.25e-4 + 8*(11e-9*1048576/8 + 2e-6) = 1.25e-4 + 0.011534336 + 1.6e-5 = 0.011675336
    let t: f64 = last
        .strip_prefix("predicted: T=")
        .expect(last)
        .parse()
        .unwrap();
    assert!((t - 0.011675336).abs() < 1e-12, "{t}");
    for name in ["setup", "init", "cols", "transpose", "rows"] {
        assert!(out.contains(name), "{out}");
    }
    assert!(out.contains("structural load imbalance LI+"));
    assert!(out.contains("communication"));
    assert!(out.contains("contention"));
}

#[test]
fn predict_task_parallel_reports_pipeline_fill_and_bottleneck() {
    let (code, out, err) = lcm(
        &["predict", "fft_tp.rs", "--set", "n=1024", "--set", "p=8"],
        &fixtures(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("pipeline (line 17): 2 stages, 8 items"),
        "{out}"
    );
    assert!(out.contains("bottleneck stage 2"), "{out}");
    assert!(
        out.contains("+ a from cols (line 29) to transpose (line 40)"),
        "{out}"
    );
    assert!(out.lines().last().unwrap().starts_with("predicted: T="));
}

#[test]
fn predict_grid_table_and_json() {
    let (code, out, err) = lcm(
        &["predict", "fft_dp.rs", "--set", "n=512", "--grid", "p=1..4"],
        &fixtures(),
    );
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(char::is_numeric))
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    assert!(rows[0].trim_end().ends_with("1.00"), "{out}");
    let (code, out, _) = lcm(
        &[
            "predict",
            "fft_dp.rs",
            "--grid",
            "n=256,512,p=1..2",
            "--json",
        ],
        &fixtures(),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 4);
    assert!(arr[1]["seconds"].as_f64().unwrap() > 0.0);
    assert!(arr[1]["speedup"].as_f64().unwrap() > 1.5);
    assert!(arr[0]["contributions"]["load_imbalance_s"].is_number());
}

#[test]
fn compare_finds_the_crossover_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    // a: one processor whatever p is, 4 s; b: 10 processor-seconds spread over p.
    std::fs::write(
        dir.path().join("a.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: rt = 4\n    // lcm: p = 1\n    f();\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: rt = 10\n    f();\n}\n",
    )
    .unwrap();
    let (code, out, err) = lcm(
        &[
            "compare", "a.rs", "b.rs", "--grid", "p=1..4", "--plot", "cmp.svg",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    // T_a - T_b: p=2: 4 - 5 = -1, p=3: 4 - 10/3 = 2/3 -> crossing at 2 + 1/(1 + 2/3) = 2.6.
    assert!(
        out.contains("crossover: p ~ 2.60 (between 2 and 3): b better above"),
        "{out}"
    );
    assert!(
        out.contains("a better at 2 point(s), b better at 2"),
        "{out}"
    );
    let svg = std::fs::read_to_string(dir.path().join("cmp.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("polyline"), "{svg}");
    assert!(svg.contains("a: a.rs") && svg.contains("b: b.rs"), "legend");
    // Two curves in two colours: a's time is 4 s at every p (one height), b's falls with p.
    let curves = curve_heights(&svg);
    assert_eq!(curves.len(), 2, "{curves:?}");
    let mut distinct: Vec<usize> = curves.values().map(|ys| ys.len()).collect();
    distinct.sort_unstable();
    assert_eq!(distinct[0], 1, "a is flat: {curves:?}");
    assert!(distinct[1] > 10, "b falls with p: {curves:?}");
    let (code, out, _) = lcm(
        &["compare", "a.rs", "b.rs", "--grid", "p=1..4", "--json"],
        dir.path(),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["crossovers"][0]["better_after"], "b");
    assert_eq!(v["points"][3]["better"], "b");
}

#[test]
fn tree_prints_structure_and_pamela() {
    let (code, out, err) = lcm(&["tree", "fft_tp.rs", "--pamela"], &fixtures());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pipeline over 8 items"));
    assert!(out.contains("process main ="));
    let (code, out, _) = lcm(&["tree", "fft_dp.rs", "--json"], &fixtures());
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "serial");
    assert_eq!(v["children"][1]["kind"], "loop");
}

#[test]
fn bad_annotation_exits_1_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.rs"),
        "fn main() {\n    // lcm: fragment a\n    // lcm: rt = 3*\n    a();\n}\n",
    )
    .unwrap();
    for cmd in ["predict", "tree"] {
        let (code, _, err) = lcm(
            &[cmd, "bad.rs", "--set", "p=2"][..if cmd == "tree" { 2 } else { 4 }],
            dir.path(),
        );
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(err.contains("bad.rs:3:"), "{cmd}: {err}");
    }
    let (code, _, err) = lcm(&["predict", "missing.rs"], dir.path());
    assert_eq!(code, 1);
    assert!(err.contains("missing.rs"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = lcm(&["predict", "fft_dp.rs", "--grid", "p=4..1"], &fixtures());
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = lcm(&["predict", "fft_dp.rs", "--set", "n"], &fixtures());
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = lcm(&["predict"], &fixtures());
    assert_eq!(code, 2);
}

#[test]
fn unbound_variable_is_bad_input() {
    let (code, _, err) = lcm(&["predict", "fft_dp.rs", "--set", "p=2"], &fixtures());
    assert_eq!(code, 1);
    assert!(err.contains("--set n="), "{err}");
    // It names what first needs the variable.
    assert!(
        err.contains("the models of fragment `init` (line 29)"),
        "{err}"
    );
}

#[test]
fn help_has_examples() {
    for cmd in ["predict", "compare", "tree", "calibrate"] {
        let (code, out, _) = lcm(&[cmd, "--help"], &fixtures());
        assert_eq!(code, 0);
        assert!(out.contains("Examples:"), "{cmd}: {out}");
    }
}

#[test]
fn calibrate_writes_a_machine_file_predict_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = lcm(
        &["calibrate", "--quick", "-o", "m.txt", "--json"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lat = v["latency_s"].as_f64().unwrap();
    let bw = v["bandwidth_bytes_per_s"].as_f64().unwrap();
    // Loose sanity bounds: a cache-line handoff takes between 1 ns and 1 ms even on a
    // loaded machine; copying runs between 10 MB/s and 1 TB/s.
    assert!(lat > 1e-9 && lat < 1e-3, "{lat}");
    assert!(bw > 1e7 && bw < 1e12, "{bw}");
    let text = std::fs::read_to_string(dir.path().join("m.txt")).unwrap();
    let m = lcm::predict::machine::Machine::parse("m.txt", &text).unwrap();
    assert!(
        (m.latency_s - lat).abs() <= 1e-12 * lat,
        "{} vs {lat}",
        m.latency_s
    );
    std::fs::copy(fixtures().join("fft_tp.rs"), dir.path().join("tp.rs")).unwrap();
    let (code, out, err) = lcm(
        &[
            "predict",
            "tp.rs",
            "--machine",
            "m.txt",
            "--set",
            "n=256",
            "--set",
            "p=2",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("m.txt"), "{out}");
}

#[test]
fn malformed_machine_file_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.txt"), "# machine\nlatency_s = fast\n").unwrap();
    std::fs::copy(fixtures().join("fft_tp.rs"), dir.path().join("tp.rs")).unwrap();
    let (code, _, err) = lcm(
        &[
            "predict",
            "tp.rs",
            "--machine",
            "m.txt",
            "--set",
            "n=2",
            "--set",
            "p=2",
        ],
        dir.path(),
    );
    assert_eq!(code, 1);
    assert!(err.contains("m.txt:2:"), "{err}");
}

/// The data curves of a plot (the polylines drawn 2 px wide) by stroke colour: the distinct
/// heights (y pixels) each one passes through.
fn curve_heights(svg: &str) -> std::collections::BTreeMap<String, std::collections::BTreeSet<i64>> {
    let mut out: std::collections::BTreeMap<String, std::collections::BTreeSet<i64>> =
        Default::default();
    for line in svg
        .lines()
        .filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\""))
    {
        let attr = |name: &str| {
            let start = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
            line[start..].split('"').next().unwrap().to_string()
        };
        let ys = attr("points")
            .split_whitespace()
            .map(|xy| xy.split(',').nth(1).unwrap().parse::<i64>().unwrap())
            .collect::<Vec<_>>();
        out.entry(attr("stroke")).or_default().extend(ys);
    }
    out
}

/// A version that needs two processors (a stage left with floor(p/2) of them): on a grid
/// from p = 1 its p = 1 point has no prediction, said on stderr, and the others are
/// predicted; a grid of such points only fails.
#[test]
fn a_grid_goes_on_past_a_point_the_program_cannot_run_at() {
    let dir = tempfile::tempdir().unwrap();
    let halves = "fn main() {\n    rayon::join(\n        // lcm: p = floor(p/2)\n        || {\n            // lcm: fragment big\n            // lcm: rt = 8\n            big();\n        },\n        || {\n            // lcm: fragment small\n            // lcm: rt = 4\n            small();\n        },\n    );\n}\n";
    std::fs::write(dir.path().join("halves.rs"), halves).unwrap();
    std::fs::write(
        dir.path().join("one.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: rt = 10\n    f();\n}\n",
    )
    .unwrap();
    let (code, out, err) = lcm(&["predict", "halves.rs", "--grid", "p=1..3"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("halves.rs: no prediction at p=1: ") && err.contains("fragment `big`"),
        "{err}"
    );
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(rows[0].split_whitespace().eq(["1", "-", "-"]), "{out}");
    // The speedup is against the smallest p with a prediction (p = 2).
    assert!(rows[1].trim_end().ends_with("1.00"), "{out}");
    let (code, out, err) = lcm(
        &["predict", "halves.rs", "--grid", "p=1..2", "--json"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v[0]["seconds"].is_null(), "{out}");
    assert!(v[0]["error"].as_str().unwrap().contains("big"), "{out}");
    assert!(v[1]["seconds"].as_f64().unwrap() > 0.0, "{out}");
    // Only p = 1: nothing to predict, the error and exit 1.
    let (code, _, err) = lcm(
        &["predict", "halves.rs", "--set", "p=1", "--grid", "n=1..2"],
        dir.path(),
    );
    assert_eq!(code, 1, "{err}");
    // compare: the point is named, the others compared.
    let (code, out, err) = lcm(
        &["compare", "halves.rs", "one.rs", "--grid", "p=1..3"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("halves.rs: no prediction at p=1"), "{err}");
    let row: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|w| w.first() == Some(&"1"))
        .expect(&out);
    // p, T_a, T_b, +-%, better, T_a/T_b: a has no time at p = 1, so no verdict either.
    assert_eq!((row[1], row[4], row[5]), ("-", "-", "-"), "{out}");
    // The summary counts that point apart, not as a tie (halves: 8 s at p = 2 and 3
    // against one's 10 processor-s over p).
    assert!(
        out.contains("a better at 0 point(s), b better at 2, tie at 0 (the two predictions differ by less than their uncertainty +-%), not compared at 1 (a version has no prediction there, or a time that is not positive: -)"),
        "{out}"
    );
}

/// compare_campaign.rs's program: fragment `sort` (rt = 2.6e-8*n) once per iteration of
/// `iters`, so that n and iters are the variables a paired campaign gives together.
const SORT_RUN: &str = "fn run(n: usize, iters: usize) {\n    // lcm: iterations = iters\n    for _ in 0..iters {\n        // lcm: fragment sort\n        // lcm: rt = 2.6e-8*n\n        sort(n);\n    }\n}\n";

/// `lcm ARGS --json` in `dir`, parsed (exit 0 asserted).
fn json_of(args: &[&str], dir: &std::path::Path) -> serde_json::Value {
    let mut args = args.to_vec();
    args.push("--json");
    let (code, out, err) = lcm(&args, dir);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `--grid n:iters=...` (pp-campaign's paired syntax) predicts each pair, and exactly what
/// two runs with `--set n=... --set iters=...` predict; the table has a column per paired
/// variable; a point of the wrong length is a usage error.
#[test]
fn a_paired_grid_predicts_what_separate_set_runs_do() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.rs"), SORT_RUN).unwrap();
    let base = ["predict", "run.rs", "--entry", "run", "--set", "p=1"];
    let grid_args = [&base[..], &["--grid", "n:iters=65536:32,262144:16"]].concat();
    let grid = json_of(&grid_args, dir.path());
    let points = grid.as_array().unwrap();
    assert_eq!(points.len(), 2, "{grid}");
    for (k, (n, iters)) in [("65536", "32"), ("262144", "16")].into_iter().enumerate() {
        let (n, iters) = (format!("n={n}"), format!("iters={iters}"));
        let one = json_of(
            &[&base[..], &["--set", &n, "--set", &iters]].concat(),
            dir.path(),
        );
        assert_eq!(points[k]["seconds"], one[0]["seconds"], "{n} {iters}");
        assert_eq!(points[k]["bindings"], one[0]["bindings"], "{n} {iters}");
    }
    // 32 x 2.6e-8 x 65536 s, then twice that (half the iterations of four times n).
    let t0 = points[0]["seconds"].as_f64().unwrap();
    assert!((t0 - 32.0 * 2.6e-8 * 65536.0).abs() < 1e-12, "{t0}");
    let (code, out, err) = lcm(&grid_args, dir.path());
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines[1][..2], ["n", "iters"], "{out}");
    assert_eq!(lines[2][..2], ["65536", "32"], "{out}");
    assert_eq!(lines[3][..2], ["262144", "16"], "{out}");
    assert_eq!(lines.len(), 4, "{out}");
    let bad = [&base[..], &["--grid", "n:iters=65536:32,1:2:3"]].concat();
    let (code, _, err) = lcm(&bad, dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--grid n:iters: expected 2 values per point (n:iters), found 3 in `1:2:3`"),
        "{err}"
    );
}

/// `lcm compare` along a paired axis: the crossover is reported along it, naming the pair,
/// every paired variable interpolated; --json gives them under `paired`; the plot draws one
/// curve per version (the paired variable is no separate curve).
#[test]
fn compare_reports_a_crossover_along_a_paired_axis() {
    let dir = tempfile::tempdir().unwrap();
    // As compare_finds_the_crossover_and_plots: a is 4 s on one processor, b 10
    // processor-seconds over p; n goes along with p and changes neither.
    std::fs::write(
        dir.path().join("a.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: rt = 4 + 0*n\n    // lcm: p = 1\n    f();\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.rs"),
        "fn main() {\n    // lcm: fragment f\n    // lcm: rt = 10 + 0*n\n    f();\n}\n",
    )
    .unwrap();
    let args = [
        "compare",
        "a.rs",
        "b.rs",
        "--grid",
        "p:n=1:10,2:20,3:30,4:40",
    ];
    let (code, out, err) = lcm(&[&args[..], &["--plot", "cmp.svg"]].concat(), dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "crossover: p:n ~ 2.60:26.0 (between p:n = 2:20 and 3:30): b better after it, in the order of the pairs"
        ),
        "{out}"
    );
    let header: Vec<&str> = out.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(header[..2], ["p", "n"], "{out}");
    let svg = std::fs::read_to_string(dir.path().join("cmp.svg")).unwrap();
    assert_eq!(curve_heights(&svg).len(), 2, "one curve per version");
    let v = json_of(&args, dir.path());
    let c = &v["crossovers"][0];
    assert_eq!(c["variable"], "p:n");
    assert_eq!(c["between"], serde_json::json!([2.0, 3.0]));
    assert_eq!(c["paired"]["variables"], serde_json::json!(["p", "n"]));
    assert_eq!(
        c["paired"]["between"],
        serde_json::json!([[2.0, 20.0], [3.0, 30.0]])
    );
    let at = c["paired"]["at"].as_array().unwrap();
    assert!((at[1].as_f64().unwrap() - 26.0).abs() < 1e-9, "{c}");
    assert_eq!(
        v["points"][2]["bindings"],
        serde_json::json!({"n": 30.0, "p": 3.0})
    );
}
