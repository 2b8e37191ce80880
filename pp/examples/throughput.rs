//! Throughput of `pp -l`: writes a 20-million-event binary log of 8 threads with pplib's
//! binary writer, then times the `pp -l` code path (open, merge, sweep, record line) on it.
//!
//! The log: thread 0 opens the session and runs rounds of `par_begin`, a task holding a
//! fragment, and `par_end`; threads 1..7 run tasks that take a lock (a `wait`) and hold
//! fragments. Time steps come from a fixed-seed generator, so the threads interleave.
//!
//! Last line: `throughput: events=E seconds=S mevents_per_s=R` (R = E / S / 1e6), where S
//! is the median wall time of `PP_THROUGHPUT_RUNS` runs of `pp -l` (default 5; each run
//! is printed, and all must give the same record).
//! `PP_THROUGHPUT_EVENTS` overrides the number of events (default 20000000);
//! `PP_THROUGHPUT_PARTS=1` first prints the CPU cost of each stage in ns per event,
//! measured on the calling thread: the reference pipeline's (reader, merge, sweep) and the
//! fast pipeline's (lanes, merge of transitions without the sort's radix passes, those
//! passes, which run on the sweep thread, global sweep per transition and its hot loop for
//! totals only), and the reference's whole analysis on one thread.
//! `PP_THROUGHPUT_LOG=PATH` writes the log to PATH and keeps it.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Instant;

use pp::app::{run, Config};
use pp::Options;
use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{EventKind, Header, Nanos, ThreadId};

const THREADS: u32 = 8;
const CHUNK_EVENTS: usize = 4096;

/// A small fixed-seed generator for time steps (xorshift64*).
struct Steps(u64);

impl Steps {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        50 + (x >> 54) // 50 .. 1073 ns
    }
}

/// The event sequence of one thread, exactly `n` events long.
fn thread_events(
    thread: u32,
    n: usize,
    work: pplib::log::NameId,
    lock: pplib::log::NameId,
) -> impl Iterator<Item = EventKind> {
    let body: Vec<EventKind> = if thread == 0 {
        vec![
            EventKind::ParBegin,
            EventKind::TaskBegin,
            EventKind::FragBegin(work),
            EventKind::FragEnd(work),
            EventKind::TaskEnd { wasted: false },
            EventKind::ParEnd,
        ]
    } else {
        vec![
            EventKind::TaskBegin,
            EventKind::FragBegin(work),
            EventKind::WaitBegin(lock),
            EventKind::WaitEnd,
            EventKind::FragEnd(work),
            EventKind::TaskEnd {
                wasted: thread == 5,
            },
        ]
    };
    let len = body.len();
    let framing = if thread == 0 { 2 } else { 0 };
    let rounds = (n - framing) / len;
    // Pad with (empty) counter samples, which change no stack, to exactly n events.
    let pad = n - framing - rounds * len;
    let session = thread == 0;
    std::iter::once(EventKind::SessionBegin)
        .filter(move |_| session)
        .chain((0..rounds * len).map(move |i| body[i % len].clone()))
        .chain((0..pad).map(|_| EventKind::Counters(Vec::new())))
        .chain(std::iter::once(EventKind::SessionEnd).filter(move |_| session))
}

fn write_log(path: &Path, total: usize) -> std::io::Result<usize> {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: THREADS,
        clock: "synthetic".to_owned(),
        ..Header::default()
    };
    let mut w = LogWriter::new(
        BufWriter::with_capacity(1 << 20, File::create(path)?),
        &header,
    )?;
    let work = w.name("work")?;
    let lock = w.name("lock")?;
    let per_thread = total / THREADS as usize;
    let extra = total % THREADS as usize;
    let mut iters: Vec<_> = (0..THREADS)
        .map(|t| {
            thread_events(
                t,
                per_thread + usize::from((t as usize) < extra),
                work,
                lock,
            )
        })
        .collect();
    let mut clocks: Vec<(Steps, u64)> = (0..THREADS)
        .map(|t| (Steps(0x9E37_79B9_7F4A_7C15 ^ u64::from(t + 1)), 1_000_000))
        .collect();
    let mut chunk = ChunkEncoder::new(ThreadId(0));
    let mut written = 0;
    loop {
        let mut any = false;
        for t in 0..THREADS as usize {
            chunk.reset(ThreadId(t as u32));
            for _ in 0..CHUNK_EVENTS {
                let Some(kind) = iters[t].next() else { break };
                let (steps, now) = &mut clocks[t];
                *now += steps.next();
                chunk.event(Nanos(*now), &kind);
                written += 1;
            }
            if !chunk.is_empty() {
                any = true;
                w.chunk(&chunk)?;
            }
        }
        if !any {
            break;
        }
    }
    w.finish()?;
    Ok(written)
}

