//! Differential tests: the fast pipeline (lanes, merge of transitions, hot loop) against
//! the reference (merge of events into `Sweep::event`), on every fixture and on many
//! random traces and binary logs (oversubscription, wasted tasks, nested and overlapping
//! fragments, nested waits, counters, late and unclosed threads, equal time stamps,
//! epoch-scale time stamps, ends that match no begin, truncated and corrupted logs).
//!
//! What must be identical, byte for byte: the record lines (`-l`), the default table, the
//! per-thread table, the JSON report, the warnings, the number of events, and the first
//! error's message. [`Engine::FastTotals`] (no per-thread rows) is compared on what it
//! feeds: record lines, default table, warnings and errors.

use std::path::{Path, PathBuf};

use pp::report::Report;
use pp::table::analysis_text;
use pp::{analyze_reader_with, Analysis, Engine, Options, TagSelection};
use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{CounterId, EventKind, Header, LogReader, Nanos, ThreadId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Everything a user can see of one analysis (or its error).
#[derive(Debug, PartialEq)]
struct Seen {
    lines: Vec<String>,
    table: String,
    per_thread: Option<String>,
    json: Option<String>,
    warnings: Vec<String>,
    events: u64,
}

fn seen(result: Result<Analysis, pp::PpError>, full: bool) -> Result<Seen, String> {
    let mut a = result.map_err(|e| e.to_string())?;
    a.log = PathBuf::from("log");
    let json = full.then(|| Report::new(std::slice::from_ref(&a), &[]).to_json());
    Ok(Seen {
        lines: a.record_lines(&["n=1".to_owned()]),
        table: analysis_text(&a, false),
        per_thread: full.then(|| analysis_text(&a, true)),
        json,
        warnings: a.warnings.clone(),
        events: a.events,
    })
}

/// Runs every engine, threaded and sequential, on `bytes` and checks they agree; returns
/// the reference's outcome.
fn check_engines(bytes: &[u8], name: &str, options: &Options, what: &str) -> Result<Seen, String> {
    let run = |engine: Engine, sequential: bool| {
        let options = Options {
            sequential,
            ..options.clone()
        };
        let full = engine != Engine::FastTotals;
        match LogReader::from_bytes(bytes.to_vec(), name) {
            Ok(reader) => seen(analyze_reader_with(&reader, &options, None, engine), full),
            Err(e) => Err(e.to_string()),
        }
    };
    let reference = run(Engine::Reference, true);
    for sequential in [true, false] {
        let fast = run(Engine::Fast, sequential);
        assert_eq!(
            fast, reference,
            "{what}: fast (sequential: {sequential}) differs from the reference"
        );
        let totals = run(Engine::FastTotals, sequential);
        match (&totals, &reference) {
            (Ok(t), Ok(r)) => {
                assert_eq!(t.lines, r.lines, "{what}: record lines (totals only)");
                assert_eq!(t.table, r.table, "{what}: table (totals only)");
                assert_eq!(t.warnings, r.warnings, "{what}: warnings (totals only)");
                assert_eq!(t.events, r.events, "{what}: events (totals only)");
            }
            _ => assert_eq!(
                totals.as_ref().err(),
                reference.as_ref().err(),
                "{what}: error (totals only)"
            ),
        }
    }
    reference
}

fn all_tag_selections(names: &[&str]) -> Vec<TagSelection> {
    let mut tags = vec![TagSelection::None, TagSelection::All];
    tags.extend(names.iter().map(|n| TagSelection::One((*n).to_owned())));
    tags
}

#[test]
fn every_fixture_gives_identical_outputs_with_every_engine() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("pptrace") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let reader = LogReader::from_bytes(bytes.clone(), "fixture.pptrace").unwrap();
        let names: Vec<&str> = reader.names().iter().map(String::as_str).collect();
        for tags in all_tag_selections(&names) {
            for histograms in [false, true] {
                let options = Options {
                    tags: tags.clone(),
                    miss_latency_ns: Some(100.0),
                    histograms,
                    ..Options::default()
                };
                let what = format!("{} {tags:?}", path.display());
                let _ = check_engines(&bytes, "fixture.pptrace", &options, &what);
                checked += 1;
            }
        }
    }
    assert!(checked >= 12 * 4, "only {checked} fixture cases");
}

