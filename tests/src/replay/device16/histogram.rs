//! The histogram study's replay: the locked version measured, the sharded one predicted,
//! with the processor time per key the sharded version lost beyond its p = 1 time next to
//! what its annotation's `ml` rule gives.

use super::replayed::{point_table, replay, report_end, Program16, Replayed};
use super::{check, example_source, Bounds, Day};
use crate::replay::bindings;
use crate::replay::points::Point;
use lca::expr::Bindings;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The histogram study's variables at a point: `n, p, shards`.
pub fn histogram_bindings(pt: &Point, shards: f64) -> Bindings {
    bindings(&[
        ("n", pt.size as f64),
        ("p", pt.p as f64),
        ("shards", shards),
    ])
}

/// Least-squares line a + b·x through (x, y).
pub fn line_fit(xy: &[(f64, f64)]) -> (f64, f64) {
    let count = xy.len() as f64;
    let (mx, my) = (
        xy.iter().map(|v| v.0).sum::<f64>() / count,
        xy.iter().map(|v| v.1).sum::<f64>() / count,
    );
    let sxy: f64 = xy.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xy.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let b = sxy / sxx;
    (my - b * mx, b)
}

/// The processor time per key lost beyond the p = 1 time, `(p·T(p) - T(1)) / n`, measured
/// and predicted, and what the sharded fill's `ml` rule gives per key (its model as lcm
/// derived it, at the point's variables and the machine file's keys): ns, one per point.
pub struct LossPerKey {
    /// Measured, ns per key.
    pub measured_ns: f64,
    /// Predicted by the replay, ns per key.
    pub predicted_ns: f64,
    /// The `ml` rule alone, ns per key.
    pub ml_rule_ns: f64,
}

/// The loss per key at every point of `r` (each size needs a p = 1 point).
pub fn histogram_loss_per_key(r: &Replayed, shards: f64) -> Vec<LossPerKey> {
    let fill_ml = r
        .other_model
        .fragment_models()
        .into_iter()
        .find(|m| m.name == "fill")
        .and_then(|m| m.categories.into_iter().find(|(c, _)| c == "ml"))
        .map(|(_, e)| e)
        .expect("the sharded fill's ml rule");
    let machine_keys = r.other_model.machine.bindings();
    let p1 = |size: u64| {
        r.points
            .iter()
            .position(|q| q.size == size && q.p == 1)
            .expect("a p = 1 point at every size")
    };
    r.points
        .iter()
        .enumerate()
        .map(|(i, pt)| {
            let (n, p, j) = (pt.size as f64, pt.p as f64, p1(pt.size));
            let mut vars = machine_keys.clone();
            vars.extend(histogram_bindings(pt, shards));
            let rule = fill_ml.eval(&vars).expect("the ml rule evaluates");
            LossPerKey {
                measured_ns: (p * pt.other_s - r.points[j].other_s) / n * 1e9,
                predicted_ns: (p * r.other[i].seconds - r.other[j].seconds) / n * 1e9,
                ml_rule_ns: rule / n * 1e9,
            }
        })
        .collect()
}

/// Least-squares lines of the measured loss per key over p = 2 … 16, per size and over
/// all sizes, and what the `ml` rule gives at the largest p.
pub fn loss_lines(r: &Replayed, loss: &[LossPerKey]) -> String {
    let mut out = String::new();
    let sizes: BTreeSet<u64> = r.points.iter().map(|pt| pt.size).collect();
    let mut all = Vec::new();
    for size in sizes {
        let xy: Vec<(f64, f64)> = r
            .points
            .iter()
            .zip(loss)
            .filter(|(pt, _)| pt.size == size && pt.p >= 2)
            .map(|(pt, l)| (pt.p as f64, l.measured_ns))
            .collect();
        let (a, b) = line_fit(&xy);
        let _ = writeln!(
            out,
            "n = {size}: measured ns/key beyond p = 1 ≈ {a:.0} + {b:.1}·p (p = 2 … 16)"
        );
        all.extend(xy);
    }
    let (a, b) = line_fit(&all);
    let top = r.points.iter().map(|pt| pt.p).max().unwrap_or(1);
    let at_top: Vec<String> = r
        .points
        .iter()
        .zip(loss)
        .filter(|(pt, _)| pt.p == top)
        .map(|(pt, l)| format!("{:.1} (n = {})", l.ml_rule_ns, pt.size))
        .collect();
    let _ = writeln!(
        out,
        "both sizes: ≈ {a:.0} + {b:.1}·p ns per key; the ml rule at p = {top}: {} ns per key",
        at_top.join(", ")
    );
    out
}

/// Replays the day's histogram study with its shard count, prints its report (the table
/// shows the loss per key; last `replay16-histogram: …`) and panics when a number is worse
/// than `bounds`.
pub fn histogram_replay(day: &Day, bounds: &Bounds) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let shards = day.histogram_shards;
    let r = replay(
        day,
        Program16 {
            program: "histogram",
            records: "locked-per-execution.pp",
            size_var: "n",
            sources: (
                example_source("histogram", "sharded.rs"),
                example_source("histogram", "locked.rs"),
            ),
            entry: "fill",
        },
        &|pt: &Point| histogram_bindings(pt, shards),
        tmp.path(),
    );
    assert_eq!(r.points.len(), bounds.points, "the study's points");
    let loss = histogram_loss_per_key(&r, shards);
    let extra = |i: usize| {
        let l = &loss[i];
        format!(
            "{:>8.1} {:>8.1} {:>8.1}",
            l.measured_ns, l.predicted_ns, l.ml_rule_ns
        )
    };
    let mut out = point_table(
        &r,
        ("sharded", "locked"),
        "ns/key beyond p = 1: measured predicted ml-rule",
        &extra,
    );
    out += &loss_lines(&r, &loss);
    out += &report_end(&r, ("sharded", "locked"), "replay16-histogram");
    print!("{out}");
    check(&r, bounds);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_a_line() {
        let (a, b) = line_fit(&[(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)]);
        assert!(
            (a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12,
            "{a} {b}"
        );
    }
}
