//! The end-to-end study: measure one parallel structure of a program, fit its fragments'
//! lost-cycles models, predict another structure with `lcm` before running it, then run it
//! and compare (issue 7; Crovella section 6.3 done by the tools).
//!
//! [`run_study`] does the five steps for a [`Config`] and writes the report directory:
//!
//! 1. measure the base version (`dp` for the 2D FFT) at every size and every p from 1 to the
//!    cores, under pplib, profiled by `pp` with the p = 1 run as baseline ([`measure`]);
//!    for programs whose other version runs tasks side by side, also at p = 1 beside an
//!    uninstrumented instance of the program's kernels (co-run calibration,
//!    [`co_run_factors`]);
//! 2. fit every fragment's categories with `lca`'s automatic search ([`fit`]; overheads that
//!    vanish at p = 1 as `(p - 1) * f`), derive each version's models with the case's
//!    structural rules ([`case::Case::version_fits`]) and write them into copies of both
//!    sources ([`annotate`]);
//! 3. price inter-processor data movement on this machine ([`calibrate_machine`], lcm's
//!    microbenchmarks) and predict both versions with `lcm` at every point of the other
//!    version ([`predict`]), before the other version has run (the predictions are written to
//!    disk first);
//! 4. run the other version (`tp`) at those points, compare ([`compare`]);
//! 5. write `README.md`, `time.svg`, `categories.svg` ([`report`]).
//!
//! The last line the `study` binary prints is [`compare::Summary::line`].

pub mod annotate;
pub mod case;
pub mod compare;
pub mod design;
pub mod fit;
pub mod measure;
pub mod model;
pub mod plot;
pub mod predict;
pub mod report;
pub mod run;

use case::Case;
use compare::{PointResult, Summary};
use design::{Design, ProgramKind};
use model::FragmentFit;
use run::Run;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

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

/// A fragment of the predicted version at one point: predicted vs measured time per
/// execution.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentCheck {
    /// Size.
    pub n: u64,
    /// Processors of the run.
    pub p: usize,
    /// Fragment.
    pub fragment: String,
    /// Processors the fragment runs on (its task's share).
    pub p_fragment: f64,
    /// Predicted seconds per execution.
    pub predicted: f64,
    /// Measured seconds per execution (window length / iterations).
    pub measured: f64,
}

/// Everything a study found.
pub struct StudyResult {
    /// The program and its versions.
    pub case: Case,
    /// The design.
    pub design: Design,
    /// Cores used (largest p).
    pub cores: usize,
    /// Whether it was a quick run.
    pub quick: bool,
    /// Runs of the measured version.
    pub base_runs: Vec<Run>,
    /// Runs of the predicted version.
    pub other_runs: Vec<Run>,
    /// The fitted models.
    pub fits: Vec<FragmentFit>,
    /// The models written into the other version's copy (the fitted ones after the case's
    /// structural rules and the co-run slowdown).
    pub other_fits: Vec<FragmentFit>,
    /// Co-run calibration: per fragment, the slowdown beside another instance of the
    /// program as a share of its pure computation (added to the other version's `ml`).
    pub co_run: Vec<(String, f64)>,
    /// One entry per point of the predicted version.
    pub points: Vec<PointResult>,
    /// Points where only the base version runs: (size, p, predicted, measured) seconds.
    pub base_only: Vec<(u64, usize, f64, f64)>,
    /// Per-fragment comparison in the predicted version's runs.
    pub fragment_checks: Vec<FragmentCheck>,
    /// The summary.
    pub summary: Summary,
    /// Where and why predictions fall short.
    pub findings: Vec<String>,
    /// Warnings of the tools.
    pub warnings: Vec<String>,
    /// Seconds the study took.
    pub elapsed: f64,
}