/// A random trace in text form: per thread, random nesting of fragments (three names,
/// nested and overlapping across threads), pars, tasks (some wasted), waits (some
/// nested), counter samples; equal time stamps; threads that start late; sometimes no
/// session, constructs left open, an end that matches no begin, or time going backwards.
fn random_text_trace(rng: &mut ChaCha8Rng) -> String {
    let p = rng.gen_range(1..=4);
    let threads = rng.gen_range(1..=6);
    let base: u64 = if rng.gen_bool(0.5) {
        0
    } else {
        1_700_000_000_000_000_000
    };
    let counters = rng.gen_bool(0.3);
    let session = rng.gen_bool(0.85);
    let break_one = rng.gen_bool(0.1);
    let mut lines = vec!["pptrace 1".to_owned(), format!("processors {p}")];
    let mut end_of_all = base;
    let mut bodies = Vec::new();
    for t in 0..threads {
        let mut now = base + rng.gen_range(0..3_000u64);
        let mut stack: Vec<&str> = Vec::new();
        let mut body = Vec::new();
        let mut cpu = 0u64;
        for _ in 0..rng.gen_range(0..50) {
            // Coarse steps: many equal time stamps within and across threads.
            now += rng.gen_range(0..4u64) * 500;
            let r = rng.gen_range(0..100);
            if r < 8 && counters {
                cpu += rng.gen_range(0..2_000u64);
                body.push(format!(
                    "{now} {t} counters cpu_ns={cpu} llc_misses={}",
                    cpu / 7
                ));
            } else if r < 55 || stack.is_empty() {
                let (open, close) = match rng.gen_range(0..7) {
                    0 => ("frag_begin a", "frag_end a"),
                    1 => ("frag_begin b", "frag_end b"),
                    2 => ("frag_begin c", "frag_end c"),
                    3 => ("par_begin", "par_end"),
                    4 | 5 => ("task_begin", "task_end"),
                    _ => ("wait_begin lock", "wait_end"),
                };
                body.push(format!("{now} {t} {open}"));
                stack.push(close);
            } else {
                let close = stack.pop().unwrap();
                let wasted = close == "task_end" && rng.gen_bool(0.3);
                body.push(format!(
                    "{now} {t} {close}{}",
                    if wasted { " wasted" } else { "" }
                ));
            }
        }
        let leave_open = rng.gen_bool(0.1);
        while let Some(close) = stack.pop() {
            if leave_open {
                break;
            }
            now += rng.gen_range(0..3u64) * 500;
            body.push(format!("{now} {t} {close}"));
        }
        if break_one && t == threads - 1 {
            if rng.gen_bool(0.5) {
                body.push(format!("{now} {t} par_end"));
            } else {
                body.push(format!("{} {t} task_begin", now.saturating_sub(1)));
            }
        }
        end_of_all = end_of_all.max(now);
        bodies.push(body);
    }
    if session {
        lines.push(format!("{base} 0 session_begin"));
    }
    for body in bodies {
        lines.extend(body);
    }
    if session {
        lines.push(format!("{} 0 session_end", end_of_all + 500));
    }
    lines.join("\n") + "\n"
}

#[test]
fn random_text_traces_give_identical_outputs_with_every_engine() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xd1ff);
    let (mut ok, mut errors) = (0, 0);
    for case in 0..400 {
        let trace = random_text_trace(&mut rng);
        let tags = match case % 4 {
            0 => TagSelection::None,
            1 => TagSelection::All,
            2 => TagSelection::One("a".to_owned()),
            _ => TagSelection::One("b".to_owned()),
        };
        let options = Options {
            tags,
            miss_latency_ns: Some(50.0),
            ..Options::default()
        };
        match check_engines(
            trace.as_bytes(),
            "random.pptrace",
            &options,
            &format!("case {case}\n{trace}"),
        ) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    // Both kinds of outcome were exercised.
    assert!(ok > 200 && errors > 10, "ok {ok}, errors {errors}");
}

