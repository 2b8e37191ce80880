//! Phase 1, measure: the base version at every size and every p from 1 to the cores, under
//! pplib, profiled by `pp` with the p = 1 run as baseline, timed round robin by pp's
//! campaign runner ([`super::super::measure`]); its records per execution are pp's
//! ([`pp::campaign::per_execution_records`], what `pp-campaign --per-execution --iterations
//! iters --per-iteration TAGS` writes, with the base version's
//! [`crate::study::case::Version::per_iteration`]).

use super::Bench;
use crate::study::conditions::TimingNote;
use crate::study::measure::{self, Spec, Timing};
use crate::study::run::Run;
use crate::study::StudyError;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the measure phase found.
pub struct Measurement {
    /// The base version's runs (fastest quiet repetition of every point).
    pub base_runs: Vec<Run>,
    /// The p = 1 analysis of every size: the baseline of later runs there.
    pub baselines: BTreeMap<u64, pp::Analysis>,
    /// Seconds of the base version at every (size, p).
    pub calibration_seconds: BTreeMap<(u64, usize), f64>,
    /// Records per execution as written to `BASE-per-execution.pp` (the fitting phase's
    /// input, read as `lca model` reads that file): pp's rule, every fragment's record
    /// divided by its executions and the session's by the run's iterations.
    pub per_execution: String,
}

/// Runs the measure phase (see the module docs) and writes its record files.
pub fn measure(bench: &mut Bench) -> Result<Measurement, StudyError> {
    let (case, design) = (bench.case, bench.design);
    let base = &case.base;
    let mut specs: Vec<Spec> = Vec::new();
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        for &p in &design.measured_ps {
            specs.push(Spec {
                version: base,
                n,
                iters,
                p,
            });
        }
    }
    let timed = {
        let say = bench.sayer();
        let rounds = |r: usize| say(format!("{} round {r} done", base.name));
        let (repeats, logs) = (bench.repeats, bench.logs.clone());
        measure::time_round_robin(&specs, &repeats, &logs, &mut bench.gate, &rounds)?
    };
    // Per size, the lone p = 1 run first: the baseline of the others.
    let mut order: Vec<(Spec, Timing)> = specs.iter().copied().zip(timed).collect();
    order.sort_by_key(|(s, _)| (s.n, s.p));
    let mut m = Measurement {
        base_runs: Vec::new(),
        baselines: BTreeMap::new(),
        calibration_seconds: BTreeMap::new(),
        per_execution: format!(
            "# {} records per execution (pp::campaign::per_execution: each fragment's over its \
             executions, the session's{} over the run's iterations)\n",
            base.name,
            base.per_iteration
                .iter()
                .map(|t| format!(" and {t}'s"))
                .collect::<String>()
        ),
    };
    let mut raw = format!(
        "# {} records: whole runs (pp -l --all-tags, p = 1 baseline)\n",
        base.name
    );
    for (spec, t) in order {
        bench.timings.push(TimingNote::of(&spec, &t));
        let measured = measure::profile(&spec, t, m.baselines.get(&spec.n))?;
        alone(bench, &mut m, &mut raw, &spec, measured);
    }
    bench.write(&format!("{}.pp", base.name), &raw)?;
    bench.write(&format!("{}-per-execution.pp", base.name), &m.per_execution)?;
    Ok(m)
}

/// Takes in a run of the base version alone: records, baseline (p = 1), seconds.
fn alone(
    bench: &mut Bench,
    m: &mut Measurement,
    raw: &mut String,
    spec: &Spec,
    mut measured: measure::Measured,
) {
    let case = bench.case;
    let (n, p, iters) = (spec.n, spec.p, spec.iters);
    if p == 1 {
        let own = measured.analysis.clone();
        bench
            .warnings
            .extend(measured.analysis.apply_baseline(&own));
        measured.run.session = measure::categories_of(measured.analysis.session());
        measured.run.fragments = measured
            .analysis
            .profiles
            .iter()
            .filter_map(|pr| pr.tag.clone().map(|t| (t, measure::categories_of(pr))))
            .collect();
        m.baselines.insert(n, measured.analysis.clone());
    }
    bench.say(format!(
        "{} {}={n} p={p} iters={iters}: {:.4} s ({}/{} quiet repetitions, median {:+.1}%)",
        case.base.name,
        case.size_var,
        measured.run.seconds,
        measured.timing.quiet,
        measured.timing.reps,
        100.0 * measured.timing.spread()
    ));
    let mut note = vec![format!("{}={n}", case.size_var)];
    if let Some(v) = case.iters_var {
        note.push(format!("{v}={iters}"));
    }
    note.push(format!("impl={}", case.base.name));
    for line in measured.analysis.record_lines(&note) {
        let _ = writeln!(raw, "{line}");
    }
    let run = pp::campaign::RunDivision {
        iterations: iters,
        per_iteration: case
            .base
            .per_iteration
            .iter()
            .map(|t| t.to_string())
            .collect(),
    };
    for r in pp::campaign::per_execution_records(&measured.analysis, &note, &run) {
        let _ = writeln!(m.per_execution, "{r}");
    }
    bench.warnings.extend(
        measured
            .analysis
            .warnings
            .iter()
            .map(|w| format!("pp: {w}")),
    );
    m.calibration_seconds.insert((n, p), measured.run.seconds);
    m.base_runs.push(measured.run);
}
