//! `lcm compare --times-a/--times-b` on pp-campaign's records as they come (issue 18, bugs
//! B1-B4 of the new-user trial): repetitions that differ only in `rep` and `run_s` are one
//! point; session records per iteration (`--per-execution --iterations iters`, said in
//! the file's header) are multiplied back by their iterations to the whole run lcm
//! predicts; the iteration variable is no distance; `--times-where-a/-b` select each
//! file's version. The records are real (compare_campaign/a.pp, abc.pp: their headers say
//! where they came from); the sources here model one fragment per iteration with a linear
//! model, so every prediction is `iters * C * n` at p = 1, worked out by hand.

#[path = "support/run.rs"]
mod support;
use lcm::predict::compare::{measured_points, MeasuredPoint};
use std::path::{Path, PathBuf};
use support::lcm;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/compare_campaign")
        .join(name)
}

fn close(a: f64, b: f64, rel: f64) {
    assert!((a - b).abs() <= rel * b.abs(), "{a} vs {b}");
}

/// A program that runs fragment `sort` (rt = `c`*n) once per iteration of `iters`.
fn source(c: &str) -> String {
    format!(
        "fn run(n: usize, iters: usize) {{\n    // lcm: iterations = iters\n    for _ in 0..iters {{\n        // lcm: fragment sort\n        // lcm: rt = {c}*n\n        sort(n);\n    }}\n}}\n"
    )
}

/// Runs `lcm compare a.rs b.rs --entry run --json` (a: rt = 2.6e-8*n, b: rt = 5.5e-8*n) in a
/// directory holding the fixtures, with `extra` arguments; the exit code, parsed stdout
/// (Null unless 0) and stderr.
fn compare(extra: &[&str]) -> (i32, serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), source("2.6e-8")).unwrap();
    std::fs::write(dir.path().join("b.rs"), source("5.5e-8")).unwrap();
    for f in ["a.pp", "abc.pp"] {
        std::fs::copy(fixture(f), dir.path().join(f)).unwrap();
    }
    let mut args = vec!["compare", "a.rs", "b.rs", "--entry", "run", "--json"];
    args.extend(extra);
    let (code, out, err) = lcm(&args, dir.path());
    let v = if code == 0 {
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    } else {
        serde_json::Value::Null
    };
    (code, v, err)
}

fn points_of(file: &str, selects: &[&str]) -> Vec<MeasuredPoint> {
    let text = std::fs::read_to_string(fixture(file)).unwrap();
    measured_points(file, &text, selects).unwrap()
}

#[test]
fn repetitions_are_one_point_and_per_iteration_sessions_are_whole_runs() {
    let m = points_of("a.pp", &[]);
    // B1: rep= and run_s= differ between the five repetitions; they are one point each
    // size, the fragment record aside.
    assert_eq!(m.len(), 2, "{m:?}");
    assert_eq!(m[0].runs, 5);
    assert!(!m[0].bindings.contains_key("rep") && !m[0].bindings.contains_key("run_s"));
    assert_eq!(m[0].bindings["iters"], 32.0);
    // B2: the header says the session was divided by the point's iters: the median tt
    // (0.00170396396875 of 0.00169101221875 ... 0.00174989096875) times 32.
    assert_eq!(m[0].iterations, 32.0);
    assert_eq!(m[0].iterations_variable.as_deref(), Some("iters"));
    close(m[0].measured_s, 0.00170396396875 * 32.0, 1e-12);
    // Its spread is the interquartile range of the five over the median (the 2nd and
    // 4th fastest here): 2.61 %, where the range would read 3.46 %.
    close(
        m[0].spread.unwrap(),
        (0.00174846153125 - 0.001703953625) / 0.00170396396875,
        1e-9,
    );
    // n = 262144: median tt 0.010678959125 times 8.
    close(m[1].measured_s, 0.010678959125 * 8.0, 1e-12);
}