/// Errors of a study.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A measurement failed.
    #[error(transparent)]
    Measure(#[from] measure::MeasureError),
    /// Fitting failed.
    #[error(transparent)]
    Fit(#[from] fit::FitStepError),
    /// Prediction could not start (the annotated source is not understood).
    #[error(transparent)]
    Predict(#[from] predict::PredictStepError),
    /// The report could not be written.
    #[error(transparent)]
    Report(#[from] report::ReportError),
    /// Records written by pp could not be read back.
    #[error("reading back the records: {0}")]
    Records(String),
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

fn write(path: &Path, text: &str) -> Result<(), StudyError> {
    std::fs::write(path, text).map_err(|source| StudyError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Divides every category of a record line by `iters`: per-execution records.
fn per_execution(line: &str, iters: u64) -> String {
    let cats = lca::record::CATEGORY_KEYS;
    line.split(' ')
        .map(|tok| match tok.split_once('=') {
            Some((k, v)) if cats.contains(&k) => match v.parse::<f64>() {
                Ok(x) => format!("{k}={}", pp::format_seconds(x / iters.max(1) as f64)),
                Err(_) => tok.to_string(),
            },
            _ => tok.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

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

    // 1. Measure the base version, p = 1 first (the baseline of its size).
    let mut base_runs = Vec::new();
    let mut raw = format!(
        "# {} records: whole runs (pp -l --all-tags, p = 1 baseline)\n",
        base.name
    );
    let mut per_exec = format!(
        "# {} records per fragment execution (whole-run values / iterations)\n",
        base.name
    );
    let mut baselines: BTreeMap<u64, pp::Analysis> = BTreeMap::new();
    let mut co_runs: Vec<Run> = Vec::new();
    let mut co_raw = format!(
        "# {} at p = 1 beside a co-runner, per fragment execution (ml: slowdown against the lone p = 1 run)\n",
        base.name
    );
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        for &p in &design.measured_ps {
            let mut m =
                measure::measure(&base, n, p, iters, design.reps, &logs, baselines.get(&n))?;
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
                "{} {}={n} p={p} iters={iters}: {:.4} s",
                base.name, case.size_var, m.run.seconds
            ));
            let mut note = vec![format!("{}={n}", case.size_var)];
            if let Some(v) = case.iters_var {
                note.push(format!("{v}={iters}"));
            }
            note.push(format!("impl={}", base.name));
            for line in m.analysis.record_lines(&note) {
                let _ = writeln!(raw, "{line}");
                let _ = writeln!(per_exec, "{}", per_execution(&line, iters));
            }
            warnings.extend(m.analysis.warnings.iter().map(|w| format!("pp: {w}")));
            base_runs.push(m.run);
        }
        // Co-run calibration: the base version at p = 1 again, beside an uninstrumented
        // instance of the program's kernels, with the lone p = 1 run as baseline (its `ml`
        // is then the slowdown from sharing the machine).
        if let (Some(co), Some(b)) = (case.co_runner, baselines.get(&n)) {
            let version = case::Version {
                name: "corun",
                ..base
            };
            let (m, pace) =
                measure::measure_beside(&version, n, 1, iters, design.reps, &logs, b, co)?;
            // The co-runner's pace beside the measurement against its lone pace: near 1
            // when it ran beside the measurement (slowed only by sharing caches and
            // memory), near 1/2 or below when the two shared one core because other load
            // held the other.
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
            for line in m.analysis.record_lines(&note) {
                let _ = writeln!(co_raw, "{}", per_execution(&line, iters));
            }
            co_runs.push(m.run);
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
    let records =
        lca::record::parse_records(&per_exec).map_err(|e| StudyError::Records(e.to_string()))?;
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
    let (base_fits, other_fits) = case.version_fits(&fits, &co_run);
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
    let machine = calibrate_machine(cfg.quick);
    let machine_path = cfg.out.join("machine.txt");
    write(&machine_path, &machine.to_text())?;
    say(format!(
        "machine: latency {:.3e} s, bandwidth {:.3e} B/s",
        machine.latency_s, machine.bandwidth_bytes_per_s
    ));
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
    for &n in &design.sizes {
        let iters = (case.iterations)(n, design.target_seconds);
        for &p in &design.measured_ps {
            let vars = case.bindings(n, p, iters);
            let pb = base_model.seconds(&vars).unwrap_or_else(|e| {
                warnings.push(format!(
                    "lcm ({}) at {}={n} p={p}: {e}",
                    base.file, case.size_var
                ));
                f64::NAN
            });
            let po = if design.predicted_ps.contains(&p) && p >= other.min_p {
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
    for &(n, p, iters, po, pb) in &planned {
        let measured_base = base_runs
            .iter()
            .find(|r| r.n == n && r.p == p)
            .map_or(f64::NAN, |r| r.seconds);
        if !(design.predicted_ps.contains(&p) && p >= other.min_p) {
            base_only.push((n, p, pb, measured_base));
            continue;
        }
        let m = measure::measure(&other, n, p, iters, design.reps, &logs, baselines.get(&n))?;
        say(format!(
            "{} {}={n} p={p}: measured {:.4} s, predicted {:.4} s",
            other.name, case.size_var, m.run.seconds, po
        ));
        for f in &other_fits {
            let Some(measured) = m.run.fragments.get(&f.name).and_then(|c| c.get("tt")) else {
                continue;
            };
            let (p_f, comm) =
                predict::fragment_processors(&other_model, &f.name, &case.bindings(n, p, iters));
            let mut vars: BTreeMap<String, f64> = case.bindings(n, p, iters).into_iter().collect();
            vars.insert("p".into(), p_f);
            fragment_checks.push(FragmentCheck {
                n,
                p,
                fragment: f.name.clone(),
                p_fragment: p_f,
                predicted: f.seconds(&vars) + comm,
                measured: measured / p as f64 / iters.max(1) as f64,
            });
        }
        points.push(PointResult {
            n,
            p,
            iters,
            measured_base,
            predicted_base: pb,
            measured: m.run.seconds,
            predicted: po,
            uncertainty: compare::uncertainty(pb, measured_base),
        });
        other_runs.push(m.run);
    }
    let _ = std::fs::remove_dir_all(&logs);

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
        points,
        base_only,
        fragment_checks,
        summary,
        findings: Vec::new(),
        warnings,
        elapsed: 0.0,
    };
    result.findings = findings(&result);
    result.elapsed = start.elapsed().as_secs_f64();
    report::write_report(&cfg.out, &result)?;
    Ok(result)
}

/// Where and why predictions fall short: every point over 15% error or ranked wrong, with
/// the fragments whose per-execution time was mispredicted most and the lost-cycles
/// categories of the measured run that the models did not foresee.
pub fn findings(r: &StudyResult) -> Vec<String> {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let mut out = Vec::new();
    for pt in &r.points {
        let err = pt.err_pct();
        if err <= 15.0 && pt.ranking_correct() {
            continue;
        }
        let mut text = format!(
            "{}={} p={}: {other} predicted {:.4} s, measured {:.4} s ({}{:.1}%)",
            r.case.size_var,
            pt.n,
            pt.p,
            pt.predicted,
            pt.measured,
            if pt.predicted < pt.measured {
                "under by "
            } else {
                "over by "
            },
            err
        );
        if !pt.ranking_correct() && pt.too_close_to_call() {
            let _ = write!(
                text,
                "; the two predictions ({other} {:.4} s, {base} {:.4} s) differ by less than their uncertainty (±{:.0}%, {base}'s own prediction error here): too close to call",
                pt.predicted,
                pt.predicted_base,
                100.0 * pt.uncertainty
            );
        }
        if !pt.ranking_correct() {
            let _ = write!(
                text,
                "; ranking wrong: predicted {} faster, measured {} faster ({base} {:.4} s predicted, {:.4} s measured)",
                if pt.predicted_better() { other } else { base },
                if pt.measured_better() { other } else { base },
                pt.predicted_base,
                pt.measured_base
            );
        }
        let mut worst: Vec<&FragmentCheck> = r
            .fragment_checks
            .iter()
            .filter(|c| c.n == pt.n && c.p == pt.p && c.measured > 0.0)
            .collect();
        worst.sort_by(|a, b| {
            let ea = (a.predicted - a.measured).abs() * r.iters_of(a.n) as f64;
            let eb = (b.predicted - b.measured).abs() * r.iters_of(b.n) as f64;
            eb.total_cmp(&ea)
        });
        for c in worst.iter().take(2) {
            let _ = write!(
                text,
                "; fragment {} on {} thread(s): {:.3e} s per execution predicted, {:.3e} s measured",
                c.fragment, c.p_fragment, c.predicted, c.measured
            );
        }
        if let Some(run) = r.other_runs.iter().find(|x| x.n == pt.n && x.p == pt.p) {
            let tt = run.session.get("tt").copied().unwrap_or(0.0);
            if tt > 0.0 {
                let share = |k: &str| 100.0 * run.session.get(k).copied().unwrap_or(0.0) / tt;
                let _ = write!(
                    text,
                    "; measured {other} session: sl {:.0}%, li {:.0}%, ip {:.0}%, ml {:.0}% of tt",
                    share("sl"),
                    share("li"),
                    share("ip"),
                    share("ml")
                );
                if share("sl") > 10.0 {
                    let _ = write!(text, " (the tasks wait for each other on the channel: the stages are unbalanced, or the hand-off per iteration costs more than the fragment models carry)");
                }
                if share("ml") > 10.0 {
                    let _ = write!(text, " (work inflation at p = {}: the tasks run at once and share caches and memory bandwidth, which the p_f = 1 fragment models, measured alone, do not carry)", pt.p);
                }
            }
        }
        out.push(text);
    }
    if r.case.program == ProgramKind::Fft {
        let co: Vec<String> = r
            .co_run
            .iter()
            .map(|(f, k)| format!("{f} +{:.0}%", 100.0 * k))
            .collect();
        out.push(format!(
            "How {other} is predicted from {base}: with {} cores each task of {other} gets {} \
             thread(s); its fragments are {base}'s models at that p, plus (a) the slowdown \
             measured when {base} runs beside a second instance of the program's kernels \
             (co-run calibration, as a share of pure computation: {}), since {other}'s two tasks \
             share the machine, and (b) lcm's data trace for the matrix that task A hands to \
             task B (`// lcm: input a` on transpose, {} bytes priced by the machine file \
             `machine.txt`). Not modelled: the wake-up of a task blocked on the channel at \
             every hand-off (it matters at the smallest n, where an iteration takes tens of \
             microseconds), and the matrix's cache lines going back to task A when it \
             overwrites the matrix B has read (lcm's data traces do not follow a loop's \
             carried dependences).",
            r.cores,
            (r.cores / 2).max(1),
            if co.is_empty() {
                "none".to_string()
            } else {
                co.join(", ")
            },
            "16·n²"
        ));
    }
    if r.case.program == ProgramKind::Histogram {
        out.push(format!(
            "How {other} is predicted from {base}: the same fragment models, with the \
             synchronization loss (sl) divided by the {} shards (with keys spread evenly an \
             increment finds its shard's lock held 1/{} as often). The memory loss (ml: \
             coherence misses on the bucket and lock lines both threads write) is kept as \
             measured: the threads write the same random lines whatever the number of locks. \
             Not modelled: in {base} the lock serializes the threads (one waits while the \
             other works), which hides part of those misses; {other}'s threads run at once and \
             pay them all, so {other} can be slower at p > 1 than this predicts.",
            crate::histogram::SHARDS,
            crate::histogram::SHARDS
        ));
    }
    if r.case.program == ProgramKind::Queens {
        out.push(format!(
            "How {other} is predicted from {base}: {base}'s models per run, divided by its trip \
             count `groups` (the depth-1 groups holding the first k solutions) for {base}'s own \
             loop; {other} is one parallel loop over all groups' items, so the load imbalance and \
             insufficient parallelism paid at the end of each of {base}'s loops are paid once. \
             Not modelled: {other}'s extra speculation when k is small (other threads start on \
             subtrees far after the one that completes the quota), which {base}'s measurements, \
             speculating only within one group, do not show."
        ));
    }
    if r.points.iter().any(|p| p.p > 1) {
        out.push(
            "All p > 1 measurements are sensitive to other load on the machine (the study \
             keeps the fastest of its repetitions of every point): run it on a quiet machine \
             for numbers that reflect the programs."
                .to_string(),
        );
    }
    out
}

impl StudyResult {
    /// Iterations used at size n.
    pub fn iters_of(&self, n: u64) -> u64 {
        (self.case.iterations)(n, self.design.target_seconds)
    }
}
