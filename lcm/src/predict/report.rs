//! Human and JSON output of predictions and comparisons, and the comparison plot.

use super::compare::Comparison;
use super::error::PredictError;
use super::grid::Grid;
use super::program::{Prediction, Program};
use super::tree::{rule_of, Node, NodeKind, SyncOp};
use lca::expr::{format_number, Bindings};
use lca::range::{RangeWarning, VarRange};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// Seconds in a compact fixed format.
pub fn secs(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e-3 && v.abs() < 1e5 {
        format!("{v:.6}")
    } else {
        format!("{v:.4e}")
    }
}

fn point(b: &Bindings) -> String {
    b.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn signed(v: f64) -> String {
    if v < 0.0 {
        format!("-{}", secs(-v))
    } else {
        format!("+{}", secs(v))
    }
}

/// The single-point report; its last line is exactly `predicted: T=SECONDS`.
pub fn single(prog: &Program, pred: &Prediction) -> String {
    let mut o = String::new();
    let acc = &pred.accounting;
    let c = &pred.contributions;
    let _ = writeln!(o, "lcm predict {} at {}", prog.file, point(&pred.bindings));
    let _ = writeln!(
        o,
        "{:<16} {:>6} {:>8} {:>8} {:>14} {:>14}",
        "fragment", "line", "runs", "p_f", "T_f (s)", "adds T (s)"
    );
    for f in &acc.fragments {
        let _ = writeln!(
            o,
            "{:<16} {:>6} {:>8} {:>8} {:>14} {:>14}",
            f.name,
            f.line,
            trim(f.executions),
            trim(f.procs),
            secs(f.time_s),
            signed(f.executions * f.work / acc.p)
        );
    }
    let _ = writeln!(o, "overheads added by composition (seconds of T):");
    let li: f64 = acc.parallels.iter().map(|x| x.li_plus).sum();
    let _ = writeln!(
        o,
        "  structural load imbalance LI+ = {} processor-s over {} parallel node(s): {}",
        secs(li),
        acc.parallels.len(),
        signed(c.load_imbalance_s)
    );
    for pl in &acc.pipelines {
        let b = &pl.stages[pl.bottleneck];
        let _ = writeln!(
            o,
            "  pipeline (line {}): {} stages, {} items, fill {} s, bottleneck stage {} ({}) {} s/item; T = {} s (phi/omega bound {}): {}",
            pl.line,
            pl.stages.len(),
            trim(pl.stages[0].items),
            secs(pl.fill_s),
            pl.bottleneck + 1,
            b.label,
            secs(b.tau_s),
            secs(pl.time_s),
            secs(pl.bound_s),
            signed(pl.waiting / acc.p)
        );
        for h in &pl.handoffs {
            let _ = writeln!(
                o,
                "    hand-off stage {} -> {}: stage {} waits {} s per item, {} (machine hand-off)",
                h.from_stage,
                h.to_stage,
                h.waiting_stage,
                secs(h.wait_s),
                h.regime
            );
        }
    }
    if acc.pipelines.is_empty() {
        let _ = writeln!(
            o,
            "  pipeline fill and stage waits: {}",
            signed(c.pipeline_s)
        );
    }
    let _ = writeln!(
        o,
        "  idle processors (p overrides, too few items): {}",
        signed(c.idle_s)
    );
    let _ = writeln!(
        o,
        "  communication ({} move(s) added, {} removed; {}): {}",
        prog.moves_added.len(),
        prog.moves_removed.len(),
        prog.machine.origin,
        signed(c.communication_s)
    );
    for m in &prog.moves_added {
        let _ = writeln!(
            o,
            "    + {} from {} (line {}) to {} (line {}) across the parallel node at line {}",
            m.item, m.from, m.from_line, m.to, m.to_line, m.via_line
        );
    }
    for m in &prog.moves_removed {
        let _ = writeln!(
            o,
            "    - {} from {} to {} (measured version only)",
            m.item, m.from, m.to
        );
    }
    let _ = writeln!(
        o,
        "  synchronization (condition synchronization waits): {}",
        signed(c.synchronization_s)
    );
    let _ = writeln!(
        o,
        "  contention (processors, memory system, locks): {}",
        signed(c.contention_s)
    );
    let _ = writeln!(o, "predicted: T={}", pred.seconds);
    o
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.3}")
    }
}

