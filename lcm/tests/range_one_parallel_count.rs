//! The range warning for overheads fitted at one processor count above 1. Records of
//! p = 1, 2 (a 2-core machine) give `// lcm: range … p = 1..2`, and `lca model` can then
//! only assume how an overhead grows with p (`(p − 1)·f(n)`; docs/models.md, "Overheads
//! measured at one p > 1"). Beyond twice the measured range (p > 4) alone, p = 3 and 4
//! would pass silently although no model there was measured: in a trial
//! on a static partition of the Mandelbrot set (tests/tests/mandelbrot_trial), `li =
//! (p - 1)*1.43e-7*n^2` fitted at p = 2 predicted the blocks at n = 512 1.12 times faster at p = 4
//! than at p = 1, unflagged.
//!
//! The models file below is `lca model --emit annotation` of such records, cut to the
//! fragment `image` (work `pc` in n, imbalance `li` in n and p); the source runs it once.

#[path = "support/run.rs"]
mod support;
use support::lcm;

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("blocks.rs"),
        "fn main() {\n    pplib::frag_scope(\"image\", || render());\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("blocks.models"),
        "// lcm: fragment image\n// lcm: range n = 256..1024, p = 1..2\n// lcm: pc = 1.66e-8*n^(5/3)*log2(n)^2\n// lcm: li = (p - 1)*(1.43477e-7*n^2)\n",
    )
    .unwrap();
    dir
}

/// `lcm predict` at n = 512 and `p`: exit code and stderr.
fn predict_at(p: &str) -> (i32, String) {
    let dir = fixture();
    let set_p = format!("p={p}");
    let (code, _, err) = lcm(
        &[
            "predict",
            "blocks.rs",
            "--models",
            "blocks.models",
            "--set",
            "n=512",
            "--set",
            &set_p,
        ],
        dir.path(),
    );
    (code, err)
}

#[test]
fn the_measured_processor_counts_are_not_flagged() {
    for p in ["1", "2"] {
        let (code, err) = predict_at(p);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("warning"), "p = {p}: {err}");
    }
}

/// Where a fragment's range of p holds one count above 1 (`p = 1..2`), a model of that
/// fragment that uses p is flagged at every p above the range, not only beyond twice it,
/// naming the fragment, the categories that use p and the measured range. The 2x rule
/// stays for sizes and for ranges of p that reach beyond 2.
#[test]
fn a_processor_count_above_a_single_measured_p_is_flagged() {
    for p in ["3", "4", "16"] {
        let (code, err) = predict_at(p);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains(&format!(
                "warning: fragment `image` (li): p = {p} (the processors it runs on) beyond the measured range p = 1..2, which holds one processor count above 1: the models' growth in p is assumed there, not measured"
            )),
            "p = {p}: {err}"
        );
        // Sizes keep the 2x rule: n = 512 in 256..1024 is not flagged.
        assert!(!err.contains("n = 512"), "{err}");
    }
}
