//! Derived models (docs/models.md, "Derived models"): a restructured source's rules resolved
//! against the measured version's models file, through the library and the `lcm` binary.
//!
//! Fixtures are written here: `MEASURED` is a hand-written models file in the format
//! `lca model --emit annotation` writes (round numbers so the expected times can be
//! computed by hand in each test's comments); the sources are small programs in the shape
//! of the study's restructurings (a sharded histogram, a speculative search, a two-task
//! pipeline).

#[path = "support/run.rs"]
mod support;
use lcm::predict::{PredictError, PredictOptions, Program};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::lcm;

/// The measured version: `fill` behind one lock and `search` in a loop of groups.
const MEASURED: &str = "\
# hand-written models of the measured version (processor-seconds per execution)
// lcm: fragment fill
// lcm: range n = 1000..100000, p = 1..4
// lcm: pc = 1e-8*n
// lcm: sl = 4e-9*n*(p - 1)
// lcm: ml = 2e-9*n*(p - 1)

// lcm: fragment search
// lcm: pc = 0.01
// lcm: li = 0.002*p
// lcm: ip = 0.001*p
// lcm: wc = 0.5
";

/// The sharded histogram: sl by the shard count, pc by a kernel price ratio, ml replaced.
const SHARDED: &str = r#"
fn fill(n: u64) {
    // lcm: fragment fill
    // lcm: like fill
    // lcm: sl = fill.sl / shards
    // lcm: pc = fill.pc * sharded_key_s / locked_key_s
    // lcm: ml = n * 2*(p - 1)/p * max(concurrent_key_s - sharded_key_s, 0)
    pplib::frag_scope("fill", || work(n));
}
"#;

/// One parallel loop over all groups' items, with speculation.
const TREE: &str = r#"
fn count() {
    // lcm: fragment search
    // lcm: like search
    // lcm: li = search.li / groups
    // lcm: ip = search.ip / groups
    // lcm: wc = search.pc * (p*span - 1)
    search_all();
}
"#;

/// Two tasks side by side, each with its half of the processors, the second slowed by
/// sharing the machine.
const BESIDE: &str = r#"
fn main() {
    rayon::join(
        || {
            // lcm: fragment left
            // lcm: like search
            left();
        },
        || {
            // lcm: fragment right
            // lcm: like search
            // lcm: contention = slow
            right();
        },
    );
}
"#;

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write a fixture");
    p
}

fn program(src: &str, entry: &str, models: &str) -> Result<Program, PredictError> {
    let d = dir();
    let m = write(d.path(), "measured.lcm", models);
    let opts = PredictOptions {
        entry: entry.into(),
        models: Some(m),
        ..PredictOptions::default()
    };
    Program::from_source("restructured.rs", src, &opts)
}

fn at(vars: &[(&str, f64)]) -> BTreeMap<String, f64> {
    vars.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
}

#[test]
fn sharded_histogram_rules_scale_replace_and_keep() {
    let prog = program(SHARDED, "fill", MEASURED).unwrap();
    let b = at(&[
        ("n", 1e5),
        ("p", 4.0),
        ("shards", 8.0),
        ("locked_key_s", 2e-9),
        ("sharded_key_s", 3e-9),
        ("concurrent_key_s", 4e-9),
    ]);
    // sl = 4e-9*1e5*3/8 = 1.5e-4; pc = 1e-8*1e5*1.5 = 1.5e-3;
    // ml = 1e5*2*3/4*1e-9 = 1.5e-4; T = (1.5e-4 + 1.5e-3 + 1.5e-4)/4 = 4.5e-4.
    let t = prog.predict(&b).unwrap().seconds;
    assert!(close(t, 4.5e-4), "{t}");
    let models = prog.fragment_models();
    assert_eq!(models.len(), 1);
    let names: Vec<&str> = models[0]
        .categories
        .iter()
        .map(|(c, _)| c.as_str())
        .collect();
    assert_eq!(names, ["pc", "sl", "ml"]);
    // The measured range comes with `like`.
    assert_eq!(models[0].ranges.len(), 2);
    let mut params = prog.parameters();
    params.sort();
    for v in [
        "concurrent_key_s",
        "locked_key_s",
        "shards",
        "sharded_key_s",
    ] {
        assert!(params.iter().any(|p| p == v), "{params:?}");
    }
    // A missing rule variable is an unbound-variable error naming it.
    let mut short = b.clone();
    short.remove("shards");
    let e = prog.predict(&short).unwrap_err().to_string();
    assert!(e.contains("`shards`") && e.contains("--set shards="), "{e}");
}