#[test]
fn the_prediction_is_compared_with_the_whole_run_at_the_nearest_size() {
    let (code, v, err) = compare(&[
        "--grid",
        "n=65536",
        "--set",
        "p=1",
        "--set",
        "iters=1",
        "--times-a",
        "a.pp",
    ]);
    assert_eq!(code, 0, "{err}");
    let measured = v["measured"].as_array().unwrap();
    // Predicted at n = 65536, iters = 32: 32 * 2.6e-8 * 65536 = 0.054525952 s against the
    // measured 0.00170396396875 * 32 = 0.054526847 s: an error of -0.0016 %, not the
    // +3100 % of comparing the whole run with one iteration's record.
    let first = &measured[0];
    close(first["predicted_s"].as_f64().unwrap(), 0.054525952, 1e-9);
    close(
        first["measured_s"].as_f64().unwrap(),
        0.00170396396875 * 32.0,
        1e-9,
    );
    assert!(first["relative_error"].as_f64().unwrap().abs() < 1e-4);
    assert_eq!(first["iterations"], 32.0);
    assert_eq!(first["iterations_variable"], "iters");
    // B4: compared at n = 65536, iters = 1, the nearest measured point is n = 65536 (iters
    // = 32), not n = 262144 (iters = 8), which is nearer if the trip count counted
    // (ln(32)^2 = 12.0 against ln(4)^2 + ln(4)^2 = 3.8). u is then its spread, 2.61 %
    // (n = 262144 would give its -36 % error).
    let point = &v["points"][0];
    let from = point["uncertainty_from"].as_array().unwrap();
    assert_eq!(from.len(), 1, "{point}");
    assert_eq!(from[0]["bindings"]["n"], 65536.0);
    close(
        point["uncertainty"].as_f64().unwrap(),
        (0.00174846153125 - 0.001703953625) / 0.00170396396875,
        1e-9,
    );
}

#[test]
fn each_version_selects_its_own_records_from_one_file() {
    let grid = ["--grid", "n=65536", "--set", "p=1", "--set", "iters=32"];
    let mut args = grid.to_vec();
    args.extend([
        "--times-a",
        "abc.pp",
        "--times-b",
        "abc.pp",
        "--times-where-a",
        "impl=a",
        "--times-where-b",
        "impl=b",
    ]);
    let (code, v, err) = compare(&args);
    assert_eq!(code, 0, "{err}");
    let measured = v["measured"].as_array().unwrap();
    assert_eq!(measured.len(), 2);
    let of = |version: &str| {
        measured
            .iter()
            .find(|m| m["version"] == version)
            .unwrap_or_else(|| panic!("no {version} in {measured:?}"))
    };
    // a: the impl=a record (tt 0.00170176225 per iteration), b: the impl=b one
    // (0.00363987253125); b predicted 32 * 5.5e-8 * 65536 = 0.11534336 s.
    close(
        of("a")["measured_s"].as_f64().unwrap(),
        0.00170176225 * 32.0,
        1e-12,
    );
    close(
        of("b")["measured_s"].as_f64().unwrap(),
        0.00363987253125 * 32.0,
        1e-12,
    );
    close(of("b")["predicted_s"].as_f64().unwrap(), 0.11534336, 1e-9);

    // One --times-where for both files cannot serve both versions: with none, a file of
    // two versions is refused, naming the per-file options.
    let mut args = grid.to_vec();
    args.extend(["--times-a", "abc.pp", "--times-b", "abc.pp"]);
    let (code, _, err) = compare(&args);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--times-where-a"), "{err}");
    // A per-file selection without that file is a usage error.
    let mut args = grid.to_vec();
    args.extend(["--times-a", "abc.pp", "--times-where-b", "impl=b"]);
    let (code, _, err) = compare(&args);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--times-where-b") && err.contains("--times-b"),
        "{err}"
    );
}

#[test]
fn a_per_execution_header_without_a_divisor_is_an_error_naming_its_line() {
    let text = "# pp-campaign records (docs/records.md): ./x\n\
                # per execution (docs/campaigns.md): each fragment's amounts over its executions, the session's over ???\n\
                n=1 p=1 tt=1\n";
    let e = measured_points("x.pp", text, &[]).unwrap_err().to_string();
    assert!(
        e.contains("x.pp") && e.contains(":2") && e.contains("???"),
        "{e}"
    );
    // A count divides every session record alike; the record needs no variable.
    let text = "# per execution (docs/campaigns.md): each fragment's amounts over its executions, the session's over 4\n\
                n=1 p=2 tt=1\n";
    let m = measured_points("x.pp", text, &[]).unwrap();
    assert_eq!(m[0].iterations, 4.0);
    assert_eq!(m[0].iterations_variable, None);
    close(m[0].measured_s, 2.0, 1e-12);
    // A record without the header's iteration variable is an error naming its line.
    let text = "# per execution (docs/campaigns.md): the session's over the point's iters\n\
                n=1 p=1 tt=1\n";
    let e = measured_points("x.pp", text, &[]).unwrap_err().to_string();
    assert!(e.contains(":2") && e.contains("iters=COUNT"), "{e}");
}
