//! The 16-core machine file of the FFT replay (`fft_16core_replay/machine.txt`, used by
//! `fft_16core_replay.rs`) derived again from what the 16-core host left, by the rules its
//! header states: the study's report (`README.md`: the host's cores, its hand-off and
//! transfer microbenchmarks per point and size), its old machine file (`machine.txt`:
//! latency and bandwidth), dp's co-run records (`dp-co-run.pp`) and dp's pplib logs at
//! n = 512 (`logs/`, profiled with pp's library). The fixture must equal the derivation
//! within 0.1 % and hold no key without one (but the two it marks as not derivable).
//!
//! The data live outside the repository (`shared/data/fft-16core`, next to the checkout);
//! without them the test prints a message and checks nothing.
//! `LOST_CYCLES_SHARED=/path/to/shared` points elsewhere (a worktree).

use lcm::predict::machine::Machine;
use std::path::{Path, PathBuf};

/// The 16-core study's directory, or None (with a message) when it is absent.
fn fft_16core_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("LOST_CYCLES_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let dir = shared.join("data/fft-16core");
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    println!(
        "skipped: {} is absent (it lives beside the repository, not in it)",
        dir.display()
    );
    None
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One point of the report's hand-off list: the faster stage's wait per item and the
/// per-item cost the microbenchmark of tp's wiring measured there, seconds.
#[derive(Debug, Clone, Copy)]
struct HandOff {
    wait_s: f64,
    cost_s: f64,
}

/// The report's hand-off list (`n=64 p=2: 0.8 µs per item (stages 17.2 µs and 20.5 µs)`).
fn hand_offs(readme: &str) -> Vec<HandOff> {
    readme
        .split("n=")
        .filter_map(|piece| {
            let (_, rest) = piece.split_once(": ")?;
            let (cost, rest) = rest.split_once(" µs per item (stages ")?;
            let (a, rest) = rest.split_once(" µs and ")?;
            let (b, _) = rest.split_once(" µs)")?;
            let [cost, a, b] = [cost, a, b].map(|x| x.parse::<f64>().map(|v| v * 1e-6));
            Some(HandOff {
                wait_s: (a.ok()? - b.ok()?).abs(),
                cost_s: cost.ok()?,
            })
        })
        .collect()
}

/// The spin window: the split of the waits (sorted) that leaves the fewest points on the
/// wrong side (asleep: a cost at least twice the smallest one), at the geometric mean of
/// the waits on both sides.
fn spin_window_s(list: &[HandOff]) -> f64 {
    let mut sorted = list.to_vec();
    sorted.sort_by(|a, b| a.wait_s.total_cmp(&b.wait_s));
    let least = sorted
        .iter()
        .map(|h| h.cost_s)
        .fold(f64::INFINITY, f64::min);
    let asleep: Vec<bool> = sorted.iter().map(|h| h.cost_s >= 2.0 * least).collect();
    let wrong = |k: usize| {
        asleep[..k].iter().filter(|a| **a).count() + asleep[k..].iter().filter(|a| !**a).count()
    };
    let k = (1..sorted.len())
        .min_by_key(|&k| wrong(k))
        .expect("hand-offs");
    (sorted[k - 1].wait_s * sorted[k].wait_s).sqrt()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    }
}

/// The report's transfer microbenchmark per size: (n, seconds) from `added to transpose as
/// `ml`: n=64: 9.0 µs, n=128: 29.5 µs, …`.
fn transfers(readme: &str) -> Vec<(u64, f64)> {
    let start = readme
        .find("added to transpose as `ml`: ")
        .expect("the transfer list");
    let list = &readme[start..];
    let list =
        &list[list.find(": ").expect("a colon") + 2..list.find(", and (c)").expect("its end")];
    list.split(", ")
        .map(|item| {
            let (n, us) = item
                .trim_start_matches("n=")
                .split_once(": ")
                .expect("n=N: X µs");
            let us: f64 = us.trim_end_matches(" µs").parse().expect("microseconds");
            (n.parse().expect("n"), us * 1e-6)
        })
        .collect()
}

/// `key = value` lines of the host's old machine file.
fn old_machine_key(text: &str, key: &str) -> f64 {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{key} in the old machine file"))
}

/// mem_slowdown_k2: 1 + the co-run slowdown (sum ml / sum pc) of the loop fragments at the
/// largest size, at least 1.
fn co_run_slowdown(co_run: &str) -> f64 {
    let records = lca::record::parse_records(co_run).expect("dp-co-run.pp");
    let largest = records
        .iter()
        .map(|r| r.number("n").expect("n"))
        .fold(0.0, f64::max);
    let (mut ml, mut pc) = (0.0, 0.0);
    for r in &records {
        let looped = matches!(r.tag(), Some("init" | "cols" | "transpose" | "rows"));
        if looped && r.number("n").expect("n") == largest {
            ml += r.number("ml").expect("ml");
            pc += r.number("pc").expect("pc");
        }
    }
    1.0 + (ml / pc).max(0.0)
}

