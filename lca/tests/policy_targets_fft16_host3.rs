//! The fitting policy's targets (see `support/targets.rs`) on a third 16-core host's FFT
//! records (the studies of 2026-11-28), a fixture of the `tests` crate, which this test
//! reads in place (`FFT_HOST3_SHORTFALLS`).

#[path = "support/targets.rs"]
mod targets;

use std::path::PathBuf;
use targets::{
    assert_targets, checks, Shortfall, EXCHANGE, NOISY_SERIAL, SATURATES, TRANSPOSE_REGIME,
};

/// The FFT on a third 16-core host (the studies of 2026-11-28, fixture of the `tests`
/// crate: `tests/tests/device16_2026_11_28/fft/dp-per-execution.pp`, read from there rather
/// than copied; its README says how it was measured). Same policy, same design (n = 64 …
/// 1024, p = 1 … 16). The larger-p check meets its target for the session, init and
/// transpose and misses it by a few tenths of a percent for cols and rows; the largest-size
/// check misses everywhere, for the reasons the second host's records gave (the work's
/// regime change and the memory loss falling back at n = 1024). Each bound is the error
/// measured at the commit that added the test plus about 10 %.
const FFT_HOST3_SHORTFALLS: [Shortfall; 15] = [
    ("(session)", 0, 0.060, EXCHANGE),
    ("(session)", 2, 0.271, SESSION_AT_1024),
    ("alloc", 0, 0.265, NOISY_SERIAL),
    ("alloc", 1, 0.192, NOISY_SERIAL),
    ("alloc", 2, 0.127, NOISY_SERIAL),
    ("init", 0, 0.071, EXCHANGE),
    ("init", 2, 0.152, INIT_LI_AT_1024),
    ("cols", 0, 0.095, EXCHANGE),
    ("cols", 1, 0.112, SATURATES),
    ("cols", 2, 0.124, ML_FALLS_AT_1024),
    ("transpose", 0, 0.089, EXCHANGE),
    ("transpose", 2, 0.206, TRANSPOSE_REGIME),
    ("rows", 0, 0.097, EXCHANGE),
    ("rows", 1, 0.114, SATURATES),
    ("rows", 2, 0.271, ML_FALLS_AT_1024),
];

/// Third host, the session fitted on n <= 512 and predicting n = 1024, each category's
/// error as a share of the time (mean of (model − measured) / tt over the n = 1024
/// records): pc −15.1 %, ip −12.3 %, ml +4.9 %, li −3.4 %. `lca model` notes the regime
/// change of pc at the largest n (local growth exponents along n 2.03, 2.16, 2.38, 2.63),
/// and ip is the per-run serial allocation spread over the iterations, which the design
/// ties to n (the second host's `SERIAL_SPREAD`).
const SESSION_AT_1024: &str = "pc's regime change at n = 1024 and the per-run allocation in ip";

/// Third host, cols and rows fitted on n <= 512: the memory loss over-predicts n = 1024 by
/// 16.0 % (cols) and 22.2 % (rows) of the time, as on the second host: it grew faster than
/// the work up to n = 512 and falls back at 1024. The other categories are within 10 %
/// (cols li −10.0 %, pc +5.1 %; rows li +4.4 %, pc −3.0 %).
const ML_FALLS_AT_1024: &str = "ml grows faster than the work up to n = 512, then falls back";

/// Third host, init fitted on n <= 512: li under-predicts n = 1024 by 8.7 % of the time
/// (ml −2.9 %, pc −1.7 %): its share of the work grows at the largest size, which no
/// form fitted below sees.
const INIT_LI_AT_1024: &str = "init's li grows faster at n = 1024 than below it";

#[test]
fn fft_16_cores_third_host_within_its_bounds() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/tests/device16_2026_11_28/fft/dp-per-execution.pp");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (a fixture of the tests crate)", path.display()));
    let all = checks(&text, "n");
    assert_eq!(all.len(), 6, "the session and five fragments above 5 %");
    assert_targets(
        "FFT, third 16-core host (tests/tests/device16_2026_11_28/fft)",
        &all,
        &FFT_HOST3_SHORTFALLS,
    );
}
