//! Overhead of pplib on this machine (a benchmark, not a test):
//!
//! - `clock_ns`: one reading of the recorder's clock;
//! - `event_ns`: one recorded event (`task` begin/end pairs, per event, with a session
//!   recording to a file; buffer hand-offs to the writer thread included: a round of
//!   16 384 events of two bytes fills about one 32 KiB buffer, so that nearly every round
//!   hands one off and the median round includes it);
//! - `disabled_ns`: one instrumentation call (a begin or an end) with no session recording;
//! - `dilation_pct`: wall-time dilation of a rayon `par_iter` over 1 µs tasks recorded with
//!   `pp_for_each` (one `par` plus one `task` per item) versus a plain `for_each`; a line
//!   before the last also gives the dilation of one bare clock reading per item, recording
//!   nothing: the floor of any per-item timing on this machine, and the dilation of
//!   `pp_for_each_run` (one task per rayon run of items instead of per item).
//!
//! Timing uses many short rounds and takes medians, so that a loaded machine (a round
//! preempted by another process) does not inflate the figures; the dilation is the median
//! of the ratios of adjacent recorded and plain runs. The last line is
//! `overhead: clock_ns=X event_ns=Y disabled_ns=Z dilation_pct=W`.
//! Targets: event_ns <= 1.3 × clock_ns, disabled_ns <= 2, dilation_pct <= 3.

use std::hint::black_box;
use std::time::Instant;

use pplib::prelude::*;
use pplib::Session;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// ns per call of `f` in one round of `n` calls.
fn round(n: u64, f: &mut impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

/// Busy computation (`iterations` dependent multiply-adds). Never inlined, so that the plain
/// and the recorded loops run the very same machine code (an inlined copy per loop would
/// let code placement alone change the work's speed by several percent).
#[inline(never)]
fn work(iterations: u64) -> u64 {
    let mut x = 0x9E37_79B9u64;
    for _ in 0..iterations {
        x = black_box(
            x.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        );
    }
    x
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("pplib-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("overhead.pplog");
    const ROUNDS: usize = 3000;

    // Disabled: no session; a task or frag guard is two calls (begin, end).
    let mut task_off = || {
        let t = pplib::task();
        black_box(&t);
    };
    let mut frag_off = || {
        let f = pplib::frag(black_box("solve"));
        black_box(&f);
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        a.push(round(2048, &mut task_off) / 2.0);
        b.push(round(2048, &mut frag_off) / 2.0);
    }
    let (disabled_task, disabled_frag) = (median(a), median(b));
    let disabled_ns = disabled_task.max(disabled_frag);
    println!("disabled: task {disabled_task:.2} ns/call, frag {disabled_frag:.2} ns/call");

    // Enabled: clock readings and events, rounds interleaved.
    let session = Session::builder().path(&log).start()?;
    let mut clock = || {
        black_box(pplib::clock::raw_now());
    };
    let mut task_on = || {
        let t = pplib::task();
        black_box(&t);
    };
    let mut frag_on = || {
        let f = pplib::frag(black_box("solve"));
        black_box(&f);
    };
    let (mut c, mut e, mut f) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS / 4 {
        c.push(round(8192, &mut clock));
        e.push(round(8192, &mut task_on) / 2.0);
        f.push(round(8192, &mut frag_on) / 2.0);
    }
    session.finish()?;
    let (clock_ns, event_ns, frag_ns) = (median(c), median(e), median(f));
    let reader = pplib::log::LogReader::open(&log)?;
    println!(
        "clock: {} ({clock_ns:.2} ns per reading)",
        reader.header().clock
    );
    println!(
        "enabled: task {event_ns:.2} ns/event ({:.2} × clock), frag {frag_ns:.2} ns/event",
        event_ns / clock_ns
    );
    let events: usize = reader.streams().into_iter().map(|s| s.count()).sum();
    let size = std::fs::metadata(&log)?.len();
    println!(
        "log: {events} events, {size} bytes ({:.2} bytes/event)",
        size as f64 / events as f64
    );

    // Dilation: par_iter over 1 µs tasks on all CPUs.
    let p = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = pplib::pool(p)?;
    let per_iteration = median(
        (0..200)
            .map(|_| {
                round(1, &mut || {
                    black_box(work(10_000));
                }) / 10_000.0
            })
            .collect(),
    );
    let iterations = (1000.0 / per_iteration).max(1.0) as u64;
    let items = 20_000u64;
    let plain = || {
        let t = Instant::now();
        pool.install(|| {
            (0..items).into_par_iter().for_each(|_| {
                black_box(work(iterations));
            })
        });
        t.elapsed().as_secs_f64()
    };
    let session = Session::builder().path(&log).processors(p).start()?;
    let recorded = || {
        let t = Instant::now();
        pool.install(|| {
            (0..items).into_par_iter().pp_for_each(|_| {
                black_box(work(iterations));
            })
        });
        t.elapsed().as_secs_f64()
    };
    // The floor of any per-item timing: the same loop reading the clock once per item and
    // recording nothing (pplib reads it once per item: one item's end is the next's begin).
    let clocked = || {
        let t = Instant::now();
        pool.install(|| {
            (0..items).into_par_iter().for_each(|_| {
                black_box(work(iterations));
                black_box(pplib::clock::raw_now());
            })
        });
        t.elapsed().as_secs_f64()
    };
    // The same loop recorded with one task per sequential run of items (`pp_for_each_run`).
    let per_run = || {
        let t = Instant::now();
        pool.install(|| {
            (0..items).into_par_iter().pp_for_each_run(|_| {
                black_box(work(iterations));
            })
        });
        t.elapsed().as_secs_f64()
    };
    plain();
    recorded();
    clocked();
    per_run();
    let (mut ratios, mut plain_s, mut recorded_s) = (Vec::new(), Vec::new(), Vec::new());
    let (mut clock_ratios, mut run_ratios) = (Vec::new(), Vec::new());
    for i in 0..41 {
        // Each pair in both orders, alternately: neither variant always runs first.
        let (a, b) = if i % 2 == 0 {
            let a = plain();
            (a, recorded())
        } else {
            let b = recorded();
            (plain(), b)
        };
        ratios.push(b / a);
        plain_s.push(a);
        recorded_s.push(b);
        clock_ratios.push(clocked() / plain());
        run_ratios.push(per_run() / plain());
    }
    session.finish()?;
    let task_us = iterations as f64 * per_iteration / 1000.0;
    println!(
        "par_iter: {items} tasks of {task_us:.2} µs on {p} threads: plain {:.3} ms, recorded {:.3} ms (medians)",
        median(plain_s) * 1e3,
        median(recorded_s) * 1e3
    );
    let dilation_pct = (median(ratios) - 1.0) * 100.0;
    println!(
        "par_iter with one bare clock reading per item (nothing recorded): {:+.2} % (the floor of per-item timing here)",
        (median(clock_ratios) - 1.0) * 100.0
    );
    println!(
        "par_iter recorded with pp_for_each_run (one task per rayon run of items): {:+.2} %",
        (median(run_ratios) - 1.0) * 100.0
    );
    std::fs::remove_dir_all(&dir).ok();
    println!(
        "overhead: clock_ns={clock_ns:.2} event_ns={event_ns:.2} disabled_ns={disabled_ns:.2} dilation_pct={dilation_pct:.2}"
    );
    Ok(())
}
