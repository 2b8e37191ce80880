//! The FFT replay's per-point table: tp's and dp's predictions against the measured times,
//! and tp's two stages (A = init + cols, B = transpose + rows, with the move priced before
//! transpose) against the fragment times the study measured in tp, summed up per size.

use super::points::Point;
use super::score::{err_pct, ranking_right};
use lcm::predict::Prediction;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Measured seconds per execution by (n, p, fragment).
pub type FragmentTimes = BTreeMap<(u64, u64, String), f64>;

/// The rows of a study report's "Fragments of tp" table (`| n | p | fragment | p_f |
/// predicted | measured | error |`, durations as `12.3 µs`): the measured seconds per
/// execution in tp. Other lines are skipped, so the whole report can be read.
pub fn measured_fragments(report: &str) -> FragmentTimes {
    let mut out = BTreeMap::new();
    for line in report.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() != 9 || !cells[5].ends_with('s') {
            continue;
        }
        let (Ok(n), Ok(p)) = (cells[1].parse(), cells[2].parse()) else {
            continue;
        };
        if let Some(s) = duration_s(cells[6]) {
            out.insert((n, p, cells[3].to_string()), s);
        }
    }
    out
}

/// `12.3 µs`, `4.5 ms`, `1.2 s` or `800 ns` in seconds.
pub fn duration_s(cell: &str) -> Option<f64> {
    let (v, unit) = cell.split_once(' ')?;
    let scale = match unit {
        "ns" => 1e-9,
        "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    v.parse::<f64>().ok().map(|x| x * scale)
}

/// A fragment's predicted seconds per execution at a point, with the move priced before it
/// (NaN when the prediction has no such fragment).
pub fn fragment_s(pred: &Prediction, name: &str) -> f64 {
    let f = pred.accounting.fragments.iter().find(|f| f.name == name);
    f.map_or(f64::NAN, |f| f.time_s + f.comm_s)
}

/// One size's points in the per-size summary.
#[derive(Default)]
struct SizeSummary {
    /// tp's signed errors, percent.
    errs_pct: Vec<f64>,
    /// Stage A (init + cols) measured over predicted, per execution.
    a_ratio: Vec<f64>,
    /// Stage B (transpose + rows, with the move) measured over predicted.
    b_ratio: Vec<f64>,
}

/// The per-point table and the per-size summary: `tp` and `dp` are the replay's
/// predictions at `points`, `measured` the fragment times the study measured in tp.
pub fn fft_table(
    points: &[Point],
    tp: &[Prediction],
    dp: &[f64],
    measured: &FragmentTimes,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>5} {:>3} {:>6} | {:>9} {:>9} {:>7} {:>7} | {:>9} {:>9} {:>7} | {:>6} | A pred/meas us | B pred/meas us (move) | hand-off",
        "n", "p", "iters", "tp pred", "tp meas", "err%", "old%", "dp pred", "dp meas", "err%", "rank"
    );
    let mut by_n: BTreeMap<u64, SizeSummary> = BTreeMap::new();
    for ((pt, t), &d) in points.iter().zip(tp).zip(dp) {
        let e = err_pct(t.seconds, pt.other_s);
        let right = ranking_right(pt, t.seconds, d);
        let m = |f: &str| {
            measured
                .get(&(pt.size, pt.p, f.to_string()))
                .copied()
                .unwrap_or(f64::NAN)
        };
        let (a_pred, b_pred) = (
            fragment_s(t, "init") + fragment_s(t, "cols"),
            fragment_s(t, "transpose") + fragment_s(t, "rows"),
        );
        let (a_meas, b_meas) = (m("init") + m("cols"), m("transpose") + m("rows"));
        let size = by_n.entry(pt.size).or_default();
        size.errs_pct.push(e);
        size.a_ratio.push(a_meas / a_pred);
        size.b_ratio.push(b_meas / b_pred);
        let mv = t
            .accounting
            .fragments
            .iter()
            .find(|f| f.name == "transpose")
            .map_or(0.0, |f| f.comm_s);
        let handoff = t.accounting.pipelines.first().map_or(String::new(), |pl| {
            pl.handoffs
                .iter()
                .map(|h| format!("{} {:.1} us", h.regime, h.wait_s * 1e6))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let _ = writeln!(
            out,
            "{:>5} {:>3} {:>6} | {:>9.3} {:>9.3} {:>+7.1} {:>7.1} | {:>9.3} {:>9.3} {:>+7.1} | {:>6} | {:>6.1}/{:>6.1} | {:>6.1}/{:>6.1} ({:.1}) | {handoff}{}",
            pt.size, pt.p, pt.iters, t.seconds * 1e3, pt.other_s * 1e3, e, pt.study_err_pct,
            d * 1e3, pt.base_s * 1e3, err_pct(d, pt.base_s),
            if right { "right" } else { "wrong" },
            a_pred * 1e6, a_meas * 1e6, b_pred * 1e6, b_meas * 1e6, mv * 1e6,
            if pt.tie { " (measured tie)" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "(tp, dp: ms per run; old%: |error| of the study's own tools; A = init + cols, B = transpose + rows: \
         us per execution, predicted with the move (us) priced before transpose, measured in tp by the study)"
    );
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    for (n, size) in &by_n {
        let (errs, a, b) = (&size.errs_pct, &size.a_ratio, &size.b_ratio);
        let abs: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
        let _ = writeln!(
            out,
            "n = {n}: tp error mean {:+.1} % (mean |error| {:.1} %); measured / predicted: stage A {:.2}, stage B {:.2}",
            mean(errs), mean(&abs), mean(a), mean(b)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fragment_table_and_its_units() {
        let report = "# report\n| n | p | fragment | p_f | predicted | measured | error |\n\
            |---|---|---|---|---|---|---|\n\
            | 64 | 2 | alloc | 2 | 12.57 µs | 26.86 µs | 53.2% |\n\
            | 1024 | 16 | alloc | 16 | 8.760 ms | 7.926 ms | 10.5% |\n\
            | 64 | 2 | tp | 2 | 1 | 2 | 3 |\n";
        let m = measured_fragments(report);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!((m[&(64, 2, "alloc".into())] - 26.86e-6).abs() < 1e-12);
        assert!((m[&(1024, 16, "alloc".into())] - 7.926e-3).abs() < 1e-12);
        assert!((duration_s("800 ns").unwrap() - 800e-9).abs() < 1e-18);
        assert_eq!(duration_s("1.5 s"), Some(1.5));
        assert_eq!(duration_s("1.5 min"), None);
    }
}
