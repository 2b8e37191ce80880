//! End to end: `study --quick` through the library entry point. Every point of the predicted
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

#[test]
fn fft_quick_study_predicts_every_point() {
    let (r, dir) = quick(ProgramKind::Fft);
    assert!(!r.points.is_empty());
    assert_eq!(
        r.points.len(),
        r.design.sizes.len() * r.design.predicted_ps.len()
    );
    for p in &r.points {
        assert!(
            p.predicted.is_finite() && p.predicted > 0.0,
            "no prediction at {p:?}"
        );
        assert!(p.predicted_base.is_finite(), "no DP prediction at {p:?}");
        assert!(p.measured > 0.0, "not measured at {p:?}");
        assert!(p.err_pct().is_finite(), "error not finite at {p:?}");
    }
    // Every fragment of both sources was fitted and written into the TP copy.
    let names: Vec<&str> = r.fits.iter().map(|f| f.name.as_str()).collect();
    for f in ["init", "cols", "transpose", "rows"] {
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
        // dp at every p and beside the co-runner per size; tp and dp again per point.
        r.design.sizes.len() * (r.design.measured_ps.len() + 1) + 2 * r.points.len()
    );
    for t in &r.conditions.timings {
        assert!(t.reps >= 1 && t.quiet <= t.reps, "{t:?}");
        assert!(t.seconds > 0.0 && t.spread >= 0.0, "{t:?}");
    }
    let readme = std::fs::read_to_string(report.join("README.md")).unwrap();
    assert!(readme.contains("## Measurement conditions"), "{readme}");
    // The hand-off between TP's tasks was priced at every TP point before TP ran.
    assert_eq!(r.handoffs.len(), r.points.len());
    assert!(r.handoffs.iter().all(|h| h.seconds.is_finite()));
    let tp = std::fs::read_to_string(report.join("tp.rs")).unwrap();
    assert!(
        tp.contains("// lcm: fragment cols\n        // lcm: pc = "),
        "TP copy not annotated"
    );
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
}

#[test]
fn histogram_quick_study_predicts_every_point() {
    let (r, _dir) = quick(ProgramKind::Histogram);
    assert_eq!(
        r.points.len(),
        r.design.sizes.len() * r.design.predicted_ps.len()
    );
    for p in &r.points {
        assert!(
            p.predicted.is_finite() && p.predicted > 0.0,
            "no prediction at {p:?}"
        );
        assert!(p.measured > 0.0, "not measured at {p:?}");
        assert!(p.err_pct().is_finite(), "error not finite at {p:?}");
    }
    // No pipeline, no co-runner: nothing of the kind was measured.
    assert!(r.handoffs.is_empty());
    assert!(r.co_run.is_empty());
}
