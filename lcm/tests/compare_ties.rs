//! `lcm compare` calls a tie where two predictions differ by less than their uncertainty
//! and reports crossovers only between points outside it: the library rules
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
    // Nothing to call without two positive times.
    assert_eq!(verdict(f64::NAN, 1.0, u), Verdict::Tie);
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
