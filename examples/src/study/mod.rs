//! The end-to-end study: measure one parallel structure of a program, fit its fragments'
//! lost-cycles models, predict another structure with `lcm` before running it, then run it
//! and compare (Crovella section 6.3, done by the tools).
//!
//! [`run_study`] does the five steps for a [`Config`] and writes the report directory:
//!
//! 1. measure the base version (`dp` for the 2D FFT) at every size and every p from 1 to the
//!    cores, under pplib, profiled by `pp` with the p = 1 run as baseline ([`measure`]);
//!    for programs whose other version runs tasks side by side, also at p = 1 beside an
//!    uninstrumented instance of the program's kernels (co-run calibration,
//!    [`co_run_factors`]). All of it is timed round robin (one repetition of every point in
//!    turn, many rounds), each repetition watched for other load on the machine ([`load`]):
//!    only quiet repetitions count, the fastest is kept, and the report says how quiet the
//!    machine was ([`conditions`]);
//! 2. fit every fragment's categories with `lca`'s automatic search ([`fit`]; overheads that
//!    vanish at p = 1 as `(p - 1) * f`), derive each version's models with the case's
//!    structural rules ([`case::Case::version_fits`]) and write them into copies of both
//!    sources ([`annotate`]);
//! 3. price inter-processor data movement on this machine ([`calibrate_machine`], lcm's
//!    microbenchmarks) and, for a pipelined other version, the move of the handed-over data
//!    into the second stage at every size ([`crate::fft::transfer`]) and its hand-offs
//!    ([`crate::fft::handoff`], at the stage times the models predict), for the sharded
//!    histogram its kernels alone and on two threads at once ([`crate::histogram::kernels`],
//!    [`calibrate::kernel_prices`]), and predict both
//!    versions with `lcm` at every point of the other version ([`predict`]), before the
//!    other version has run (the predictions are written to disk first);
//! 4. run the other version (`tp`) at those points, round robin with the base version
//!    again (the ranking compares times taken under the same conditions), compare
//!    ([`compare`]): errors, rankings, measured ties (the two versions closer than the
//!    spread of their fastest repetitions) and the drift of the machine's speed between the
//!    phases (the base version's two timings, [`compare::drift_line`]);
//! 5. write `README.md`, `time.svg`, `categories.svg` ([`report`]).
//!
//! The last line the `study` binary prints is [`compare::Summary::line`].

pub mod annotate;
pub mod calibrate;
pub mod case;
pub mod compare;
pub mod conditions;
pub mod design;
pub mod findings;
pub mod fit;
pub mod load;
pub mod measure;
pub mod model;
pub mod plot;
pub mod predict;
pub mod report;
pub mod result;
pub mod run;

pub use calibrate::{
    calibrate_machine, co_run_factors, least_of_quiet, median_of_quiet, MIN_CO_RUN_PACE,
};
pub use case::point_vars;
pub use compare::FragmentCheck;
pub use conditions::{Conditions, TimingNote};
pub use findings::findings;
pub use predict::Handoff;
pub use result::{StudyError, StudyResult};

use case::Case;
use compare::{PointResult, Summary};
use design::{Design, ProgramKind};
use measure::{Repeats, Spec, Timing};
use model::FragmentFit;
use run::Run;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to study and where to write the report.
#[derive(Clone, Debug)]
pub struct Config {
    /// The program.
    pub program: ProgramKind,
    /// Smallest sizes and shorter runs.
    pub quick: bool,
    /// Report directory (created).
    pub out: PathBuf,
    /// Largest p (default: the available cores).
    pub cores: usize,
    /// Progress lines on stderr.
    pub verbose: bool,
}

impl Config {
    /// The default configuration for `program`: all available cores, report in
    /// `study-<program>`.
    pub fn new(program: ProgramKind) -> Config {
        Config {
            program,
            quick: false,
            out: PathBuf::from(format!("study-{}", program.name())),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            verbose: false,
        }
    }
}

