//! End to end: `study --quick` (FFT, histogram, queens) through the library entry point. Every point of the predicted
//! version gets a prediction and a finite error, the report directory holds what the steps
//! wrote, and the summary line has the documented shape. (How large the errors are is the
//! benchmark's business, not this test's.)

use examples::study::design::ProgramKind;
use examples::study::{run_study, Config};

/// pplib records one session per process at a time: the studies of this file take turns.
static ONE_STUDY_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn quick(program: ProgramKind) -> (examples::study::StudyResult, tempfile::TempDir) {
    let _turn = ONE_STUDY_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = Config::new(program);
    cfg.quick = true;
    cfg.out = dir.path().join("report");
    // The test must not depend on more than 2 cores.
    cfg.cores = cfg.cores.min(2);
    (run_study(&cfg).unwrap(), dir)
}

/// Every point of the predicted version got a positive prediction and a finite error.
fn assert_every_point_predicted(r: &examples::study::StudyResult) {
    assert_eq!(
        r.points.len(),
        r.design.sizes.len() * r.design.predicted_ps.len()
    );
    for p in &r.points {
        assert!(
            p.predicted.is_finite() && p.predicted > 0.0,
            "no prediction at {p:?}"
        );
        assert!(p.err_pct().is_finite(), "error not finite at {p:?}");
    }
}

#[test]
fn fft_quick_study_predicts_every_point() {
    let (r, dir) = quick(ProgramKind::Fft);
    assert!(!r.points.is_empty());
    assert_every_point_predicted(&r);
    for p in &r.points {
        assert!(p.predicted_base.is_finite(), "no DP prediction at {p:?}");
        assert!(p.measured > 0.0, "not measured at {p:?}");
    }
    // Every fragment of both sources was fitted and written into the TP copy.
    let names: Vec<&str> = r.fits.iter().map(|f| f.name.as_str()).collect();
    for f in ["alloc", "init", "cols", "transpose", "rows"] {
        assert!(names.contains(&f), "fragment {f} not fitted: {names:?}");
    }
    let report = dir.path().join("report");
    for file in [
        "README.md",
        "time.svg",
        "categories.svg",
        "tp.rs",
        "dp.rs",
        "models.lcm",
        "dp.pp",
        "predictions.txt",
    ] {
        assert!(
            report.join(file).is_file(),
            "{file} missing from the report"
        );
    }
    // Every timing says how quiet it was, and the report says under what load it measured.
    assert_eq!(
        r.conditions.timings.len(),
        // dp at every p per size; tp and dp again per point.
        r.design.sizes.len() * r.design.measured_ps.len() + 2 * r.points.len()
    );
    for t in &r.conditions.timings {
        assert!(t.reps >= 1 && t.quiet <= t.reps, "{t:?}");
        assert!(t.seconds > 0.0 && t.spread >= 0.0, "{t:?}");
    }
    let readme = std::fs::read_to_string(report.join("README.md")).unwrap();
    assert!(readme.contains("## Measurement conditions"), "{readme}");
    // The TP source carries its restructuring rules; lcm derived its models from models.lcm
    // and the machine file's keys, nothing the study measured for them: the co-run slowdown
    // is the machine's memory slowdown weighted by the measured version's loss at two
    // threads; the hand-offs are lcm's own pipeline rule, not the source's.
    let tp = std::fs::read_to_string(report.join("tp.rs")).unwrap();
    assert!(
        tp.contains("// lcm: like cols\n"),
        "TP copy without its rules"
    );
    let model = |name: &str| {
        r.other_fits
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .model()
            .to_string()
    };
    assert!(
        !model("transpose").contains("handoff_"),
        "{}",
        model("transpose")
    );
    assert!(
        model("cols").contains("mem_slowdown_k2"),
        "{}",
        model("cols")
    );
    let machine = std::fs::read_to_string(report.join("machine.txt")).unwrap();
    // handoff_notify_s and handoff_spin_window_s are left out when a loaded machine hid
    // them (calibrate warns); these keys are always written.
    for key in ["handoff_wake_s", "local_read_s_4096", "mem_slowdown_k2"] {
        assert!(machine.contains(key), "{key} missing: {machine}");
    }
    let line = r.summary.line();
    assert!(
        line.starts_with(&format!("study: points={} mean_err_pct=", r.points.len())),
        "{line}"
    );
    assert!(line.ends_with(&format!(
        "ranking_correct={}/{}",
        r.summary.ranking_correct,
        r.points.len()
    )));
    // Measured ties are counted apart, from the spread of each point's repetitions.
    for p in &r.points {
        assert!(p.noise.is_finite() && p.noise >= 0.0, "no spread at {p:?}");
    }
    let s = &r.summary;
    assert!(s.decisive_correct <= s.ranking_correct && s.measured_ties <= s.points);
    assert!(
        s.ties_line().starts_with(&format!(
            "ranking correct at {} of {} points; {} points are measured ties",
            s.ranking_correct, s.points, s.measured_ties
        )),
        "{}",
        s.ties_line()
    );
}

