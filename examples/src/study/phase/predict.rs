//! Phase 3, predict: both versions predicted by `lcm` at every design point, before the
//! other version runs (the predictions are written to `predictions.txt` first). The
//! machine's communication prices price the data moves only the other version makes; for a
//! pipelined other version, the move of the handed-over data into the second stage
//! ([`crate::fft::transfer`]) and its hand-offs ([`crate::fft::handoff`], at the stage
//! times the models predict) are measured by microbenchmarks first.

use super::fit::Fitted;
use super::Bench;
use crate::study::calibrate::median_of_quiet;
use crate::study::case::point_vars;
use crate::study::model::FragmentFit;
use crate::study::predict::{self as lcm_predict, Handoff, Predictor};
use crate::study::StudyError;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One design point's predictions (seconds; NaN where the version does not run or lcm
/// failed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planned {
    /// Size.
    pub n: u64,
    /// Processors.
    pub p: usize,
    /// Iterations.
    pub iters: u64,
    /// The other version's predicted seconds.
    pub other: f64,
    /// The base version's predicted seconds.
    pub base: f64,
}

/// What the predict phase produced.
pub struct Predictions {
    /// Every design point, sizes in order, then p.
    pub planned: Vec<Planned>,
    /// The hand-off prices measured for a pipelined other version.
    pub handoffs: Vec<Handoff>,
    /// The transfer price at every size (0 without a pipeline).
    pub transfers: BTreeMap<u64, f64>,
    /// lcm's model of the other version (for per-fragment checks).
    pub other_model: Predictor,
    /// The other version's fragment models as lcm resolved them (derived by its rules).
    pub other_fits: Vec<FragmentFit>,
}

/// Runs the predict phase on `fitted` (see the module docs).
pub fn predict(bench: &mut Bench, fitted: &Fitted) -> Result<Predictions, StudyError> {
    let (case, design) = (bench.case, bench.design);
    let (base, other) = (&case.base, &case.other);
    let machine = Some(fitted.machine_path.as_path());
    let base_path = Some(fitted.base_path.as_path());
    let models = fitted.models_path.as_path();
    let other_model = Predictor::new(
        other.file,
        fitted.other_src,
        case.entry,
        models,
        machine,
        base_path,
    )?;
    let base_model = Predictor::new(
        base.file,
        fitted.base_src,
        case.entry,
        models,
        machine,
        base_path,
    )?;
    let other_fits = other_model.fragment_fits(&fitted.fits);
    for (model, file) in [(&other_model, other.file), (&base_model, base.file)] {
        let ws = model.warnings.iter().map(|w| format!("lcm ({file}): {w}"));
        bench.warnings.extend(ws);
    }
    let mut text = format!(
        "# lcm predictions (seconds) written before {} ran\n# {} p iters predicted_{} predicted_{}\n",
        other.name, case.size_var, other.name, base.name
    );
    let mut out = Predictions {
        planned: Vec::new(),
        handoffs: Vec::new(),
        transfers: BTreeMap::new(),
        other_model,
        other_fits,
    };
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        let transfer = transfer_at(bench, n);
        out.transfers.insert(n, transfer);
        for &p in &design.measured_ps {
            let handoff = handoff_at(bench, fitted, &mut out, n, p, iters, transfer);
            let vars = point_vars(case, n, p, iters, handoff, transfer, &fitted.rules);
            let at = |bench: &mut Bench, model: &Predictor, file: &str| {
                model.seconds(&vars).unwrap_or_else(|e| {
                    bench
                        .warnings
                        .push(format!("lcm ({file}) at {}={n} p={p}: {e}", case.size_var));
                    f64::NAN
                })
            };
            let pb = at(bench, &base_model, base.file);
            let po = if bench.runs_other(p) {
                at(bench, &out.other_model, other.file)
            } else {
                f64::NAN
            };
            let _ = writeln!(text, "{n} {p} {iters} {po:e} {pb:e}");
            out.planned.push(Planned {
                n,
                p,
                iters,
                other: po,
                base: pb,
            });
        }
    }
    bench.write("predictions.txt", &text)?;
    bench.say("predictions written".to_string());
    Ok(out)
}

/// The data move into the second stage at size `n` (a microbenchmark of the program's
/// kernels): per run, the difference of its two transposes (timed alternately, under the
/// same conditions), the median over the quiet runs. (The least of each transpose taken
/// separately paired the luckiest transpose of one kind with a typical one of the other:
/// the difference then carried the noise.) 0 without a pipeline.
fn transfer_at(bench: &mut Bench, n: u64) -> f64 {
    let Some(pl) = bench.case.pipeline else {
        return 0.0;
    };
    if !bench
        .design
        .predicted_ps
        .iter()
        .any(|&p| bench.runs_other(p))
    {
        return 0.0;
    }
    let tries = if bench.cfg.quick { 5 } else { 7 };
    let wait = bench.repeats.wait / 3;
    let [t] = median_of_quiet(tries, &mut bench.gate, wait, || {
        let (own, moved) = (pl.transfer)(n);
        [moved - own]
    });
    let t = t.max(0.0);
    if t.is_finite() {
        t
    } else {
        0.0
    }
}

/// The hand-off's price at (n, p) at the stage times the models predict there (measured by
/// a microbenchmark of the pipeline's wiring; the other version has not run), recorded in
/// `out.handoffs`. The median of the runs during which no other load held a processor (of
/// all when none was quiet), not the least: a waiting stage either catches the next item
/// while it spins or sleeps until the kernel wakes it (tens of µs on a virtual machine),
/// and runs differ by which of the two their waits settle in, not by disturbance; the
/// least is the rare run whose waits were all caught. 0 without a pipeline.
fn handoff_at(
    bench: &mut Bench,
    fitted: &Fitted,
    out: &mut Predictions,
    n: u64,
    p: usize,
    iters: u64,
    transfer: f64,
) -> f64 {
    let Some(pl) = bench.case.pipeline else {
        return 0.0;
    };
    if !bench.runs_other(p) {
        return 0.0;
    }
    let vars = point_vars(bench.case, n, p, iters, 0.0, transfer, &fitted.rules);
    let [a, b] = lcm_predict::stage_times(&out.other_model, &vars);
    let tries = if bench.cfg.quick { 7 } else { 11 };
    let wait = bench.repeats.wait / 3;
    let [h] = median_of_quiet(tries, &mut bench.gate, wait, || [(pl.overhead)(a, b)]);
    out.handoffs.push(Handoff {
        n,
        p,
        stages: [a, b],
        seconds: h,
        transfer,
    });
    if h.is_finite() {
        h
    } else {
        0.0
    }
}
