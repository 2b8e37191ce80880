//! Overhead of pplib on this machine (a benchmark, not a test):
//!
//! - `clock_ns`: one reading of the recorder's clock;
//! - `event_ns`: one recorded event (task begin/end pairs with a session recording to a file,
//!   per event, buffers flushing to the writer thread included);
//! - `disabled_ns`: one instrumentation call with no session recording;
//! - `dilation_pct`: wall-time dilation of a rayon `par_iter` over 1 µs tasks, recorded
//!   with `pp_for_each` (one `par` + one `task` per item) versus plain `for_each`.
//!
//! Each figure is the median of several rounds. The last line is
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

/// ns per iteration of `f`, median of `rounds` rounds of `n` iterations.
fn per_iter(rounds: usize, n: u64, mut f: impl FnMut()) -> f64 {
    median(
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..n {
                    f();
                }
                t.elapsed().as_nanos() as f64 / n as f64
            })
            .collect(),
    )
}

/// About one microsecond of computation.
fn work(iterations: u64) -> u64 {
    let mut x = 0x9E37_79B9u64;
    for _ in 0..iterations {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
    }
    x
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("pplib-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("overhead.pplog");

    // Disabled: no session.
    let disabled_task = per_iter(7, 20_000_000, || {
        let t = pplib::task();
        black_box(&t);
    }) / 2.0;
    let disabled_frag = per_iter(7, 20_000_000, || {
        let f = pplib::frag(black_box("solve"));
        black_box(&f);
    }) / 2.0;
    let disabled_ns = disabled_task.max(disabled_frag);
    println!("disabled: task begin+end {:.2} ns/call, frag begin+end {:.2} ns/call", disabled_task, disabled_frag);

    // Enabled: the clock, then events.
    let session = Session::builder().path(&log).start()?;
    let clock_ns = per_iter(7, 10_000_000, || {
        black_box(pplib::clock::raw_now());
    });
    let event_ns = per_iter(7, 2_000_000, || {
        let t = pplib::task();
        black_box(&t);
    }) / 2.0;
    let frag_ns = per_iter(7, 2_000_000, || {
        let f = pplib::frag(black_box("solve"));
        black_box(&f);
    }) / 2.0;
    session.finish()?;
    let reader = pplib::log::LogReader::open(&log)?;
    println!("clock: {} ({:.2} ns per reading)", reader.header().clock, clock_ns);
    println!("enabled: task begin/end {:.2} ns/event, frag begin/end {:.2} ns/event", event_ns, frag_ns);
    let events: usize = reader.streams().into_iter().map(|s| s.count()).sum();
    let size = std::fs::metadata(&log)?.len();
    println!("log: {events} events, {size} bytes ({:.2} bytes/event)", size as f64 / events as f64);

    // Dilation: par_iter over 1 µs tasks.
    let p = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = pplib::pool(p)?;
    let t = Instant::now();
    black_box(work(1_000_000));
    let per_us = (1_000_000.0 / (t.elapsed().as_nanos() as f64 / 1000.0)).max(1.0) as u64;
    let items = 200_000u64;
    let plain = || {
        let t = Instant::now();
        pool.install(|| (0..items).into_par_iter().for_each(|_| {
            black_box(work(per_us));
        }));
        t.elapsed().as_secs_f64()
    };
    let recorded = || -> Result<f64, pplib::PplibError> {
        let session = Session::builder().path(&log).processors(p).start()?;
        let t = Instant::now();
        pool.install(|| (0..items).into_par_iter().pp_for_each(|_| {
            black_box(work(per_us));
        }));
        let elapsed = t.elapsed().as_secs_f64();
        session.finish()?;
        Ok(elapsed)
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    plain();
    for _ in 0..9 {
        a.push(plain());
        b.push(recorded()?);
    }
    let (plain_s, recorded_s) = (median(a), median(b));
    let task_us = plain_s * p as f64 / items as f64 * 1e6;
    println!(
        "par_iter: {items} tasks of {task_us:.2} µs on {p} threads: plain {:.2} ms, recorded {:.2} ms",
        plain_s * 1e3,
        recorded_s * 1e3
    );
    let dilation_pct = (recorded_s / plain_s - 1.0) * 100.0;
    std::fs::remove_dir_all(&dir).ok();
    println!(
        "overhead: clock_ns={clock_ns:.2} event_ns={event_ns:.2} disabled_ns={disabled_ns:.2} dilation_pct={dilation_pct:.2}"
    );
    Ok(())
}
