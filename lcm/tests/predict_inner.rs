//! Machine costs of parallel constructs inside a fragment (docs/models.md, "Machine costs
//! inside fragments") and the processors of nested data-parallel loops ("Nested
//! data-parallel loops"), on small inline sources with a machine file of round numbers
//! (tests/support/round_machine.rs; every expected time is worked out by hand above its
//! assertion), and the n-body restructuring written with the fold/reduce inside
//! `frag_scope`.

#[path = "support/run.rs"]
mod support;
use lcm::predict::{PredictOptions, Prediction, Program};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::lcm;

#[path = "support/round_machine.rs"]
mod round;
use round::{close, round_machine};

fn predict_with(src: &str, opts: PredictOptions, at: &[(&str, f64)]) -> Prediction {
    let prog = Program::from_source("t.rs", src, &opts).unwrap_or_else(|e| panic!("{e}"));
    let at: BTreeMap<String, f64> = at.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    prog.predict(&at).unwrap_or_else(|e| panic!("{e}"))
}

fn predict(src: &str, machine: Option<&Path>, at: &[(&str, f64)]) -> f64 {
    let opts = PredictOptions {
        machine: machine.map(Path::to_path_buf),
        ..PredictOptions::default()
    };
    predict_with(src, opts, at).seconds
}

/// A fragment whose code is a parallel loop over n items; `extra` goes in its block.
/// Lines: 2 `fn main`, 3 the model, 4 `extra` when given, then the `frag_scope` statement.
fn inside(extra: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!("    {extra}\n")
    };
    format!(
        "\nfn main() {{\n    // lcm: rt = 1e-3\n{extra}    pplib::frag_scope(\"work\", || (0..n).into_par_iter().for_each(|i| kernel(i)));\n}}\n"
    )
}

#[test]
fn a_parallel_loop_inside_a_source_model_fragment_pays_machine_costs() {
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    let at = [("n", 1000.0), ("p", 4.0)];
    // The model alone: 1e-3 processor-s over 4 processors.
    close(predict(&inside(""), None, &at), 2.5e-4);
    // Its model is written in the source (not measured with the loop): a fork/join of
    // min(1000, 4) = 4 threads (1e-6 + 2e-6 s) and 1000 items * 1e-9 / 4 processors.
    close(predict(&inside(""), Some(&m), &at), 2.5e-4 + 3e-6 + 2.5e-7);
    // Said to be measured with it: nothing added.
    let measured = inside("// lcm: overheads = measured");
    close(predict(&measured, Some(&m), &at), 2.5e-4);
    // An item count written in the fragment's block wins over the source's (0..n).
    let items = inside("// lcm: items = 2 * n");
    close(predict(&items, Some(&m), &at), 2.5e-4 + 3e-6 + 5e-7);
}

#[test]
fn an_overheads_line_must_say_machine_or_measured() {
    let opts = PredictOptions::default();
    let Err(e) = Program::from_source("t.rs", &inside("// lcm: overheads = sometimes"), &opts)
    else {
        panic!("expected an error for `overheads = sometimes`");
    };
    let e = e.to_string();
    assert!(e.starts_with("t.rs:4:") && e.contains("machine"), "{e}");
}

#[test]
fn like_fragments_are_measured_unless_they_say_machine() {
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    let models = dir.path().join("work.models");
    std::fs::write(&models, "// lcm: fragment work\n// lcm: rt = 1e-3\n").unwrap();
    let opts = |machine: bool| PredictOptions {
        machine: machine.then(|| m.clone()),
        models: Some(models.clone()),
        ..PredictOptions::default()
    };
    let at = [("n", 1000.0), ("p", 4.0)];
    let src = |extra: &str| {
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!("    {extra}\n")
        };
        format!(
            "fn main() {{\n    // lcm: like work\n{extra}    pplib::frag_scope(\"work\", || (0..n).into_par_iter().for_each(|i| kernel(i)));\n}}\n"
        )
    };
    // `like work`: the measured model holds its loop's costs; the machine adds nothing.
    let plain = predict_with(&src(""), opts(false), &at).seconds;
    close(plain, 2.5e-4);
    close(predict_with(&src(""), opts(true), &at).seconds, plain);
    // A models-file fragment of the same name (no `like`): measured too.
    let bare = "fn main() {\n    pplib::frag_scope(\"work\", || (0..n).into_par_iter().for_each(|i| kernel(i)));\n}\n";
    close(predict_with(bare, opts(true), &at).seconds, plain);
    // A restructured inside says so: the loop pays as in the test above.
    let machine = src("// lcm: overheads = machine");
    close(
        predict_with(&machine, opts(true), &at).seconds,
        plain + 3e-6 + 2.5e-7,
    );
}

