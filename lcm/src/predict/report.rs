//! Human and JSON output of predictions and comparisons, and the comparison plot.

use super::columns::{Column, Table};
pub use super::compare_report::{compare_json, compare_plot, compare_table, PointMarks};
use super::error::PredictError;
use super::grid::Grid;
use super::program::{Prediction, Program};
use super::tree::{rule_of, Node, NodeKind, SyncOp};
use lca::expr::{format_number, Bindings};
use lca::range::{RangeWarning, VarRange};
use serde_json::{json, Value};
use std::fmt::Write as _;

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

/// A point's bindings as `NAME=VALUE` words, space-separated (in the bindings' order).
pub fn point_text(b: &Bindings) -> String {
    b.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seconds with their sign (`+` for 0 and above), as the breakdown adds them to T.
pub fn signed(v: f64) -> String {
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
    let _ = writeln!(
        o,
        "lcm predict {} at {}",
        prog.file,
        point_text(&pred.bindings)
    );
    o.push_str(&fragment_table(acc));
    o.push_str(&fragment_categories(acc));
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
        let notify = prog
            .machine
            .costs
            .as_ref()
            .is_some_and(|c| c.handoff_notify_s.is_some());
        o.push_str(&super::pipeline_report::pipeline_lines(pl, acc.p, notify));
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

/// The lost-cycles categories inside the fragments' own models, summed over the run's
/// executions of every instance (machine costs, named `machine …`, left out): what the
/// models hold, beside what the composition adds. One line of processor-seconds per
/// category with its share of the fragments' processor time (the sum of every category),
/// then the load imbalance inside the fragments, which `LI+` (imbalance between fragments)
/// does not count. Empty when no instance has categories.
fn fragment_categories(acc: &super::account::Accounting) -> String {
    let mut totals: Vec<(String, f64)> = Vec::new();
    for f in acc
        .fragments
        .iter()
        .filter(|f| !f.name.starts_with(super::overheads::PREFIX))
    {
        for (key, v) in &f.categories {
            match totals.iter_mut().find(|(k, _)| k == key) {
                Some((_, t)) => *t += f.executions * v,
                None => totals.push((key.clone(), f.executions * v)),
            }
        }
    }
    // In the order of the profile's records (category::Category::ALL).
    let rank = |k: &str| {
        category::Category::ALL
            .iter()
            .position(|c| c.key() == k)
            .unwrap_or(category::Category::ALL.len())
    };
    totals.sort_by_key(|(k, _)| rank(k));
    let processor_s: f64 = totals.iter().map(|(_, v)| v).sum();
    if totals.is_empty() || processor_s <= 0.0 {
        return String::new();
    }
    let share = |v: f64| format!("{:.0} %", 100.0 * v / processor_s);
    let cells: Vec<String> = totals
        .iter()
        .map(|(k, v)| format!("{k} {} ({})", secs(*v), share(*v)))
        .collect();
    let mut o = format!(
        "inside the fragments (their models, processor-s over the run): {}\n",
        cells.join(", ")
    );
    if let Some((_, li)) = totals.iter().find(|(k, v)| k == "li" && *v > 0.0) {
        let _ = writeln!(
            o,
            "  load imbalance inside fragments (their li models): {} processor-s, {} of their processor time (LI+ below is between fragments)",
            secs(*li),
            share(*li)
        );
    }
    o
}

/// The fragment instances of a breakdown: name, line, executions, p_f, T_f and what they
/// add to T, each column as wide as its widest cell. When an instance is reached through a
/// followed call, a `called at` column after `line` gives each row's calls
/// ([`called_at`]), so that a fragment called from two places has two rows that say which.
fn fragment_table(acc: &super::account::Accounting) -> String {
    let calls = acc.fragments.iter().any(|f| !f.called_from.is_empty());
    let mut columns = vec![Column::left(), Column::right().after(2)];
    let mut header = vec!["fragment", "line"];
    if calls {
        columns.push(Column::left().after(2));
        header.push("called at");
    }
    columns.extend([Column::right().after(2); 4]);
    header.extend(["runs", "p_f", "T_f (s)", "adds T (s)"]);
    let mut t = Table::new(columns, header.into_iter().map(String::from).collect());
    for f in &acc.fragments {
        let mut row = vec![f.name.clone(), f.line.to_string()];
        if calls {
            row.push(called_at(&f.called_from));
        }
        row.extend([
            trim(f.executions),
            trim(f.procs),
            secs(f.time_s),
            signed(f.executions * f.work / acc.p),
        ]);
        t.row(row);
    }
    t.render()
}

/// The calls leading to a fragment instance, outermost first, as the breakdown's `called at`
/// column writes them: each call's line, with `xR` when it runs R times for each run of the
/// function that makes it (in a loop, over items or copies), joined by ` > `: `42 x2`,
/// `17 > 42 x2`; empty for an instance in the entry function's own code.
pub fn called_at(calls: &[super::account::CallSite]) -> String {
    calls
        .iter()
        .map(|c| {
            if c.repeat == 1.0 {
                c.line.to_string()
            } else {
                format!("{} x{}", c.line, trim(c.repeat))
            }
        })
        .collect::<Vec<_>>()
        .join(" > ")
}

/// A count or value: whole numbers without decimals, others with three.
pub fn trim(v: f64) -> String {
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
            .filter(|&j| points[j].contains_key("p") && preds[j].is_finite())
            .min_by(|&x, &y| points[x]["p"].total_cmp(&points[y]["p"]))
        else {
            continue;
        };
        for i in idx.into_iter().filter(|&i| preds[i].is_finite()) {
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
    let columns = vec![Column::right().after(2); vars.len() + 2];
    let mut header: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
    header.extend(["T (s)".to_string(), "speedup".to_string()]);
    let mut t = Table::new(columns, header);
    for (i, (b, secs_at)) in points.iter().zip(ts).enumerate() {
        let mut row: Vec<String> = vars.iter().map(|v| format_number(b[v])).collect();
        // A point with no prediction (its error is on stderr) shows `-`.
        row.push(if secs_at.is_finite() {
            secs(*secs_at)
        } else {
            "-".into()
        });
        row.push(
            sp[i]
                .map(|s| format!("{s:.2}"))
                .unwrap_or_else(|| "-".into()),
        );
        t.row(row);
    }
    o.push_str(&t.render());
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
    crate::json_out::pretty(&Value::Array(arr))
}

fn prediction_json(p: &Prediction, speedup: Option<f64>) -> Value {
    json!({
        "bindings": p.bindings,
        "seconds": p.seconds,
        "warnings": p.accounting.range_warnings,
        "negative_models": p.accounting.negative_models,
        "few_items": p.accounting.few_items,
        "speedup": speedup,
        "contributions": p.contributions,
        "accounting": p.accounting,
    })
}

/// Writes the JSON array of [`predictions_json`] (the same text and a newline) one point
/// at a time, holding one point's breakdown at once: `predict(i)` gives the prediction at
/// `points[i]`, whose time is `ts[i]` (known beforehand, for the speedups). A point whose
/// time is not finite (the grid could not predict it) is written as `{bindings, seconds:
/// null, error}`, `error` the message of `predict(i)`'s error.
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
        // A point the grid could not predict (ts[i] not finite) says why instead.
        let v = match predict(i) {
            Ok(p) => prediction_json(&p, s),
            Err(e) if !ts[i].is_finite() => json!({
                "bindings": points[i],
                "seconds": null,
                "error": e.to_string(),
            }),
            Err(e) => return Err(e),
        };
        let text = crate::json_out::pretty(&v);
        let sep = if i == 0 { "" } else { "," };
        write!(out, "{sep}\n  {}", text.replace('\n', "\n  ")).map_err(io)?;
    }
    writeln!(out, "\n]").map_err(io)
}

/// The range warnings of predictions for stderr: one line per fragment, categories,
/// variable and measured range, listing the values beyond 2x the range (first seen first),
/// or outside the measured points of a piecewise model (`pw`, [`RangeWarning::piecewise`]),
/// or beyond 2x the breakpoints of a straight-line table (`lin`, [`RangeWarning::held`]).
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
                && g.held == w.held
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
            if w.piecewise || !w.held.is_empty() {
                return format!("warning: {}", w.message(&shown.join(", ")));
            }
            // The values are the fragment's own (a pipeline stage or task runs on part of
            // the program's p): say so for p, which otherwise reads as the grid's.
            let own = if w.variable == "p" {
                " (the processors it runs on)"
            } else {
                ""
            };
            let range = VarRange::new(&w.variable, w.min, w.max);
            if range.holds_one_parallel_count() {
                return format!(
                    "warning: fragment `{}` ({}): p = {}{own} beyond the measured range {range}, {}",
                    w.fragment,
                    w.categories.join(", "),
                    shown.join(", "),
                    lca::range::ONE_PARALLEL_COUNT
                );
            }
            format!(
                "warning: fragment `{}` ({}): {} = {}{own} beyond 2x the measured range {}: the model extrapolates",
                w.fragment,
                w.categories.join(", "),
                w.variable,
                shown.join(", "),
                VarRange::new(&w.variable, w.min, w.max)
            )
        })
        .collect()
}

/// The structure tree as JSON: `{kind, label, line, rule, p_override, children, ...}`;
/// fragments add `name`, `models` (category → expression text), `inputs`, `outputs`.
pub fn tree_json(root: &Node) -> String {
    crate::json_out::pretty(&node_json(root))
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
