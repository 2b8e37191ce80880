//! Calibrations the study makes besides measuring the programs: the machine's communication
//! prices (lcm's microbenchmarks) and the co-run slowdown of the fragments when a second
//! instance of the program's kernels shares the machine.

use super::run::Run;
use std::collections::BTreeMap;

/// The machine's communication prices with lcm's microbenchmarks, made robust to a shared
/// host: many short ping-pongs and copies, the best of each kept (other load only ever makes
/// them slower, as the fastest repetition of a program run is kept).
pub fn calibrate_machine(quick: bool) -> lcm::predict::machine::Machine {
    use lcm::predict::machine::{measure_bandwidth, measure_latency, Machine};
    let (trips, tries, bytes) = if quick {
        (1_000, 9, 4 << 20)
    } else {
        (2_000, 15, 16 << 20)
    };
    let latency_s = (0..tries)
        .map(|_| measure_latency(trips, 1))
        .filter(|x| x.is_finite() && *x > 0.0)
        .fold(f64::INFINITY, f64::min);
    let bandwidth_bytes_per_s = (0..tries / 2)
        .map(|_| measure_bandwidth(bytes, 1))
        .filter(|x| x.is_finite() && *x > 0.0)
        .fold(0.0, f64::max);
    let default = Machine::default();
    Machine {
        latency_s: if latency_s.is_finite() {
            latency_s
        } else {
            default.latency_s
        },
        bandwidth_bytes_per_s: if bandwidth_bytes_per_s > 0.0 {
            bandwidth_bytes_per_s
        } else {
            default.bandwidth_bytes_per_s
        },
        origin: format!(
            "the study: lcm's ping-pong ({trips} round trips, best of {tries}) and copy of {} MiB written by another thread (best of {})",
            bytes >> 20,
            tries / 2
        ),
    }
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
