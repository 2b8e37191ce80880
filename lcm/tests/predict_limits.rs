//! `lcm predict --grid` and `lcm compare` over programs whose calls repeat their fragments
//! thousands of times, and the recognizer's bound on repeated calls, within time and memory
//! limits; and the per-point evaluation they use ([`Program::predict_brief`], which walks
//! each distinct subtree once per point) gives the same times, contributions and warnings
//! as the full breakdown ([`Program::predict`]) on every construct.
//!
//! Every source is generated or written here; what it must give is said where it is made.
//! Before the memoized evaluation, a 10 000-point grid over the 4096-instance chain took
//! about 150 s and 4.2 GB here (each point re-walked every instance and kept its breakdown).

#[path = "support/limited.rs"]
mod limited;
use lcm::predict::{PredictOptions, Program};
use limited::lcm_limited;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Address space of each run (the binary reserves a 256 MiB stack).
const LIMIT_MB: u64 = 1024;
/// Peak resident memory a run may reach.
const PEAK_MB: u64 = 500;
/// Wall clock of each run: a quiet run takes under 2 s; the machine is loaded.
const TIME: Duration = Duration::from_secs(20);

/// `f0` is a fragment of `rt = 1e-9*n`; `f_k` calls `f_{k-1}` twice, in sequence
/// (`join` false) or as the two tasks of a `rayon::join`: 2^levels instances of f0.
fn chain(levels: usize, join: bool) -> String {
    let mut s = String::from(
        "fn f0(a: &mut [f64]) {\n    // lcm: fragment f0\n    // lcm: rt = 1e-9*n\n    \
         a.iter_mut().for_each(|x| *x += 1.0);\n}\n",
    );
    for k in 1..=levels {
        let j = k - 1;
        s += &if join {
            format!(
                "fn f{k}(a: &mut [f64]) {{\n    let (x, y) = a.split_at_mut(1);\n    \
                 rayon::join(|| f{j}(x), || f{j}(y));\n}}\n"
            )
        } else {
            format!("fn f{k}(a: &mut [f64]) {{\n    f{j}(a);\n    f{j}(a);\n}}\n")
        };
    }
    s + &format!("fn main() {{\n    let mut a = vec![0.0; 8];\n    f{levels}(&mut a);\n}}\n")
}

fn at(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn within_limits(r: &limited::Run, what: &str) {
    assert!(r.elapsed < TIME, "{what}: {:?}", r.elapsed);
    assert!(
        r.peak_rss_mb < PEAK_MB,
        "{what}: peak resident {} MiB",
        r.peak_rss_mb
    );
}

/// The T column of a grid table's row whose first column is `x`.
fn row_time(table: &str, x: &str) -> String {
    let row = table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(x))
        .unwrap_or_else(|| panic!("no row {x} in {}", &table[..table.len().min(400)]));
    row.split_whitespace().nth(1).unwrap().to_string()
}