/// fork_join_s_pQ from dp's logs at n = 512: pp's fj of the loop fragments per execution
/// and thread, averaged over the four; and the least-squares fit in log2(Q).
fn fork_joins(logs: &Path) -> (Vec<(u64, f64)>, f64, f64) {
    let mut by_q = Vec::new();
    for q in [1u64, 2, 8, 16] {
        let log = logs.join(format!("fft-dp-n512-p{q}.pplog"));
        let a = pp::analyze(&log, &pp::Options::all_tags()).expect("a dp log");
        let per: Vec<f64> = ["init", "cols", "transpose", "rows"]
            .iter()
            .map(|t| {
                let f = a.tag(t).expect("the fragment's profile");
                f.fj / f.executions.expect("executions") as f64 / q as f64
            })
            .collect();
        by_q.push((q, per.iter().sum::<f64>() / per.len() as f64));
    }
    let xs: Vec<f64> = by_q.iter().map(|(q, _)| (*q as f64).log2()).collect();
    let (mx, my) = (
        xs.iter().sum::<f64>() / xs.len() as f64,
        by_q.iter().map(|(_, y)| y).sum::<f64>() / by_q.len() as f64,
    );
    let sxy: f64 = xs
        .iter()
        .zip(&by_q)
        .map(|(x, (_, y))| (x - mx) * (y - my))
        .sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let slope = (sxy / sxx).max(0.0);
    (by_q, my - slope * mx, slope)
}

#[test]
fn machine_file_follows_from_the_16core_data() {
    let Some(data) = fft_16core_dir() else {
        return;
    };
    let readme = read(&data.join("README.md"));
    let old = read(&data.join("machine.txt"));
    let fixture_text =
        read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fft_16core_replay/machine.txt"));
    let m = Machine::parse("machine.txt", &fixture_text).expect("the fixture parses");
    let mut want: Vec<(String, f64)> = Vec::new();
    let latency = old_machine_key(&old, "latency_s");
    let bandwidth = old_machine_key(&old, "bandwidth_bytes_per_s");
    want.push(("latency_s".into(), latency));
    want.push(("bandwidth_bytes_per_s".into(), bandwidth));
    want.push(("handoff_spin_s".into(), latency));
    assert!(
        readme.contains("Machine: 16 cores"),
        "the report names the host's cores"
    );
    want.push(("calibrated_p".into(), 16.0));

    let list = hand_offs(&readme);
    assert_eq!(list.len(), 75, "one hand-off per point of the study");
    let window = spin_window_s(&list);
    let asleep: Vec<HandOff> = list.iter().copied().filter(|h| h.wait_s > window).collect();
    assert_eq!(asleep.len(), 68);
    want.push(("handoff_spin_window_s".into(), window));
    want.push((
        "handoff_notify_s".into(),
        median(asleep.iter().map(|h| h.cost_s).collect()),
    ));
    let wake = asleep
        .iter()
        .map(|h| h.wait_s + h.cost_s)
        .fold(f64::INFINITY, f64::min);
    want.push(("handoff_wake_s".into(), wake));

    for (n, extra) in transfers(&readme) {
        let b = 16 * n * n;
        let local = b as f64 / bandwidth;
        want.push((format!("local_read_s_{b}"), local));
        want.push((format!("transfer_s_{b}"), local + extra));
    }
    want.push(("mem_slowdown_k1".into(), 1.0));
    want.push((
        "mem_slowdown_k2".into(),
        co_run_slowdown(&read(&data.join("dp-co-run.pp"))),
    ));

    let (by_q, base, log2p) = fork_joins(&data.join("logs"));
    want.extend(by_q.iter().map(|(q, s)| (format!("fork_join_s_p{q}"), *s)));
    want.push(("fork_join_base_s".into(), base));
    want.push(("fork_join_log2p_s".into(), log2p));

    let mut keys: Vec<&str> = want.iter().map(|(k, _)| k.as_str()).collect();
    // Not derivable, unused by the replay (the other test holds it to that).
    keys.extend(["task_s", "par_item_s"]);
    for (k, v) in &want {
        let got = m.values.get(k).copied().unwrap_or(f64::NAN);
        println!("{k:<24} derived {v:.6e}   fixture {got:.6e}");
        // 0.1 %: pp's fork/join seconds were read off its table when the file was written.
        assert!(
            (got - v).abs() <= 1e-3 * v.abs() + 1e-12,
            "{k}: derived {v:e}, fixture {got:e}"
        );
    }
    let extra: Vec<&String> = m
        .values
        .keys()
        .filter(|k| !keys.contains(&k.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "fixture keys without a derivation: {extra:?}"
    );
}