#[test]
fn histogram_quick_study_predicts_every_point() {
    let (r, _dir) = quick(ProgramKind::Histogram);
    assert_every_point_predicted(&r);
    for p in &r.points {
        assert!(p.measured > 0.0, "not measured at {p:?}");
    }
    // Derived by the rules in sharded.rs from the locked version's models and the machine
    // file: its memory loss is the trips of lines another processor wrote last, each at
    // the price the locked version paid at p = 2 plus the machine's growth per further
    // processor (not the locked version's lock-line bouncing at p), its load imbalance
    // the locked version's scaled to the shorter items, its pure computation the locked
    // version's.
    let fill = r.other_fits.iter().find(|f| f.name == "fill").unwrap();
    let model = |c: &str| {
        fill.categories
            .iter()
            .find(|x| x.category == c)
            .map(|x| x.expr.to_string())
            .unwrap_or_default()
    };
    assert!(
        model("ml").contains("line_bounce_per_thread_s"),
        "{}",
        model("ml")
    );
    assert!(model("sl").contains("shards"), "{}", model("sl"));
    assert!(model("li").contains("shards"), "{}", model("li"));
}

#[test]
fn queens_quick_study_repeats_counts_and_predicts_every_point() {
    // Every point of the tree version is predicted; every run repeats the count enough
    // times to be timed; both source copies carry the repetition loop lcm predicted with.
    let (r, dir) = quick(ProgramKind::Queens);
    assert_every_point_predicted(&r);
    for p in &r.points {
        assert!(p.predicted_base.is_finite(), "no loop prediction at {p:?}");
        assert!(p.iters >= 1, "no iterations at {p:?}");
    }
    // Small k: one count is some 10 µs; the study must repeat it (thousands of times).
    let small = r.points.iter().find(|p| p.n == r.design.sizes[0]).unwrap();
    assert!(
        small.iters >= 100,
        "k={} repeated only {}",
        small.n,
        small.iters
    );
    // The runs at p = 1 last milliseconds, not microseconds (quick target: 40 ms; a loaded
    // machine only makes them longer).
    for run in r.base_runs.iter().filter(|run| run.p == 1) {
        assert!(
            run.seconds >= 0.004,
            "loop k={} p=1 iters={} took only {} s",
            run.n,
            run.iters,
            run.seconds
        );
    }
    let report = dir.path().join("report");
    for file in ["tree.rs", "loop_par.rs"] {
        let src = std::fs::read_to_string(report.join(file)).unwrap();
        assert!(
            src.contains("// lcm: iterations = iters"),
            "{file} lacks the repetition loop"
        );
        assert!(
            src.contains("// lcm: like search"),
            "{file} without its rules"
        );
    }
    // Both versions' speculation comes from their blocks' useful work.
    let tree = std::fs::read_to_string(report.join("tree.rs")).unwrap();
    assert!(tree.contains("*span - 1)"), "tree's wc has no span");
    let lp = std::fs::read_to_string(report.join("loop_par.rs")).unwrap();
    assert!(lp.contains("*base_span - 1)"), "loop's wc has no span");
}