#[test]
fn a_grid_over_4096_fragment_instances_takes_seconds_and_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("seq12.rs"), chain(12, false)).unwrap();
    std::fs::write(d.join("join12.rs"), chain(12, true)).unwrap();
    for (file, parallel) in [("seq12.rs", false), ("join12.rs", true)] {
        let r = lcm_limited(
            d,
            &["predict", file, "--set", "n=1", "--grid", "p=1..10000"],
            LIMIT_MB,
            TIME,
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        within_limits(&r, file);
        assert_eq!(r.stdout.lines().count(), 10_002, "{file}");
        // 4096 executions of 1e-9 processor-seconds on p processors: 4.096e-6/p seconds
        // (in the join chain each instance gets p/4096 of the processors, the same time).
        assert_eq!(row_time(&r.stdout, "1"), "4.0960e-6", "{file}");
        assert_eq!(row_time(&r.stdout, "8"), "5.1200e-7", "{file}");
        assert_eq!(row_time(&r.stdout, "10000"), "4.0960e-10", "{file}");
        // The grid's rows are the single-point predictions at those points.
        let prog = Program::load(&d.join(file), &PredictOptions::default()).unwrap();
        let full = prog.predict(&at(&[("n", 1.0), ("p", 8.0)])).unwrap();
        assert_eq!(full.accounting.fragments.len(), 4096);
        assert_eq!(
            full.accounting.parallels.len(),
            if parallel { 4095 } else { 0 }
        );
        assert_eq!(lcm::predict::report::secs(full.seconds), "5.1200e-7");
    }
    // Comparing the two versions over the same grid: every point a tie.
    let r = lcm_limited(
        d,
        &[
            "compare",
            "seq12.rs",
            "join12.rs",
            "--set",
            "n=1",
            "--grid",
            "p=1..10000",
        ],
        LIMIT_MB,
        TIME,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    within_limits(&r, "compare");
    assert!(
        r.stdout
            .contains("a better at 0 point(s), b better at 0, tie at 10000"),
        "{}",
        &r.stdout[r.stdout.len().saturating_sub(600)..]
    );
}

#[test]
fn a_chain_of_22_functions_calling_the_next_twice_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 2^22 = 4 194 304 instances of f0 (62 s and 15.7 GB before the recognizer's bound):
    // refused at the call being followed when the bound is passed, naming file and line.
    for join in [false, true] {
        std::fs::write(d.join("chain22.rs"), chain(22, join)).unwrap();
        for args in [
            &["predict", "chain22.rs", "--set", "n=1", "--set", "p=4"][..],
            &[
                "predict",
                "chain22.rs",
                "--set",
                "n=1",
                "--grid",
                "p=1..10000",
            ],
            &["tree", "chain22.rs"],
            &["compare", "chain22.rs", "chain22.rs", "--set", "n=1,p=4"],
        ] {
            let r = lcm_limited(d, args, LIMIT_MB, TIME);
            assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
            within_limits(&r, "chain22.rs");
            assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
            assert!(
                r.stderr.starts_with("lcm: chain22.rs:")
                    && r.stderr
                        .contains("exceeds 100000 expressions with every call followed"),
                "{}",
                r.stderr
            );
        }
    }
}

/// The brief and the full prediction of `src` agree at each of `points`.
fn agree(name: &str, src: &str, opts: &PredictOptions, points: &[&[(&str, f64)]]) {
    let prog = Program::from_source(name, src, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    for pt in points {
        let b = at(pt);
        let (full, brief) = (prog.predict(&b), prog.predict_brief(&b));
        let (full, brief) = match (full, brief) {
            (Ok(f), Ok(b)) => (f, b),
            (Err(f), Err(b)) => {
                assert_eq!(f.to_string(), b.to_string(), "{name} at {pt:?}");
                continue;
            }
            (f, b) => panic!("{name} at {pt:?}: {f:?} against {b:?}"),
        };
        assert_eq!(full.seconds, brief.seconds, "{name} at {pt:?}");
        assert_eq!(
            full.accounting.range_warnings, brief.range_warnings,
            "{name} at {pt:?}"
        );
        let (c, d) = (&full.contributions, &brief.contributions);
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-300);
        let names = |v: &[(String, f64)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c.fragments), names(&d.fragments), "{name} at {pt:?}");
        for ((n, x), (_, y)) in c.fragments.iter().zip(&d.fragments) {
            assert!(
                close(*x, *y),
                "{name} at {pt:?}: fragment {n}: {x} against {y}"
            );
        }
        for (what, x, y) in [
            ("LI+", c.load_imbalance_s, d.load_imbalance_s),
            ("pipeline", c.pipeline_s, d.pipeline_s),
            ("idle", c.idle_s, d.idle_s),
            ("communication", c.communication_s, d.communication_s),
            ("synchronization", c.synchronization_s, d.synchronization_s),
            ("contention", c.contention_s, d.contention_s),
            ("total", c.total_s, d.total_s),
        ] {
            assert!(close(x, y), "{name} at {pt:?}: {what}: {x} against {y}");
        }
    }
}

