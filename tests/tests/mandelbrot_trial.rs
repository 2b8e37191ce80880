//! A new user's trial replayed: a load-imbalanced program, the Mandelbrot set on an n x n
//! grid, measured in one version (`blocks`: the rows cut into p contiguous blocks, one
//! rayon item each) and predicted in another (`rows`: every row an item, which rayon
//! balances) with the README's commands only: `lca model --all-tags --emit annotation` on
//! the recorded campaign, then `lcm predict` and `lcm compare` of both sources with
//! `--models`, `--machine` and `--measured`, checked against the recorded measurements of
//! both versions.
//!
//! Fixture `mandelbrot_trial/` (its README.md says how each file was made, under what
//! load, and what the test must give).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tests::trial::{median, predict_over_p, run};

/// The campaigns' (n, iters) pairs.
const SIZES: [(u64, u64); 5] = [(256, 8), (384, 4), (512, 2), (768, 1), (1024, 1)];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mandelbrot_trial")
}

/// The `key=value` tokens of a record line.
fn fields(line: &str) -> BTreeMap<&str, &str> {
    line.split_whitespace()
        .filter_map(|t| t.split_once('='))
        .collect()
}

/// The records of `file` (comments and blank lines skipped), as fields.
fn records(text: &str) -> Vec<BTreeMap<&str, &str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(fields)
        .collect()
}

fn num(r: &BTreeMap<&str, &str>, k: &str) -> f64 {
    r.get(k)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{k} in {r:?}"))
}

/// A measured point of `validation.pp`: the version, n and p.
type Point = (String, u64, u64);

/// By point: the median of the whole runs' seconds (`tt / p × iters`), the median of the
/// same less the time the OS took from busy threads (`(tt − os) / p × iters`: what the
/// machine's other load leaves comparable), and the number of runs.
fn measured() -> BTreeMap<Point, (f64, f64, usize)> {
    let text = std::fs::read_to_string(fixture().join("validation.pp")).unwrap();
    let mut runs: BTreeMap<Point, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for r in records(&text) {
        assert!(!r.contains_key("tag"), "session records only: {r:?}");
        let (p, iters) = (num(&r, "p"), num(&r, "iters"));
        let e = runs
            .entry((r["impl"].to_string(), num(&r, "n") as u64, p as u64))
            .or_default();
        e.0.push(num(&r, "tt") / p * iters);
        e.1.push((num(&r, "tt") - num(&r, "os")) / p * iters);
    }
    runs.into_iter()
        .map(|(k, (t, cpu))| {
            let count = t.len();
            (k, (median(t), median(cpu), count))
        })
        .collect()
}

/// `lcm predict SOURCE` at n and iters over `ps` with `blocks`'s models, the machine
/// file and `blocks.rs` as the measured source: seconds by p, and stderr.
fn predict(
    lcm: &Path,
    dir: &Path,
    source: &str,
    n: u64,
    iters: u64,
    ps: &[u64],
) -> (Vec<f64>, String) {
    predict_over_p(lcm, dir, source, "blocks", (n, iters), ps)
}

/// The fixture in a temporary directory with `blocks.models` fitted by the README's
/// command; the lca notes (stderr) beside it.
fn fitted(lca: &Path) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    for file in ["blocks.pp", "machine.txt", "blocks.rs", "rows.rs"] {
        std::fs::copy(fixture().join(file), dir.path().join(file)).unwrap();
    }
    let (models, notes) = run(
        lca,
        &[
            "model",
            "-f",
            "blocks.pp",
            "-v",
            "n,p",
            "--all-tags",
            "--emit",
            "annotation",
        ],
        dir.path(),
    );
    std::fs::write(dir.path().join("blocks.models"), models).unwrap();
    (dir, notes)
}

/// pp's profile of the static partition shows its load imbalance: at p = 2 the thread
/// with the light block idles while the other computes the set's rows, `li` is over 40 %
/// of the image's processor time at every size.
#[test]
fn the_profile_of_the_static_partition_shows_its_load_imbalance() {
    let text = std::fs::read_to_string(fixture().join("blocks.pp")).unwrap();
    let mut shares: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for r in records(&text) {
        if r.get("tag") == Some(&"image") && num(&r, "p") == 2.0 {
            shares
                .entry(num(&r, "n") as u64)
                .or_default()
                .push(num(&r, "li") / num(&r, "tt"));
        }
    }
    assert_eq!(shares.len(), SIZES.len(), "{shares:?}");
    for (n, s) in shares {
        let share = median(s);
        assert!(share > 0.4, "n={n}: li is {share:.3} of tt");
    }
}

