//! Phase 4, validate: the other version run at the points it was predicted at, round robin
//! with the base version again (the ranking compares times taken under the same
//! conditions), and compared with the predictions: errors, rankings, measured ties, and per
//! fragment ([`crate::study::compare`]).

use super::measure::Measurement;
use super::predict::{Planned, Predictions};
use super::Bench;
use crate::study::compare::{self, FragmentCheck, PointResult};
use crate::study::conditions::TimingNote;
use crate::study::measure::{self, Spec};
use crate::study::predict as lcm_predict;
use crate::study::run::Run;
use crate::study::StudyError;

/// What the validation phase measured and compared.
pub struct Validation {
    /// One entry per point of the other version.
    pub points: Vec<PointResult>,
    /// Points where only the base version runs: (size, p, predicted, measured) seconds.
    pub base_only: Vec<(u64, usize, f64, f64)>,
    /// Per-fragment comparison in the other version's runs.
    pub fragment_checks: Vec<FragmentCheck>,
    /// The other version's runs.
    pub other_runs: Vec<Run>,
}

/// Runs the validation phase (see the module docs).
pub fn validate(
    bench: &mut Bench,
    measured: &Measurement,
    predicted: &Predictions,
) -> Result<Validation, StudyError> {
    let case = bench.case;
    let (base, other) = (&case.base, &case.other);
    let mut specs: Vec<Spec> = Vec::new();
    for x in predicted.planned.iter().filter(|x| bench.runs_other(x.p)) {
        for version in [other, base] {
            specs.push(Spec {
                version,
                n: x.n,
                iters: x.iters,
                p: x.p,
            });
        }
    }
    let timed = {
        let say = bench.sayer();
        let rounds = |r: usize| say(format!("{} and {} round {r} done", other.name, base.name));
        let (repeats, logs) = (bench.repeats, bench.logs.clone());
        measure::time_round_robin(&specs, &repeats, &logs, &mut bench.gate, &rounds)?
    };
    let mut timed = timed.into_iter().zip(specs.iter().copied());
    let mut v = Validation {
        points: Vec::new(),
        base_only: Vec::new(),
        fragment_checks: Vec::new(),
        other_runs: Vec::new(),
    };
    for x in &predicted.planned {
        let calibrated_base = measured
            .calibration_seconds
            .get(&(x.n, x.p))
            .copied()
            .unwrap_or(f64::NAN);
        if !bench.runs_other(x.p) {
            v.base_only.push((x.n, x.p, x.base, calibrated_base));
            continue;
        }
        let (to, so) = timed.next().expect("a timing per spec");
        let (tb, sb) = timed.next().expect("a timing per spec");
        bench.timings.push(TimingNote::of(&so, &to));
        bench.timings.push(TimingNote::of(&sb, &tb));
        let measured_base = tb.seconds;
        let noise = to.kept_spread().max(tb.kept_spread());
        let _ = std::fs::remove_file(&tb.log);
        let m = measure::profile(&so, to, measured.baselines.get(&x.n))?;
        bench.say(format!(
            "{} {}={} p={}: measured {:.4} s ({}/{} quiet), predicted {:.4} s; {} again: {:.4} s",
            other.name,
            case.size_var,
            x.n,
            x.p,
            m.run.seconds,
            m.timing.quiet,
            m.timing.reps,
            x.other,
            base.name,
            measured_base
        ));
        v.fragment_checks
            .extend(fragment_checks(bench, predicted, x, &m));
        v.points.push(PointResult {
            n: x.n,
            p: x.p,
            iters: x.iters,
            measured_base,
            calibrated_base,
            predicted_base: x.base,
            measured: m.run.seconds,
            predicted: x.other,
            uncertainty: compare::uncertainty(x.base, calibrated_base),
            noise,
        });
        v.other_runs.push(m.run);
    }
    Ok(v)
}

/// Every fragment of the other version at `x`: its predicted time against its measured
/// time per execution, on the processors it ran on.
fn fragment_checks(
    bench: &Bench,
    predicted: &Predictions,
    x: &Planned,
    m: &measure::Measured,
) -> Vec<FragmentCheck> {
    let case = bench.case;
    let (n, p, iters) = (x.n, x.p, x.iters);
    let run = pp::campaign::RunDivision {
        iterations: iters,
        per_iteration: case
            .other
            .per_iteration
            .iter()
            .map(|t| t.to_string())
            .collect(),
    };
    let mut out = Vec::new();
    for f in &predicted.other_fits {
        let Some(measured) = m.run.fragments.get(&f.name).and_then(|c| c.get("tt")) else {
            continue;
        };
        let mut at = case.bindings(n, p, iters);
        at.extend(predicted.machine_vars.iter().cloned());
        let (p_f, predicted_s) = lcm_predict::fragment_time(&predicted.other_model, &f.name, &at)
            .unwrap_or((f64::NAN, f64::NAN));
        let runs = m
            .analysis
            .tag(&f.name)
            .map_or(iters, |pr| pp::campaign::executions_per_run(pr, &run));
        out.push(FragmentCheck {
            n,
            p,
            fragment: f.name.clone(),
            p_fragment: p_f,
            predicted: predicted_s,
            measured: measured / p as f64 / runs.max(1) as f64,
        });
    }
    out
}