/// A random binary log written with pplib's writer: `threads` threads of task / wait /
/// fragment / par rounds with random steps (equal times included), small chunks so that
/// batches end anywhere, counter samples, sometimes oversubscribed (p smaller than the
/// busy threads).
fn random_binary_log(rng: &mut ChaCha8Rng, rounds: usize) -> Vec<u8> {
    let threads: u32 = rng.gen_range(1..=8);
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: rng.gen_range(1..=threads + 1),
        clock: "synthetic".to_owned(),
        counters: vec!["cpu_ns".to_owned(), "llc_misses".to_owned()],
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let work = w.name("work").unwrap();
    let inner = w.name("inner").unwrap();
    let lock = w.name("lock").unwrap();
    let base = if rng.gen_bool(0.5) {
        0
    } else {
        1_700_000_000_000_000_000
    };
    let mut chunk = ChunkEncoder::new(ThreadId(0));
    let per_chunk = rng.gen_range(1..40 + rounds);
    for t in 0..threads {
        let mut now = base + rng.gen_range(0..1_000u64);
        let mut events: Vec<EventKind> = Vec::new();
        if t == 0 {
            events.push(EventKind::SessionBegin);
        }
        let mut cpu = 0;
        for _ in 0..rng.gen_range(0..rounds) {
            let round: Vec<EventKind> = match rng.gen_range(0..4) {
                0 => vec![
                    EventKind::ParBegin,
                    EventKind::TaskBegin,
                    EventKind::FragBegin(work),
                    EventKind::FragEnd(work),
                    EventKind::TaskEnd { wasted: false },
                    EventKind::ParEnd,
                ],
                1 => vec![
                    EventKind::TaskBegin,
                    EventKind::FragBegin(work),
                    EventKind::WaitBegin(lock),
                    EventKind::WaitBegin(lock),
                    EventKind::WaitEnd,
                    EventKind::WaitEnd,
                    EventKind::FragEnd(work),
                    EventKind::TaskEnd {
                        wasted: rng.gen_bool(0.3),
                    },
                ],
                2 => vec![
                    EventKind::FragBegin(inner),
                    EventKind::TaskBegin,
                    EventKind::TaskBegin,
                    EventKind::TaskEnd { wasted: true },
                    EventKind::TaskEnd { wasted: false },
                    EventKind::FragEnd(inner),
                ],
                _ => {
                    cpu += rng.gen_range(0..500u64);
                    vec![EventKind::Counters(vec![
                        (CounterId(0), cpu),
                        (CounterId(1), cpu / 3),
                    ])]
                }
            };
            events.extend(round);
        }
        if t == 0 {
            events.push(EventKind::SessionEnd);
        }
        for batch in events.chunks(per_chunk) {
            chunk.reset(ThreadId(t));
            for kind in batch {
                now += rng.gen_range(0..3u64) * 100;
                chunk.event(Nanos(now), kind);
            }
            w.chunk(&chunk).unwrap();
        }
    }
    w.finish().unwrap()
}

#[test]
fn random_binary_logs_give_identical_outputs_and_errors_with_every_engine() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xb1a5);
    let (mut ok, mut errors) = (0, 0);
    for case in 0..200 {
        let mut bytes = random_binary_log(&mut rng, 60);
        match case % 5 {
            // Truncated somewhere after the header.
            3 if bytes.len() > 64 => {
                let cut = rng.gen_range(64..bytes.len());
                bytes.truncate(cut);
            }
            // A corrupted byte.
            4 if bytes.len() > 64 => {
                let at = rng.gen_range(64..bytes.len());
                bytes[at] ^= 1 << rng.gen_range(0..8);
            }
            _ => {}
        }
        let options = Options {
            tags: if case % 2 == 0 {
                TagSelection::All
            } else {
                TagSelection::None
            },
            miss_latency_ns: Some(80.0),
            allow_truncated: case % 3 == 0,
            ..Options::default()
        };
        match check_engines(
            &bytes,
            "random.pplog",
            &options,
            &format!("binary case {case}"),
        ) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    assert!(ok > 100 && errors > 10, "ok {ok}, errors {errors}");
}

#[test]
fn long_binary_logs_give_identical_outputs_with_every_engine() {
    // Long enough for many frontiers of thousands of transitions (the radix sort, full
    // lane batches, runs queued between threads).
    let mut rng = ChaCha8Rng::seed_from_u64(0x10c);
    for case in 0..6 {
        let bytes = random_binary_log(&mut rng, 6_000);
        for tags in [TagSelection::None, TagSelection::All] {
            let options = Options {
                tags,
                ..Options::default()
            };
            check_engines(&bytes, "long.pplog", &options, &format!("long case {case}"))
                .expect("a valid log");
        }
    }
}

