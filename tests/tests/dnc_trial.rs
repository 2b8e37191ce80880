//! A new user's trial replayed (issue #18, "the path a user follows is the path we
//! validate"): a divide-and-conquer merge sort measured in one version (`coarse`, cutoff
//! n/(8p)) and predicted in another (`fine`, cutoff 64) with the README's commands only:
//! `lca model --all-tags --emit annotation` on the recorded campaign, then `lcm predict` of
//! both sources with `--models`, `--machine` and `--measured`, checked against the
//! recorded measurements of both versions.
//!
//! Fixture `dnc_trial/` (its README.md says how each file was made, under what load, and
//! what the test must give).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tests::trial::{median, predict_over_p, run};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dnc_trial")
}

/// A measured point of `validation.pp`: the version, n and p.
type Point = (String, u64, u64);

/// The medians of the whole runs' seconds (`tt / p × iters`) and of their processor time
/// (`(tt − os) / p × iters`), and the point's iterations, by point.
fn measured() -> BTreeMap<Point, (f64, f64, u64)> {
    let text = std::fs::read_to_string(fixture().join("validation.pp")).unwrap();
    let mut runs: BTreeMap<Point, (Vec<f64>, Vec<f64>, u64)> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let kv: BTreeMap<&str, &str> = line
            .split_whitespace()
            .filter_map(|t| t.split_once('='))
            .collect();
        assert!(!kv.contains_key("tag"), "session records only: {line}");
        let num = |k: &str| -> f64 { kv[k].parse().unwrap_or_else(|_| panic!("{k}: {line}")) };
        let (p, iters) = (num("p"), num("iters"));
        let e = runs
            .entry((kv["impl"].to_string(), num("n") as u64, p as u64))
            .or_default();
        e.0.push(num("tt") / p * iters);
        e.1.push((num("tt") - num("os")) / p * iters);
        e.2 = iters as u64;
    }
    runs.into_iter()
        .map(|(k, (t, cpu, iters))| (k, (median(t), median(cpu), iters)))
        .collect()
}

/// `lcm predict SOURCE` at n and iters over `ps` with `coarse`'s models, the machine
/// file and `coarse.rs` as the measured source: seconds by p, and stderr.
fn predict(
    lcm: &Path,
    dir: &Path,
    source: &str,
    n: u64,
    iters: u64,
    ps: &[u64],
) -> (Vec<f64>, String) {
    predict_over_p(lcm, dir, source, "coarse", (n, iters), ps)
}

#[test]
fn the_readme_path_predicts_the_finer_cutoff_of_a_recursive_sort() {
    let bins = tests::tools(&["lca", "lcm"], &["lca", "lcm"]);
    let (lca, lcm) = (&bins[0], &bins[1]);
    let dir = tempfile::tempdir().unwrap();
    for file in ["coarse.pp", "machine.txt", "coarse.rs", "fine.rs"] {
        std::fs::copy(fixture().join(file), dir.path().join(file)).unwrap();
    }
    let (models, _) = run(
        lca,
        &[
            "model",
            "-f",
            "coarse.pp",
            "-v",
            "n,p",
            "--all-tags",
            "--emit",
            "annotation",
        ],
        dir.path(),
    );
    std::fs::write(dir.path().join("coarse.models"), models).unwrap();
    let measured = measured();
    assert_eq!(measured.len(), 16, "2 versions x 4 n x 2 p: {measured:?}");
    let mut table = String::new();
    for &(n, iters) in &[(262144, 8), (524288, 4), (1048576, 2), (2097152, 1)] {
        let (coarse, _) = predict(lcm, dir.path(), "coarse.rs", n, iters, &[1, 2]);
        let (fine, _) = predict(lcm, dir.path(), "fine.rs", n, iters, &[1, 2]);
        for (i, p) in [1u64, 2].into_iter().enumerate() {
            let m = |v: &str| measured[&(v.to_string(), n, p)];
            let (mc, mf) = (m("coarse"), m("fine"));
            assert_eq!((mc.2, mf.2), (iters, iters), "iterations at n={n}");
            // The ranking the measurements give (medians of the whole runs).
            assert!(
                (coarse[i] < fine[i]) == (mc.0 < mf.0),
                "n={n} p={p}: predicted coarse {} fine {}, measured {} {}",
                coarse[i],
                fine[i],
                mc.0,
                mf.0
            );
            table += &format!(
                "n={n} p={p}: coarse {:.4} against {:.4} s ({:+.1} % of processor time), fine {:.4} against {:.4} s ({:+.1} %)\n",
                coarse[i], mc.1, (coarse[i] / mc.1 - 1.0) * 100.0,
                fine[i], mf.1, (fine[i] / mf.1 - 1.0) * 100.0
            );
            if p == 1 {
                for (v, pred, cpu) in [("coarse", coarse[i], mc.1), ("fine", fine[i], mf.1)] {
                    let err = pred / cpu - 1.0;
                    assert!(
                        err.abs() < 0.25,
                        "{v} at n={n} p=1: predicted {pred} s, measured processor time {cpu} s ({:+.1} %)\n{table}",
                        err * 100.0
                    );
                }
            }
        }
    }
    println!("{table}");
    // Beyond the measured p the prediction says it extrapolates: every p above 2, the
    // models' growth in p being assumed from the one count above 1 measured.
    let (_, err) = predict(lcm, dir.path(), "fine.rs", 2097152, 1, &[1, 2, 4, 8, 16]);
    assert!(
        err.contains("p = 4, 8, 16")
            && err.contains(
                "beyond the measured range p = 1..2, which holds one processor count above 1"
            ),
        "{err}"
    );
}