#[test]
fn loops_and_joins_inside_a_fragment_are_priced_per_execution() {
    let dir = tempfile::tempdir().unwrap();
    let m = round_machine(dir.path());
    let src = r#"
fn main() {
    // lcm: rt = 1e-3
    pplib::frag_scope("work", || {
        for k in 0..m {
            v.par_chunks(64).for_each(|c| kernel(c));
        }
        rayon::join(|| left(), || right());
    });
}
fn setup() {
    let v = vec![0.0; n];
}
"#;
    let at = [("m", 10.0), ("n", 6400.0), ("p", 2.0)];
    let plain = predict(src, None, &at);
    close(plain, 5e-4);
    // m = 10 loops of ceil(6400 / 64) = 100 items: each a fork/join of 2 threads (2e-6 s)
    // and 100 * 1e-9 / 2 s; the join: a fork/join of 2 threads and 2 task starts
    // (2 * 1e-7 processor-s over 2 processors).
    let loops = 10.0 * (2e-6 + 5e-8);
    let join = 2e-6 + 1e-7;
    close(predict(src, Some(&m), &at) - plain, loops + join);
}

#[test]
fn tree_shows_which_rule_applied_inside_a_fragment() {
    let dir = tempfile::tempdir().unwrap();
    round_machine(dir.path());
    std::fs::write(dir.path().join("t.rs"), inside("")).unwrap();
    let (code, out, err) = lcm(&["tree", "t.rs", "--machine", "round.txt"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("inner constructs: pay machine costs, added before the fragment (default: models written in the source): data-parallel `into_par_iter` (line 4)"),
        "{out}"
    );
    assert!(out.contains("inside work"), "{out}");
    std::fs::write(
        dir.path().join("m.rs"),
        inside("// lcm: overheads = measured"),
    )
    .unwrap();
    let (code, out, err) = lcm(&["tree", "m.rs", "--machine", "round.txt"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "covered by the measured model, no machine costs added (`overheads = measured`)"
        ),
        "{out}"
    );
    // An item count the source does not give is assumed p, with a warning, only where
    // the loop pays machine costs.
    let unknown = inside("").replace("(0..n).into_par_iter()", "load().par_iter()");
    std::fs::write(dir.path().join("u.rs"), unknown).unwrap();
    let (code, _, err) = lcm(&["tree", "u.rs"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("item count unknown"), "{err}");
    let (code, out, err) = lcm(&["tree", "u.rs", "--machine", "round.txt"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: u.rs:4: fragment `work`: data-parallel `par_iter` (line 4) inside the fragment: item count unknown"),
        "{err}"
    );
    assert!(out.contains("min(p, p)"), "{out}");
}

/// n-body's fold/reduce restructuring with the fold inside the fragment: the fragment's
/// model is one body's n pairs (1.3e-9 s a pair, as in examples/src/nbody), written in the
/// source, so the fold pays a fork/join and n items per body.
const NBODY_INSIDE: &str = r#"
fn step(bodies: &[Body]) -> Vec<Body> {
    let n = bodies.len();
    let mut next = Vec::with_capacity(n);
    // lcm: iterations = n
    for i in 0..n {
        // lcm: rt = 1.3e-9*n
        let a = pplib::frag_scope("force", || {
            (0..n)
                .into_par_iter()
                .fold(|| [0.0; 3], |acc, j| add3(acc, accel(&bodies[i], &bodies[j])))
                .reduce(|| [0.0; 3], add3)
        });
        next.push(advance(&bodies[i], a));
    }
    next
}
"#;

#[test]
fn nbody_fold_inside_the_fragment_is_ranked_as_slow_as_the_fold_around_it() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let machine = root.join("tests/nbody/machine.txt");
    let opts = PredictOptions {
        machine: Some(machine),
        entry: "step".into(),
        ..PredictOptions::default()
    };
    let at = [("n", 1000.0), ("p", 2.0)];
    let nbody = |file: &str| {
        let text = std::fs::read_to_string(root.join("../examples/src/nbody").join(file)).unwrap();
        predict_with(&text, opts.clone(), &at).seconds
    };
    let inside = predict_with(NBODY_INSIDE, opts.clone(), &at).seconds;
    // The same n fork/joins and n^2 items as reduce.rs (the fragment in the fold's closure).
    let reduce = nbody("reduce.rs");
    assert!(
        (inside - reduce).abs() <= 1e-6 * reduce,
        "{inside} vs {reduce}"
    );
    let outer = nbody("outer.rs");
    assert!(inside / outer >= 3.0, "outer {outer} s, inside {inside} s");
    // Without the machine it is the pairs alone, as outer.rs: the gap is machine costs.
    let plain = PredictOptions {
        machine: None,
        ..opts
    };
    close(predict_with(NBODY_INSIDE, plain, &at).seconds, 6.5e-4);
}

const NESTED: &str = r#"
fn main() {
    (0..m).into_par_iter().for_each(|i| {
        (0..k).into_par_iter().for_each(|j| {
            // lcm: fragment work
            // lcm: rt = 1e-6
            work(i, j);
        });
    });
}
"#;

#[test]
fn a_nested_loop_gets_the_processors_the_outer_items_leave() {
    let dir = tempfile::tempdir().unwrap();
    let mach = round_machine(dir.path());
    let at = |m: f64| [("m", m), ("k", 1000.0), ("p", 8.0)];
    // Without machine costs: m * k items of 1 us over 8 processors, whatever the nesting.
    close(predict(NESTED, None, &at(2.0)), 2.5e-4);
    // m = 1: the inner loop runs at p = max(1, 8/1) = 8: a fork/join of min(1000, 8)
    // threads (1e-6 + 3e-6 s) and 1000 items * 1e-9 / 8; the outer loop's fork/join of
    // min(1, 8) = 1 thread (1e-6 s) and 1 item (1e-9 / 8).
    close(
        predict(NESTED, Some(&mach), &at(1.0)),
        1.25e-4 + (1e-6 + 1.25e-10) + (4e-6 + 1.25e-7),
    );
    // m = 2: each inner loop at p = 4 (3e-6 + 1000e-9/4 s, the two side by side); the
    // outer fork/join of 2 threads (2e-6 s) and 2 items.
    close(
        predict(NESTED, Some(&mach), &at(2.0)),
        2.5e-4 + (2e-6 + 2.5e-10) + (3e-6 + 2.5e-7),
    );
    // m = 16 > p: every inner loop at p = 1 (1e-6 s fork/join, 1000 items * 1e-9 s): 16
    // of those 2e-6 s on 8 processors; the outer fork/join of 8 threads and 16 items.
    close(
        predict(NESTED, Some(&mach), &at(16.0)),
        2e-3 + (4e-6 + 2e-9) + 16.0 * 2e-6 / 8.0,
    );
    // A `p =` on the inner loop's statement wins: p = 1 gives the m = 1 case a serial
    // inner loop (1e-6 s fork/join, 1000 items * 1e-9 s).
    let pinned = NESTED.replace(
        "        (0..k).into_par_iter()",
        "        // lcm: p = 1\n        (0..k).into_par_iter()",
    );
    close(
        predict(&pinned, Some(&mach), &at(1.0)),
        1.25e-4 + (1e-6 + 1.25e-10) + (1e-6 + 1e-6),
    );
}

#[test]
fn tree_shows_the_nested_loops_processors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.rs"), NESTED).unwrap();
    let (code, out, err) = lcm(&["tree", "t.rs"], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "nested: p = max(1, p/items) of the enclosing data-parallel loop = max(1, p/m)"
        ),
        "{out}"
    );
}

