//! The README's "Using the tools on your own program", replayed on the 2D FFT with the
//! command-line tools only, as a user types them: `lca model --all-tags --emit annotation`
//! on the study's measured records, then `lcm predict` of both versions with `--models`,
//! `--machine` and `--measured`, binding only the program's own inputs (`--set n=…
//! --set iters=…`, `--grid p=…`). No study code is in this path: the predictions must agree
//! with those the study wrote (`predictions.txt`) within 1 % at every point.
//!
//! Fixture `readme_replay/` (its README.md and each file's header say how it was made and
//! what it must give): the files a quick FFT study wrote into its report directory
//! (`cargo run --release -p examples --bin study -- -q --quick --program fft --cores 2
//! --out DIR`, recorded in commit e5f15bc on a loaded 2-core virtual machine):
//! `dp-per-execution.pp` (the measured records it fitted), `machine.txt` (its `lcm
//! calibrate --quick`, by the calibrate of that commit: it lacks keys today's writes, which
//! the third test lists), `predictions.txt` (its predictions, written before tp ran), and
//! the copies of `dp.rs` and `tp.rs` it predicted from. The copies must equal
//! `examples/src/fft/{dp,tp}.rs`: a change of the sources' rules needs the fixture recorded
//! again (the first test says so).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixture directory.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/readme_replay")
}

/// The `lca` and `lcm` binaries of this build's profile ([`tests::tools`]).
fn tools() -> (PathBuf, PathBuf) {
    let bins = tests::tools(&["lca", "lcm"], &["lca", "lcm"]);
    (bins[0].clone(), bins[1].clone())
}

/// Runs `exe ARGS` in `dir`; its stdout (the test fails with stderr on a failure).
fn run(exe: &Path, args: &[&str], dir: &Path) -> String {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()));
    assert!(
        out.status.success(),
        "{} {}: {}",
        exe.display(),
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One line of the study's `predictions.txt`: n, p, iters, tp and dp seconds (NaN where
/// the version does not run).
struct Planned {
    n: u64,
    p: u64,
    iters: u64,
    tp: f64,
    dp: f64,
}

fn planned(text: &str) -> Vec<Planned> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w.len(), 5, "a predictions line: {l}");
            Planned {
                n: w[0].parse().unwrap(),
                p: w[1].parse().unwrap(),
                iters: w[2].parse().unwrap(),
                tp: w[3].parse().unwrap(),
                dp: w[4].parse().unwrap(),
            }
        })
        .collect()
}

/// `lcm predict SOURCE` at one size over the given p, as the README says; seconds by p.
fn predict(lcm: &Path, dir: &Path, source: &str, n: u64, iters: u64, ps: &[u64]) -> Vec<f64> {
    let (set_n, set_iters) = (format!("n={n}"), format!("iters={iters}"));
    let grid = format!(
        "p={}",
        ps.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
    );
    let out = run(
        lcm,
        &[
            "predict",
            source,
            "--entry",
            "fft2d",
            "--models",
            "dp.models",
            "--machine",
            "machine.txt",
            "--measured",
            "dp.rs",
            "--set",
            &set_n,
            "--set",
            &set_iters,
            "--grid",
            &grid,
            "--json",
        ],
        dir,
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("lcm predict --json");
    let points = json.as_array().expect("an array of points");
    ps.iter()
        .map(|&p| {
            points
                .iter()
                .find(|pt| pt["bindings"]["p"].as_f64() == Some(p as f64))
                .and_then(|pt| pt["seconds"].as_f64())
                .unwrap_or_else(|| panic!("no prediction at p={p}: {out}"))
        })
        .collect()
}

#[test]
fn the_fixture_holds_the_sources_of_this_version() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/src/fft");
    for file in ["dp.rs", "tp.rs"] {
        let here = std::fs::read_to_string(src.join(file)).unwrap();
        let there = std::fs::read_to_string(fixture().join(file)).unwrap();
        assert!(
            here == there,
            "examples/src/fft/{file} changed since the fixture tests/tests/readme_replay/ was recorded: record it again (see this file's docs)"
        );
    }
}

