//! The fitting policy's targets (see `support/targets.rs`) on a second 16-core host's FFT
//! records (the studies of 2026-11-27), a fixture of the `tests` crate, which this test
//! reads in place (`FFT_HOST2_SHORTFALLS`).

#[path = "support/targets.rs"]
mod targets;

use std::path::PathBuf;
use targets::{
    assert_targets, checks, Shortfall, EXCHANGE, NOISY_SERIAL, SATURATES, TRANSPOSE_REGIME,
};

/// The FFT on a second 16-core host (the studies of 2026-11-27, fixture of the `tests`
/// crate: `tests/tests/device16_2026_11_27/fft/dp-per-execution.pp`, read from there rather
/// than copied; its README says how it was measured). The same policy, the same design
/// (n = 64 … 1024, p = 1 … 16), another host: the policy meets fewer targets than on the
/// first host's records (`FFT_SHORTFALLS` in `policy_targets_fft16.rs`), which is what
/// this test records. Each bound is the error measured at the commit that added the test
/// plus about 10 %.
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
/// first host's cols and rows show the same fall
/// ([`ML_FALLS_BACK`](targets::ML_FALLS_BACK)). li's forms grow faster in n than the work
/// (cols ∝ (p − 1)·n³·log2(n)², rows ∝ n^(11/4)·log2(n)²), which
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
