//! The README's "C and OpenMP programs" as a user runs it, on an unmodified OpenMP program
//! (`c/ompt_inlined.c`, built with the README's `clang -fopenmp -g -O2`): `pp-campaign`
//! over n and p = 1, 2 with pplib as the OpenMP tool (`OMP_TOOL_LIBRARIES` in the
//! campaign's environment), then `lca model --all-tags --emit annotation`, then `lca eval`
//! on the models file it wrote.
//!
//! What must hold: the tool names the program's regions after the function of the source,
//! the `static` helper the compiler inlined into `main` (`triangle/parallel:…`,
//! `triangle/loop:…`); those names are valid fragment names, so the models file keeps one
//! `// lcm: fragment` block per region (none "left out"), and `lca eval` reads it back and
//! evaluates every region. Timing is not checked (the machine is shared): only that each
//! region's predicted time is positive and finite.
//!
//! Needs clang and LLVM's libomp (Debian: `apt-get install clang libomp-dev`); without
//! them the test says SKIPPED and passes.

use std::path::Path;
use std::process::Command;

mod openmp_support;
use openmp_support::{libomp, library};
use tests::tools;

/// Runs `exe ARGS` in `dir` with `env` added; its stdout (the test fails with stderr on a
/// failure).
fn run(exe: &Path, args: &[&str], dir: &Path, env: &[(&str, &Path)]) -> String {
    let mut cmd = Command::new(exe);
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn an_openmp_program_goes_from_the_tool_through_pp_campaign_to_lca_models() {
    if libomp().is_none() {
        eprintln!(
            "SKIPPED: clang with LLVM's libomp is not installed (apt-get install clang libomp-dev)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/ompt_inlined.c");
    let built = Command::new("clang")
        .args(["-fopenmp", "-g", "-O2"])
        .arg(&source)
        .args(["-o", "prog"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "clang: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let bins = tools(&["pp-campaign", "lca"], &["pp", "lca"]);
    let (campaign, lca) = (&bins[0], &bins[1]);
    let tool = library();
    run(
        campaign,
        &[
            "--grid",
            "n=2,4,6",
            "--p",
            "1,2",
            "--reps",
            "1",
            "--warmup",
            "0",
            "--wait",
            "0",
            "--wait-budget",
            "0",
            "-q",
            "-o",
            "runs.pp",
            "--",
            "./prog",
            "{n}",
        ],
        dir.path(),
        &[("OMP_TOOL_LIBRARIES", &tool)],
    );
    let models = run(
        lca,
        &[
            "model",
            "-f",
            "runs.pp",
            "-v",
            "n,p",
            "--all-tags",
            "--emit",
            "annotation",
        ],
        dir.path(),
        &[],
    );
    assert!(!models.contains("left out"), "{models}");
    let fragments: Vec<&str> = models
        .lines()
        .filter_map(|l| l.strip_prefix("// lcm: fragment "))
        .collect();
    for construct in ["parallel", "loop"] {
        let prefix = format!("triangle/{construct}:ompt_inlined.c:");
        assert!(
            fragments.iter().any(|f| f.starts_with(&prefix)),
            "no fragment {prefix}LINE among {fragments:?}\n{models}"
        );
    }
    assert_eq!(fragments.len(), 3, "the session and two regions: {models}");
    std::fs::write(dir.path().join("runs.models"), &models).unwrap();
    let eval = run(
        lca,
        &[
            "eval",
            "--models",
            "runs.models",
            "--at",
            "n=4,p=2",
            "--json",
        ],
        dir.path(),
        &[],
    );
    let eval: serde_json::Value = serde_json::from_str(&eval).unwrap();
    let evaluated = eval.as_array().expect("an array of evaluations");
    assert_eq!(evaluated.len(), 3, "{eval}");
    for e in evaluated {
        let seconds = e["seconds"].as_f64().unwrap_or(f64::NAN);
        assert!(seconds.is_finite() && seconds > 0.0, "{e}");
    }
}
