//! End to end: the queens study (`study --program queens --quick`). Every point of the tree
//! version gets a prediction and a finite error, every run repeats the count enough times to
//! be timed (the runs are not dominated by the fixed costs of one count), and both source
//! copies carry the repetition loop `lcm` predicted with.

use examples::study::design::ProgramKind;
use examples::study::{run_study, Config};

#[test]
fn queens_quick_study_repeats_counts_and_predicts_every_point() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = Config::new(ProgramKind::Queens);
    cfg.quick = true;
    cfg.out = dir.path().join("report");
    // The test must not depend on more than 2 cores.
    cfg.cores = cfg.cores.min(2);
    let r = run_study(&cfg).unwrap();
    assert_eq!(
        r.points.len(),
        r.design.sizes.len() * r.design.predicted_ps.len()
    );
    for p in &r.points {
        assert!(
            p.predicted.is_finite() && p.predicted > 0.0,
            "no prediction at {p:?}"
        );
        assert!(p.predicted_base.is_finite(), "no loop prediction at {p:?}");
        assert!(p.err_pct().is_finite(), "error not finite at {p:?}");
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
        assert!(src.contains("// lcm: pc = "), "{file} not annotated");
    }
}
