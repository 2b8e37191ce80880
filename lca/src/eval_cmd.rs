//! `lca eval`: a models file evaluated at points, with the 2x-range warning.

use crate::cli::EvalArgs;
use crate::Failure;
use anyhow::anyhow;
use lca::evaluate::{evaluate, Evaluation};
use lca::expr::{format_number, Bindings};

/// Parses `NAME=VALUE[,NAME=VALUE...]`.
fn parse_point(text: &str) -> Result<Bindings, String> {
    let mut b = Bindings::new();
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("--at: expected NAME=VALUE, found `{part}`"))?;
        let v: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("--at: expected a number after `{k}=`, found `{v}`"))?;
        b.insert(k.trim().to_string(), v);
    }
    if b.is_empty() {
        return Err(format!("--at: expected NAME=VALUE, found `{text}`"));
    }
    Ok(b)
}

fn table(rows: &[Evaluation]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for e in rows {
        let at: Vec<String> =
            e.at.iter()
                .map(|(k, v)| format!("{k}={}", format_number(*v)))
                .collect();
        let _ = writeln!(s, "{} at {}", e.fragment, at.join(" "));
        for (c, v) in &e.categories {
            let _ = writeln!(s, "  {c:<6} {v:>14.6e}  processor-seconds");
        }
        if let Some(t) = e.seconds {
            let _ = writeln!(s, "  T      {t:>14.6e}  seconds");
        }
        if e.extrapolation_error > 0.0 {
            let _ = writeln!(
                s,
                "  beyond the measured range: error may grow by +{:.1}% here (the range line's growth per 2x)",
                100.0 * e.extrapolation_error
            );
        }
    }
    s
}

/// Runs `lca eval`.
pub fn run(a: &EvalArgs) -> Result<(), Failure> {
    let points =
        a.at.iter()
            .map(|t| parse_point(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure::Usage)?;
    let source = a.models.display().to_string();
    let text = crate::read_text(&a.models)?;
    let models = lca::annotation::parse_models(&text)
        .map_err(|e| Failure::Input(anyhow!("{source}:{}:{}: {}", e.line, e.column, e.message)))?;
    let chosen: Vec<_> = models
        .iter()
        .filter(|m| a.fragment.as_ref().is_none_or(|f| *f == m.name))
        .collect();
    if chosen.is_empty() {
        return Err(Failure::Input(anyhow!(
            "{source}: expected fragment `{}`, found {}",
            a.fragment.as_deref().unwrap_or("any"),
            models
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut rows = Vec::new();
    for at in &points {
        for m in &chosen {
            let e = evaluate(m, at).map_err(|e| anyhow!("{source}: fragment `{}`: {e}", m.name))?;
            for w in &e.warnings {
                eprintln!("lca: warning: {w}");
            }
            if let Some(w) = e.negative_warning() {
                eprintln!("lca: warning: {w}");
            }
            rows.push(e);
        }
    }
    if a.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
    } else {
        out!("{}", table(&rows));
    }
    Ok(())
}
