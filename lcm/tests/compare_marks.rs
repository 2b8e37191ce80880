//! What `lcm predict` and `lcm compare` say about predictions that rest on models used
//! outside their validity (issue 18, B5 and B7 of the new-user trial): rows beyond 2x the
//! measured range marked `*` in compare's table, rows with a negative model marked `!`,
//! crossovers among them saying so; negative category models (and measured models a
//! restructuring rule refers to) warned about by fragment, line and model; no `-0.0` in
//! JSON. Sources and models are written here; every expected value is worked out by hand
//! above its assertion.

#[path = "support/run.rs"]
mod support;
use support::lcm;

/// One fragment `f` whose statement is at line 4 + the model's lines, with `model` (annotation lines) and the measured range
/// `n = 100..1000`.
fn source(model: &str) -> String {
    format!(
        "fn main() {{\n    // lcm: fragment f\n    // lcm: range n = 100..1000\n{}    f();\n}}\n",
        model
            .lines()
            .map(|l| format!("    // lcm: {l}\n"))
            .collect::<String>()
    )
}

/// `lcm ARGS` in a directory holding `files`; exit code, stdout, stderr.
fn run(files: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    lcm(args, dir.path())
}

#[test]
fn extrapolated_rows_and_crossovers_are_marked_in_the_table() {
    // a: 1e-3*n, b: 5 + 1e-4*n. n = 1000: a 1 s, b 5.1 s (a); n = 10000: a 10 s, b 6 s (b):
    // a crossover between them, at n = 10000 beyond 2x the measured 100..1000.
    let files = [
        ("a.rs", source("rt = 1e-3*n")),
        ("b.rs", source("rt = 5 + 1e-4*n")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let args = [
        "compare",
        "a.rs",
        "b.rs",
        "--grid",
        "n=1000,10000",
        "--set",
        "p=1",
    ];
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("1000"))
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(!rows[0].ends_with('*'), "{out}");
    assert!(rows[1].ends_with('*'), "{out}");
    assert!(
        out.contains("* beyond 2x a model's measured range"),
        "{out}"
    );
    let crossover = out.lines().find(|l| l.starts_with("crossover:")).unwrap();
    assert!(crossover.contains("outside the measured range"), "{out}");
    assert!(err.contains("beyond 2x the measured range"), "{err}");
    // Within the range: no mark, no caveat (a: 1e-3*n, b: 0.5 + 1e-4*n cross between
    // n = 200 (a 0.2, b 0.52) and 1000 (a 1, b 0.6)).
    let files = [
        ("a.rs", source("rt = 1e-3*n")),
        ("b.rs", source("rt = 0.5 + 1e-4*n")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let args = [
        "compare",
        "a.rs",
        "b.rs",
        "--grid",
        "n=200,1000",
        "--set",
        "p=1",
        "--json",
    ];
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["crossovers"][0]["beyond_measured_range"], false, "{out}");
    assert_eq!(v["points"][1]["beyond_measured_range"], false, "{out}");
}

#[test]
fn a_negative_category_model_is_warned_about_and_marked() {
    // pc = 2 - 1e-3*n: 1 s at n = 1000, -8 s at n = 10000 (the fragment's statement is
    // on line 5).
    let files = [
        ("a.rs", source("pc = 2 - 1e-3*n")),
        ("b.rs", source("pc = 1")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let args = [
        "compare",
        "a.rs",
        "b.rs",
        "--grid",
        "n=1000,10000",
        "--set",
        "p=1",
    ];
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("fragment `f` (line 5): category `pc` evaluates negative: -8"),
        "{err}"
    );
    assert!(
        err.contains("the predicted time at n=10000 p=1 is negative"),
        "{err}"
    );
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("10000"))
        .unwrap();
    assert!(row.ends_with("*!"), "{out}");
    // A negative time ranks nothing: no verdict, no ratio, and the point is not counted as
    // a tie (n, T_a, T_b, +-%, better, T_a/T_b, note); n = 1000 (1 s each) is the one tie.
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!((words[4], words[5]), ("-", "-"), "{out}");
    assert!(out.contains(", tie at 1 ("), "{out}");
    assert!(out.contains("not compared at 1 ("), "{out}");
    // lcm predict says it too, and lists it in --json.
    let args = [
        "predict", "a.rs", "--set", "n=10000", "--set", "p=1", "--json",
    ];
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("category `pc` evaluates negative"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let neg = &v[0]["negative_models"][0];
    assert_eq!(neg["fragment"], "f");
    assert_eq!(neg["line"], 5);
    assert_eq!(neg["model"], "pc");
    assert_eq!(neg["value_s"], -8.0);
    // ml may be negative, not below minus pc: pc = 1, ml = -0.5 is no warning.
    let files = [("a.rs", source("pc = 1\nml = -0.5"))];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let args = ["predict", "a.rs", "--set", "n=100", "--set", "p=2"];
    let (code, _, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("negative"), "{err}");
}

#[test]
fn a_negative_measured_model_inside_a_rule_is_warned_about() {
    // The rule's sum 10 + 0.5*merge.pc stays positive (10 - 0.5 = 9.5 at n = 3000), but
    // merge.pc = 2 - 1e-3*n is -1 s there.
    let models = "// lcm: fragment sort\n// lcm: range n = 100..1000\n// lcm: pc = 10\n\n\
                  // lcm: fragment merge\n// lcm: range n = 100..1000\n// lcm: pc = 2 - 1e-3*n\n";
    let b = "fn main() {\n    // lcm: fragment sort\n    // lcm: pc = sort.pc + 0.5*merge.pc\n    sort();\n}\n";
    let files = [("m.models", models), ("b.rs", b)];
    let args = [
        "predict", "b.rs", "--models", "m.models", "--set", "n=3000", "--set", "p=1",
    ];
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("predicted: T=9.5\n"), "{out}");
    assert!(
        err.contains("fragment `sort` (line 4): the measured model `merge.pc` its rule refers to evaluates negative: -1.000000 s at n=3000 p=1"),
        "{err}"
    );
}

/// Whether JSON text holds the number `-0.0` (not `-0.05`).
fn has_negative_zero(text: &str) -> bool {
    text.match_indices("-0.0").any(|(i, m)| {
        !text[i + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == 'e' || c == 'E')
    })
}

#[test]
fn json_has_no_negative_zero() {
    // At p = 1, (p - 1)*-3e-6 is -0.0; the composition's load imbalance and pipeline
    // contributions came out -0.0 too.
    let files = [("a.rs", source("pc = 1e-3*n\nml = (p - 1)*-3e-6"))];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    for args in [
        &[
            "predict", "a.rs", "--set", "n=100", "--set", "p=1", "--json",
        ][..],
        &[
            "predict", "a.rs", "--set", "n=100", "--grid", "p=1,2", "--json",
        ][..],
        &[
            "compare", "a.rs", "a.rs", "--set", "n=100", "--grid", "p=1,2", "--json",
        ][..],
        &["tree", "a.rs", "--json"][..],
    ] {
        let (code, out, err) = run(&files, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!has_negative_zero(&out), "{args:?}: {out}");
    }
}

#[test]
fn the_tie_band_widens_beyond_the_range_by_the_models_error_growth() {
    // a: 1e-3*n, whose range line says its error grows 10 % per doubling beyond
    // n = 100..1000; b: 1.1e-3*n (10 % slower everywhere), no growth known. Inside the
    // range u is the default 5 %: a is better. At n = 2000 (one doubling beyond) a's one
    // fragment holds all its time: u = 5 % + 10 % = 15 %, a tie; at n = 8000 (three
    // doublings) 35 %. Halvings below the range count alike: n = 25 is two, u = 25 %.
    let growing = "fn main() {\n    // lcm: fragment f\n    // lcm: range n = 100..1000 (beyond: +10% per 2x)\n    // lcm: rt = 1e-3*n\n    f();\n}\n";
    let files = [
        ("a.rs", growing.to_string()),
        ("b.rs", source("rt = 1.1e-3*n")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let args = [
        "compare",
        "a.rs",
        "b.rs",
        "--grid",
        "n=25,1000,2000,8000",
        "--set",
        "p=1",
        "--json",
    ];
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let at = |i: usize, key: &str| v["points"][i][key].as_f64().unwrap();
    for (i, widening, better) in [
        (0, 0.2, "tie"),
        (1, 0.0, "a"),
        (2, 0.1, "tie"),
        (3, 0.3, "tie"),
    ] {
        assert!(
            (at(i, "extrapolation_widening") - widening).abs() < 1e-9,
            "{out}"
        );
        assert!(
            (at(i, "uncertainty") - 0.05 - widening).abs() < 1e-9,
            "{out}"
        );
        assert_eq!(v["points"][i]["better"], better, "{out}");
    }
    // The table says what widened u, and the most it added where (n = 8000: 30 %).
    let (code, out, err) = run(&files, &args[..args.len() - 1]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("+-% holds the models' error growth beyond their measured ranges (the range lines' `beyond:`) at 3 point(s), up to +30.0% at n=8000"),
        "{out}"
    );
    // Without a growth nothing widens: the same comparison with a's range line plain.
    let files = [
        ("a.rs", source("rt = 1e-3*n")),
        ("b.rs", source("rt = 1.1e-3*n")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let (code, out, err) = run(&files, &args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["points"][3]["extrapolation_widening"], 0.0, "{out}");
    assert_eq!(v["points"][3]["better"], "a", "{out}");
    let (_, out, _) = run(&files, &args[..args.len() - 1]);
    assert!(!out.contains("error growth"), "{out}");
}