#[test]
fn speculation_and_per_loop_losses() {
    let prog = program(TREE, "count", MEASURED).unwrap();
    let b = at(&[("p", 2.0), ("groups", 4.0), ("span", 0.75)]);
    // li = 0.004/4 = 0.001; ip = 0.002/4 = 5e-4; wc = 0.01*(1.5 - 1) = 0.005; pc = 0.01.
    // T = (0.01 + 0.001 + 5e-4 + 0.005)/2 = 0.00825.
    let t = prog.predict(&b).unwrap().seconds;
    assert!(close(t, 0.00825), "{t}");
}

#[test]
fn contention_adds_a_share_of_pure_computation_to_memory_loss() {
    let prog = program(BESIDE, "main", MEASURED).unwrap();
    let models = prog.fragment_models();
    let right = models.iter().find(|m| m.name == "right").unwrap();
    let ml = right.category("ml").expect("contention adds ml");
    assert_eq!(ml.to_string(), "slow*0.01");
    assert!(models
        .iter()
        .find(|m| m.name == "left")
        .unwrap()
        .category("ml")
        .is_none());
    // p = 2: one processor each. left = 0.01 + 0.002 + 0.001 + 0.5 = 0.513;
    // right = 0.513 + 0.2*0.01 = 0.515; T = max of the two.
    let t = prog
        .predict(&at(&[("p", 2.0), ("slow", 0.2)]))
        .unwrap()
        .seconds;
    assert!(close(t, 0.515), "{t}");
}

#[test]
fn a_measured_category_the_fit_left_out_is_zero() {
    let src = "fn main() {\n    // lcm: fragment fill\n    // lcm: rt = fill.pc + fill.os\n    work();\n}\n";
    let prog = program(src, "main", MEASURED).unwrap();
    let t = prog
        .predict(&at(&[("n", 1000.0), ("p", 1.0)]))
        .unwrap()
        .seconds;
    assert!(close(t, 1e-5), "{t}");
}

/// A sum the fit did not write out is the sum of its terms: `fill.rt` is `pc + ml` of
/// `fill` (no `rt` line), `fill.tt` the sum of `li ip sl wc rt`.
#[test]
fn a_sum_the_fit_left_out_is_the_sum_of_its_terms() {
    let src = "fn main() {\n    // lcm: fragment fill\n    // lcm: rt = fill.rt\n    // lcm: sl = fill.tt - fill.rt\n    work();\n}\n";
    let prog = program(src, "main", MEASURED).unwrap();
    // n = 1000, p = 2: pc = 1e-5, ml = 2e-6, sl = 4e-6: rt = 1.2e-5, tt - rt = sl = 4e-6;
    // T = (1.2e-5 + 4e-6)/2 = 8e-6.
    let t = prog
        .predict(&at(&[("n", 1000.0), ("p", 2.0)]))
        .unwrap()
        .seconds;
    assert!(close(t, 8e-6), "{t}");
}

