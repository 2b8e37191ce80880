//! `lcm compare --times-a FILE`: the uncertainty at each compared point comes from the
//! measured version's prediction error (and run-to-run spread) at its nearest measured
//! point(s). Sources and records are written here: constant models, so each predicted time
//! is the model over p, and every expected uncertainty is worked out by hand above its
//! assertion.

#[path = "support/run.rs"]
mod support;
use lca::expr::Bindings;
use lcm::predict::compare::{
    distance, measured_points, residual_uncertainty, Residual, DEFAULT_RELATIVE_UNCERTAINTY,
};
use support::lcm;

fn source(model: &str) -> String {
    format!("fn main() {{\n    // lcm: fragment f\n    // lcm: rt = {model}\n    f();\n}}\n")
}

fn at(p: f64) -> Bindings {
    [("p".to_string(), p)].into()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-12), "{a} vs {b}");
}

/// Runs `lcm compare a.rs b.rs --grid p=1,2,4 --json` with `extra` arguments in a
/// directory holding a.rs (rt = 1: T = 1/p), b.rs (rt = `b_model`) and `a.pp` (`records`);
/// returns the parsed JSON.
fn compare(b_model: &str, records: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), source("1")).unwrap();
    std::fs::write(dir.path().join("b.rs"), source(b_model)).unwrap();
    std::fs::write(dir.path().join("a.pp"), records).unwrap();
    let mut args = vec!["compare", "a.rs", "b.rs", "--grid", "p=1,2,4", "--json"];
    args.extend(extra);
    let (code, out, err) = lcm(&args, dir.path());
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn better(v: &serde_json::Value) -> Vec<String> {
    v["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["better"].as_str().unwrap().to_string())
        .collect()
}

fn uncertainties(v: &serde_json::Value) -> Vec<f64> {
    v["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["uncertainty"].as_f64().unwrap())
        .collect()
}

#[test]
fn records_become_measured_points_with_median_and_spread() {
    let text = "# how made: by hand; version a measured three times at p=1, once at p=4\n\
                n=8 impl=dp p=1 rt=0.9 tt=0.9\n\
                n=8 impl=dp p=1 rt=1 tt=1.0\n\
                n=8 impl=dp tag=f p=1 rt=5 tt=5\n\
                n=8 impl=dp p=1 rt=1.1 tt=1.1\n\
                n=8 impl=dp p=4 rt=1 tt=1.0\n";
    let m = measured_points("a.pp", text, &[]).unwrap();
    assert_eq!(m.len(), 2);
    // p = 1: the session records 0.9, 1.0, 1.1 (the fragment record aside): median 1.0,
    // spread (1.1 - 0.9) / 1.0 = 20 %.
    assert_eq!(m[0].runs, 3);
    close(m[0].measured_s, 1.0);
    close(m[0].spread.unwrap(), 0.2);
    assert_eq!(m[0].lines, [2, 3, 5]);
    assert_eq!(m[0].bindings["n"], 8.0);
    // p = 4: tt / p = 0.25, one run: no spread.
    close(m[1].measured_s, 0.25);
    assert_eq!(m[1].spread, None);
    // Two versions in one file need a selection; with it, only that version's records.
    let two = format!("{text}n=8 impl=tp p=1 rt=1 tt=2\n");
    let e = measured_points("a.pp", &two, &[]).unwrap_err().to_string();
    assert!(
        e.starts_with("a.pp:7:") && e.contains("--times-where"),
        "{e}"
    );
    let m = measured_points("a.pp", &two, &["impl=tp"]).unwrap();
    assert_eq!((m.len(), m[0].measured_s), (1, 2.0));
    // No session record with tt: an error naming the file.
    let e = measured_points("a.pp", "n=8 tag=f p=1 rt=1 tt=1\n", &[]).unwrap_err();
    assert!(e.to_string().contains("a.pp:"), "{e}");
}

#[test]
fn the_nearest_measured_points_set_the_uncertainty() {
    let point = |p: f64, measured: f64, predicted: f64, spread: Option<f64>| {
        Residual::new(
            "a",
            lcm::predict::compare::MeasuredPoint {
                bindings: at(p),
                measured_s: measured,
                runs: if spread.is_some() { 3 } else { 1 },
                spread,
                lines: vec![1],
                iterations: 1.0,
                iterations_variable: None,
            },
            predicted,
        )
    };
    // Measured at p = 1 (predicted 12 % high) and p = 8 (within 1 %, spread 2 %).
    let rs = [
        point(1.0, 1.0, 1.12, None),
        point(8.0, 0.125, 0.12625, Some(0.02)),
    ];
    let d = DEFAULT_RELATIVE_UNCERTAINTY;
    // p = 1 and 2 are nearest to p = 1 (log distance ln 2 < ln 4): u = 12 %.
    for p in [1.0, 2.0] {
        let (u, by) = residual_uncertainty(&at(p), &rs, d, None);
        close(u, 0.12);
        assert_eq!(by.len(), 1);
    }
    // p = 8: max(1 %, spread 2 %) = 2 %, below the default 5 %: measured noise replaces it.
    close(residual_uncertainty(&at(8.0), &rs, d, None).0, 0.02);
    // An explicit --uncertainty is a floor.
    let (u, by) = residual_uncertainty(&at(8.0), &rs, d, Some(0.1));
    assert!(u == 0.1 && by.is_empty());
    // Halfway in logarithms (p = sqrt 8) both are nearest: the larger, 12 %.
    close(residual_uncertainty(&at(8f64.sqrt()), &rs, d, None).0, 0.12);
    // No shared variable: the default.
    let n: Bindings = [("n".to_string(), 4.0)].into();
    assert_eq!(distance(&n, &at(1.0)), None);
    assert_eq!(residual_uncertainty(&n, &rs, d, None).0, d);
}

#[test]
fn residuals_make_a_default_winner_a_tie() {
    // b (rt = 1.1) is 10 % slower than a (rt = 1) everywhere: the default 5 % names a.
    let plain = compare("1.1", "", &[]);
    assert_eq!(better(&plain), ["a", "a", "a"]);
    // a measured once at p = 1 (0.88 s, predicted 1: +13.6 %) and once at p = 4 (0.25 s,
    // predicted exactly). p = 1 and p = 2 (as near to 1 as to 4 in logarithms: both count,
    // the larger wins) get 13.6 % > 10 %: ties; p = 4 keeps max(0, default 5 %): a.
    let records = "# how made: by hand; a's measured times, 1 run each\np=1 tt=0.88\np=4 tt=1.0\n";
    let v = compare("1.1", records, &["--times-a", "a.pp"]);
    assert_eq!(better(&v), ["tie", "tie", "a"]);
    let u = uncertainties(&v);
    close(u[0], 0.12 / 0.88);
    close(u[1], 0.12 / 0.88);
    close(u[2], DEFAULT_RELATIVE_UNCERTAINTY);
    // The JSON names the residuals and what set each point's u.
    let m = v["measured"].as_array().unwrap();
    assert_eq!(m.len(), 2);
    assert_eq!(m[0]["version"], "a");
    close(m[0]["predicted_s"].as_f64().unwrap(), 1.0);
    close(m[0]["relative_error"].as_f64().unwrap(), 0.12 / 0.88);
    let from = &v["points"][0]["uncertainty_from"];
    assert_eq!(from[0]["bindings"]["p"], 1.0, "{from}");
    // At p = 4 the measured point (error 0, one run: the default spread) set it.
    assert_eq!(v["points"][2]["uncertainty_from"][0]["bindings"]["p"], 4.0);
    assert_eq!(plain["points"][2]["uncertainty_from"], "default");
}

#[test]
fn residuals_make_a_default_tie_a_winner() {
    // b (rt = 1.03) is 3 % slower: a tie at the default 5 %.
    assert_eq!(better(&compare("1.03", "", &[])), ["tie", "tie", "tie"]);
    // a measured three times at each p (by hand: within 1 % of its predictions, spread
    // 2 %): u = 2 % everywhere, and the 3 % difference names a.
    let records = "# how made: by hand; a's times, 3 runs a point, median = prediction * 1.01\n\
                   p=1 tt=0.9999\np=1 tt=1.01\np=1 tt=1.0201\n\
                   p=2 tt=0.9999\np=2 tt=1.01\np=2 tt=1.0201\n\
                   p=4 tt=0.9999\np=4 tt=1.01\np=4 tt=1.0201\n";
    let v = compare("1.03", records, &["--times-a", "a.pp"]);
    assert_eq!(better(&v), ["a", "a", "a"]);
    for u in uncertainties(&v) {
        close(u, 0.0202 / 1.01);
    }
    // --uncertainty 5% puts the floor back: ties again.
    let v = compare(
        "1.03",
        records,
        &["--times-a", "a.pp", "--uncertainty", "5%"],
    );
    assert_eq!(better(&v), ["tie", "tie", "tie"]);
}

#[test]
fn readable_output_lists_the_measured_points() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), source("1")).unwrap();
    std::fs::write(dir.path().join("b.rs"), source("1.1")).unwrap();
    std::fs::write(
        dir.path().join("a.pp"),
        "# by hand: a at p=1, 12 % faster than predicted\np=1 tt=0.88\n",
    )
    .unwrap();
    let (code, out, err) = lcm(
        &[
            "compare",
            "a.rs",
            "b.rs",
            "--set",
            "p=1",
            "--times-a",
            "a.pp",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("uncertainty from measured times"), "{out}");
    assert!(out.contains("+13.6"), "{out}");
    assert!(out.contains("tie"), "{out}");
    // A records file that does not parse: exit 1, naming the file and line.
    std::fs::write(dir.path().join("bad.pp"), "p=1 tt=fast\n").unwrap();
    let (code, _, err) = lcm(
        &[
            "compare",
            "a.rs",
            "b.rs",
            "--set",
            "p=1",
            "--times-b",
            "bad.pp",
        ],
        dir.path(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad.pp:1"), "{err}");
}
