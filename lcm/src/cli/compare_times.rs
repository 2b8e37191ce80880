//! `lcm compare --times-a/--times-b`: the measured version's residuals (its prediction
//! against its measured run times, `lcm::predict::compare`) in the readable and JSON
//! output.
use lcm::predict::compare::{measured_points, Residual, DEFAULT_RELATIVE_UNCERTAINTY};
use lcm::predict::grid::Grid;
use lcm::predict::{PredictError, Program};

/// The residuals of `version` (`prog`) at the measured points of records file `path`: its
/// prediction at each point's bindings (the `--set` values fill in variables the records
/// lack) against the measured median, the records selected by every one of `selects`.
pub fn residuals_of(
    version: &str,
    prog: &Program,
    path: &std::path::Path,
    grid: &Grid,
    selects: &[&str],
) -> Result<Vec<Residual>, PredictError> {
    let text = std::fs::read_to_string(path).map_err(|e| PredictError::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    let points = measured_points(&path.display().to_string(), &text, selects)?;
    let mut out = Vec::new();
    for m in points {
        let mut b: lca::expr::Bindings = grid.fixed.iter().cloned().collect();
        b.extend(m.bindings.iter().map(|(k, v)| (k.clone(), *v)));
        let t = prog.predict(&b)?.seconds;
        out.push(Residual::new(version, m, t));
    }
    Ok(out)
}

fn bindings_text(b: &lca::expr::Bindings) -> String {
    b.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The readable lines after the comparison table: the rule that turned the measured
/// residuals into the +-% column, and the measured points that set it somewhere (each
/// with its prediction error and spread; all of them are in --json); nothing without
/// --times files.
pub fn residuals_table(
    residuals: &[Residual],
    per_point: &[(f64, Vec<&Residual>)],
    floor: Option<f64>,
) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    if residuals.is_empty() {
        return o;
    }
    let floor = match floor {
        Some(f) => format!(", at least {:.1}% (--uncertainty)", 100.0 * f),
        None => String::new(),
    };
    let _ = writeln!(
        o,
        "uncertainty from measured times: +-% = max(|error|, spread) at the nearest measured point(s){floor}; spread {:.1}% (default) where a point ran once",
        100.0 * DEFAULT_RELATIVE_UNCERTAINTY
    );
    let per_iteration: Vec<String> = residuals
        .iter()
        .filter(|r| r.point.iterations != 1.0 || r.point.iterations_variable.is_some())
        .map(|r| match &r.point.iterations_variable {
            Some(v) => v.clone(),
            None => format!("{}", r.point.iterations),
        })
        .fold(Vec::new(), |mut acc, v| {
            if !acc.contains(&v) {
                acc.push(v);
            }
            acc
        });
    if !per_iteration.is_empty() {
        let _ = writeln!(
            o,
            "measured = the whole run: session records per iteration (pp-campaign --per-execution, the records' # header) times their iterations ({}), as lcm predicts the fragments composed from --entry; the iteration variable is no distance between points",
            per_iteration.join(", ")
        );
    }
    let used: Vec<&Residual> = residuals
        .iter()
        .filter(|r| {
            per_point
                .iter()
                .any(|(_, by)| by.iter().any(|b| std::ptr::eq(*b, *r)))
        })
        .collect();
    let _ = writeln!(
        o,
        "{} of {} measured point(s) set the +-% of a compared point (--json `measured` lists all):",
        used.len(),
        residuals.len()
    );
    let _ = writeln!(
        o,
        "{:>7}  {:<24} {:>5} {:>14} {:>14} {:>8} {:>8}",
        "version", "measured point", "runs", "measured (s)", "predicted (s)", "error%", "spread%"
    );
    for r in used {
        let spread = match r.point.spread {
            Some(s) => format!("{:.1}", 100.0 * s),
            None => "-".into(),
        };
        let _ = writeln!(
            o,
            "{:>7}  {:<24} {:>5} {:>14.4e} {:>14.4e} {:>+8.1} {:>8}",
            r.version,
            bindings_text(&r.point.bindings),
            r.point.runs,
            r.point.measured_s,
            r.predicted_s,
            100.0 * r.relative_error,
            spread
        );
    }
    o
}

/// `compare_json`'s text with the measured residuals: a top-level `measured` array (each
/// residual: version, bindings, measured_s, runs, lines, predicted_s, relative_error), and
/// per point `uncertainty_from`: `default`, `--uncertainty`, or the residuals that set it.
pub fn with_residuals_json(
    text: &str,
    residuals: &[Residual],
    per_point: &[(f64, Vec<&Residual>)],
    from: &str,
) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else {
        return text.to_string();
    };
    v["measured"] = serde_json::json!(residuals);
    if let Some(points) = v["points"].as_array_mut() {
        for (p, (_, set_by)) in points.iter_mut().zip(per_point) {
            p["uncertainty_from"] = if set_by.is_empty() {
                serde_json::json!(from)
            } else {
                serde_json::json!(set_by)
            };
        }
    }
    lcm::json_out::pretty(&v)
}
