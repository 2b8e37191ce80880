//! lcm reads pplib's own calls as names and structure: `pplib::frag` / `frag_scope` name
//! fragments (no `// lcm: fragment` needed), `pplib::par` / `par_scope` with `task` /
//! `task_scope` are a fork point and its tasks, `pp_for_each` is a data-parallel loop, and
//! a pool's size is the p of what runs in it. Each fixture is a small inline source; the
//! expected time is worked out by hand above its assertion (models are constant
//! processor-seconds). The last test reads the example programs of the study
//! (examples/src) with their `// lcm: fragment` lines blanked out and must find the same
//! structure as with them.

use lcm::predict::program::structure;
use lcm::predict::tree::{render, Node, NodeKind};
use lcm::predict::{PredictError, PredictOptions, Program, Warning};
use std::collections::BTreeMap;

fn at(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn seconds(src: &str, pairs: &[(&str, f64)]) -> f64 {
    let prog = Program::from_source("t.rs", src, &PredictOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    prog.predict(&at(pairs))
        .unwrap_or_else(|e| panic!("{e}"))
        .seconds
}

fn tree(src: &str) -> (Node, Vec<Warning>) {
    structure("t.rs", src, "main", None).unwrap_or_else(|e| panic!("{e}"))
}

fn error(src: &str) -> String {
    match Program::from_source("t.rs", src, &PredictOptions::default()) {
        Err(e @ PredictError::Annotation { .. }) => e.to_string(),
        Err(e) => panic!("expected an annotation error, got {e}"),
        Ok(_) => panic!("expected an error"),
    }
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs(),
        "got {got}, want {want}"
    );
}

/// The kinds of the nodes of a tree in preorder, as `lcm tree --json` names them.
fn kinds(n: &Node, out: &mut Vec<String>) {
    out.push(match &n.kind {
        NodeKind::Serial { label } => format!("serial {label}"),
        NodeKind::Parallel { construct } => format!("parallel {construct}"),
        NodeKind::ParallelLoop { count, .. } => format!("parallel_loop x {count}"),
        NodeKind::DataParallel { construct, count } => {
            format!("data_parallel {construct} x {count}")
        }
        NodeKind::Loop { count, .. } => format!("loop x {count}"),
        NodeKind::Fragment(f) => format!("fragment {}", f.name),
        other => format!("{other:?}"),
    });
    for c in &n.children {
        kinds(c, out);
    }
}

fn kinds_of(src: &str) -> Vec<String> {
    let mut v = Vec::new();
    kinds(&tree(src).0, &mut v);
    v
}

#[test]
fn frag_scope_names_the_fragment_its_statement_is() {
    // `cols` is named by pplib alone: 8 processor-seconds over p = 4 is 2 s. The statement
    // after it (no blank line between) is not part of it: `rows` adds 4/4 = 1 s.
    let src = r#"
fn main() {
    // lcm: rt = 8
    pplib::frag_scope("cols", || cols());
    // lcm: rt = 4
    let r = pplib::frag_scope("rows", || rows()).len();
}
"#;
    close(seconds(src, &[("p", 4.0)]), 3.0);
    assert_eq!(
        kinds_of(src),
        ["serial fn main", "fragment cols", "fragment rows"]
    );
}

#[test]
fn frag_guard_runs_to_its_drop_or_the_end_of_the_block() {
    // `search` covers the parallel loop (its model holds it) and ends at `drop(tag)`; `tail` is
    // named by its own guard, held to the end of the block.
    let src = r#"
fn main() {
    // lcm: rt = 6
    let tag = pplib::frag("search");
    items.par_iter().pp_for_each(|x| visit(x));
    drop(tag);
    // lcm: rt = 2
    let _tail = frag("tail");
    finish();
    more();
}
"#;
    let (root, warnings) = tree(src);
    assert!(warnings.is_empty(), "{warnings:?}");
    let frags = root.fragments();
    assert_eq!(frags.len(), 2);
    assert_eq!((frags[0].name.as_str(), frags[0].end_line), ("search", 6));
    assert_eq!((frags[1].name.as_str(), frags[1].end_line), ("tail", 10));
    // One covered loop, named by the method that starts it.
    assert_eq!(
        frags[0].inner_parallelism.len(),
        1,
        "{:?}",
        frags[0].inner_parallelism
    );
    assert!(frags[0].inner_parallelism[0].contains("par_iter"));
    // 6/2 + 2/2.
    close(seconds(src, &[("p", 2.0)]), 4.0);
}

#[test]
fn an_agreeing_annotation_is_redundant_and_a_disagreeing_one_an_error() {
    let agree = r#"
fn main() {
    // lcm: fragment cols
    // lcm: rt = 8
    pplib::frag_scope("cols", || cols());
}
"#;
    close(seconds(agree, &[("p", 2.0)]), 4.0);
    let disagree = agree.replace("fragment cols", "fragment rows");
    let e = error(&disagree);
    assert!(e.contains("t.rs:3"), "{e}");
    assert!(
        e.contains("`// lcm: fragment rows` (line 3)") && e.contains("`cols` (line 5)"),
        "{e}"
    );
    let guard = r#"
fn main() {
    // lcm: fragment a
    // lcm: rt = 8
    let _g = pplib::frag("b");
    work();
}
"#;
    let e = error(guard);
    assert!(e.contains("(line 3)") && e.contains("`b` (line 5)"), "{e}");
}

#[test]
fn a_model_with_no_fragment_name_anywhere_is_an_error() {
    // Neither an annotation nor a pplib call names it.
    let e = error("fn main() {\n    // lcm: rt = 8\n    work();\n}\n");
    assert!(e.contains("t.rs:2") && e.contains("found neither"), "{e}");
    // A name that is not a string literal cannot name it either.
    let e = error("fn main() {\n    // lcm: rt = 8\n    pplib::frag_scope(name, || work());\n}\n");
    assert!(e.contains("t.rs:3") && e.contains("string literal"), "{e}");
    // A guard dropped at once measures nothing: a warning, and its models have no fragment.
    let src = "fn main() {\n    let _ = pplib::frag(\"x\");\n    work();\n}\n";
    let (_, w) = tree(src);
    assert!(
        w.iter()
            .any(|w| w.line == 2 && w.message.contains("dropped at once")),
        "{w:?}"
    );
    // A local function called `frag` is not pplib's.
    let local = "fn frag(_: &str) {}\nfn main() {\n    // lcm: rt = 8\n    frag(\"x\");\n}\n";
    assert!(error(local).contains("found neither"));
}

#[test]
fn pp_for_each_is_a_data_parallel_loop_whatever_iterator_it_ends() {
    // `rayon::iter::repeatn` is no `par_*` method: pplib's consumer says it is parallel.
    let src = r#"
fn main() {
    // lcm: iterations = 8
    rayon::iter::repeatn(0u8, 8).pp_for_each(|_| {
        // lcm: rt = 1
        pplib::frag_scope("item", || work());
    });
}
"#;
    assert_eq!(
        kinds_of(src),
        [
            "serial fn main",
            "data_parallel pp_for_each x 8",
            "serial item",
            "fragment item"
        ]
    );
}

#[test]
fn par_guard_with_task_scopes_is_a_fork_point_of_those_tasks() {
    // Two tasks of 6 and 2 processor-seconds: at p = 2 each runs on one processor,
    // T = max(6, 2) = 6 (read as serial code it would be 8/2 = 4).
    let src = r#"
fn main() {
    let forked = pplib::par();
    pplib::task_scope(|| {
        // lcm: rt = 6
        pplib::frag_scope("left", || left());
    });
    pplib::task_scope(|| {
        // lcm: rt = 2
        pplib::frag_scope("right", || right());
    });
    drop(forked);
}
"#;
    close(seconds(src, &[("p", 2.0)]), 6.0);
    assert_eq!(kinds_of(src)[1], "parallel pplib::par");
    // The same tasks without a `par`: pplib records them, but nothing forks; in sequence.
    let serial = src
        .replace("    let forked = pplib::par();\n", "")
        .replace("    drop(forked);\n", "");
    close(seconds(&serial, &[("p", 2.0)]), 4.0);
}

#[test]
fn par_scope_with_task_guards_in_a_loop_is_a_parallel_loop() {
    let src = r#"
fn main() {
    pplib::par_scope(|| {
        for i in 0..4 {
            let t = pplib::task();
            // lcm: rt = 1
            pplib::frag_scope("item", || work(i));
            drop(t);
        }
    });
}
"#;
    let k = kinds_of(src);
    assert_eq!(k[1], "parallel pplib::par", "{k:?}");
    assert_eq!(k[2], "parallel_loop x 4", "{k:?}");
    // A par around a construct lcm recognizes anyway adds nothing.
    let join = r#"
fn main() {
    let _p = pplib::par();
    rayon::join(
        || {
            // lcm: rt = 6
            pplib::frag_scope("a", || a());
        },
        || {
            // lcm: rt = 2
            pplib::frag_scope("b", || b());
        },
    );
}
"#;
    assert_eq!(kinds_of(join)[1], "parallel rayon::join");
    close(seconds(join, &[("p", 2.0)]), 6.0);
}

#[test]
fn a_pool_size_in_the_programs_variables_is_the_p_of_its_work() {
    // num_threads(p / 2) is floor(p/2) threads: 8 processor-seconds at p = 5 run on 2,
    // T = 4 (on all 5 it would be 1.6).
    let builder = r#"
fn main() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(p / 2).build().unwrap();
    pool.install(|| {
        // lcm: rt = 8
        pplib::frag_scope("work", || work());
    });
}
"#;
    close(seconds(builder, &[("p", 5.0)]), 4.0);
    // `pplib::pool` by its full path only: a bare `pool(..)` may be anyone's, p stays 5.
    let bare = builder.replace(
        "rayon::ThreadPoolBuilder::new().num_threads(p / 2).build().unwrap()",
        "pool(p / 2)",
    );
    close(seconds(&bare, &[("p", 5.0)]), 1.6);
    // pplib::run(2, ..): two threads whatever p is.
    let run = r#"
fn main() {
    pplib::run(2, || {
        // lcm: rt = 8
        pplib::frag_scope("work", || work());
    })
    .unwrap();
}
"#;
    close(seconds(run, &[("p", 8.0)]), 4.0);
    // A size in a local variable lcm cannot evaluate: a warning, the work keeps p.
    let local = builder.replace("num_threads(p / 2)", "num_threads(threads)");
    let (_, w) = tree(&local);
    assert!(
        w.iter()
            .any(|w| w.line == 4 && w.message.contains("threads")),
        "{w:?}"
    );
    close(seconds(&local, &[("p", 4.0)]), 2.0);
    // A written `// lcm: p = ..` wins over the pool's size.
    let annotated = builder.replace("    pool.install(", "    // lcm: p = 1\n    pool.install(");
    close(seconds(&annotated, &[("p", 5.0)]), 8.0);
}