/// The study's example sources take their models from a models file (the same name or
/// `like`): the parallel loops inside their fragments are covered by those measured models,
/// so a machine file adds nothing inside any fragment and their predictions keep what they
/// were. The models' numbers do not matter here (the tree is compared, not evaluated).
#[test]
fn the_examples_measured_fragments_get_no_costs_inside() {
    use lcm::predict::overheads::{apply, is_overhead};
    use lcm::predict::program::structure;
    let models = |fragments: &[&str]| -> String {
        fragments
            .iter()
            .map(|f| {
                format!("// lcm: fragment {f}\n// lcm: pc = 1e-9*n\n// lcm: sl = (p - 1)*1e-7\n\n")
            })
            .collect()
    };
    let fft = models(&["alloc", "init", "cols", "transpose", "rows"]);
    // The round machine with a parallel-iterator call price: measured fragments pay no call
    // either.
    let text = format!(
        "{}par_call_s_p1 = 1e-7\npar_call_s_p2 = 5e-6\n",
        round::ROUND
    );
    let costs = lcm::predict::machine::Machine::parse("round.txt", &text)
        .unwrap()
        .costs
        .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/src");
    for file in ["fft/dp.rs", "fft/tp.rs"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let (tree, _) = structure(file, &text, "fft2d", Some(("fft.models", fft.as_str())))
            .unwrap_or_else(|e| panic!("{e}"));
        let with = apply(tree, "round.txt", &costs);
        let frags = with.fragments();
        let covered: Vec<&str> = frags
            .iter()
            .filter(|f| !f.inside.constructs.is_empty())
            .map(|f| f.inside.rule.as_deref().unwrap_or(""))
            .collect();
        assert!(covered.len() >= 4, "{file}: {covered:?}");
        assert!(
            covered
                .iter()
                .all(|r| r.starts_with("covered by the measured model")),
            "{file}: {covered:?}"
        );
        let inside: Vec<&str> = frags
            .iter()
            .filter(|f| is_overhead(&f.name) && f.model_origin.contains("inside"))
            .map(|f| f.name.as_str())
            .collect();
        assert!(inside.is_empty(), "{file}: {inside:?}");
    }
}

