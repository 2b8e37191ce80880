//! The fitting policy's targets (issue 17) on real measurements: for the whole-session
//! records and every fragment holding more than 5 % of the time, the run-time model of
//! `lca model` (`lca::runtime::fit_runtime`, the policy of `lca::policy`)
//! - misses its own data by at most 5 % (mean relative error of T = Σ C / p vs tt / p),
//! - fitted on p <= half the largest p, predicts the larger p within 10 %,
//! - fitted without the largest size, predicts it within 10 %.
//!
//! Where the measurements cannot give a target, the test holds the policy to the measured
//! value with a little room instead, and the bound's constant says why it falls short
//! (`FFT_SHORTFALLS`, `HISTOGRAM_SHORTFALLS`, `QUEENS_SHORTFALLS`): it fails only on a
//! regression beyond those bounds. Every check's number, target and bound is printed as a
//! table (`cargo test -p lca --release --test policy_targets -- --nocapture`).
//!
//! The 16-core FFT data lives outside the repository (`shared/data/fft-16core`, next to the
//! workspace); the test prints a message and checks nothing else when it is absent (a fresh
//! clone). `LOST_CYCLES_SHARED=/path/to/shared` points it elsewhere (a worktree). The
//! 2-core records of the histogram and queens studies are fixtures in `tests/data/` (see
//! `tests/data/README.md`). A second 16-core host's FFT records (the studies of 2026-11-27)
//! are a fixture of the `tests` crate, which this test reads in place
//! (`FFT_HOST2_SHORTFALLS`).

use lca::extraction::Extraction;
use lca::record::{parse_records, Record};
use lca::runtime::fit_runtime;
use lca::search::SearchOptions;
use std::path::PathBuf;

/// The three checks' mean relative errors (fractions) for one fragment.
#[derive(Debug)]
struct Checks {
    fragment: String,
    in_sample: f64,
    larger_p: f64,
    largest_size: f64,
}

fn value(r: &Record, key: &str) -> f64 {
    r.number(key).unwrap()
}

