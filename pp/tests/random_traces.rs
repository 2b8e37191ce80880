//! Random valid traces: whatever the nesting, interleaving, oversubscription and counters,
//! every profile satisfies `li + ip + sl + wc + rt = tt` with `0 <= fj <= li`, the
//! per-thread rows add up to it, fragment windows are no longer than the session and lose
//! no more to descheduling (`os`) than it, and threaded and sequential decoding agree.
//! Seeded, so failures reproduce.

use pp::{analyze_bytes, Options, TagSelection};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random well-nested trace: thread 0 holds the session; every thread opens and closes
/// fragments, pars, tasks (some wasted) and waits at random, with counter samples; some
/// threads have a last sample after `session_end`, as pplib records the other threads'
/// last samples when the session finishes.
fn random_trace(rng: &mut ChaCha8Rng) -> String {
    let p = rng.gen_range(1..=4);
    let threads = rng.gen_range(1..=6);
    let base: u64 = if rng.gen_bool(0.5) {
        0
    } else {
        1_700_000_000_000_000_000
    };
    let mut lines = vec!["pptrace 1".to_owned(), format!("processors {p}")];
    let mut end_of_all = base;
    let mut bodies = Vec::new();
    let mut last_cpu = Vec::new();
    for t in 0..threads {
        let mut now = base + rng.gen_range(0..5_000u64);
        let mut stack: Vec<&str> = Vec::new();
        let mut body = Vec::new();
        let mut cpu = 0u64;
        for _ in 0..rng.gen_range(0..60) {
            now += rng.gen_range(0..2_000u64);
            let r = rng.gen_range(0..100);
            if r < 10 {
                cpu += rng.gen_range(0..2_000u64);
                body.push(format!(
                    "{now} {t} counters cpu_ns={cpu} llc_misses={}",
                    cpu / 7
                ));
            } else if r < 55 || stack.is_empty() {
                let (open, close) = match rng.gen_range(0..5) {
                    0 => ("frag_begin a", "frag_end a"),
                    1 => ("frag_begin b", "frag_end b"),
                    2 => ("par_begin", "par_end"),
                    3 => ("task_begin", "task_end"),
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
        while let Some(close) = stack.pop() {
            now += rng.gen_range(0..2_000u64);
            body.push(format!("{now} {t} {close}"));
        }
        end_of_all = end_of_all.max(now);
        bodies.push(body);
        last_cpu.push(cpu);
    }
    // Thread 0's session spans everything.
    lines.push(format!("{base} 0 session_begin"));
    for body in bodies {
        lines.extend(body);
    }
    lines.push(format!("{} 0 session_end", end_of_all + 1));
    for (t, cpu) in last_cpu.into_iter().enumerate() {
        if rng.gen_bool(0.5) {
            let late = rng.gen_range(2..2_000u64);
            let cpu = cpu + rng.gen_range(0..late);
            lines.push(format!(
                "{} {t} counters cpu_ns={cpu} llc_misses={}",
                end_of_all + late,
                cpu / 7
            ));
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn random_traces_keep_the_invariants() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    for case in 0..300 {
        let trace = random_trace(&mut rng);
        let options = Options {
            tags: TagSelection::All,
            miss_latency_ns: Some(50.0),
            histograms: case % 3 == 0,
            ..Options::default()
        };
        let a = analyze_bytes(trace.clone().into_bytes(), "random.pptrace", &options)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{trace}"));
        let s = analyze_bytes(
            trace.clone().into_bytes(),
            "random.pptrace",
            &Options {
                sequential: true,
                ..options.clone()
            },
        )
        .unwrap();
        assert_eq!(
            a.profiles, s.profiles,
            "case {case}: threaded vs sequential\n{trace}"
        );
        let session_tt = a.session().tt;
        let session_os = a.session().os.unwrap_or(0.0);
        for p in &a.profiles {
            assert!(
                p.invariant_error() <= 1e-9,
                "case {case} {}: invariant\n{trace}",
                p.window_name()
            );
            let rows: f64 = p
                .threads
                .iter()
                .map(|t| t.li + t.ip + t.sl + t.wc + t.rt)
                .sum::<f64>()
                + p.unattributed.0
                + p.unattributed.1;
            assert!(
                (rows - p.tt).abs() <= 1e-9 * p.tt.max(1e-9),
                "case {case} {}: rows {rows} tt {}\n{trace}",
                p.window_name(),
                p.tt
            );
            assert!(
                p.fj >= 0.0 && p.fj <= p.li,
                "case {case} {}: fj = {} is not a part of li = {}\n{trace}",
                p.window_name(),
                p.fj,
                p.li
            );
            assert!(
                p.tt <= session_tt * (1.0 + 1e-12),
                "case {case}: window longer than the session"
            );
            let os = p.os.unwrap_or(0.0);
            assert!(
                os <= session_os * (1.0 + 1e-9) + 1e-15,
                "case {case} {}: os {os} above the session's {session_os}\n{trace}",
                p.window_name()
            );
            for (c, v) in p.categories() {
                if c.key() != "ml" {
                    assert!(
                        v >= -1e-12,
                        "case {case} {}: {c} = {v}\n{trace}",
                        p.window_name()
                    );
                }
            }
        }
    }
}
