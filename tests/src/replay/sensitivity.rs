//! The replay at half and at double of each machine key ("knob"): how far each price the
//! prediction uses moves its errors and rankings.

use super::points::Point;
use super::score::{score, Score};
use super::{predict, Versions};
use lca::expr::Bindings;
use lcm::predict::machine::Machine;
use std::fmt::Write as _;
use std::path::Path;

/// One sensitivity run: a name and the keys it changes, at half and at double.
#[derive(Debug, Clone)]
pub struct Knob {
    /// What it changes (a key, or a family of keys such as `fork_join_*`).
    pub name: String,
    /// The keys' values at half.
    pub half: Vec<(String, f64)>,
    /// The keys' values at double.
    pub double: Vec<(String, f64)>,
    /// The caller says no construct prices these keys: the replay must not move.
    pub unused: bool,
}

/// The machine's keys, one knob per key or family present in `m` (in the order of
/// docs/machine.md): `latency_s`, `bandwidth_bytes_per_s`, `fork_join_*`, `par_call_s_*`,
/// `task_s`, `par_item_s`, the four `handoff_*` keys, `line_bounce_s`, the moves
/// (`transfer_s_B - local_read_s_B`, the difference scaled) and the co-run slowdowns
/// (`mem_slowdown_k*`, their excess over 1 scaled). Knobs named in `unused` are marked so.
pub fn knobs(m: &Machine, unused: &[&str]) -> Vec<Knob> {
    let v = &m.values;
    let knob = |name: &str, at: &dyn Fn(f64) -> Vec<(String, f64)>| Knob {
        name: name.to_string(),
        half: at(0.5),
        double: at(2.0),
        unused: unused.contains(&name),
    };
    let scaled =
        |keys: &[&String], f: f64| keys.iter().map(|k| (k.to_string(), v[*k] * f)).collect();
    let family =
        |prefix: &str| -> Vec<&String> { v.keys().filter(|k| k.starts_with(prefix)).collect() };
    let mut out = Vec::new();
    let single = |name: &str, out: &mut Vec<Knob>| {
        if let Some((key, _)) = v.get_key_value(name) {
            out.push(knob(name, &|f| scaled(&[key], f)));
        }
    };
    single("latency_s", &mut out);
    single("bandwidth_bytes_per_s", &mut out);
    for (prefix, name) in [
        ("fork_join", "fork_join_*"),
        ("par_call_s_", "par_call_s_*"),
    ] {
        let keys = family(prefix);
        if !keys.is_empty() {
            out.push(knob(name, &|f| scaled(&keys, f)));
        }
    }
    for name in [
        "task_s",
        "par_item_s",
        "handoff_spin_s",
        "handoff_spin_window_s",
        "handoff_notify_s",
        "handoff_wake_s",
        "line_bounce_s",
    ] {
        single(name, &mut out);
    }
    // The move at size B is transfer_s_B - local_read_s_B: scale the difference.
    let moves = |f: f64| -> Vec<(String, f64)> {
        v.iter()
            .filter_map(|(k, t)| {
                let b = k.strip_prefix("transfer_s_")?;
                let local = *v.get(&format!("local_read_s_{b}"))?;
                Some((k.clone(), local + f * (t - local)))
            })
            .collect()
    };
    if !moves(1.0).is_empty() {
        out.push(knob("transfer_s_B - local_read_s_B", &moves));
    }
    let slowdowns = family("mem_slowdown_k");
    if !slowdowns.is_empty() {
        let excess = |f: f64| {
            slowdowns
                .iter()
                .map(|k| (k.to_string(), 1.0 + f * (v[*k] - 1.0)))
                .collect()
        };
        out.push(knob("mem_slowdown_k* (excess over 1)", &excess));
    }
    out
}

/// The machine file's text with `keys` set to new values.
pub fn with_keys(text: &str, keys: &[(String, f64)]) -> String {
    text.lines()
        .map(|l| {
            let key = l.split('=').next().unwrap_or("").trim();
            match keys.iter().find(|(k, _)| k == key) {
                Some((k, v)) if !l.starts_with('#') => format!("{k} = {v:e}"),
                _ => l.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One variant's replay: both versions' predictions (seconds, one per point) and its score.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The predicted version's predictions.
    pub other: Vec<f64>,
    /// The measured version's predictions.
    pub base: Vec<f64>,
    /// Their score.
    pub score: Score,
}

/// A knob's two replays.
#[derive(Debug, Clone)]
pub struct KnobRun {
    /// The knob.
    pub knob: Knob,
    /// At half.
    pub half: Variant,
    /// At double.
    pub double: Variant,
}

/// Replays `versions` at `points` (variables from `bind`) with each knob of `knobs` at half
/// and double in the machine file `machine_text`; the variants are written into `scratch`.
pub fn run_knobs(
    versions: &Versions,
    machine_text: &str,
    knobs: &[Knob],
    points: &[Point],
    bind: &dyn Fn(&Point) -> Bindings,
    scratch: &Path,
) -> Vec<KnobRun> {
    let path = scratch.join("machine-variant.txt");
    let variant = |keys: &[(String, f64)]| {
        std::fs::write(&path, with_keys(machine_text, keys))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (other, base) = (versions.other_program(&path), versions.base_program(&path));
        let at = |program| -> Vec<f64> {
            points
                .iter()
                .map(|pt| predict(program, &bind(pt)).seconds)
                .collect()
        };
        let (other, base) = (at(&other), at(&base));
        let score = score(points, &other, &base);
        Variant { other, base, score }
    };
    knobs
        .iter()
        .map(|k| KnobRun {
            knob: k.clone(),
            half: variant(&k.half),
            double: variant(&k.double),
        })
        .collect()
}

/// One line per knob: the predicted version's mean |error| %, the points ranked right and
/// (in parentheses) the decisive ones ranked right, at half / at double.
pub fn knob_table(runs: &[KnobRun]) -> String {
    let cell = |s: &Score| {
        format!(
            "{:5.1} {:2} ({:2})",
            s.mean_err_pct, s.ranking, s.decisive_right
        )
    };
    let mut out = String::new();
    for r in runs {
        let _ = writeln!(
            out,
            "  {:<32} {} / {}",
            r.knob.name,
            cell(&r.half.score),
            cell(&r.double.score)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_knob_per_key_family_present() {
        let m = Machine::parse(
            "m.txt",
            "latency_s = 1e-7\nbandwidth_bytes_per_s = 1e9\nfork_join_s_p1 = 1e-6\n\
             fork_join_s_p2 = 2e-6\ntransfer_s_4096 = 3e-7\nlocal_read_s_4096 = 1e-7\n\
             mem_slowdown_k1 = 1\nmem_slowdown_k2 = 1.5\n",
        )
        .unwrap();
        let ks = knobs(&m, &["latency_s"]);
        let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "latency_s",
                "bandwidth_bytes_per_s",
                "fork_join_*",
                "transfer_s_B - local_read_s_B",
                "mem_slowdown_k* (excess over 1)"
            ]
        );
        assert!(ks[0].unused && !ks[1].unused);
        assert_eq!(
            ks[3].double,
            vec![("transfer_s_4096".to_string(), 1e-7 + 2.0 * (3e-7 - 1e-7))]
        );
        let k2 = ks[4]
            .half
            .iter()
            .find(|(k, _)| k == "mem_slowdown_k2")
            .unwrap();
        assert_eq!(k2.1, 1.25);
        let text = with_keys("# latency_s = 1\nlatency_s = 1e-7 # s\n", &ks[0].double);
        assert_eq!(text, "# latency_s = 1\nlatency_s = 2e-7");
    }
}