/// A part of a category (`fj` of `li`) that the models file does not hold is an error: the
/// fit keeps `li` whole, so 0 would be a silent guess.
#[test]
fn a_part_the_fit_keeps_whole_is_an_error_naming_the_whole() {
    let src = "fn main() {\n    // lcm: fragment search\n    // lcm: like search\n    // lcm: li = search.fj\n    work();\n}\n";
    let e = program(src, "main", MEASURED).unwrap_err().to_string();
    assert!(e.starts_with("restructured.rs:4:"), "{e}");
    assert!(
        e.contains("`search.fj`") && e.contains("part of li") && e.contains("`search.li`"),
        "{e}"
    );
    assert!(e.contains("pc li ip wc"), "{e}");
}

#[test]
fn unknown_references_name_file_line_and_what_exists() {
    let src = "fn main() {\n    // lcm: fragment fill\n    // lcm: like fill\n    // lcm: sl = hist.sl / 2\n    work();\n}\n";
    let e = program(src, "main", MEASURED).unwrap_err().to_string();
    assert!(e.starts_with("restructured.rs:4:"), "{e}");
    assert!(e.contains("`hist`") && e.contains("measured.lcm"), "{e}");
    assert!(e.contains("`fill`, `search`"), "{e}");

    let src = "fn main() {\n    // lcm: fragment x\n    // lcm: like fil\n    work();\n}\n";
    let e = program(src, "main", MEASURED).unwrap_err().to_string();
    assert!(e.starts_with("restructured.rs:3:"), "{e}");
    assert!(
        e.contains("`like fil`") && e.contains("`fill`, `search`"),
        "{e}"
    );

    let src = "fn main() {\n    // lcm: fragment x\n    // lcm: pc = fill.speed\n    work();\n}\n";
    let e = program(src, "main", MEASURED).unwrap_err().to_string();
    assert!(e.starts_with("restructured.rs:3:"), "{e}");
    assert!(e.contains("`speed`") && e.contains("pc sl ml"), "{e}");
}

