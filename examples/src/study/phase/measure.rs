//! Phase 1, measure: the base version at every size and every p from 1 to the cores, under
//! pplib, profiled by `pp` with the p = 1 run as baseline, timed round robin by pp's
//! campaign runner ([`super::super::measure`]).

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
    /// Records per fragment execution as written to `BASE-per-execution.pp` (the fitting
    /// phase's input, read as `lca model` reads that file).
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
            "# {} records per fragment execution (whole-run values / iterations)\n",
            base.name
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
    for r in per_execution_records(&measured.analysis, &note, iters, case.setup) {
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

/// Per-execution records of a run of `iters` iterations: every category of a fragment's
/// record divided by `iters`, or for the case's setup fragments
/// ([`crate::study::case::Case::setup`]) by the number of times the fragment ran.
pub fn per_execution_records(
    analysis: &pp::Analysis,
    note: &[String],
    iters: u64,
    setup: &[&str],
) -> Vec<pp::ProfileRecord> {
    analysis
        .profiles
        .iter()
        .zip(analysis.records(note))
        .map(|(profile, r)| r.divided(executions_per_run(profile, iters, setup)))
        .collect()
}

/// What a run's amounts of `profile` are divided by for per-execution values: the times a
/// setup fragment ran, else the run's `iters`.
pub fn executions_per_run(profile: &pp::Profile, iters: u64, setup: &[&str]) -> u64 {
    match (&profile.tag, profile.executions) {
        (Some(tag), Some(runs)) if setup.contains(&tag.as_str()) => runs,
        _ => iters,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_fragments_are_divided_by_their_executions_others_by_the_iterations() {
        // One thread, p = 1: `alloc` twice (1 ms each) before a loop of 3 iterations of
        // `work` (2 ms each).
        let text = "pptrace 1\nprocessors 1\n0 0 session_begin\n\
            0 0 frag_begin alloc\n1000000 0 frag_end alloc\n\
            1000000 0 frag_begin alloc\n2000000 0 frag_end alloc\n\
            2000000 0 frag_begin work\n4000000 0 frag_end work\n\
            4000000 0 frag_begin work\n6000000 0 frag_end work\n\
            6000000 0 frag_begin work\n8000000 0 frag_end work\n\
            8000000 0 session_end\n";
        let a = pp::analyze_bytes(
            text.as_bytes().to_vec(),
            "t.pptrace",
            &pp::Options::all_tags(),
        )
        .expect("a valid trace");
        let lines: Vec<String> = per_execution_records(&a, &["n=1".to_string()], 3, &["alloc"])
            .iter()
            .map(|r| r.to_string())
            .collect();
        let rt = |tag: &str| {
            let line = lines
                .iter()
                .find(|l| l.contains(&format!("tag={tag} ")))
                .expect("a record of the tag");
            let v = line.split(' ').find_map(|t| t.strip_prefix("rt=")).unwrap();
            v.parse::<f64>().unwrap()
        };
        assert!((rt("alloc") - 0.001).abs() < 1e-12, "{lines:?}");
        assert!((rt("work") - 0.002).abs() < 1e-12, "{lines:?}");
        // Without the setup list, every fragment is per iteration.
        let lines: Vec<String> = per_execution_records(&a, &["n=1".to_string()], 3, &[])
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert!(lines
            .iter()
            .any(|l| l.contains("tag=alloc") && l.contains("rt=0.000666")));
    }

    #[test]
    fn per_execution_divides_parts_of_categories_too() {
        // fj is a part of li: per execution like li, and p and the note stay as they are.
        use pp::Category::*;
        let r = pp::ProfileRecord {
            note: vec![("n".into(), "1".into())],
            tag: None,
            processors: 2,
            categories: vec![
                (Li, 0.006),
                (Fj, 0.004),
                (Ip, 0.0),
                (Rt, 0.012),
                (Tt, 0.018),
            ],
        };
        let line = r.divided(2).to_string();
        assert_eq!(line, "n=1 p=2 li=0.003 fj=0.002 ip=0 rt=0.006 tt=0.009");
    }
}