#[test]
fn mismatches_on_two_threads_report_the_earlier_in_time() {
    // Thread 1 ends a task it never began at t = 5; thread 0 is fine. Then the reverse
    // order in time: the engines must agree on which error comes first.
    for (bad_at, other_at) in [(5u64, 9u64), (9, 5)] {
        let trace = format!(
            "pptrace 1\nprocessors 2\n0 0 session_begin\n{other_at} 0 frag_begin x\n{} 0 frag_end y\n{bad_at} 1 task_end\n20 0 session_end\n",
            other_at + 1
        );
        let strict = Options {
            strict: true,
            ..Options::default()
        };
        let result = check_engines(trace.as_bytes(), "t.pptrace", &strict, &trace);
        let err = result.expect_err("both errors are in the trace");
        let line = if bad_at < other_at {
            "line 6"
        } else {
            "line 5"
        };
        assert!(err.contains(line), "{err} should name {line}");
    }
}

#[test]
fn dropped_end_events_give_the_same_profiles_in_every_engine() {
    // Without `strict`, the same trace profiles alike in every engine, dropped ends and
    // warnings included (every mismatch kind: nothing open, another construct, another
    // fragment name, on two threads and inside a parallel construct).
    let trace = "pptrace 1\nprocessors 2\n0 0 session_begin\n1 0 frag_begin x\n2 0 par_begin\n\
        2 0 task_begin\n2 1 task_begin\n3 1 task_end\n4 1 task_end\n4 1 wait_end\n5 0 frag_end x\n\
        6 0 task_end\n6 0 par_end\n7 0 frag_end y\n8 0 frag_end x\n9 0 frag_end x\n10 0 session_end\n";
    let options = Options::all_tags();
    let seen = check_engines(trace.as_bytes(), "t.pptrace", &options, trace).expect("profiled");
    let dropped = seen
        .warnings
        .iter()
        .filter(|w| w.contains("dropped"))
        .count();
    assert_eq!(dropped, 5, "{:?}", seen.warnings);
}

/// A text trace for the limits of the fast sweep's hot loop: `rounds` rounds of a par
/// construct with a task per thread (some with waits), enough transitions to cross its
/// chunks of `u64` sums (2^14 transitions); clock steps of a few ns up to hours (those
/// of 2^32 ns or more go to the general path) on epoch-scale times; `processors` as given.
fn hot_loop_limits_trace(rng: &mut ChaCha8Rng, processors: u64, rounds: usize) -> String {
    let threads = 3u64;
    let mut now = 1_700_000_000_000_000_000u64;
    let step = |rng: &mut ChaCha8Rng| -> u64 {
        match rng.gen_range(0..100) {
            // Hours: summed in u64 over a chunk, these would overflow.
            0 => 1 << 44,
            4 => 1 << 32,
            1 => (1 << 32) + rng.gen_range(0..1_000_000_000),
            2 => (1 << 32) - 1,
            3 => 0,
            _ => rng.gen_range(1..2_000),
        }
    };
    let mut lines = vec![
        "pptrace 1".to_owned(),
        format!("processors {processors}"),
        format!("{now} 0 session_begin"),
    ];
    for _ in 0..rounds {
        now += step(rng);
        lines.push(format!("{now} 0 par_begin"));
        for t in 0..threads {
            now += step(rng);
            lines.push(format!("{now} {t} task_begin"));
            if rng.gen_bool(0.5) {
                now += step(rng);
                lines.push(format!("{now} {t} wait_begin lock"));
                now += step(rng);
                lines.push(format!("{now} {t} wait_end"));
            }
        }
        for t in 0..threads {
            now += step(rng);
            let wasted = if rng.gen_bool(0.2) { " wasted" } else { "" };
            lines.push(format!("{now} {t} task_end{wasted}"));
        }
        now += step(rng);
        lines.push(format!("{now} 0 par_end"));
    }
    now += step(rng);
    lines.push(format!("{now} 0 session_end"));
    lines.join("\n") + "\n"
}

#[test]
fn hot_loop_limits_give_identical_outputs_with_every_engine() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x407);
    // 2 and 3 processors (over- and not oversubscribed), the most the hot loop takes
    // (2^16) and one more.
    for processors in [2u64, 3, 1 << 16, (1 << 16) + 1] {
        let trace = hot_loop_limits_trace(&mut rng, processors, 2_500);
        let seen = check_engines(
            trace.as_bytes(),
            "limits.pptrace",
            &Options::default(),
            &format!("hot loop limits, p = {processors}"),
        )
        .expect("a valid trace");
        assert!(seen.events > 20_000, "{} events", seen.events);
    }
}
