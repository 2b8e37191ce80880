//! `lcm compare` calls a tie where two predictions differ by less than their uncertainty
//! and reports crossovers only between points outside it; a point where a version has no
//! prediction is not compared (never a tie) and crossovers pass over it; a crossover's
//! position is printed to the digits its interval gives. The library rules
//! (`lcm::predict::compare`) on numbers worked out by hand, and the command on small
//! sources written here (constant models, so each time is its model divided by p).

#[path = "support/run.rs"]
mod support;
use lca::expr::Bindings;
use lcm::predict::compare::{
    crossovers_beyond, parse_uncertainty, self_prediction_uncertainty, verdict, Comparison,
    Verdict, DEFAULT_RELATIVE_UNCERTAINTY,
};
use support::lcm;

fn source(model: &str) -> String {
    format!("fn main() {{\n    // lcm: fragment f\n    // lcm: rt = {model}\n    f();\n}}\n")
}

fn along_n(values: &[f64]) -> Vec<Bindings> {
    values
        .iter()
        .map(|v| [("n".to_string(), *v)].into())
        .collect()
}

#[test]
fn verdicts_and_uncertainty() {
    let u = DEFAULT_RELATIVE_UNCERTAINTY;
    assert_eq!(u, 0.05);
    // 0.02 % apart: tie; 4.9 % apart: tie; 5.1 % apart: the faster one.
    assert_eq!(verdict(1.0002, 1.0, u), Verdict::Tie);
    assert_eq!(verdict(1.049, 1.0, u), Verdict::Tie);
    assert_eq!(verdict(1.051, 1.0, u), Verdict::B);
    assert_eq!(verdict(1.0, 1.051, u), Verdict::A);
    // Nothing to call without two positive times: not compared, and no tie.
    assert_eq!(verdict(f64::NAN, 1.0, u), Verdict::NotCompared);
    assert_eq!(verdict(1.0, f64::NAN, u), Verdict::NotCompared);
    assert_eq!(verdict(-1.0, 1.0, u), Verdict::NotCompared);
    assert_eq!(verdict(0.0, 0.0, u), Verdict::NotCompared);
    // The measured version predicted 10 % too high at a point: u there is 10 %; never
    // below the floor; the floor when the measurement is unknown.
    assert!((self_prediction_uncertainty(1.1, 1.0, u) - 0.1).abs() < 1e-12);
    assert_eq!(self_prediction_uncertainty(1.01, 1.0, u), u);
    assert_eq!(self_prediction_uncertainty(1.0, f64::NAN, u), u);
    assert_eq!(parse_uncertainty("0.1").unwrap(), 0.1);
    assert!((parse_uncertainty("2.5%").unwrap() - 0.025).abs() < 1e-15);
    assert!(parse_uncertainty("-1").is_err() && parse_uncertainty("x").is_err());
}

#[test]
fn crossovers_only_between_points_outside_the_uncertainty() {
    let n = ["n".to_string()];
    // T_a − T_b = −0.06, −0.02, +0.02, +0.06 on T ≈ 4: 1.5 %, 0.5 %, 0.5 %, 1.5 % apart.
    let ta = vec![4.0; 4];
    let tb = vec![4.06, 4.02, 3.98, 3.94];
    let pts = along_n(&[1.0, 2.0, 3.0, 4.0]);
    // At 5 % all four are ties: the sign change inside the band is no crossover.
    let c = Comparison::uniform(&n, pts.clone(), ta.clone(), tb.clone(), 0.05);
    assert_eq!(c.counts(), (0, 0, 4));
    assert!(c.crossovers.is_empty());
    // At 1 %: a wins at n = 1, b at n = 4, ties between: one crossover between 1 and 4,
    // where the difference changes sign (2 + 0.02/0.04 = 2.5).
    let c = Comparison::uniform(&n, pts.clone(), ta.clone(), tb.clone(), 0.01);
    assert_eq!(
        c.verdicts,
        [Verdict::A, Verdict::Tie, Verdict::Tie, Verdict::B]
    );
    assert_eq!(c.crossovers.len(), 1);
    let x = &c.crossovers[0];
    assert_eq!((x.between, x.better_after.as_str()), ((1.0, 4.0), "b"));
    assert!((x.at - 2.5).abs() < 1e-9, "{}", x.at);
    // Back and forth inside a tie region: a, tie, a — no crossover.
    let v = [Verdict::A, Verdict::Tie, Verdict::A];
    assert!(crossovers_beyond(&n, &pts[..3], &[-1.0, 0.1, -1.0], &v).is_empty());
}