/// On-CPU time of the calling thread in seconds (Linux `/proc/thread-self/schedstat`), for
/// diagnostics on a loaded machine where wall time includes waiting for a core.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Diagnostics, each stage on the calling thread (CPU time in ns per event): the reader
/// alone (batches), the reader plus the reference merge, the reference sweep alone on
/// merged events held in memory; the lanes alone, the lanes plus the merge of
/// transitions, the global sweep alone on merged transitions held in memory (and its hot
/// loop, totals only); and whole analyses on one thread with either pipeline.
fn parts(path: &Path) {
    let reader = pplib::log::LogReader::open(path).expect("open");
    let config = pp::sweep::SweepConfig {
        processors: THREADS,
        ..Default::default()
    };
    reference_stages(&reader);
    reference_sweep_alone(&reader, &config);
    let kept = fast_stages(&reader, path);
    transition_sweep_alone(&reader, &config, &kept);
    drop(kept);
    sequential_analyses(path);
}

/// `cpu` seconds over `n` events, in ns per event.
fn per_event(cpu: f64, n: u64) -> f64 {
    cpu * 1e9 / n as f64
}

/// The reference pipeline's first stages: the reader alone (every stream read in
/// batches), then the reader with the merge of the decoded events.
fn reference_stages(reader: &pplib::log::LogReader) {
    use pp::merge::{BatchMerge, Merged};
    let c0 = thread_cpu_seconds().unwrap_or(0.0);
    let n = count_events(reader);
    let c1 = thread_cpu_seconds().unwrap_or(0.0);
    println!(
        "reader alone: {n} events, {:.3} s on CPU: {:.1} ns/event",
        c1 - c0,
        per_event(c1 - c0, n)
    );

    let mut n = 0u64;
    let mut last = 0;
    BatchMerge::new(reader.streams())
        .run(|m| {
            if let Merged::Event { event, .. } = m {
                assert!(event.time.0 >= last);
                last = event.time.0;
                n += 1;
            }
            Ok::<(), ()>(())
        })
        .expect("merge");
    let c2 = thread_cpu_seconds().unwrap_or(0.0);
    println!(
        "reader + merge: {n} events, {:.3} s on CPU: {:.1} ns/event (merge: {:.1})",
        c2 - c1,
        per_event(c2 - c1, n),
        per_event(c2 - c1, n) - per_event(c1 - c0, n)
    );
}

/// The reference sweep alone, on events already merged in memory (the first 4M).
fn reference_sweep_alone(reader: &pplib::log::LogReader, config: &pp::sweep::SweepConfig) {
    use pp::merge::{BatchMerge, Merged};
    let mut merged = Vec::new();
    let _ = BatchMerge::new(reader.streams()).run(|m| {
        if let Merged::Event { slot, event, .. } = m {
            merged.push((slot, *event));
            if merged.len() == 4_000_000 {
                return Err(());
            }
        }
        Ok(())
    });
    // Best of 5 (the machine is shared: the minimum is the least disturbed run).
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let mut sweep =
            pp::sweep::Sweep::new(config.clone(), reader.names().to_vec(), &reader.threads());
        let c3 = thread_cpu_seconds().unwrap_or(0.0);
        for (slot, e) in &merged {
            sweep.compact_event(*slot, e, &[], None).expect("valid");
        }
        let c4 = thread_cpu_seconds().unwrap_or(0.0);
        best = best.min(c4 - c3);
    }
    println!(
        "sweep alone: {} events, {:.3} s on CPU (best of 5): {:.1} ns/event",
        merged.len(),
        best,
        per_event(best, merged.len() as u64)
    );
}