#[test]
fn a_task_whose_body_installs_a_pool_runs_at_the_pools_size() {
    // Task a installs pplib::pool(p - 1): at p = 4 it runs on 3 processors, 6/3 = 2 s;
    // task b gets the default share p/2 = 2: 1/2 s. T = 2 (at p/2 for both it would be 3).
    let src = r#"
fn main() {
    let pool_a = pplib::pool(p - 1).expect("pool");
    std::thread::scope(|s| {
        s.spawn(|| pool_a.install(|| {
            // lcm: rt = 6
            pplib::frag_scope("a", || a());
        }));
        s.spawn(|| {
            // lcm: rt = 1
            pplib::frag_scope("b", || b());
        });
    });
}
"#;
    let (_, w) = tree(src);
    assert!(w.is_empty(), "{w:?}");
    close(seconds(src, &[("p", 4.0)]), 2.0);
}

/// A models file with simple models for the measured fragments the restructured example
/// sources derive theirs from (`like`, `FRAGMENT.CATEGORY`): the structure does not depend
/// on the numbers.
fn measured_models(fragments: &[&str]) -> String {
    fragments
        .iter()
        .map(|f| format!("// lcm: fragment {f}\n// lcm: pc = 1e-9*n + 1e-6\n// lcm: ml = (p - 1)*1e-7\n// lcm: li = (p - 1)*1e-7\n// lcm: ip = (p - 1)*1e-7\n// lcm: sl = (p - 1)*1e-7\n// lcm: wc = (p - 1)*1e-7\n\n"))
        .collect()
}