#[test]
fn compare_calls_a_tie_on_a_difference_of_0_02_percent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), source("1")).unwrap();
    std::fs::write(dir.path().join("b.rs"), source("1.0002")).unwrap();
    let (code, out, err) = lcm(&["compare", "a.rs", "b.rs", "--grid", "p=1..2"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("a better at 0 point(s), b better at 0, tie at 2"),
        "{out}"
    );
    assert!(
        out.contains("crossovers: none outside the uncertainty"),
        "{out}"
    );
    let (code, out, _) = lcm(
        &["compare", "a.rs", "b.rs", "--grid", "p=1..2", "--json"],
        dir.path(),
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["uncertainty"]["relative"], 0.05);
    assert_eq!(v["uncertainty"]["from"], "default");
    assert_eq!(v["points"][0]["better"], "tie");
    assert_eq!(v["points"][0]["uncertainty"], 0.05);
    let d = v["points"][0]["relative_difference"].as_f64().unwrap();
    assert!((d - 2e-4).abs() < 1e-9, "{d}");
    // With an uncertainty below the difference, the call is made.
    let (_, out, _) = lcm(
        &[
            "compare",
            "a.rs",
            "b.rs",
            "--set",
            "p=1",
            "--uncertainty",
            "0.01%",
        ],
        dir.path(),
    );
    assert!(out.contains("a better at 1 point(s)"), "{out}");
    let (code, _, err) = lcm(
        &[
            "compare",
            "a.rs",
            "b.rs",
            "--set",
            "p=1",
            "--uncertainty",
            "lots",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--uncertainty"), "{err}");
}

#[test]
fn compare_reports_a_crossover_outside_the_band_and_not_inside() {
    let dir = tempfile::tempdir().unwrap();
    // At p = 1: T_a = 4, T_b = 4.1 − 0.04·n: 4.06, 4.02, 3.98, 3.94 for n = 1..4.
    std::fs::write(dir.path().join("a.rs"), source("4")).unwrap();
    std::fs::write(dir.path().join("b.rs"), source("4.1 - 0.04*n")).unwrap();
    let args = [
        "compare", "a.rs", "b.rs", "--grid", "n=1..4", "--set", "p=1",
    ];
    let (code, out, err) = lcm(&args, dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("tie at 4"), "{out}");
    assert!(!out.contains("crossover:"), "inside the 5 % band: {out}");
    let mut narrow = args.to_vec();
    narrow.extend(["--uncertainty", "1%", "--plot", "cmp.svg"]);
    let (code, out, err) = lcm(&narrow, dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("crossover: n ~ 2.50 (between 1 and 4, p=1): b better above")
            || out.contains("crossover: n ~ 2.50 (between 1 and 4): b better above"),
        "{out}"
    );
    // The plot shades each curve's uncertainty band.
    let svg = std::fs::read_to_string(dir.path().join("cmp.svg")).unwrap();
    assert_eq!(svg.matches("<polygon opacity=\"0.15\"").count(), 2, "{svg}");
}

#[test]
fn crossovers_pass_over_points_not_compared() {
    let n = ["n".to_string()];
    let pts = along_n(&[1.0, 2.0, 3.0]);
    // a wins at n = 1 (1 against 2), b at n = 3 (3 against 2); at n = 2 a has no prediction:
    // one crossover between 1 and 3, where T_a − T_b (−1, +1) changes sign over the compared
    // points: 1 + 2 x 1/2 = 2.
    let c = Comparison::uniform(
        &n,
        pts.clone(),
        vec![1.0, f64::NAN, 3.0],
        vec![2.0; 3],
        0.05,
    );
    assert_eq!(c.verdicts, [Verdict::A, Verdict::NotCompared, Verdict::B]);
    assert_eq!((c.counts(), c.not_compared()), ((1, 1, 0), 1));
    assert_eq!(c.crossovers.len(), 1);
    assert_eq!(c.crossovers[0].between, (1.0, 3.0));
    assert_eq!(c.crossovers[0].at, 2.0);
    // A negative time at n = 2 is not compared either: its difference (−7) takes no part
    // in the interpolation (with it, the sign would change between 2 and 3, at 2.875).
    let c = Comparison::uniform(&n, pts, vec![1.0, -5.0, 3.0], vec![2.0; 3], 0.05);
    assert_eq!(c.verdicts[1], Verdict::NotCompared);
    assert_eq!(c.crossovers[0].at, 2.0);
}

/// A version that needs two processors (a task given floor(p/2) of them) has no
/// prediction at p = 1: `lcm compare --json` says so at that point, not `tie`.
#[test]
fn compare_json_says_not_compared_where_a_version_has_no_prediction() {
    let dir = tempfile::tempdir().unwrap();
    let halves = "fn main() {\n    rayon::join(\n        // lcm: p = floor(p/2)\n        || {\n            // lcm: fragment big\n            // lcm: rt = 8\n            big();\n        },\n        || {\n            // lcm: fragment small\n            // lcm: rt = 4\n            small();\n        },\n    );\n}\n";
    std::fs::write(dir.path().join("halves.rs"), halves).unwrap();
    std::fs::write(dir.path().join("one.rs"), source("10")).unwrap();
    let (code, out, err) = lcm(
        &[
            "compare",
            "halves.rs",
            "one.rs",
            "--grid",
            "p=1..3",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("halves.rs: no prediction at p=1"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p1 = &v["points"][0];
    assert_eq!(p1["bindings"]["p"], 1.0, "{out}");
    assert_eq!(p1["better"], "not_compared", "{out}");
    assert_eq!(p1["compared"], false, "{out}");
    assert!(
        p1["t_a"].is_null() && p1["relative_difference"].is_null(),
        "{out}"
    );
    assert_eq!(p1["t_b"], 10.0, "{out}");
    // p = 2 and 3: halves takes 8 s (big on one processor), one 10/p s: b is better.
    for i in [1, 2] {
        assert_eq!(v["points"][i]["better"], "b", "{out}");
        assert_eq!(v["points"][i]["compared"], true, "{out}");
    }
    assert_eq!(
        v["counts"],
        serde_json::json!({"a": 0, "b": 2, "tie": 0, "not_compared": 1}),
        "{out}"
    );
    assert_eq!(v["crossovers"], serde_json::json!([]), "{out}");
}

#[test]
fn a_crossover_is_printed_to_the_digits_its_interval_gives() {
    let dir = tempfile::tempdir().unwrap();
    // At p = 1: T_a = 1, T_b = n / 181.019. n = 128: T_b = 0.7071 (b better), n = 256:
    // 1.4142 (a better). T_a − T_b is linear in n, so the interpolation is exact: 181.019,
    // printed as a whole number (the grid is integral and 128 apart), in full in --json.
    std::fs::write(dir.path().join("a.rs"), source("1")).unwrap();
    std::fs::write(dir.path().join("b.rs"), source("n/181.019")).unwrap();
    let args = [
        "compare",
        "a.rs",
        "b.rs",
        "--grid",
        "n=128,256",
        "--set",
        "p=1",
    ];
    let (code, out, err) = lcm(&args, dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("crossover: n ~ 181 (between 128 and 256): a better above"),
        "{out}"
    );
    let mut json = args.to_vec();
    json.push("--json");
    let (code, out, err) = lcm(&json, dir.path());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let at = v["crossovers"][0]["at"].as_f64().unwrap();
    assert!((at - 181.019).abs() < 1e-9, "{out}");
}