#[test]
fn the_readme_path_predicts_the_balanced_rows_of_a_load_imbalanced_program() {
    let bins = tests::tools(&["lca", "lcm"], &["lca", "lcm"]);
    let (lca, lcm) = (&bins[0], &bins[1]);
    let (dir, notes) = fitted(lca);
    // Fitted on p = 1, 2 only: lca says the overheads' growth in p is assumed.
    assert!(
        notes.contains("fragment image, categories li")
            && notes.contains("measured at one p > 1 (p = 2): their growth in p is assumed"),
        "{notes}"
    );
    let measured = measured();
    assert_eq!(measured.len(), 20, "2 versions x 5 n x 2 p: {measured:?}");
    let mut table = String::new();
    for &(n, iters) in &SIZES {
        let (blocks, _) = predict(lcm, dir.path(), "blocks.rs", n, iters, &[1, 2]);
        let (rows, _) = predict(lcm, dir.path(), "rows.rs", n, iters, &[1, 2]);
        let m = |v: &str, p: u64| measured[&(v.to_string(), n, p)];
        // At p = 1 the versions do the same work: the rows pay only the machine's
        // per-item costs, well under 1 %.
        assert!(
            (rows[0] / blocks[0] - 1.0).abs() < 0.01,
            "n={n} p=1: blocks {} rows {}",
            blocks[0],
            rows[0]
        );
        // At p = 2 the rows are faster, predicted and measured, and by about as much.
        let predicted_ratio = blocks[1] / rows[1];
        let measured_ratio = m("blocks", 2).1 / m("rows", 2).1;
        assert!(
            predicted_ratio > 1.5 && m("blocks", 2).0 > m("rows", 2).0,
            "n={n} p=2: predicted blocks {} rows {}, measured {:?} {:?}",
            blocks[1],
            rows[1],
            m("blocks", 2),
            m("rows", 2)
        );
        for (i, p) in [1u64, 2].into_iter().enumerate() {
            for (v, pred) in [("blocks", blocks[i]), ("rows", rows[i])] {
                let (_, cpu, runs) = m(v, p);
                let err = pred / cpu - 1.0;
                table += &format!(
                    "n={n} p={p} {v}: predicted {pred:.4} s, measured {cpu:.4} s ({runs} runs): {:+.1} %\n",
                    err * 100.0
                );
                // The restructuring's prediction at p = 2, the trial's question, within
                // 10 %; every other point within 20 % (the loaded machine: README).
                let bound = if (v, p) == ("rows", 2) { 0.10 } else { 0.20 };
                assert!(
                    err.abs() < bound,
                    "{v} at n={n} p={p}: predicted {pred} s, measured {cpu} s ({:+.1} %)\n{table}",
                    err * 100.0
                );
            }
        }
        table += &format!(
            "n={n} p=2: blocks/rows predicted {predicted_ratio:.2}, measured {measured_ratio:.2}\n"
        );
        assert!(
            (predicted_ratio / measured_ratio - 1.0).abs() < 0.2,
            "n={n}: blocks/rows at p=2 predicted {predicted_ratio}, measured {measured_ratio}\n{table}"
        );
    }
    println!("{table}");
    // Beyond the measured p both predictions say they extrapolate: every p above the one
    // count above 1 measured.
    for source in ["blocks.rs", "rows.rs"] {
        let (t, err) = predict(lcm, dir.path(), source, 1024, 1, &[1, 2, 4, 8, 16]);
        assert!(
            err.contains("fragment `image` (li, ip, os): p = 4, 8, 16")
                && err.contains(
                    "beyond the measured range p = 1..2, which holds one processor count above 1"
                ),
            "{source}: {err}"
        );
        println!("{source} n=1024 p=1,2,4,8,16: {t:?}");
    }
}

/// `lcm compare` of the two sources (default uncertainty): a tie at p = 1, where the
/// versions do the same work, and `rows` (b) better at p = 2 at every size.
#[test]
fn lcm_compare_ranks_the_rows_first_at_two_processors() {
    let bins = tests::tools(&["lca", "lcm"], &["lca", "lcm"]);
    let (lca, lcm) = (&bins[0], &bins[1]);
    let (dir, _) = fitted(lca);
    let (out, _) = run(
        lcm,
        &[
            "compare",
            "blocks.rs",
            "rows.rs",
            "--models",
            "blocks.models",
            "--machine",
            "machine.txt",
            "--measured",
            "blocks.rs",
            "--grid",
            "n=256,384,512,768,1024",
            "--grid",
            "p=1,2",
            "--set",
            "iters=1",
            "--json",
        ],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_str(&out).expect("lcm compare --json");
    let counts = &json["counts"];
    assert_eq!(
        (
            counts["a"].as_u64(),
            counts["b"].as_u64(),
            counts["tie"].as_u64()
        ),
        (Some(0), Some(5), Some(5)),
        "{out}"
    );
}