/// The fast pipeline's stages: lanes alone (decode + stacks), lanes + merge (the merge
/// thread's work), the sort's radix passes (the sweep thread's). Returns the first 4M
/// merged transitions, for [`transition_sweep_alone`].
fn fast_stages(reader: &pplib::log::LogReader, path: &Path) -> Vec<pp::lane::Transition> {
    let lanes = || {
        let names: std::sync::Arc<[String]> = reader.names().into();
        let selected: std::sync::Arc<[bool]> = vec![false; names.len()].into();
        reader
            .streams()
            .into_iter()
            .enumerate()
            .map(|(slot, s)| {
                let thread = s.thread();
                pp::lane::Lane::new(s, slot, thread, names.clone(), selected.clone())
            })
            .collect::<Vec<_>>()
    };
    let all = total_events(path) as f64;
    // Best of 3 each (the machine is shared).
    let (mut lanes_cpu, mut merge_cpu) = (f64::INFINITY, f64::INFINITY);
    // The sort's radix passes, which the pipeline leaves to the sweep thread (unless it
    // falls behind).
    let mut last_pass_cpu = f64::INFINITY;
    let mut transitions = 0u64;
    let mut kept = Vec::new();
    for _ in 0..3 {
        let c0 = thread_cpu_seconds().unwrap_or(0.0);
        let mut out = pp::lane::LaneBatch::default();
        transitions = 0;
        for mut lane in lanes() {
            loop {
                lane.next_batch(&mut out);
                if out.items.is_empty() {
                    break;
                }
                transitions += out.items.len() as u64;
            }
        }
        let c1 = thread_cpu_seconds().unwrap_or(0.0);
        kept.clear();
        let mut last_pass = 0.0;
        pp::pipeline::LaneMerge::new(lanes()).run(|mut run| {
            let s0 = thread_cpu_seconds().unwrap_or(0.0);
            run.finish_sort();
            last_pass += thread_cpu_seconds().unwrap_or(0.0) - s0;
            if kept.len() < 4_000_000 {
                kept.extend_from_slice(&run.items);
            }
            run.clear();
            Some(run)
        });
        let c2 = thread_cpu_seconds().unwrap_or(0.0);
        lanes_cpu = lanes_cpu.min(c1 - c0);
        merge_cpu = merge_cpu.min(c2 - c1 - last_pass);
        last_pass_cpu = last_pass_cpu.min(last_pass);
    }
    println!(
        "lanes alone: {transitions} transitions, {:.3} s on CPU (best of 3): {:.1} ns/event",
        lanes_cpu,
        lanes_cpu * 1e9 / all
    );
    println!(
        "lanes + merge: {:.3} s on CPU (best of 3): {:.1} ns/event (merge: {:.1} ns/transition)",
        merge_cpu,
        merge_cpu * 1e9 / all,
        (merge_cpu - lanes_cpu) * 1e9 / transitions as f64
    );
    println!(
        "sort passes (on the sweep thread): {:.3} s on CPU (best of 3): {:.1} ns/event",
        last_pass_cpu,
        last_pass_cpu * 1e9 / all
    );
    kept
}

/// The global sweep alone on merged transitions held in memory (`kept`), one transition
/// at a time, and its hot loop (totals only).
fn transition_sweep_alone(
    reader: &pplib::log::LogReader,
    config: &pp::sweep::SweepConfig,
    kept: &[pp::lane::Transition],
) {
    let mut best = f64::INFINITY;
    let mut best_hot = f64::INFINITY;
    for _ in 0..5 {
        let mut sweep =
            pp::sweep::Sweep::new(config.clone(), reader.names().to_vec(), &reader.threads());
        let c3 = thread_cpu_seconds().unwrap_or(0.0);
        for tr in kept {
            sweep.transition(tr.slot(), tr.time, tr.code(), tr.arg(), tr.state(), &[]);
        }
        let c4 = thread_cpu_seconds().unwrap_or(0.0);
        best = best.min(c4 - c3);
        let mut sweep =
            pp::sweep::Sweep::new(config.clone(), reader.names().to_vec(), &reader.threads());
        sweep.totals_only();
        let c5 = thread_cpu_seconds().unwrap_or(0.0);
        let mut at = 0;
        while at < kept.len() {
            at += sweep.transitions(&kept[at..]);
            if let Some(tr) = kept.get(at) {
                sweep.transition(tr.slot(), tr.time, tr.code(), 0, tr.state(), &[]);
                at += 1;
            }
        }
        let c6 = thread_cpu_seconds().unwrap_or(0.0);
        best_hot = best_hot.min(c6 - c5);
    }
    println!(
        "transition sweep alone: {} transitions, {:.3} s on CPU (best of 5): {:.1} ns/transition; totals only (hot loop): {:.1} ns/transition",
        kept.len(),
        best,
        per_event(best, kept.len() as u64),
        per_event(best_hot, kept.len() as u64)
    );
}