/// A recursive divide and conquer (`join` in a called function) wrapped in one fragment:
/// `overheads = machine` has nothing in the fragment's own code to price and says so,
/// naming the fragment, its line (9) and the function that holds the joins.
#[test]
fn overheads_machine_with_the_joins_in_a_called_function_warns() {
    let src = "fn msort(v: &mut [u64]) {\n    if v.len() <= 64 { return; }\n    let (l, r) = v.split_at_mut(v.len() / 2);\n    pplib::join(|| msort(l), || msort(r));\n}\nfn main() {\n    // lcm: pc = 1e-8*n\n    // lcm: overheads = machine\n    pplib::frag_scope(\"sort\", || msort(&mut v));\n}\n";
    let prog = Program::from_source("t.rs", src, &PredictOptions::default()).unwrap();
    let w: Vec<String> = prog.warnings.iter().map(|w| w.to_string()).collect();
    let hit = w
        .iter()
        .find(|w| w.contains("overheads = machine"))
        .unwrap_or_else(|| panic!("{w:?}"));
    assert!(hit.starts_with("warning: t.rs:9:"), "{hit}");
    assert!(
        hit.contains("fragment `sort`") && hit.contains("`msort`"),
        "{hit}"
    );
    // It says how to price the joins of the recursion in a rule.
    assert!(hit.contains("JOINS*join_s"), "{hit}");
    // Nothing anywhere: the warning says so; with the join in the fragment's own code,
    // it is priced and there is no warning.
    let flat = "fn main() {\n    // lcm: pc = 1e-8*n\n    // lcm: overheads = machine\n    pplib::frag_scope(\"sort\", || v.sort());\n}\n";
    let prog = Program::from_source("t.rs", flat, &PredictOptions::default()).unwrap();
    assert!(
        prog.warnings
            .iter()
            .any(|w| w.to_string().contains("nothing is priced")),
        "{:?}",
        prog.warnings
    );
    let own = "fn main() {\n    // lcm: pc = 1e-8*n\n    // lcm: overheads = machine\n    pplib::frag_scope(\"sort\", || pplib::join(|| a(), || b()));\n}\n";
    let prog = Program::from_source("t.rs", own, &PredictOptions::default()).unwrap();
    assert!(
        !prog
            .warnings
            .iter()
            .any(|w| w.to_string().contains("overheads = machine")),
        "{:?}",
        prog.warnings
    );
}
