//! Calibrations the study makes besides measuring the programs: the machine file (lcm's
//! calibration library, as `lcm calibrate`) and the co-run slowdown of the fragments when a second
//! instance of the program's kernels shares the machine.

use super::case::{Case, KernelPrices};
use super::load::{Gate, Probe, QUIET_SHARE};
use super::run::Run;
use std::collections::BTreeMap;
use std::time::Duration;

/// Runs `once` `tries` times and keeps the least of each of its numbers over the runs
/// during which no other load held a processor (over all runs where none was quiet): other
/// load only ever makes a microbenchmark slower. A NaN (a run that could not measure that
/// number) is skipped. Waits up to `wait` for quiet before the first run and after every
/// disturbed one.
pub fn least_of_quiet<const N: usize>(
    tries: usize,
    gate: &mut Gate,
    wait: Duration,
    once: impl FnMut() -> [f64; N],
) -> [f64; N] {
    let runs = quiet_runs(tries, gate, wait, once);
    std::array::from_fn(|i| runs.iter().map(|r| r[i]).fold(f64::INFINITY, f64::min))
}

/// As [`least_of_quiet`], but the median of each number over the quiet runs (NaN when no
/// run measured it): for a microbenchmark whose runs settle in one of several states that
/// are not disturbances (a pipeline whose waiting thread catches the next item while
/// spinning in some runs, and sleeps until woken through the kernel in others), where the
/// least would be the rarest state rather than the undisturbed one.
pub fn median_of_quiet<const N: usize>(
    tries: usize,
    gate: &mut Gate,
    wait: Duration,
    once: impl FnMut() -> [f64; N],
) -> [f64; N] {
    let runs = quiet_runs(tries, gate, wait, once);
    std::array::from_fn(|i| {
        let mut xs: Vec<f64> = runs.iter().map(|r| r[i]).filter(|x| !x.is_nan()).collect();
        xs.sort_by(f64::total_cmp);
        match xs.len() {
            0 => f64::NAN,
            k if k % 2 == 1 => xs[k / 2],
            k => 0.5 * (xs[k / 2 - 1] + xs[k / 2]),
        }
    })
}

/// The runs of `once` (see [`least_of_quiet`]) during which no other load held a
/// processor, or all of them when none was quiet.
fn quiet_runs<const N: usize>(
    tries: usize,
    gate: &mut Gate,
    wait: Duration,
    mut once: impl FnMut() -> [f64; N],
) -> Vec<[f64; N]> {
    let (mut all, mut quiet) = (Vec::new(), Vec::new());
    gate.wait_quiet(wait);
    for _ in 0..tries.max(1) {
        let probe = Probe::start();
        let x = once();
        let calm = probe.share().is_none_or(|s| s < QUIET_SHARE);
        all.push(x);
        if calm {
            quiet.push(x);
        } else {
            gate.wait_quiet(wait);
        }
    }
    if quiet.is_empty() {
        all
    } else {
        quiet
    }
}

/// The case's kernel prices ([`Case::kernels`]), the least of each over quiet runs of its
/// microbenchmark; None when the case has none or they came out unusable.
pub fn kernel_prices(
    case: &Case,
    quick: bool,
    gate: &mut Gate,
    wait: Duration,
) -> Option<KernelPrices> {
    let bench = case.kernels?;
    let [base, other, concurrent] = least_of_quiet(if quick { 9 } else { 15 }, gate, wait, || {
        let t = bench();
        [t.locked_key, t.sharded_key, t.concurrent_key]
    });
    let prices = KernelPrices {
        base_key_s: base,
        other_key_s: other,
        concurrent_key_s: concurrent,
    };
    // Not finite: no run measured the two threads side by side (see
    // `histogram::kernels::overlap`).
    let usable = |x: f64| x.is_finite() && x > 0.0;
    (usable(base) && usable(other) && usable(concurrent) && prices.work_ratio().is_finite())
        .then_some(prices)
}

/// The machine file, made by lcm's calibration library ([`lcm::calibrate`]: its kernels and
/// its rule, the median of the quiet repetitions), so the study predicts with the same file
/// a user's `lcm calibrate` writes (`quick`: [`lcm::calibrate::CalibrateOptions::quick`]).
pub fn calibrate_machine(quick: bool) -> lcm::predict::machine::Machine {
    use lcm::calibrate::{calibrate, CalibrateOptions};
    let opts = if quick {
        CalibrateOptions::quick()
    } else {
        CalibrateOptions::full()
    };
    let mut machine = calibrate(&opts).machine;
    machine.origin = format!("the study, with {}", machine.origin);
    machine
}

/// Smallest pace of the co-runner (iterations per second against the lone run's) for a
/// co-run calibration to count: two kernels sharing caches and memory slow each other by
/// tens of percent; sharing one core halves each one's pace.
pub const MIN_CO_RUN_PACE: f64 = 0.6;

/// Per fragment, the co-run slowdown as a share of pure computation: the least-squares k of
/// `ml_corun(n) = k * pc(n)` over the sizes (per execution), so the largest sizes, whose
/// times are the most reliable, weigh most. Negative values (noise) count as 0.
pub fn co_run_factors(base_runs: &[Run], co_runs: &[Run]) -> Vec<(String, f64)> {
    let mut sums: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for c in co_runs {
        let Some(alone) = base_runs.iter().find(|r| r.n == c.n && r.p == 1) else {
            continue;
        };
        let it = c.iters.max(1) as f64;
        for (name, cats) in &c.fragments {
            let pc = alone
                .fragments
                .get(name)
                .and_then(|a| a.get("pc").or_else(|| a.get("rt")))
                .copied()
                .unwrap_or(0.0)
                / it;
            let ml = cats.get("ml").copied().unwrap_or(0.0) / it;
            if pc > 0.0 && ml.is_finite() {
                let e = sums.entry(name.clone()).or_default();
                e.0 += ml * pc;
                e.1 += pc * pc;
            }
        }
    }
    sums.into_iter()
        .map(|(name, (mp, pp))| (name, if pp > 0.0 { (mp / pp).max(0.0) } else { 0.0 }))
        .collect()
}