/// The example programs of the study name their fragments by pplib's calls only: they
/// resolve, with fragments, against the measured models; and should a `// lcm: fragment`
/// line come back, turning it into a plain comment (line numbers kept) must give the same
/// tree, since pplib's calls name the same fragments over the same code.
#[test]
fn the_examples_need_no_fragment_annotations() {
    let fft = measured_models(&["alloc", "init", "cols", "transpose", "rows"]);
    let fill = measured_models(&["fill"]);
    let search = measured_models(&["search"]);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/src");
    let cases = [
        ("fft/dp.rs", "fft2d", &fft),
        ("fft/tp.rs", "fft2d", &fft),
        ("histogram/locked.rs", "fill", &fill),
        ("histogram/sharded.rs", "fill", &fill),
        ("queens/loop_par.rs", "count", &search),
        ("queens/tree.rs", "count", &search),
    ];
    for (file, entry, models) in cases {
        let models = Some(("models.lcm", models.as_str()));
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let blanked: String = text
            .lines()
            .map(|l| {
                let l = if l.trim_start().starts_with("// lcm: fragment ") {
                    l.replace("// lcm: fragment ", "// named by pplib: ")
                } else {
                    l.to_string()
                };
                l + "\n"
            })
            .collect();
        let (with, _) = structure(file, &text, entry, models).unwrap_or_else(|e| panic!("{e}"));
        let (without, w) =
            structure(file, &blanked, entry, models).unwrap_or_else(|e| panic!("{e}"));
        assert!(!with.fragments().is_empty(), "{file}");
        assert_eq!(render(&with, file), render(&without, file), "{file}: {w:?}");
    }
}

#[test]
fn fragment_sites_list_where_models_go() {
    use lcm::predict::recognize::{fragment_sites, FragmentSite};
    use lcm::predict::source::SourceFile;
    let text = "fn main() {\n    // lcm: rt = 1\n    pplib::frag_scope(\"a\", || a());\n    // lcm: fragment b\n    b();\n    let _t = pplib::frag(\"c\");\n}\nfn unreached() {\n    pplib::frag_scope(\"d\", || d());\n}\n";
    let src = SourceFile::parse("t.rs", text).unwrap();
    let site = |name: &str, line, annotated| FragmentSite {
        name: name.into(),
        line,
        annotated,
    };
    assert_eq!(
        fragment_sites(&src),
        [
            site("a", 3, false),
            site("b", 5, true),
            site("c", 6, false),
            site("d", 9, false)
        ]
    );
}