#[test]
fn the_readme_commands_reproduce_the_study_predictions() {
    let (lca, lcm) = tools();
    let dir = tempfile::tempdir().unwrap();
    for file in ["dp-per-execution.pp", "machine.txt", "dp.rs", "tp.rs"] {
        std::fs::copy(fixture().join(file), dir.path().join(file)).unwrap();
    }
    // 3. fit models over the runs (n, p)
    let models = run(
        &lca,
        &[
            "model",
            "-f",
            "dp-per-execution.pp",
            "-v",
            "n,p",
            "--all-tags",
            "--emit",
            "annotation",
        ],
        dir.path(),
    );
    std::fs::write(dir.path().join("dp.models"), &models).unwrap();
    // 4. predict both versions at the study's points.
    let study = planned(&std::fs::read_to_string(fixture().join("predictions.txt")).unwrap());
    assert!(!study.is_empty());
    let mut sizes: Vec<(u64, u64)> = study.iter().map(|x| (x.n, x.iters)).collect();
    sizes.dedup();
    let mut compared = 0;
    for (n, iters) in sizes {
        let at: Vec<&Planned> = study.iter().filter(|x| x.n == n).collect();
        // tp runs from p = 2 on (the study predicts it only there: NaN at p = 1).
        for (what, source) in [("tp", "tp.rs"), ("dp", "dp.rs")] {
            let of = |x: &Planned| if what == "tp" { x.tp } else { x.dp };
            let here: Vec<&&Planned> = at.iter().filter(|x| !of(x).is_nan()).collect();
            let ps: Vec<u64> = here.iter().map(|x| x.p).collect();
            let cli = predict(&lcm, dir.path(), source, n, iters, &ps);
            for (x, cli_s) in here.iter().zip(cli) {
                let study_s = of(x);
                let diff = (cli_s - study_s).abs() / study_s;
                assert!(
                    diff <= 0.01,
                    "{what} at n={n} p={}: the study predicted {study_s:e} s, the README's commands {cli_s:e} s ({:.2} % apart; are the lca and lcm binaries of this build current? cargo build --release -p lca -p lcm)",
                    x.p,
                    100.0 * diff
                );
                compared += 1;
            }
        }
    }
    // Every point of both versions (tp runs from p = 2 on).
    assert_eq!(
        compared,
        study.iter().filter(|x| !x.tp.is_nan()).count() + study.len()
    );
}

/// The keys `machine.txt` lacks that `lcm calibrate` of this version writes (on 2 threads),
/// as its header and README.md list them: the replay shows what today's `lcm predict` gives
/// with a file of an older calibrate. A re-recorded fixture has them: then update the
/// headers and this list.
const KEYS_THE_OLD_CALIBRATE_DID_NOT_WRITE: [&str; 8] = [
    "par_call_s_p1",
    "par_call_s_p2",
    "transfer_s_1048576",
    "transfer_s_16777216",
    "local_read_s_1048576",
    "local_read_s_16777216",
    "line_trip_s",
    "line_bounce_per_thread_s",
];

#[test]
fn the_machine_file_is_what_its_header_says() {
    let text = std::fs::read_to_string(fixture().join("machine.txt")).unwrap();
    let keys: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    let value = |key: &str| {
        keys.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.parse::<f64>().unwrap())
    };
    for key in KEYS_THE_OLD_CALIBRATE_DID_NOT_WRITE {
        assert!(
            value(key).is_none(),
            "machine.txt has {key}: it was recorded again; update its header, README.md and this list"
        );
    }
    // Its line price is the stand-in for a line kernel with no repetition side by side.
    assert_eq!(value("line_bounce_s"), value("handoff_spin_s"));
    assert_eq!(value("calibrated_p"), Some(2.0));
}