/// Whole analyses on one thread: the reference pipeline, and the fast one (totals only,
/// as `pp -l` runs it).
fn sequential_analyses(path: &Path) {
    let options = Options {
        sequential: true,
        ..Options::default()
    };
    for (label, engine) in [
        ("reference", pp::Engine::Reference),
        ("fast, totals only", pp::Engine::FastTotals),
    ] {
        let c5 = thread_cpu_seconds().unwrap_or(0.0);
        let a = pp::analysis::analyze_with(path, &options, engine).expect("analysis");
        let c6 = thread_cpu_seconds().unwrap_or(0.0);
        println!(
            "sequential analysis, {label} (one thread): {} events, {:.3} s on CPU: {:.1} ns/event",
            a.events,
            c6 - c5,
            per_event(c6 - c5, a.events)
        );
    }
}

/// The number of events in the log at `path`.
fn total_events(path: &Path) -> u64 {
    count_events(&pplib::log::LogReader::open(path).expect("open"))
}

/// The number of events of `reader`'s streams, read in batches.
fn count_events(reader: &pplib::log::LogReader) -> u64 {
    let mut batch = pplib::log::EventBatch::new();
    let mut n = 0u64;
    for mut s in reader.streams() {
        loop {
            s.next_batch(&mut batch).expect("events");
            if batch.is_empty() {
                break;
            }
            n += batch.len() as u64;
        }
    }
    n
}

/// Times `runs` runs of `pp -l` with `config` on a log of `written` events; returns their
/// wall times and the first run's output and warnings. Exits with status 1 when `pp` fails
/// (removing the log at `remove_on_failure`, if given) or a run's record differs from the
/// first run's.
fn time_runs(
    config: &Config,
    runs: usize,
    written: usize,
    remove_on_failure: Option<&Path>,
) -> (Vec<f64>, (Vec<u8>, Vec<u8>)) {
    let mut walls = Vec::with_capacity(runs);
    let mut first: Option<(Vec<u8>, Vec<u8>)> = None;
    for i in 0..runs {
        let mut out = Vec::new();
        let mut warn = Vec::new();
        let cpu0 = thread_cpu_seconds();
        let start = Instant::now();
        let result = run(config, &mut out, &mut warn);
        let seconds = start.elapsed().as_secs_f64();
        if let Err(e) = result {
            if let Some(path) = remove_on_failure {
                let _ = std::fs::remove_file(path);
            }
            eprintln!("pp failed: {e}");
            std::process::exit(1);
        }
        if let (Some(a), Some(b)) = (cpu0, thread_cpu_seconds()) {
            println!(
                "pp -l run {}: {seconds:.3} s wall, {:.3} s on the calling thread's CPU ({:.1} Mevents/s wall)",
                i + 1,
                b - a,
                written as f64 / seconds / 1e6
            );
        }
        walls.push(seconds);
        match &first {
            None => first = Some((out, warn)),
            Some((o, _)) if *o != out => {
                eprintln!("pp gave a different record on run {}", i + 1);
                std::process::exit(1);
            }
            Some(_) => {}
        }
    }
    (walls, first.expect("at least one run"))
}

fn main() {
    let total: usize = std::env::var("PP_THROUGHPUT_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000_000);
    // `PP_THROUGHPUT_LOG=path` writes the log there and keeps it (for profiling `pp` on it).
    let keep = std::env::var_os("PP_THROUGHPUT_LOG").map(std::path::PathBuf::from);
    let path = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("pp-throughput-{}.pplog", std::process::id()))
    });
    let t0 = Instant::now();
    let written = write_log(&path, total).expect("write the log");
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {written} events, {:.1} MB, in {:.2} s: {}",
        size as f64 / 1e6,
        t0.elapsed().as_secs_f64(),
        path.display()
    );
    if std::env::var_os("PP_THROUGHPUT_PARTS").is_some() {
        parts(&path);
    }
    let config = Config {
        logs: vec![path.clone()],
        options: Options::default(),
        line: Some(vec!["bench=throughput".to_owned()]),
        ..Config::default()
    };
    // The machine is shared and noisy: time several runs and report the median (every
    // run must print the same record).
    let runs: usize = std::env::var("PP_THROUGHPUT_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(5);
    let (mut walls, (out, warn)) = time_runs(
        &config,
        runs,
        written,
        keep.is_none().then_some(path.as_path()),
    );
    if keep.is_none() {
        let _ = std::fs::remove_file(&path);
    }
    print!("{}", String::from_utf8_lossy(&out));
    eprint!("{}", String::from_utf8_lossy(&warn));
    walls.sort_by(f64::total_cmp);
    let seconds = walls[walls.len() / 2];
    println!(
        "median of {runs} runs (min {:.3} s, max {:.3} s)",
        walls[0],
        walls[walls.len() - 1]
    );
    let events = written as f64;
    println!(
        "throughput: events={written} seconds={seconds:.3} mevents_per_s={:.1}",
        events / seconds / 1e6
    );
}