fn speedups(preds: &[f64], points: &[Bindings]) -> Vec<Option<f64>> {
    // Speedup against the smallest p among the points with the same other values.
    let mut out = vec![None; points.len()];
    for (_, idx) in super::grid::group_by_others(points, "p") {
        let Some(base) = idx
            .iter()
            .copied()
            .filter(|&j| points[j].contains_key("p"))
            .min_by(|&x, &y| points[x]["p"].total_cmp(&points[y]["p"]))
        else {
            continue;
        };
        for i in idx {
            out[i] = Some(preds[base] / preds[i]);
        }
    }
    out
}

/// The grid table: the varying variables, T and speedup.
pub fn table(file: &str, preds: &[Prediction], grid: &Grid) -> String {
    let pts: Vec<Bindings> = preds.iter().map(|p| p.bindings.clone()).collect();
    let ts: Vec<f64> = preds.iter().map(|p| p.seconds).collect();
    table_of(file, &pts, &ts, grid)
}

/// The grid table of the times `ts[i]` at `points[i]` (as [`table`]).
pub fn table_of(file: &str, points: &[Bindings], ts: &[f64], grid: &Grid) -> String {
    let mut o = String::new();
    let vars = grid.varying();
    let sp = speedups(ts, points);
    let fixed: Vec<String> = grid.fixed.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(o, "lcm predict {file} {}", fixed.join(" "));
    let mut head = String::new();
    for v in &vars {
        let _ = write!(head, "{v:>8} ");
    }
    let _ = writeln!(o, "{head}{:>14} {:>9}", "T (s)", "speedup");
    for (i, (b, t)) in points.iter().zip(ts).enumerate() {
        let mut row = String::new();
        for v in &vars {
            let _ = write!(row, "{:>8} ", trim(b[v]));
        }
        let s = sp[i]
            .map(|s| format!("{s:.2}"))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(o, "{row}{:>14} {:>9}", secs(*t), s);
    }
    o
}

/// JSON array of predictions.
pub fn predictions_json(preds: &[Prediction], _grid: &Grid) -> String {
    let pts: Vec<Bindings> = preds.iter().map(|p| p.bindings.clone()).collect();
    let ts: Vec<f64> = preds.iter().map(|p| p.seconds).collect();
    let sp = speedups(&ts, &pts);
    let arr: Vec<Value> = preds
        .iter()
        .zip(sp)
        .map(|(p, s)| prediction_json(p, s))
        .collect();
    serde_json::to_string_pretty(&Value::Array(arr)).unwrap_or_default()
}

fn prediction_json(p: &Prediction, speedup: Option<f64>) -> Value {
    json!({
        "bindings": p.bindings,
        "seconds": p.seconds,
        "warnings": p.accounting.range_warnings,
        "speedup": speedup,
        "contributions": p.contributions,
        "accounting": p.accounting,
    })
}

/// Writes the JSON array of [`predictions_json`] (the same text and a newline) one point
/// at a time, holding one point's breakdown at once: `predict(i)` gives the prediction at
/// `points[i]`, whose time is `ts[i]` (known beforehand, for the speedups).
pub fn write_predictions_json(
    out: &mut dyn std::io::Write,
    points: &[Bindings],
    ts: &[f64],
    mut predict: impl FnMut(usize) -> Result<Prediction, PredictError>,
) -> Result<(), PredictError> {
    let io = |e: std::io::Error| PredictError::Io {
        path: "standard output".into(),
        source: e,
    };
    if points.is_empty() {
        return writeln!(out, "[]").map_err(io);
    }
    let sp = speedups(ts, points);
    write!(out, "[").map_err(io)?;
    for (i, s) in sp.into_iter().enumerate() {
        let v = prediction_json(&predict(i)?, s);
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        let sep = if i == 0 { "" } else { "," };
        write!(out, "{sep}\n  {}", text.replace('\n', "\n  ")).map_err(io)?;
    }
    writeln!(out, "\n]").map_err(io)
}

