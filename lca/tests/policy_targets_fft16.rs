//! The fitting policy's targets (see `support/targets.rs`) on the 16-core FFT records of
//! the first host (`FFT_SHORTFALLS`), and what the policy must say or keep on them.
//!
//! The 16-core FFT data lives outside the repository (`shared/data/fft-16core`, next to the
//! workspace); the test prints a message and checks nothing else when it is absent (a fresh
//! clone). `LOST_CYCLES_SHARED=/path/to/shared` points it elsewhere (a worktree).

#[path = "support/targets.rs"]
mod targets;

use lca::extraction::Extraction;
use lca::record::{parse_records, Record};
use lca::runtime::fit_runtime;
use lca::search::SearchOptions;
use targets::{
    assert_targets, checks, error, fft_16_cores, value, Shortfall, EXCHANGE, ML_FALLS_BACK,
    NOISY_SERIAL, SATURATES, TRANSPOSE_REGIME,
};

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

#[test]
fn fft_16_cores_meets_the_targets() {
    let Some(text) = fft_16_cores() else {
        return;
    };
    let all = checks(&text, "n");
    assert_targets("FFT, 16 cores (dp-per-execution.pp)", &all, &FFT_SHORTFALLS);
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