fn write(path: &Path, text: &str) -> Result<(), StudyError> {
    std::fs::write(path, text).map_err(|source| StudyError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Allocations from this size up are mapped afresh in every run ([`run_study`]): glibc's
/// initial mmap threshold.
const FRESH_ALLOCATION_BYTES: usize = 128 << 10;

/// Per-execution records of a run of `iters` iterations: every category of a fragment's
/// record divided by `iters`, or for the case's [`Case::setup`] fragments by the number of
/// times the fragment ran.
fn per_execution_records(
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
/// [`Case::setup`] fragment ran, else the run's `iters`.
fn executions_per_run(profile: &pp::Profile, iters: u64, setup: &[&str]) -> u64 {
    match (&profile.tag, profile.executions) {
        (Some(tag), Some(runs)) if setup.contains(&tag.as_str()) => runs,
        _ => iters,
    }
}

/// Runs the study of `cfg` (see the module docs) and writes its report directory.
pub fn run_study(cfg: &Config) -> Result<StudyResult, StudyError> {
    let start = Instant::now();
    let case = Case::of(cfg.program);
    let design = Design::new(cfg.program, cfg.quick, cfg.cores);
    let cores = cfg.cores.max(2);
    let (base, other) = (case.base, case.other);
    let say = |msg: String| {
        if cfg.verbose {
            eprintln!("[{:6.1}s] {msg}", start.elapsed().as_secs_f64());
        }
    };
    // Every run allocates as in a process of its own: large blocks mapped afresh (their
    // first touch faults), not reused from what the previous run freed, which glibc does
    // for some runs and not others (it trims the heap when more than twice its mmap
    // threshold is free at its top: the TP 2D FFT's three matrices at n = 1024 were
    // trimmed and faulted again, DP's two reused).
    if !pplib::fresh_large_allocations(FRESH_ALLOCATION_BYTES) {
        say(
            "the C library kept its allocation policy: large blocks may be reused between runs"
                .into(),
        );
    }
    std::fs::create_dir_all(&cfg.out).map_err(|source| StudyError::Io {
        path: cfg.out.display().to_string(),
        source,
    })?;
    let logs = cfg.out.join("logs");
    std::fs::create_dir_all(&logs).map_err(|source| StudyError::Io {
        path: logs.display().to_string(),
        source,
    })?;
    let mut warnings = Vec::new();

    // 1. Measure the base version at every p (p = 1 is the baseline of its size) and, for
    // programs with a co-runner, at p = 1 beside it, all round robin per size.
    let mut gate = load::Gate::new(Duration::from_secs_f64(design.wait_budget));
    let load_before = load::load_average();
    let repeats = Repeats {
        quiet: design.reps,
        most: 3 * design.reps,
        wait: Duration::from_secs_f64(design.point_wait),
        budget: Duration::from_secs_f64(design.phase_budget),
    };
    let mut timings = Vec::new();
    let mut base_runs = Vec::new();
    let mut raw = format!(
        "# {} records: whole runs (pp -l --all-tags, p = 1 baseline)\n",
        base.name
    );
    let mut per_exec = format!(
        "# {} records per fragment execution (whole-run values / iterations)\n",
        base.name
    );
    let mut per_exec_records: Vec<pp::ProfileRecord> = Vec::new();
    let mut baselines: BTreeMap<u64, pp::Analysis> = BTreeMap::new();
    let mut calibration_seconds: BTreeMap<(u64, usize), f64> = BTreeMap::new();
    let mut co_runs: Vec<Run> = Vec::new();
    let mut co_raw = format!(
        "# {} at p = 1 beside a co-runner, per fragment execution (ml: slowdown against the lone p = 1 run, timed round robin with it)\n",
        base.name
    );
    let mut specs: Vec<Spec> = Vec::new();
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        for &p in &design.measured_ps {
            specs.push(Spec {
                version: &base,
                n,
                iters,
                p,
                beside: None,
            });
        }
        if let Some(co) = case.co_runner {
            specs.push(Spec {
                version: &base,
                n,
                iters,
                p: 1,
                beside: Some(co),
            });
        }
    }
    let rounds = |r: usize| say(format!("{} round {r} done", base.name));
    let timed = measure::time_round_robin(&specs, &repeats, &logs, &mut gate, &rounds)?;
    // Per size, the lone p = 1 run first: the baseline of the others.
    let mut order: Vec<(Spec, Timing)> = specs.iter().copied().zip(timed).collect();
    order.sort_by_key(|(s, _)| (s.n, s.beside.is_some(), s.p));
    {
        for (spec, t) in order {
            let (n, iters) = (spec.n, spec.iters);
            timings.push(TimingNote::of(&spec, &t));
            let mut m = measure::profile(&spec, t, baselines.get(&n))?;
            if spec.beside.is_some() {
                // The co-runner's pace beside the measurement against its lone pace: near
                // 1 when it ran beside the measurement (slowed only by sharing caches and
                // memory), near 1/2 or below when the two shared one core.
                let pace = m.timing.pace;
                say(format!(
                    "{} {}={n} p=1 beside a co-runner: {:.4} s (co-runner at {:.0}% of its lone pace)",
                    base.name,
                    case.size_var,
                    m.run.seconds,
                    100.0 * pace
                ));
                if pace.is_nan() || pace < MIN_CO_RUN_PACE {
                    warnings.push(format!(
                        "co-run calibration at {}={n}: the co-runner ran at {:.0}% of its lone pace (< {:.0}%): it shared a core with the measurement (other load on the host), so this size is left out of the co-run slowdown",
                        case.size_var,
                        100.0 * pace,
                        100.0 * MIN_CO_RUN_PACE
                    ));
                    continue;
                }
                let note = vec![
                    format!("{}={n}", case.size_var),
                    format!("impl={}-corun", base.name),
                ];
                for r in per_execution_records(&m.analysis, &note, iters, case.setup) {
                    let _ = writeln!(co_raw, "{r}");
                }
                co_runs.push(m.run);
                continue;
            }
            let p = spec.p;
            if p == 1 {
                let own = m.analysis.clone();
                warnings.extend(m.analysis.apply_baseline(&own));
                m.run.session = measure::categories_of(m.analysis.session());
                m.run.fragments = m
                    .analysis
                    .profiles
                    .iter()
                    .filter_map(|pr| pr.tag.clone().map(|t| (t, measure::categories_of(pr))))
                    .collect();
                baselines.insert(n, m.analysis.clone());
            }
            say(format!(
                "{} {}={n} p={p} iters={iters}: {:.4} s ({}/{} quiet repetitions, median {:+.1}%)",
                base.name,
                case.size_var,
                m.run.seconds,
                m.timing.quiet,
                m.timing.reps,
                100.0 * m.timing.spread()
            ));
            let mut note = vec![format!("{}={n}", case.size_var)];
            if let Some(v) = case.iters_var {
                note.push(format!("{v}={iters}"));
            }
            note.push(format!("impl={}", base.name));
            for line in m.analysis.record_lines(&note) {
                let _ = writeln!(raw, "{line}");
            }
            for r in per_execution_records(&m.analysis, &note, iters, case.setup) {
                let _ = writeln!(per_exec, "{r}");
                per_exec_records.push(r);
            }
            warnings.extend(m.analysis.warnings.iter().map(|w| format!("pp: {w}")));
            calibration_seconds.insert((n, p), m.run.seconds);
            base_runs.push(m.run);
        }
    }
    write(&cfg.out.join(format!("{}.pp", base.name)), &raw)?;
    if !co_runs.is_empty() {
        write(&cfg.out.join(format!("{}-co-run.pp", base.name)), &co_raw)?;
    }
    let co_run = co_run_factors(&base_runs, &co_runs);
    write(
        &cfg.out.join(format!("{}-per-execution.pp", base.name)),
        &per_exec,
    )?;

    // 2. Fit and annotate.
    // The records as lca reads them from the per-execution file (line 1 is its header).
    let records = lca::record::from_profile_records(2, &per_exec_records);
    let variables = vec![case.size_var.to_string(), "p".to_string()];
    let (fits, notes) = fit::fit_fragments(
        &records,
        &format!("{}-per-execution.pp", base.name),
        &variables,
    )?;
    warnings.extend(notes.into_iter().map(|n| format!("lca: {n}")));
    let models: Vec<_> = fits.iter().map(FragmentFit::model).collect();
    let models_text: String = models
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    write(&cfg.out.join("models.lcm"), &models_text)?;
    say(format!("fitted {} fragments", fits.len()));
    // Each version's fragment models: the structural rules of the case (per loop iteration,
    // locks per shard) and, for the other version's tasks that share the machine, the
    // co-run slowdown.
    let machine = calibrate_machine(cfg.quick);
    let machine_path = cfg.out.join("machine.txt");
    write(&machine_path, &machine.to_text())?;
    say(format!(
        "machine: latency {:.3e} s, bandwidth {:.3e} B/s",
        machine.latency_s, machine.bandwidth_bytes_per_s
    ));
    let kernels = calibrate::kernel_prices(&case, cfg.quick, &mut gate, repeats.wait / 3);
    if let Some(k) = &kernels {
        say(format!(
            "kernels: {} {:.2} ns/key, {} {:.2} ns/key alone and {:.2} ns/key (processor time) on two threads at once",
            base.name,
            1e9 * k.base_key_s,
            other.name,
            1e9 * k.other_key_s,
            1e9 * k.concurrent_key_s
        ));
    }
    let (base_fits, other_fits) = case.version_fits(&fits, &co_run, kernels.as_ref());
    let base_models: Vec<_> = base_fits.iter().map(FragmentFit::model).collect();
    let other_models: Vec<_> = other_fits.iter().map(FragmentFit::model).collect();
    let (other_src, missing_other) = annotate::annotate(other.source, &other_models);
    let (base_src, missing_base) = annotate::annotate(base.source, &base_models);
    for m in missing_other.iter().chain(&missing_base) {
        warnings.push(format!(
            "fragment {m} has no fitted model (not measured in {})",
            base.name
        ));
    }
    write(&cfg.out.join(other.file), &other_src)?;
    write(&cfg.out.join(base.file), &base_src)?;

    // 3. Predict both versions at every point, before the other version runs. The machine's
    // communication prices (lcm calibrate) price the data moves that only the other version
    // makes (lcm's data traces; the measured version's own moves are in its models).
    let base_path = cfg.out.join(base.file);
    let other_model = predict::Predictor::new(
        other.file,
        &other_src,
        case.entry,
        Some(&machine_path),
        Some(&base_path),
    )?;
    let base_model = predict::Predictor::new(
        base.file,
        &base_src,
        case.entry,
        Some(&machine_path),
        Some(&base_path),
    )?;
    warnings.extend(
        other_model
            .warnings
            .iter()
            .map(|w| format!("lcm ({}): {w}", other.file)),
    );
    warnings.extend(
        base_model
            .warnings
            .iter()
            .map(|w| format!("lcm ({}): {w}", base.file)),
    );
    let mut predictions = format!(
        "# lcm predictions (seconds) written before {} ran\n# {} p iters predicted_{} predicted_{}\n",
        other.name, case.size_var, other.name, base.name
    );
    let mut planned = Vec::new();
    let runs_other = |p: usize| design.predicted_ps.contains(&p) && p >= other.min_p;
    let mut handoffs = Vec::new();
    let mut transfers: BTreeMap<u64, f64> = BTreeMap::new();
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        // The data move into the second stage at this size (a microbenchmark of the
        // program's kernels): per run, the difference of its two transposes (timed
        // alternately, under the same conditions), the median over the quiet runs. (The
        // least of each transpose taken separately paired the luckiest transpose of one
        // kind with a typical one of the other: the difference then carried the noise.)
        let transfer = match case.pipeline {
            Some(pl) if design.predicted_ps.iter().any(|&p| runs_other(p)) => {
                let tries = if cfg.quick { 5 } else { 7 };
                let [t] = median_of_quiet(tries, &mut gate, repeats.wait / 3, || {
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
            _ => 0.0,
        };
        transfers.insert(n, transfer);
        for &p in &design.measured_ps {
            // The hand-off's price at the stage times the models predict here (measured by
            // a microbenchmark of the pipeline's wiring; the other version has not run).
            let handoff = match case.pipeline {
                Some(pl) if runs_other(p) => {
                    let vars = point_vars(&case, n, p, iters, 0.0, transfer);
                    let [a, b] = predict::stage_times(&other_model, &other_fits, &pl, &vars);
                    // The median of the runs during which no other load held a processor
                    // (of all when none was quiet), not the least: a waiting stage either
                    // catches the next item while it spins or sleeps until the kernel
                    // wakes it (tens of µs on a virtual machine), and runs differ by which
                    // of the two their waits settle in, not by disturbance; the least is
                    // the rare run whose waits were all caught.
                    let tries = if cfg.quick { 7 } else { 11 };
                    let [h] = median_of_quiet(tries, &mut gate, repeats.wait / 3, || {
                        [(pl.overhead)(a, b)]
                    });
                    handoffs.push(Handoff {
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
                _ => 0.0,
            };
            let vars = point_vars(&case, n, p, iters, handoff, transfer);
            let pb = base_model.seconds(&vars).unwrap_or_else(|e| {
                warnings.push(format!(
                    "lcm ({}) at {}={n} p={p}: {e}",
                    base.file, case.size_var
                ));
                f64::NAN
            });
            let po = if runs_other(p) {
                other_model.seconds(&vars).unwrap_or_else(|e| {
                    warnings.push(format!(
                        "lcm ({}) at {}={n} p={p}: {e}",
                        other.file, case.size_var
                    ));
                    f64::NAN
                })
            } else {
                f64::NAN
            };
            let _ = writeln!(predictions, "{n} {p} {iters} {po:e} {pb:e}");
            planned.push((n, p, iters, po, pb));
        }
    }
    write(&cfg.out.join("predictions.txt"), &predictions)?;
    say("predictions written".to_string());

    // 4. Run the other version and compare.
    let mut other_runs = Vec::new();
    let mut points = Vec::new();
    let mut base_only = Vec::new();
    let mut fragment_checks = Vec::new();
    // The other version at every point it runs, and the base version again there, round
    // robin: the ranking compares times taken under the same conditions.
    let mut specs: Vec<Spec> = Vec::new();
    for &(n, p, iters, _, _) in planned.iter().filter(|x| runs_other(x.1)) {
        for version in [&other, &base] {
            specs.push(Spec {
                version,
                n,
                iters,
                p,
                beside: None,
            });
        }
    }
    let rounds = |r: usize| say(format!("{} and {} round {r} done", other.name, base.name));
    let mut timed = measure::time_round_robin(&specs, &repeats, &logs, &mut gate, &rounds)?
        .into_iter()
        .zip(specs.iter().copied());
    for &(n, p, iters, po, pb) in &planned {
        let calibrated_base = calibration_seconds
            .get(&(n, p))
            .copied()
            .unwrap_or(f64::NAN);
        if !runs_other(p) {
            base_only.push((n, p, pb, calibrated_base));
            continue;
        }
        let (to, so) = timed.next().expect("a timing per spec");
        let (tb, sb) = timed.next().expect("a timing per spec");
        timings.push(TimingNote::of(&so, &to));
        timings.push(TimingNote::of(&sb, &tb));
        let measured_base = tb.seconds;
        let noise = to.kept_spread().max(tb.kept_spread());
        let _ = std::fs::remove_file(&tb.log);
        let m = measure::profile(&so, to, baselines.get(&n))?;
        say(format!(
            "{} {}={n} p={p}: measured {:.4} s ({}/{} quiet), predicted {:.4} s; {} again: {:.4} s",
            other.name,
            case.size_var,
            m.run.seconds,
            m.timing.quiet,
            m.timing.reps,
            po,
            base.name,
            measured_base
        ));
        for f in &other_fits {
            let Some(measured) = m.run.fragments.get(&f.name).and_then(|c| c.get("tt")) else {
                continue;
            };
            // The fragment's own window holds no hand-off (but the transfer): compare
            // without it.
            let transfer = transfers.get(&n).copied().unwrap_or(0.0);
            let at = point_vars(&case, n, p, iters, 0.0, transfer);
            let (p_f, comm) = predict::fragment_processors(&other_model, &f.name, &at);
            let mut vars: BTreeMap<String, f64> = at.into_iter().collect();
            vars.insert("p".into(), p_f);
            let runs = m
                .analysis
                .tag(&f.name)
                .map_or(iters, |pr| executions_per_run(pr, iters, case.setup));
            fragment_checks.push(FragmentCheck {
                n,
                p,
                fragment: f.name.clone(),
                p_fragment: p_f,
                predicted: f.seconds(&vars) + comm,
                measured: measured / p as f64 / runs.max(1) as f64,
            });
        }
        points.push(PointResult {
            n,
            p,
            iters,
            measured_base,
            calibrated_base,
            predicted_base: pb,
            measured: m.run.seconds,
            predicted: po,
            uncertainty: compare::uncertainty(pb, calibrated_base),
            noise,
        });
        other_runs.push(m.run);
    }
    let _ = std::fs::remove_dir_all(&logs);
    let conditions = Conditions {
        load_before,
        load_after: load::load_average(),
        waited: gate.waited.as_secs_f64(),
        busy_windows: gate.busy_windows,
        probed: gate.available,
        timings,
    };

    // 5. Report.
    let summary = Summary::of(&points);
    let mut result = StudyResult {
        case,
        design,
        cores,
        quick: cfg.quick,
        base_runs,
        other_runs,
        fits,
        other_fits,
        co_run,
        kernels,
        handoffs,
        points,
        base_only,
        fragment_checks,
        summary,
        findings: Vec::new(),
        warnings,
        conditions,
        elapsed: 0.0,
    };
    result.findings = findings(&result);
    result.elapsed = start.elapsed().as_secs_f64();
    report::write_report(&cfg.out, &result)?;
    Ok(result)
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