/// The comparison table: both predictions per point, the uncertainty band, the faster
/// version (`tie` within the band) and the crossovers outside the band.
pub fn compare_table(a: &str, b: &str, grid: &Grid, cmp: &Comparison) -> String {
    let mut o = String::new();
    let vars = grid.varying();
    let fixed: Vec<String> = grid.fixed.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(o, "lcm compare  a = {a}  b = {b}  {}", fixed.join(" "));
    let mut head = String::new();
    for v in &vars {
        let _ = write!(head, "{v:>8} ");
    }
    let _ = writeln!(
        o,
        "{head}{:>14} {:>14} {:>7} {:>7} {:>8}",
        "T_a (s)", "T_b (s)", "+-%", "better", "T_a/T_b"
    );
    for i in 0..cmp.points.len() {
        let mut row = String::new();
        for v in &vars {
            let _ = write!(row, "{:>8} ", trim(cmp.points[i][v]));
        }
        let _ = writeln!(
            o,
            "{row}{:>14} {:>14} {:>7.1} {:>7} {:>8.3}",
            secs(cmp.ta[i]),
            secs(cmp.tb[i]),
            100.0 * cmp.uncertainty[i],
            cmp.verdicts[i].as_str(),
            cmp.ta[i] / cmp.tb[i]
        );
    }
    let (wins_a, wins_b, ties) = cmp.counts();
    let _ = writeln!(
        o,
        "a better at {wins_a} point(s), b better at {wins_b}, tie at {ties} (the two predictions differ by less than their uncertainty +-%)"
    );
    if cmp.crossovers.is_empty() {
        let _ = writeln!(o, "crossovers: none outside the uncertainty on this grid");
    }
    for c in &cmp.crossovers {
        let others: Vec<String> = c.others.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(
            o,
            "crossover: {} ~ {:.2} (between {} and {}{}{}): {} better above",
            c.variable,
            c.at,
            trim(c.between.0),
            trim(c.between.1),
            if others.is_empty() { "" } else { ", " },
            others.join(" "),
            c.better_after
        );
    }
    o
}

/// The range warnings of predictions for stderr: one line per fragment, categories,
/// variable and measured range, listing the values beyond 2x the range (first seen first),
/// or outside the measured points of a piecewise model (`pw`, [`RangeWarning::piecewise`]).
pub fn range_warning_lines(warnings: &[RangeWarning]) -> Vec<String> {
    let mut groups: Vec<(&RangeWarning, Vec<f64>)> = Vec::new();
    for w in warnings {
        let same = |g: &RangeWarning| {
            g.fragment == w.fragment
                && g.categories == w.categories
                && g.variable == w.variable
                && g.min == w.min
                && g.max == w.max
                && g.piecewise == w.piecewise
        };
        match groups.iter_mut().find(|(g, _)| same(g)) {
            Some((_, values)) if !values.contains(&w.value) => values.push(w.value),
            Some(_) => {}
            None => groups.push((w, vec![w.value])),
        }
    }
    groups
        .into_iter()
        .map(|(w, values)| {
            let shown: Vec<String> = values.iter().map(|v| format_number(*v)).collect();
            if w.piecewise {
                return format!("warning: {}", w.message(&shown.join(", ")));
            }
            format!(
                "warning: fragment `{}` ({}): {} = {} beyond 2x the measured range {}: the model extrapolates",
                w.fragment,
                w.categories.join(", "),
                w.variable,
                shown.join(", "),
                VarRange::new(&w.variable, w.min, w.max)
            )
        })
        .collect()
}