/// Mean relative error of the model fitted on `train` records at the `test` records.
fn error(
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
fn checks(text: &str, size: &str) -> Vec<Checks> {
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
type Shortfall = (&'static str, usize, f64, &'static str);

/// The checks' names, in `Checks` order.
const CHECK_NAMES: [&str; 3] = [
    "in-sample",
    "fitted on small p, larger p",
    "fitted without largest size",
];

/// Prints a table of every check (its number, the target and the bound the test
/// holds it to) under `title`, then asserts every check against its target or its
/// documented shortfall.
fn assert_targets(title: &str, all: &[Checks], shortfalls: &[Shortfall]) {
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

/// FFT on 16 cores: the fragments where the targets are out of reach, and why. Each bound
/// is the error measured at the commit that set it plus about 10 % of it (room for the
/// floating-point differences between machines, not for a worse policy).
const FFT_SHORTFALLS: [Shortfall; 12] = [
    ("(session)", 0, 0.07, EXCHANGE),
    ("alloc", 0, 0.215, NOISY_SERIAL),
    ("alloc", 1, 0.21, NOISY_SERIAL),
    ("alloc", 2, 0.14, NOISY_SERIAL),
    ("init", 0, 0.065, EXCHANGE),
    ("cols", 0, 0.10, EXCHANGE),
    ("cols", 1, 0.16, SATURATES),
    ("cols", 2, 0.14, ML_FALLS_BACK),
    ("transpose", 0, 0.10, EXCHANGE),
    ("transpose", 2, 0.125, TRANSPOSE_REGIME),
    ("rows", 0, 0.11, EXCHANGE),
    ("rows", 2, 0.18, ML_FALLS_BACK),
];

/// The serial `alloc` fragment: at n = 64 its time varies between 4e-6 and 3.7e-5 s from
/// one p to the next (one thread allocates, the others idle): no smooth model follows it.
/// Its memory loss, −84 % to +49 % of the work at n = 64 and 2.6 % of the time on average,
/// is material (above 2 % of the time, so it gets a model rather than 0): a small constant
/// once a second processor runs, `c·(1 − 1/p)`.
const NOISY_SERIAL: &str = "serial allocation, its time at n = 64 varies 9-fold with p";

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
const EXCHANGE: &str = "each category's form is chosen alone; their sum cannot follow the time";

/// Memory loss grows up to p = 8 and then stays flat (memory bandwidth saturates): forms
/// fitted on p <= 8 keep growing. The folds of p <= 8 cannot see it: ml / pc of cols at
/// n = 256 is 0.03, 0.38, 0.61, 0.69, 0.74, 0.84, 0.96 at p = 2 … 8 on the second host (then
/// 0.93-1.25 at p = 9 … 16), so the held-out score prefers `(p − 1)·f(n)` to `log2(p)·f(n)`,
/// f searched alike for both (7.5 % against 9.5 % of the time; first host 6.0 % against
/// 7.0 %): no tie to break.
/// Fitted on p <= 8, ml over-predicts p = 9 … 16 by 9.9 % of the time (second host's
/// session), 4.9 % (init), 8.9 % (cols); first host's cols 11.5 %.
const SATURATES: &str = "ml saturates beyond p = 8";

/// Not a cache cliff in the work at n = 1024: cols' work per n²·log2(n) steps up between
/// n = 256 and 512 (+29 %; rows +21 %: one 512 x 512 complex matrix is 4 MiB) and only
/// +8 % (rows +15 %) from 512 to 1024. What the model fitted on n <= 512 misses at 1024 is
/// the memory loss: it grew faster than the work up to n = 512 (0.81 x pc at p = 16) and
/// then fell back (0.58 x pc for cols, 0.45 for rows, at n = 1024); predicted from n <=
/// 512 it is over by 15 % (rows 19 %) of the time, the work only 2.5 % (rows 1.9 %).
const ML_FALLS_BACK: &str = "ml grows faster than the work up to n = 512, then falls back";

/// The transpose's work per element grows 1.26x, 1.73x and 1.97x from one size to the next
/// from n = 128 on (local exponents of pc along n 1.99, 2.34, 2.78, 2.98): a regime change
/// that goes on to the largest size (strided access leaving the caches). Fitted on
/// n <= 512, no smooth form follows pc (the best misses it by 13 % of the time), so the
/// policy takes the piecewise power law through the measured sizes, whose last piece
/// (exponent 2.78) extrapolates to n = 1024 with an error of 11.2 % of the fragment's time
/// (the smooth form chosen before missed pc there by 32 %, the time by 25.9 %). On all
/// five sizes a smooth form fits within the noise, and `lca model` notes the regime change
/// at the largest n (see `fft_transpose_regime_change_is_reported`).
const TRANSPOSE_REGIME: &str = "the work per element keeps growing with n (caches): regime change";

/// The 16-core FFT records, or None (with a message) when they are absent. They live
/// beside the repository's checkout; LOST_CYCLES_SHARED names another place.
fn fft_16_cores() -> Option<String> {
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

#[test]
fn fft_16_cores_meets_the_targets() {
    let Some(text) = fft_16_cores() else {
        return;
    };
    let all = checks(&text, "n");
    assert_targets("FFT, 16 cores (dp-per-execution.pp)", &all, &FFT_SHORTFALLS);
}

/// The FFT on a second 16-core host (the studies of 2026-11-27, fixture of the `tests`
/// crate: `tests/tests/device16_2026_11_27/fft/dp-per-execution.pp`, read from there rather
/// than copied; its README says how it was measured). The same policy, the same design
/// (n = 64 … 1024, p = 1 … 16), another host: the policy meets fewer targets than on the
/// first host's records ([`FFT_SHORTFALLS`]), which is what this test records. Each bound
/// is the error measured at the commit that added the test plus about 10 %.
const FFT_HOST2_SHORTFALLS: [Shortfall; 15] = [
    ("(session)", 0, 0.061, EXCHANGE),
    ("(session)", 1, 0.124, SATURATES),
    ("(session)", 2, 0.168, SERIAL_SPREAD),
    ("alloc", 0, 0.205, NOISY_SERIAL),
    ("alloc", 1, 0.172, NOISY_SERIAL),
    ("init", 0, 0.075, EXCHANGE),
    ("init", 1, 0.13, SATURATES),
    ("init", 2, 0.196, INIT_GROWS_AT_1024),
    ("cols", 0, 0.092, EXCHANGE),
    ("cols", 1, 0.112, SATURATES),
    ("cols", 2, 0.272, ML_FALLS_AT_1024),
    ("transpose", 0, 0.099, EXCHANGE),
    ("transpose", 2, 0.111, TRANSPOSE_REGIME),
    ("rows", 0, 0.118, EXCHANGE),
    ("rows", 2, 0.223, ML_FALLS_AT_1024),
];

/// The session's records are per iteration (`pp::campaign::per_execution`): the serial
/// allocation, once per run, is spread over the run's iterations, which the study's design
/// makes proportional to 1/(n²·log2 n). Its idle processors (`ip`) per iteration thus grow
/// as n⁴·log2 n (ip × iterations at p = 16: 0.020, 0.070 and 0.26 processor-seconds at
/// n = 256, 512, 1024, growing with the allocated bytes); fitted on n <= 512 the policy
/// picks `n³·log2(n)²·p^(3/4)·log2(p)`, which grows 9.9-fold to n = 1024 where ip grew
/// 16-fold. Fitted on n <= 512, the session misses n = 1024 by pc −19.3 % of the time,
/// ml +15.2 %, ip −13.5 %. `lca` cannot tell this per-run cost from a growth in n on these
/// records: the design sets the iterations by the size (5425, 1163, 254, 57, 13 at n = 64 …
/// 1024, ∝ 1/(n²·log2 n)), so a term in 1/iterations is a function of n; two iteration
/// counts at one size, or the session recorded per run, would separate them.
const SERIAL_SPREAD: &str = "per-run serial allocation spread over iterations: ip grows as n^4";

/// Second host, fitted on n <= 512 and predicting n = 1024, each category's error as a
/// share of the time (mean of (model − measured) / tt over the n = 1024 records): cols ml
/// +20.6 %, li +9.6 %, pc −6.6 %; rows ml +35.3 %, pc −27.7 %, li +8.6 %. The memory loss
/// is 0.88 x pc for rows at p = 16 and n = 512 (cols 0.89) and falls to 0.05 at 1024 (cols
/// 0.31; rows −0.17 and −0.14 x pc at p = 2 and 8), which no form fitted below sees: the
/// p = 1 run's work per n²·log2(n)² steps up there (rows' local exponent of pc along n 2.36,
/// then 2.79), which the parallel runs, each on 1/p of the matrix, do not share. The
/// first host's cols and rows show the same fall ([`ML_FALLS_BACK`]). li's forms grow
/// faster in n than the work (cols ∝ (p − 1)·n³·log2(n)², rows ∝ n^(11/4)·log2(n)²), which
/// `lca model` notes; the fold that leaves n = 512 out supports them (2.9 % against 6.7 %
/// and 2.1 % against 4.9 % of the time for the best form whose share of the work does not
/// grow), and taking the bounded form instead was tried and did not help on both hosts.
const ML_FALLS_AT_1024: &str =
    "ml falls from ~0.9 to 0.05-0.3 x pc at n = 1024 (the p = 1 work steps up); li overshoots 9 %";

/// Second host, init fitted on n <= 512: every category under-predicts n = 1024 (pc by
/// 5.2 % of the time, ml by 8.0 %, li by 4.6 %): li's share of the work at p = 8 grows from
/// 0.30 to 0.36 x pc between n = 512 and 1024 where it fell before, and the work's local
/// exponent rises from 1.99 to 2.12. No overhead's form outgrows the work here.
const INIT_GROWS_AT_1024: &str =
    "every category under-predicts n = 1024 (pc 5 %, ml 8 %, li 5 % of the time)";

#[test]
fn fft_16_cores_second_host_within_its_bounds() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/tests/device16_2026_11_27/fft/dp-per-execution.pp");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (a fixture of the tests crate)", path.display()));
    let all = checks(&text, "n");
    assert_eq!(all.len(), 6, "the session and five fragments above 5 %");
    assert_targets(
        "FFT, second 16-core host (tests/tests/device16_2026_11_27/fft)",
        &all,
        &FFT_HOST2_SHORTFALLS,
    );
}

/// Where the measurements change regime at the largest size, `lca model` says so: the
/// transpose's work chosen from n <= 512 misses n = 1024 by 32 % (the 16-core data; skipped
/// when absent), while cols and rows, whose work follows one form, get no such note.
#[test]
fn fft_transpose_regime_change_is_reported() {
    let Some(text) = fft_16_cores() else {
        return;
    };
    let records = parse_records(&text).unwrap();
    let vars = vec!["n".to_string(), "p".to_string()];
    let notes = |tag: &str| {
        fit_runtime(
            &records,
            "data",
            Some(tag),
            &vars,
            &Extraction::default(),
            &SearchOptions::default(),
        )
        .unwrap()
        .notes
    };
    let regime = |n: &[String]| {
        n.iter()
            .any(|x| x.contains("regime change at the largest n"))
    };
    let t = notes("transpose");
    assert!(regime(&t), "{t:?}");
    for tag in ["cols", "rows"] {
        let n = notes(tag);
        assert!(!regime(&n), "{tag}: {n:?}");
    }
}

/// What a 2-core machine sees of the FFT: the 16-core records at p = 1 and 2 only (the
/// overheads observed at p = 2 alone). At the smallest size, n = 64, the overheads are
/// 20-70 % of each fragment's time at p = 2, and a model must keep them: every fragment's
/// T at n = 64 (p = 1 and 2) is held within `SMALLEST_SIZE_BOUND`. Leaving them out as
/// noise (a coefficient priced as if p varied, 5.1-fold instead of 2.26-fold at 5 sizes;
/// materiality judged by the processor-time summed over sizes, which n = 1024 dominates)
/// missed n = 64, p = 2 by 46 % (rows), 29 % (cols), 20 % (transpose) and 16 % (alloc).
#[test]
fn fft_at_two_processors_keeps_the_smallest_size_overheads() {
    let Some(text) = fft_16_cores() else {
        return;
    };
    let records: Vec<Record> = parse_records(&text)
        .unwrap()
        .into_iter()
        .filter(|r| value(r, "p") <= 2.0)
        .collect();
    println!("FFT, 16-core records at p <= 2: T at n = 64");
    let mut failures = Vec::new();
    for tag in ["alloc", "init", "cols", "transpose", "rows"] {
        let mine: Vec<&Record> = records.iter().filter(|r| r.tag() == Some(tag)).collect();
        for p in [1.0, 2.0] {
            let e = error(
                &mine,
                "n",
                Some(tag),
                |_| true,
                |r| value(r, "n") == 64.0 && value(r, "p") == p,
            );
            let bound = SMALLEST_SIZE_BOUND
                .iter()
                .find(|b| b.0 == tag)
                .map_or(SMALLEST_SIZE_BOUND[0].1, |b| b.1);
            println!(
                "{tag:<10} p={p}  {:>6.2}%  bound {:>5.1}%",
                100.0 * e,
                100.0 * bound
            );
            if e > bound {
                failures.push(format!("{tag} at n = 64, p = {p}: {e:.4} > {bound}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The bound of [`fft_at_two_processors_keeps_the_smallest_size_overheads`]: the issue's
/// 10 % (the first entry, every fragment not listed); where the work model misses n = 64
/// at p = 1, the measured miss plus about 10 %: cols by 20 % (its time per n²·log2(n) is
/// 15 % higher at n = 64 than at 128 and 256, a fixed cost per execution that held-out
/// error does not let a constant term pay for) and alloc by 11 % (serial allocation, see
/// [`NOISY_SERIAL`]).
const SMALLEST_SIZE_BOUND: [(&str, f64); 3] = [("", 0.10), ("cols", 0.225), ("alloc", 0.125)];

/// Reads a fixture of `tests/data`.
fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Histogram on 2 cores (re-recorded on a quiet machine, see `tests/data/README.md`): the
/// p = 2 overheads change regime between n = 2^19 and 2^20. T(p = 2) / T(p = 1) is 1.09 and
/// 1.27 at n = 2^18 and 2^19, then 2.40, 2.42 and 2.49 from 2^20 on: lock waiting (`sl`)
/// goes from 0.1 % and 25 % of the time to 44-49 %, and the memory loss from 0.85 x to
/// 1.5-1.6 x the work. No smooth function of n follows both sides: the in-sample misses
/// are at n = 2^20 and 2^21 (30 % and 18 %, the overheads' power of n is set by the steep
/// step; 28 % and 16 % once the overheads are re-estimated together, which the held-out
/// folds keep here: 8.2 % -> 7.8 % in-sample), and fitted without 2^22 the model
/// extrapolates that step's growth.
const HISTOGRAM_SHORTFALLS: [Shortfall; 4] = [
    ("(session)", 0, 0.086, LOCK_REGIME),
    ("(session)", 2, 0.19, LOCK_REGIME),
    ("fill", 0, 0.086, LOCK_REGIME),
    ("fill", 2, 0.19, LOCK_REGIME),
];

/// Why the histogram records miss: see [`HISTOGRAM_SHORTFALLS`].
const LOCK_REGIME: &str =
    "p = 2 overheads step up between n = 2^19 and 2^20 (lock waits 0-25 % -> 44-49 %)";

/// Queens on 2 cores (re-recorded on a quiet machine): the work per solution is not a
/// function of k. The search stops after k solutions, wherever they lie, so `pc / k` is
/// 3.1e-7, 4.2e-7, 3.4e-7, 6.7e-7, 5.2e-7, 4.1e-7 and 3.9e-7 s at k = 1, 10, 100, 1000,
/// 10000, 30000 and 73712 (2.2-fold, not monotone): the best smooth form, `c·k`, misses the
/// measurements by 17 % of the time (k = 1000 by 41 %), three times their noise, so the
/// policy takes the piecewise power law through the measured medians, exact at every k.
/// What is left in-sample is the p = 2 overheads: 7.7 % with each fitted alone (the run at
/// k = 1000, p = 2 missed by 43 %: its memory loss); re-estimated together, which the
/// held-out folds keep here (`lca::policy::joint`: ml's coefficient x1.32, li's x1.06),
/// 5.8 %, k = 1000 still missed by 41 % (no smooth form in k has it), and k = 1, p = 1 by
/// 14 %: the idle time at p = 1, which the held-out choice leaves out (see
/// `queens_idle_time_at_p1_is_weighed`). Fitted without the largest k, the piecewise law
/// extrapolates from k = 30000, where the work per solution is 7 % above the trend, with
/// its last piece's exponent (0.78): 12.9 % off at k = 73712, where `c·k` was 2-3 % off by
/// lying near the average (and `lca` and `lcm` warn that the point lies outside the
/// measured points of a piecewise model).
const QUEENS_SHORTFALLS: [Shortfall; 4] = [
    ("(session)", 0, 0.064, P2_OVERHEADS),
    ("(session)", 2, 0.142, END_PIECE),
    ("search", 0, 0.066, P2_OVERHEADS),
    ("search", 2, 0.142, END_PIECE),
];

/// Why the queens records miss in-sample: see [`QUEENS_SHORTFALLS`].
const P2_OVERHEADS: &str =
    "the work is exact; the p = 2 overheads, fitted together, miss k = 1000 by 41 %";

/// Why the queens records miss beyond the largest k: see [`QUEENS_SHORTFALLS`].
const END_PIECE: &str = "piecewise work extrapolates from k = 30000 with its last piece";

#[test]
fn histogram_2_cores_within_its_bounds() {
    let all = checks(&fixture("histogram-2core.pp"), "n");
    assert_eq!(all.len(), 2);
    assert_targets(
        "histogram, 2 cores (tests/data/histogram-2core.pp)",
        &all,
        &HISTOGRAM_SHORTFALLS,
    );
}

#[test]
fn queens_2_cores_within_its_bounds() {
    let all = checks(&fixture("queens-2core.pp"), "k");
    assert_eq!(all.len(), 2);
    assert_targets(
        "queens, 2 cores (tests/data/queens-2core.pp)",
        &all,
        &QUEENS_SHORTFALLS,
    );
}

/// The queens work changes regime between measured k (see [`QUEENS_SHORTFALLS`]): `lca model`
/// models it as the piecewise power law through the measured points and says where a regime
/// changes (between k = 100 and 1000, the piece of local exponent 1.29 where the others have
/// 0.78-1.14); the FFT's works
/// and the histogram's, which smooth forms fit within their noise, keep smooth forms.
#[test]
fn piecewise_work_only_where_no_smooth_form_fits() {
    let fit = |text: &str, size: &str, tag: &str| {
        let records = parse_records(text).unwrap();
        let vars = vec![size.to_string(), "p".to_string()];
        fit_runtime(
            &records,
            "data",
            Some(tag),
            &vars,
            &Extraction::default(),
            &SearchOptions::default(),
        )
        .unwrap()
    };
    let q = fit(&fixture("queens-2core.pp"), "k", "search");
    let pc = q.fragment_model().to_string();
    assert!(pc.contains("// lcm: pc = pw(k, 1, "), "{pc}");
    let note = q.notes.iter().find(|n| n.contains("piecewise power law"));
    assert!(
        note.is_some_and(|n| n.contains("the piece from k = 100 to 1000 departs most")),
        "{:?}",
        q.notes
    );
    let h = fit(&fixture("histogram-2core.pp"), "n", "fill");
    assert!(!h.fragment_model().to_string().contains("pw("));
    let Some(text) = fft_16_cores() else {
        return;
    };
    for tag in ["alloc", "init", "cols", "transpose", "rows"] {
        let m = fit(&text, "n", tag).fragment_model().to_string();
        assert!(!m.contains("pw("), "{tag}: {m}");
    }
}

/// The queens overheads at p = 2 are re-estimated together so that their sum follows the
/// time (the held-out folds predict their sum at 5.9 % of the time jointly, 7.2 %
/// separately): `lca model` notes it, each category moves by a small share of the time
/// (ml by 3.3 %, the others by under 1 %), and idle and spinning time stay non-negative.
/// Without the step the in-sample error was 7.79 % (see [`QUEENS_SHORTFALLS`]).
#[test]
fn queens_overheads_are_fitted_together() {
    let records = parse_records(&fixture("queens-2core.pp")).unwrap();
    let vars = vec!["k".to_string(), "p".to_string()];
    let m = fit_runtime(
        &records,
        "data",
        Some("search"),
        &vars,
        &Extraction::default(),
        &SearchOptions::default(),
    )
    .unwrap();
    let step = m.joint.as_ref().expect("the joint step applies to queens");
    assert!(step.joint.score < 0.9 * step.separate.score, "{step:?}");
    assert!(
        m.notes.iter().any(|n| n.contains("re-estimated jointly")),
        "{:?}",
        m.notes
    );
    for moved in &step.moved {
        assert!(moved.time_share < 0.05, "{moved:?}");
    }
    let json = lca::runtime::json(&m);
    assert!(json["joint"]["moved"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
    for r in records.iter().filter(|r| r.tag() == Some("search")) {
        let b = [
            ("k".to_string(), value(r, "k")),
            ("p".to_string(), value(r, "p")),
        ]
        .into_iter()
        .collect();
        for (c, a) in &m.categories {
            if ["li", "ip", "wc", "sl"].contains(&c.as_str()) {
                let v = a.best().expr.eval(&b).unwrap();
                assert!(v >= 0.0, "{c} = {} is {v} at {b:?}", a.best().expr);
            }
        }
    }
}

/// Queens' idle time at p = 1 (`pp` counts the one thread's waits between task bodies as
/// `li`: 14 % of the time at k = 1 in fragment `search`, under 1.1 % from k = 10 on) is
/// material there, so the policy weighs `li` on every configuration, p = 1 included, and
/// offers each vanishing form also with a p = 1 part (`lca::policy::at_one`). The best such
/// form, `4.3e-8 + (p − 1)·(6.7e-7·k^(1/2))`, predicts the held-out configurations better
/// (1.6 % of the time against 2.2 %), but only k = 1, p = 1 gains and the gain is halved
/// by the extrapolation folds, where p = 1 weighs little: less than its extra
/// coefficient costs (×1.8), so the vanishing `(p − 1)·(7.1e-7·k^(1/2))` stays, and the
/// model misses k = 1, p = 1 by 14 % (part of the in-sample error in
/// [`QUEENS_SHORTFALLS`]). The 16-core FFT's idle time at p = 1 (4.6 % of the time at
/// most, unrepeated records) is within the records' noise: not weighed there.
#[test]
fn queens_idle_time_at_p1_is_weighed() {
    let records = parse_records(&fixture("queens-2core.pp")).unwrap();
    let mine: Vec<&Record> = records
        .iter()
        .filter(|r| r.tag() == Some("search"))
        .collect();
    let vars = vec!["k".to_string(), "p".to_string()];
    let fit = lca::policy::fit_category(&mine, "data", "li", &vars, &[]).unwrap();
    assert_eq!(
        fit.observations.len(),
        14,
        "every configuration, p = 1 included"
    );
    let chosen_cv = fit.chosen.model.quality.cv;
    let kept = fit
        .ranked
        .iter()
        .find(|(m, _)| m.label.contains(" at p = 1 + "))
        .expect("a form with a p = 1 part is weighed");
    println!(
        "queens search li: chosen `{}` held-out {:.2} %; best with a p = 1 part `{}` held-out {:.2} %",
        fit.chosen.model.expr,
        100.0 * chosen_cv,
        kept.0.expr,
        100.0 * kept.0.quality.cv
    );
    assert!(kept.0.quality.cv < chosen_cv);
    let Some(text) = fft_16_cores() else {
        return;
    };
    let records = parse_records(&text).unwrap();
    let vars = vec!["n".to_string(), "p".to_string()];
    for tag in ["cols", "transpose", "rows"] {
        let mine: Vec<&Record> = records.iter().filter(|r| r.tag() == Some(tag)).collect();
        let fit = lca::policy::fit_category(&mine, "data", "li", &vars, &[]).unwrap();
        assert!(
            fit.observations.data.points.iter().all(|pt| pt.x[1] > 1.0),
            "{tag}: li weighed at p = 1"
        );
    }
}
