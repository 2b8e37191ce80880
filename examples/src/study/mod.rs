//! The end-to-end study: measure one parallel structure of a program, fit its fragments'
//! lost-cycles models, predict another structure with `lcm` before running it, then run it
//! and compare (Crovella section 6.3, done by the tools).
//!
//! [`run_study`] does the five steps for a [`Config`] and writes the report directory;
//! steps 1 to 4 are the typed phases of [`phase`] (measure, fit, predict, validate), which
//! measure with pp's campaign runner ([`pp::campaign`]):
//!
//! 1. measure the base version (`dp` for the 2D FFT) at every size and every p from 1 to the
//!    cores, under pplib, profiled by `pp` with the p = 1 run as baseline ([`measure`]),
//!    timed round robin (one repetition of every point in
//!    turn, many rounds), each repetition watched for other load on the machine ([`load`]):
//!    only quiet repetitions count, the fastest is kept, and the report says how quiet the
//!    machine was ([`conditions`]); [`phase::measure`];
//! 2. fit every fragment's categories with `lca`'s automatic search ([`fit`]; overheads that
//!    vanish at p = 1 as `(p - 1) * f`) into `models.lcm`, and calibrate the machine file
//!    ([`calibrate_machine`], as `lcm calibrate`); both versions' sources derive their
//!    fragments' models from these two files by the rules written in them (docs/models.md,
//!    "Derived models"; docs/machine.md): the study measures nothing for them itself;
//!    [`phase::fit`];
//! 3. predict both versions with `lcm` at every point of the other version ([`predict`]),
//!    binding only the point's own variables (size, p, iterations: what a user passes with
//!    `--set`), before the other version has run (the predictions are written to disk
//!    first); [`phase::predict`]. The README's "Using the tools on your own program"
//!    replays these predictions with the command-line tools
//!    (`tests/tests/readme_replay.rs`);
//! 4. run the other version (`tp`) at those points, round robin with the base version
//!    again (the ranking compares times taken under the same conditions), compare
//!    ([`compare`]): errors, rankings, measured ties (the two versions closer than the
//!    spread of their fastest repetitions) and the drift of the machine's speed between the
//!    phases (the base version's two timings, [`compare::drift_line`]); [`phase::validate`];
//! 5. write `README.md`, `time.svg`, `categories.svg` ([`report`]).
//!
//! The last line the `study` binary prints is [`compare::Summary::line`].

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
pub mod phase;
pub mod plot;
pub mod predict;
pub mod report;
pub mod result;
pub mod run;

pub use calibrate::calibrate_machine;
pub use compare::FragmentCheck;
pub use conditions::{Conditions, TimingNote};
pub use findings::findings;
pub use result::{StudyError, StudyResult};

use case::Case;
use compare::Summary;
use design::{Design, ProgramKind};
use phase::Bench;
use std::path::PathBuf;
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

/// Allocations from this size up are mapped afresh in every run ([`run_study`]): glibc's
/// initial mmap threshold.
const FRESH_ALLOCATION_BYTES: usize = 128 << 10;

/// Runs the study of `cfg` (see the module docs) and writes its report directory.
pub fn run_study(cfg: &Config) -> Result<StudyResult, StudyError> {
    let start = Instant::now();
    let case = Case::of(cfg.program);
    let design = Design::new(cfg.program, cfg.quick, cfg.cores);
    let cores = cfg.cores.max(2);
    // Every run allocates as in a process of its own: large blocks mapped afresh (their
    // first touch faults), not reused from what the previous run freed, which glibc does
    // for some runs and not others (it trims the heap when more than twice its mmap
    // threshold is free at its top: the TP 2D FFT's three matrices at n = 1024 were
    // trimmed and faulted again, DP's two reused).
    let fresh = pplib::fresh_large_allocations(FRESH_ALLOCATION_BYTES);
    let logs = cfg.out.join("logs");
    for dir in [&cfg.out, &logs] {
        std::fs::create_dir_all(dir).map_err(|source| StudyError::Io {
            path: dir.display().to_string(),
            source,
        })?;
    }
    let mut bench = Bench {
        cfg,
        case: &case,
        design: &design,
        gate: load::Gate::new(Duration::from_secs_f64(design.wait_budget)),
        repeats: measure::study_repeats(
            design.reps,
            Duration::from_secs_f64(design.point_wait),
            Duration::from_secs_f64(design.phase_budget),
        ),
        logs,
        start,
        warnings: Vec::new(),
        timings: Vec::new(),
    };
    if !fresh {
        bench.say(
            "the C library kept its allocation policy: large blocks may be reused between runs"
                .into(),
        );
    }
    let load_before = load::load_average();
    let measured = phase::measure::measure(&mut bench)?;
    let fitted = phase::fit::fit(&mut bench, &measured)?;
    let predicted = phase::predict::predict(&mut bench, &fitted)?;
    let validated = phase::validate::validate(&mut bench, &measured, &predicted)?;
    let _ = std::fs::remove_dir_all(&bench.logs);
    let conditions = Conditions::of(
        pp::campaign::LoadConditions {
            load_before,
            load_after: load::load_average(),
            waited: bench.gate.waited.as_secs_f64(),
            busy_windows: bench.gate.busy_windows,
            probed: bench.gate.available,
        },
        std::mem::take(&mut bench.timings),
    );
    let warnings = std::mem::take(&mut bench.warnings);
    drop(bench);

    // 5. Report.
    let summary = Summary::of(&validated.points);
    let mut result = StudyResult {
        case,
        design,
        cores,
        quick: cfg.quick,
        base_runs: measured.base_runs,
        other_runs: validated.other_runs,
        fits: fitted.fits,
        other_fits: predicted.other_fits,
        points: validated.points,
        base_only: validated.base_only,
        fragment_checks: validated.fragment_checks,
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