/// JSON of a comparison: `{a, b, uncertainty, points: [{bindings, t_a, t_b, uncertainty,
/// relative_difference, better, warnings_a, warnings_b}], crossovers}`. `uncertainty` (top)
/// is `{relative, from}` (the default or `--uncertainty`), per point the relative
/// uncertainty used there; `better` is `a`, `b` or `tie` (|t_a − t_b| / min < uncertainty);
/// crossovers `{variable, between, at, others, better_after}` lie between decisive points
/// only. The warnings are each version's range warnings at the point (`{fragment,
/// categories, variable, value, min, max}`, and `piecewise: true` for a piecewise model
/// outside its measured points).
pub fn compare_json(
    a: &str,
    b: &str,
    cmp: &Comparison,
    uncertainty: (f64, &str),
    warnings: (&[Vec<RangeWarning>], &[Vec<RangeWarning>]),
) -> String {
    let none = Vec::new();
    let pts: Vec<Value> = (0..cmp.points.len())
        .map(|i| {
            let d = super::compare::relative_difference(cmp.ta[i], cmp.tb[i]);
            json!({
                "bindings": cmp.points[i],
                "t_a": cmp.ta[i],
                "t_b": cmp.tb[i],
                "uncertainty": cmp.uncertainty[i],
                "relative_difference": if d.is_finite() { Some(d) } else { None },
                "better": cmp.verdicts[i],
                "warnings_a": warnings.0.get(i).unwrap_or(&none),
                "warnings_b": warnings.1.get(i).unwrap_or(&none),
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({
        "a": a,
        "b": b,
        "uncertainty": {"relative": uncertainty.0, "from": uncertainty.1},
        "points": pts,
        "crossovers": cmp.crossovers,
    }))
    .unwrap_or_default()
}

/// SVG plot of T against `x` for both versions (one line per combination of the other
/// varying variables), each curve in a shaded band of half the relative uncertainty on
/// either side (T·(1 ± u/2)): where the two bands overlap, the predictions differ by about
/// less than their uncertainty, a tie.
pub fn compare_plot(
    out: &Path,
    a: &str,
    b: &str,
    grid: &Grid,
    cmp: &Comparison,
    x: &str,
) -> Result<(), PredictError> {
    use plotters::prelude::*;
    let (points, ta, tb) = (&cmp.points, &cmp.ta, &cmp.tb);
    let err = |e: String| PredictError::Io {
        path: out.display().to_string(),
        source: std::io::Error::other(e),
    };
    if !points.iter().all(|p| p.contains_key(x)) {
        return Err(PredictError::Usage(format!(
            "--x {x}: not a variable of the grid"
        )));
    }
    let xs: Vec<f64> = points.iter().map(|p| p[x]).collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    plotfont::register().map_err(|e| err(e.to_string()))?;
    let (scale, unit) = plotfont::seconds_unit(ta.iter().chain(tb).cloned().fold(0.0, f64::max));
    let umax = cmp.uncertainty.iter().cloned().fold(0.0, f64::max);
    let ymax = ta.iter().chain(tb).cloned().fold(0.0, f64::max) * scale * (1.0 + umax / 2.0) * 1.05;
    let xmax = if xmax > xmin { xmax } else { xmin + 1.0 };
    let others: Vec<String> = grid.varying().into_iter().filter(|v| v != x).collect();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let key = others
            .iter()
            .map(|k| format!("{k}={}", p[k]))
            .collect::<Vec<_>>()
            .join(" ");
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    // One colour a version and group; version a solid with circles, b dashed with triangles,
    // so the two stay apart even where their curves meet.
    let mut legend: Vec<(String, RGBColor)> = Vec::new();
    for (g, (key, _)) in groups.iter().enumerate() {
        for (which, name) in [(0, a), (1, b)] {
            let label = match key.is_empty() {
                true => format!("{}: {name}", ["a", "b"][which]),
                false => format!("{}: {name} {key}", ["a", "b"][which]),
            };
            legend.push((label, version_color(g, which)));
        }
    }
    let legend_w =
        plotfont::legend_width(&legend.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>());
    let root = SVGBackend::new(out, (720 + legend_w, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (plot_area, legend_area) = root.split_horizontally(720);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(12)
        .caption("lcm compare: predicted run time", (plotfont::FAMILY, 22))
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(xmin..xmax, 0.0..ymax.max(1e-12))
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(format!("T ({unit})"))
        .x_label_formatter(&|v| plotfont::tick_label(*v))
        .y_label_formatter(&|v| plotfont::tick_label(*v))
        .draw()
        .map_err(|e| err(e.to_string()))?;
    for (g, (_, mut idx)) in groups.into_iter().enumerate() {
        idx.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
        for (which, ts) in [(0, ta), (1, tb)] {
            let color = version_color(g, which);
            let series: Vec<(f64, f64)> = idx.iter().map(|&i| (xs[i], ts[i] * scale)).collect();
            let band = |sign: f64, i: usize| {
                (
                    xs[i],
                    ts[i] * scale * (1.0 + sign * cmp.uncertainty[i] / 2.0),
                )
            };
            let outline: Vec<(f64, f64)> = idx
                .iter()
                .map(|&i| band(1.0, i))
                .chain(idx.iter().rev().map(|&i| band(-1.0, i)))
                .filter(|(_, y)| y.is_finite())
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    outline,
                    color.mix(0.15).filled(),
                )))
                .map_err(|e| err(e.to_string()))?;
            let style = color.stroke_width(2);
            let drawn = if which == 0 {
                chart
                    .draw_series(LineSeries::new(series.clone(), style))
                    .map(|_| ())
                    .and_then(|()| {
                        chart
                            .draw_series(series.iter().map(|&p| Circle::new(p, 3, color.filled())))
                            .map(|_| ())
                    })
            } else {
                chart
                    .draw_series(DashedLineSeries::new(series.clone(), 8, 5, style))
                    .map(|_| ())
                    .and_then(|()| {
                        chart
                            .draw_series(
                                series
                                    .iter()
                                    .map(|&p| TriangleMarker::new(p, 4, color.filled())),
                            )
                            .map(|_| ())
                    })
            };
            drawn.map_err(|e| err(e.to_string()))?;
        }
    }
    plotfont::draw_legend(&legend_area, &legend).map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// The colour of version `which` (0 = a, 1 = b) in group `g` of the compare plot.
fn version_color(g: usize, which: usize) -> plotters::style::RGBColor {
    use plotters::style::{Palette, Palette99};
    let (r, gr, b) = Palette99::COLORS[(2 * g + which) % Palette99::COLORS.len()];
    plotters::style::RGBColor(r, gr, b)
}

/// The structure tree as JSON: `{kind, label, line, rule, p_override, children, ...}`;
/// fragments add `name`, `models` (category → expression text), `inputs`, `outputs`.
pub fn tree_json(root: &Node) -> String {
    serde_json::to_string_pretty(&node_json(root)).unwrap_or_default()
}

fn node_json(n: &Node) -> Value {
    let (kind, label) = match &n.kind {
        NodeKind::Serial { label } => ("serial", label.clone()),
        NodeKind::Parallel { construct } => ("parallel", construct.clone()),
        NodeKind::ParallelLoop { construct, count } => {
            ("parallel_loop", format!("{construct} x {count}"))
        }
        NodeKind::DataParallel { construct, count } => {
            ("data_parallel", format!("{construct} x {count}"))
        }
        NodeKind::Loop { count, .. } => ("loop", format!("x {count}")),
        NodeKind::Pipeline { items, .. } => ("pipeline", format!("{items} items")),
        NodeKind::Locked { mutex } => ("locked", mutex.clone()),
        NodeKind::Fragment(f) => ("fragment", f.name.clone()),
        NodeKind::Sync(SyncOp::Send(c)) => ("send", c.clone()),
        NodeKind::Sync(SyncOp::Recv(c)) => ("recv", c.clone()),
        NodeKind::Sync(SyncOp::Barrier(c)) => ("barrier", c.clone()),
    };
    let mut v = json!({
        "kind": kind,
        "label": label,
        "line": n.line,
        "rule": rule_of(n),
        "p_override": n.p_override.as_ref().map(|e| e.to_string()),
        "children": n.children.iter().map(node_json).collect::<Vec<_>>(),
    });
    if let NodeKind::Fragment(f) = &n.kind {
        v["models"] = f
            .categories
            .iter()
            .map(|(c, e)| (c.clone(), Value::String(e.to_string())))
            .collect::<serde_json::Map<_, _>>()
            .into();
        v["inputs"] = json!(f.inputs);
        v["outputs"] = json!(f.outputs);
    }
    v
}
