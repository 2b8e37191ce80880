//! What the replays of new users' trials (`dnc_trial.rs`, `mandelbrot_trial.rs`) share:
//! running a tool of the workspace in a fixture's copy, and `lcm predict` of a source over
//! a grid of p with the measured version's models, machine file and source.

use std::path::Path;
use std::process::Command;

/// Runs `exe ARGS` in `dir`: stdout and stderr (the test fails on a failure).
pub fn run(exe: &Path, args: &[&str], dir: &Path) -> (String, String) {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", exe.display()));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "{} {}: {stderr}",
        exe.display(),
        args.join(" ")
    );
    (stdout, stderr)
}

/// The median of `v` (the mean of the two middle values of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let k = v.len();
    (v[(k - 1) / 2] + v[k / 2]) / 2.0
}

/// `lcm predict SOURCE --models M.models --machine machine.txt --measured M.rs` at n and
/// iters over `ps`, in `dir` (M: the measured version's name, `measured`): the predicted
/// seconds by p, in the order of `ps`, and stderr.
pub fn predict_over_p(
    lcm: &Path,
    dir: &Path,
    source: &str,
    measured: &str,
    (n, iters): (u64, u64),
    ps: &[u64],
) -> (Vec<f64>, String) {
    let grid = format!(
        "p={}",
        ps.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
    );
    let (models, measured_source) = (format!("{measured}.models"), format!("{measured}.rs"));
    let (set_n, set_iters) = (format!("n={n}"), format!("iters={iters}"));
    let (out, err) = run(
        lcm,
        &[
            "predict",
            source,
            "--models",
            &models,
            "--machine",
            "machine.txt",
            "--measured",
            &measured_source,
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
    let seconds = ps
        .iter()
        .map(|&p| {
            points
                .iter()
                .find(|pt| pt["bindings"]["p"].as_f64() == Some(p as f64))
                .and_then(|pt| pt["seconds"].as_f64())
                .unwrap_or_else(|| panic!("no prediction at p={p}: {out}"))
        })
        .collect();
    (seconds, err)
}
