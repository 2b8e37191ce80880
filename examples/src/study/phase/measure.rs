//! Phase 1, measure: the base version at every size and every p from 1 to the cores, under
//! pplib, profiled by `pp` with the p = 1 run as baseline, timed round robin by pp's
//! campaign runner ([`super::super::measure`]); its records per execution are pp's
//! ([`pp::campaign::per_execution_records`], what `pp-campaign --per-execution --iterations
//! iters --per-iteration TAGS` writes, with the base version's
//! [`crate::study::case::Version::per_iteration`]).
//!
//! pp's warnings about the runs go into the report's warnings: each run's own as they come,
//! and the checks every run gets (disturbance, the recording's cost) one line per kind at
//! the end ([`pp::campaign::RunWarnings`], as `pp-campaign` tells them).

use super::Bench;
use crate::study::conditions::TimingNote;
use crate::study::measure::{self, Spec, Timing};
use crate::study::run::Run;
use crate::study::StudyError;
use pp::campaign::{RunAt, RunWarnings};
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
    let cores = std::thread::available_parallelism().ok().map(|c| c.get());
    let mut checks = RunWarnings::on_cores(cores);
    for (spec, t) in order {
        bench.timings.push(TimingNote::of(&spec, &t));
        let measured = measure::profile(&spec, t, m.baselines.get(&spec.n))?;
        let label = format!("{} {}={} p={}", base.name, case.size_var, spec.n, spec.p);
        let at = RunAt {
            point: &label,
            p: spec.p,
            round: None,
            quiet: measured.timing.foreign.map(|_| measured.timing.quiet > 0),
        };
        take_warnings(&mut bench.warnings, &mut checks, &measured.analysis, at);
        alone(bench, &mut m, &mut raw, &spec, measured);
    }
    bench.warnings.extend(checks_warnings(&checks));
    bench.write(&format!("{}.pp", base.name), &raw)?;
    bench.write(&format!("{}-per-execution.pp", base.name), &m.per_execution)?;
    Ok(m)
}

/// Adds pp's warnings about the run `analysis` (made `at`) to `warnings`, each with its
/// point, but for those of the checks every run gets, which `checks` collects.
fn take_warnings(
    warnings: &mut Vec<String>,
    checks: &mut RunWarnings,
    analysis: &pp::Analysis,
    at: RunAt,
) {
    let own = checks.add(analysis, at);
    warnings.extend(own.into_iter().map(|w| format!("pp ({}): {w}", at.point)));
}

/// The report's lines about the checks every run gets: one per kind that some run tripped.
fn checks_warnings(checks: &RunWarnings) -> Vec<String> {
    checks
        .lines()
        .into_iter()
        .map(|l| format!("pp: {l}"))
        .collect()
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
    m.calibration_seconds.insert((n, p), measured.run.seconds);
    m.base_runs.push(measured.run);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A p = 1 run Busy for 20 ms with `cpu_ms` of CPU time and `switches` involuntary
    /// context switches (os = 20 − cpu_ms ms; 50 switches per Busy second each).
    fn run(cpu_ms: f64, switches: u64) -> pp::Analysis {
        let text = format!(
            "pptrace 1\nprocessors 1\n0 0 session_begin\n0 0 counters cpu_ns=0 nivcsw=0\n\
             20000000 0 counters cpu_ns={} nivcsw={switches}\n20000000 0 session_end\n",
            (cpu_ms * 1e6) as u64
        );
        pp::analyze_bytes(text.into_bytes(), "t.pptrace", &pp::Options::default()).unwrap()
    }

    /// Five preempted runs (two of them also over the os limit) give one line per kind in
    /// the report's warnings, whatever the number of runs, and a run's own other warning
    /// stays its own.
    #[test]
    fn the_warnings_list_each_kind_of_check_once() {
        let mut warnings = Vec::new();
        let mut checks = RunWarnings::on_cores(Some(4));
        let runs = [(19.9, 1), (19.9, 2), (19.9, 3), (18.0, 1), (17.0, 2)];
        for (k, (cpu_ms, switches)) in runs.into_iter().enumerate() {
            let label = format!("dp n=64 p={}", k + 1);
            let at = RunAt {
                point: &label,
                p: k + 1,
                round: None,
                quiet: Some(true),
            };
            take_warnings(&mut warnings, &mut checks, &run(cpu_ms, switches), at);
        }
        // A p = 2 run whose log shows one thread: pp's own warning about it, per run.
        let mut serial = run(20.0, 0);
        serial
            .warnings
            .push("only 1 thread(s) appeared but p = 2".into());
        let at = RunAt {
            point: "dp n=64 p=2",
            p: 2,
            round: None,
            quiet: Some(true),
        };
        take_warnings(&mut warnings, &mut checks, &serial, at);
        warnings.extend(checks_warnings(&checks));
        assert_eq!(warnings.len(), 3, "{warnings:#?}");
        assert_eq!(
            warnings[0],
            "pp (dp n=64 p=2): only 1 thread(s) appeared but p = 2"
        );
        let of_kind = |what: &str| warnings.iter().filter(|w| w.contains(what)).count();
        assert_eq!(of_kind("involuntary context switches"), 0, "{warnings:#?}");
        assert_eq!(of_kind("preempted more than 10 times"), 1, "{warnings:#?}");
        assert_eq!(of_kind("waited more than 2% of tt"), 1, "{warnings:#?}");
        assert!(
            warnings[2].starts_with(
                "pp: 5 of 6 profiled runs had their Busy threads preempted more than 10 times \
                 per Busy second (worst 150 at dp n=64 p=3)"
            ),
            "{}",
            warnings[2]
        );
        assert!(warnings[2].contains("the quiet gate counted all 5 quiet"));
    }
}