#[test]
fn derived_fragments_need_a_models_file() {
    let e = Program::from_source(
        "tree.rs",
        TREE,
        &PredictOptions {
            entry: "count".into(),
            ..PredictOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("tree.rs:4:"), "{e}");
    assert!(e.contains("--models"), "{e}");
}

#[test]
fn references_stand_only_in_category_lines() {
    let src = "fn main() {\n    // lcm: p = search.pc\n    rayon::join(|| {\n        // lcm: fragment a\n        // lcm: rt = 1\n        a();\n    }, || {\n        // lcm: fragment b\n        // lcm: rt = 1\n        b();\n    });\n}\n";
    let e = program(src, "main", MEASURED).unwrap_err().to_string();
    assert!(
        e.contains("`search.pc`") && e.contains("category line"),
        "{e}"
    );
}

#[test]
fn contention_without_pc_or_rt_is_an_error() {
    let models = "// lcm: fragment only_li\n// lcm: li = p\n";
    let src = "fn main() {\n    // lcm: fragment a\n    // lcm: like only_li\n    // lcm: contention = 0.1\n    a();\n}\n";
    let e = program(src, "main", models).unwrap_err().to_string();
    assert!(
        e.starts_with("restructured.rs:4:") && e.contains("`pc` or `rt`"),
        "{e}"
    );
}

#[test]
fn plain_fragments_still_take_the_models_file() {
    // `search` is not derived: the models file replaces its source model (as before).
    let src = "fn main() {\n    // lcm: fragment search\n    // lcm: rt = 99\n    s();\n}\n";
    let prog = program(src, "main", MEASURED).unwrap();
    let t = prog.predict(&at(&[("p", 1.0)])).unwrap().seconds;
    // 0.01 + 0.002 + 0.001 + 0.5
    assert!(close(t, 0.513), "{t}");
}

#[test]
fn hostile_rules_are_errors_not_panics() {
    for src in [
        "fn main() {\n    // lcm: fragment a\n    // lcm: like a\n    a();\n}\n",
        "fn main() {\n    // lcm: fragment a\n    // lcm: rt = a.rt\n    a();\n}\n",
        "fn main() {\n    // lcm: fragment a\n    // lcm: rt = .rt\n    a();\n}\n",
        "fn main() {\n    // lcm: fragment a\n    // lcm: rt = fill..rt\n    a();\n}\n",
        "fn main() {\n    // lcm: fragment a\n    // lcm: rt = fill.pc.\n    a();\n}\n",
        "fn main() {\n    // lcm: fragment a\n    // lcm: like\n    a();\n}\n",
        "fn main() {\n    // lcm: like fill\n    a();\n}\n",
        "fn main() {\n    // lcm: fragment a\n    // lcm: contention = fill.nope\n    a();\n}\n",
    ] {
        match program(src, "main", MEASURED) {
            Ok(p) => {
                // Only the `like` outside a fragment is accepted (with a warning).
                assert!(
                    p.warnings.iter().any(|w| w.message.contains("like fill")),
                    "{src}: {:?}",
                    p.warnings
                );
            }
            Err(e) => assert!(e.to_string().contains(':'), "{src}: {e}"),
        }
    }
    // A models file with a reference is refused, naming its line.
    let e = program(
        TREE,
        "count",
        "// lcm: fragment search\n// lcm: pc = other.pc\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("measured.lcm:2:") && e.contains("`other.pc`"),
        "{e}"
    );
}

#[test]
fn cli_resolves_rules_with_set_variables() {
    let d = dir();
    write(d.path(), "measured.lcm", MEASURED);
    write(d.path(), "tree.rs", TREE);
    let (code, out, err) = lcm(
        &[
            "predict",
            "tree.rs",
            "--entry",
            "count",
            "--models",
            "measured.lcm",
            "--set",
            "p=2",
            "--set",
            "groups=4",
            "--set",
            "span=0.75",
        ],
        d.path(),
    );
    assert_eq!(code, 0, "{err}");
    let t: f64 = out
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("predicted: T="))
        .expect(&out)
        .parse()
        .unwrap();
    assert!(close(t, 0.00825), "{t}");
    // Without the rule's variables: exit 1, the variable named.
    let (code, _, err) = lcm(
        &[
            "predict",
            "tree.rs",
            "--entry",
            "count",
            "--models",
            "measured.lcm",
            "--set",
            "p=2",
        ],
        d.path(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("groups") || err.contains("span"), "{err}");
    // An unknown reference: exit 1, file and line.
    write(
        d.path(),
        "bad.rs",
        "fn main() {\n    // lcm: fragment a\n    // lcm: pc = nothing.pc\n    a();\n}\n",
    );
    let (code, _, err) = lcm(
        &[
            "predict",
            "bad.rs",
            "--models",
            "measured.lcm",
            "--set",
            "p=2",
        ],
        d.path(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("bad.rs:3:") && err.contains("`nothing`"),
        "{err}"
    );
}

#[test]
fn a_reference_with_p_k_takes_the_measured_model_at_k_processors() {
    // fill.ml = 2e-9*n*(p - 1): at 2 processors 2e-9*n, whatever the fragment's own p.
    let src = "fn main() {\n    // lcm: fragment fill\n    // lcm: like fill\n    // lcm: contention = fill.ml_p2 / fill.pc\n    work();\n}\n";
    let prog = program(src, "main", MEASURED).unwrap();
    // p = 1: pc = 1e-8*n, ml = 0 + (2e-9*n / 1e-8*n) * pc = 0.2 * pc: n = 1000 gives 1.2e-5.
    let t = prog
        .predict(&at(&[("p", 1.0), ("n", 1000.0)]))
        .unwrap()
        .seconds;
    assert!(close(t, 1.2e-5), "{t}");
    // A suffix that is not `_p` and a whole number or a name is not a category.
    let bad = "fn main() {\n    // lcm: fragment fill\n    // lcm: like fill\n    // lcm: ml = fill.ml_q2\n    work();\n}\n";
    let Err(e) = program(bad, "main", MEASURED) else {
        panic!("`fill.ml_q2` accepted");
    };
    let e = e.to_string();
    assert!(e.contains("_pK"), "{e}");
}

#[test]
fn a_reference_with_p_and_a_name_takes_the_measured_model_where_the_name_is_bound() {
    // fill.ml = 2e-9*n*(p - 1) at `both` processors less at the fragment's own: the
    // co-run rule of two tasks that share the machine (docs/models.md, "Derived models").
    let src = "fn main() {\n    // lcm: fragment fill\n    // lcm: like fill\n    // lcm: contention = (fill.ml_pboth - fill.ml) / fill.pc\n    work();\n}\n";
    let prog = program(src, "main", MEASURED).unwrap();
    assert!(prog.parameters().contains(&"both".to_string()));
    // p = 1, both = 2: ml(2) - ml(1) = 2e-9*n, 0.2 * pc: n = 1000 gives 1.2e-5 (as `_p2`).
    let t = |both: f64| {
        prog.predict(&at(&[("p", 1.0), ("n", 1000.0), ("both", both)]))
            .unwrap()
            .seconds
    };
    assert!(close(t(2.0), 1.2e-5), "{}", t(2.0));
    // both = 3: ml(3) = 4e-9*n, 0.4 * pc: 1.4e-5.
    assert!(close(t(3.0), 1.4e-5), "{}", t(3.0));
    // p = 2, both = 4: (ml(4) - ml(2)) / pc = 0.4; the fragment's own ml(2) = 0.2 * pc and
    // sl(2) = 0.4 * pc stay: (1 + 0.2 + 0.4 + 0.4) * 1e-5 / 2 processors = 1e-5.
    let t2 = prog
        .predict(&at(&[("p", 2.0), ("n", 1000.0), ("both", 4.0)]))
        .unwrap()
        .seconds;
    assert!(close(t2, 1e-5), "{t2}");
}

/// A fragment whose one parallel iterator has fewer items than processors, with a rule
/// that gives the processors without an item no idle time, is flagged at the points where
/// it matters (lcm::predict::few_items), in the brief and the full prediction alike; one
/// whose `li` covers them is not.
#[test]
fn too_few_items_without_idle_time_is_flagged() {
    let src = |li: &str| {
        format!(
            "fn main() {{\n    // lcm: fragment blocks\n    // lcm: like fill\n    // lcm: ml = 0\n    // lcm: sl = 0\n    // lcm: li = {li}\n    pplib::frag_scope(\"blocks\", || {{\n        // lcm: items = k\n        rows.par_chunks_mut(64).for_each(|b| work(b));\n    }});\n}}\n"
        )
    };
    let prog = program(&src("0"), "main", MEASURED).unwrap();
    // n = 1000: pc = 1e-5 processor-s; k = 4 items for p = 16: li must be at least
    // 1e-5 * 12/4 = 3e-5.
    let b = at(&[("n", 1000.0), ("p", 16.0), ("k", 4.0)]);
    let brief = prog.predict_brief(&b).unwrap();
    assert_eq!(brief.few_items.len(), 1, "{:?}", brief.few_items);
    let x = &brief.few_items[0];
    assert_eq!(
        (x.fragment.as_str(), x.items, x.processors),
        ("blocks", 4.0, 16.0)
    );
    assert!(close(x.needed_s, 3e-5) && x.li_s == 0.0, "{x:?}");
    assert!(x.to_string().contains("4 items for 16 processors"), "{x}");
    assert_eq!(
        prog.predict(&b).unwrap().accounting.few_items,
        brief.few_items
    );
    // As many items as processors: nothing to flag.
    let enough = at(&[("n", 1000.0), ("p", 4.0), ("k", 4.0)]);
    assert!(prog.predict_brief(&enough).unwrap().few_items.is_empty());
    // A rule that gives them their idle time is not flagged.
    let tail = program(&src("fill.pc * (p - k)/k"), "main", MEASURED).unwrap();
    assert!(tail.predict_brief(&b).unwrap().few_items.is_empty());
}