#[test]
fn the_brief_prediction_agrees_with_the_full_breakdown() {
    let default = PredictOptions::default();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/predict");
    for f in ["fft_dp.rs", "fft_tp.rs"] {
        let src = std::fs::read_to_string(fixtures.join(f)).unwrap();
        let pts: &[&[(&str, f64)]] = &[
            &[("n", 1024.0), ("p", 8.0)],
            &[("n", 64.0), ("p", 1.0)],
            &[("n", 1e6), ("p", 3.0)],
        ];
        agree(f, &src, &default, pts);
    }
    let four: &[&[(&str, f64)]] = &[&[("n", 10.0), ("p", 4.0)], &[("n", 1.0), ("p", 1.0)]];
    agree("seq5.rs", &chain(5, false), &default, four);
    agree("join5.rs", &chain(5, true), &default, four);
    // Spawn loops, data-parallel items, trip counts, overrides of p and n, a repeated call
    // with and without an override, a range warning, a pipeline and p_f = 0 (an error).
    let mixed = r#"
fn main() {
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                // lcm: fragment spawned
                // lcm: rt = 8*n
                work();
            });
        }
    });
    (0..64).into_par_iter().for_each(|i| {
        // lcm: fragment item
        // lcm: rt = 1e-3*n
        // lcm: range n = 1..100
        item(i);
    });
    // lcm: iterations = m
    while running() {
        helper();
    }
    // lcm: p = p - 1
    helper();
    // lcm: n = n/2
    helper();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                // lcm: fragment produce
                // lcm: rt = 3
                let item = produce(k);
                tx.send(item).unwrap();
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = 5
                consume(item);
            }
        });
    });
}

fn helper() {
    rayon::join(
        || {
            // lcm: fragment big
            // lcm: rt = 8*n
            big();
        },
        || {
            // lcm: fragment small
            // lcm: rt = 4
            small();
        },
    );
}
"#;
    let pts: &[&[(&str, f64)]] = &[
        &[("n", 10.0), ("p", 4.0), ("m", 3.0)],
        &[("n", 1000.0), ("p", 7.0), ("m", 1.0)],
        &[("n", 10.0), ("p", 1.0), ("m", 2.0)],
    ];
    agree("mixed.rs", mixed, &default, pts);
    // Communication across a join, with a machine file's prices.
    let dir = tempfile::tempdir().unwrap();
    let machine = dir.path().join("m.txt");
    std::fs::write(&machine, "latency_s = 0.5\nbandwidth_bytes_per_s = 1000\n").unwrap();
    let trace = r#"
fn main() {
    for _ in 0..2 {
        step();
    }
}

fn step() {
    rayon::join(
        || {
            // lcm: fragment writer
            // lcm: rt = 2
            // lcm: output a
            w();
        },
        || {
            // lcm: fragment reader
            // lcm: rt = 2
            // lcm: input a
            // lcm: bytes = 1000
            r();
        },
    );
}
"#;
    let opts = PredictOptions {
        machine: Some(machine),
        ..PredictOptions::default()
    };
    agree("trace.rs", trace, &opts, &[&[("p", 2.0)], &[("p", 5.0)]]);
}

#[test]
fn streamed_grid_json_is_the_collected_json() {
    // `lcm predict --json --grid` writes one point at a time; the text is the array that
    // predictions_json builds from all points at once (fft_tp.rs: a pipeline; speedups
    // against p = 1 per n).
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/predict");
    let prog = Program::load(&fixtures.join("fft_tp.rs"), &PredictOptions::default()).unwrap();
    let axes = lcm::predict::grid::parse_grid("n=256,1024,p=1..4").unwrap();
    let grid = lcm::predict::grid::Grid::new(vec![], axes);
    let points = grid.points();
    let preds: Vec<_> = points.iter().map(|b| prog.predict(b).unwrap()).collect();
    let ts: Vec<f64> = points
        .iter()
        .map(|b| prog.predict_brief(b).unwrap().seconds)
        .collect();
    let mut out = Vec::new();
    lcm::predict::report::write_predictions_json(&mut out, &points, &ts, |i| {
        prog.predict(&points[i])
    })
    .unwrap();
    let collected = lcm::predict::report::predictions_json(&preds, &grid) + "\n";
    assert_eq!(String::from_utf8(out).unwrap(), collected);
    let mut empty = Vec::new();
    lcm::predict::report::write_predictions_json(&mut empty, &[], &[], |i| {
        prog.predict(&points[i])
    })
    .unwrap();
    assert_eq!(empty, b"[]\n");
}
