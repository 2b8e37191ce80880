//! The study's report directory: `README.md` (markdown), `time.svg`, `categories.svg`,
//! plus the data files the steps wrote (records, models, annotated sources, predictions).

use super::compare::{crossovers, predicted_crossovers, PointResult};
use super::plot::{category_plot, time_plot, PlotError};
use super::StudyResult;
use lcm::predict::grid::Crossover;
use std::fmt::Write as _;
use std::path::Path;

/// Writes `README.md`, `time.svg` and `categories.svg` of `result` into `dir`.
pub fn write_report(dir: &Path, result: &StudyResult) -> Result<(), ReportError> {
    let (base, other) = (result.case.base.name, result.case.other.name);
    time_plot(&dir.join("time.svg"), &result.points, base, other)?;
    category_plot(
        &dir.join("categories.svg"),
        &result.base_runs,
        &result.other_runs,
    )?;
    let md = markdown(result);
    std::fs::write(dir.join("README.md"), md).map_err(|e| ReportError::Io {
        path: dir.join("README.md").display().to_string(),
        source: e,
    })?;
    Ok(())
}

/// Errors writing the report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A plot failed.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

fn secs(v: f64) -> String {
    if !v.is_finite() {
        "—".to_string()
    } else if v >= 1.0 {
        format!("{v:.3}")
    } else if v >= 1e-3 {
        format!("{:.3} ms", v * 1e3)
    } else {
        format!("{:.2} µs", v * 1e6)
    }
}

fn pct(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1}%")
    } else {
        "—".to_string()
    }
}

fn crossover_text(c: &[Crossover], base: &str, other: &str, size: &str) -> String {
    if c.is_empty() {
        return "none (the same version is better at every point)".to_string();
    }
    c.iter()
        .map(|x| {
            let (fixed, var) = if x.variable == "n" {
                ("p", size)
            } else {
                (size, "p")
            };
            let at = x.others.first().map_or(0.0, |(_, v)| *v);
            format!(
                "{} = {} → {} between {} = {} and {}",
                fixed,
                at,
                if x.better_after == "b" { other } else { base },
                var,
                x.between.0,
                x.between.1
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn load(l: Option<(f64, f64, f64)>) -> String {
    l.map_or("unknown".to_string(), |(a, b, c)| {
        format!("{a:.2}, {b:.2}, {c:.2}")
    })
}

/// The report's section on how quiet the machine was during the measurements.
pub fn conditions(r: &StudyResult) -> String {
    let c = &r.conditions;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Measurement conditions
"
    );
    if let Some(d) = super::compare::drift_line(&r.points, r.case.base.name) {
        let _ = writeln!(
            s,
            "Speed {d} (per point: `{} when calibrated` against `{} measured` above).\n",
            r.case.base.name, r.case.base.name
        );
    }
    let _ = writeln!(
        s,
        "Load average (1, 5, 15 min) before the measurements: {}; after: {}. Everything \
         measured at one point (every p of `{}`, its co-run calibration; later `{}` and `{}` \
         again) was timed round robin, one repetition of each in turn after an unrecorded \
         warm-up round, so a disturbance hits all alike.",
        load(c.load_before),
        load(c.load_after),
        r.case.base.name,
        r.case.other.name,
        r.case.base.name
    );
    if c.probed {
        let quiet: usize = c.timings.iter().map(|t| t.quiet).sum();
        let reps: usize = c.timings.iter().map(|t| t.reps).sum();
        let none: Vec<String> = c
            .timings
            .iter()
            .filter(|t| t.quiet == 0)
            .map(|t| format!("{} {}={} p={}", t.label, r.case.size_var, t.n, t.p))
            .collect();
        let _ = writeln!(
            s,
            "During every repetition the other load on the machine (other processes, and the \
             host's steal time, from `/proc/stat`) was measured: {quiet} of {reps} repetitions \
             were quiet (other load under {:.0}% of the machine) and counted; the study waited \
             {:.1} s in all for other load to pass ({} busy 100 ms windows). {}\n",
            100.0 * super::load::QUIET_SHARE,
            c.waited,
            c.busy_windows,
            if none.is_empty() {
                "Every timing kept a quiet repetition.".to_string()
            } else {
                format!(
                    "No quiet repetition (the fastest of all kept, a disturbed one): {}.",
                    none.join(", ")
                )
            }
        );
    } else {
        let _ = writeln!(
            s,
            "Other load could not be measured here (no `/proc`): the fastest repetition was \
             kept.\n"
        );
    }
    let _ = writeln!(
        s,
        "| what | {} | p | kept | median − kept | quiet / reps | other load during kept |",
        r.case.size_var
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for t in &c.timings {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} / {} | {} |",
            t.label,
            t.n,
            t.p,
            secs(t.seconds),
            pct(100.0 * t.spread),
            t.quiet,
            t.reps,
            t.foreign
                .map_or("—".to_string(), |f| format!("{:.0}%", 100.0 * f))
        );
    }
    let _ = writeln!(s);
    s
}

/// The markdown text of the report (report.md): what was done, the models, predictions against
/// measurements, crossovers, fragment checks, measurement conditions and findings.
pub fn markdown(r: &StudyResult) -> String {
    let mut s = String::new();
    intro(&mut s, r);
    fitted_models(&mut s, r);
    predicted_vs_measured(&mut s, r);
    crossover_section(&mut s, r);
    fragment_checks(&mut s, r);
    s.push_str(&conditions(r));
    shortfalls(&mut s, r);
    let _ = writeln!(s, "\n![time](time.svg)\n\n![categories](categories.svg)");
    s
}

/// Title, summary line, design and the steps taken, with links to their files.
fn intro(s: &mut String, r: &StudyResult) {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let size = r.case.size_var;
    let _ = writeln!(
        s,
        "# Lost-cycles study: {} — measure {base}, predict {other}\n",
        r.case.program.name()
    );
    let _ = writeln!(s, "{}\n", r.summary.line());
    let _ = writeln!(
        s,
        "Machine: {} cores. Design: {size} ∈ {:?}, {base} at p ∈ {:?}, {other} at p ∈ {:?}, \
         {} quiet repetitions wanted per point and version (fastest quiet one kept; see \
         *Measurement conditions*). Study time {:.1} s{}.\n",
        r.cores,
        r.design.sizes,
        r.design.measured_ps,
        r.design.predicted_ps,
        r.design.reps,
        r.elapsed,
        if r.quick { " (--quick)" } else { "" }
    );
    let _ = writeln!(s, "## Steps\n");
    let _ = writeln!(
        s,
        "1. Measured `{base}` at every point under pplib; `pp` profiled every fragment with the \
         p = 1 run of the same size as baseline: [`{base}.pp`]({base}.pp) (whole runs), \
         [`{base}-per-execution.pp`]({base}-per-execution.pp) (divided by the iterations: the \
         data that was fitted)."
    );
    let _ = writeln!(
        s,
        "2. Fitted every fragment's categories with `lca`'s automatic search: \
         [`models.lcm`](models.lcm); wrote them into copies of the sources: \
         [`{}`]({}), [`{}`]({}).",
        r.case.other.file, r.case.other.file, r.case.base.file, r.case.base.file
    );
    let _ = writeln!(
        s,
        "3. Predicted both versions with `lcm` before `{other}` ever ran: \
         [`predictions.txt`](predictions.txt)."
    );
    let _ = writeln!(
        s,
        "4. Ran `{other}` at the same points and compared (below)."
    );
    let _ = writeln!(s, "5. Plots: [`time.svg`](time.svg) (predicted vs measured time per iteration), [`categories.svg`](categories.svg) (lost-cycles categories per p and {size}).\n");
}

/// The fitted models, and the models written into the predicted version that differ.
fn fitted_models(s: &mut String, r: &StudyResult) {
    let other = r.case.other.name;
    let _ = writeln!(
        s,
        "## Fitted fragment models (processor-seconds per execution)\n"
    );
    let _ = writeln!(s, "| fragment | category | model | form | R² | records |");
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for f in &r.fits {
        for c in &f.categories {
            let _ = writeln!(
                s,
                "| {} | {} | `{}` | `{}` | {} | {} |",
                f.name,
                c.category,
                c.expr,
                c.form,
                if c.r2.is_finite() {
                    format!("{:.3}", c.r2)
                } else {
                    "—".into()
                },
                c.points
            );
        }
    }
    let _ = writeln!(s);

    let changed: Vec<(&str, &super::model::CategoryFit)> = r
        .other_fits
        .iter()
        .flat_map(|f| f.categories.iter().map(move |c| (f.name.as_str(), c)))
        .filter(|(name, c)| {
            !r.fits.iter().any(|f| {
                f.name == *name
                    && f.categories
                        .iter()
                        .any(|x| x.category == c.category && x.expr == c.expr)
            })
        })
        .collect();
    if !changed.is_empty() {
        let _ = writeln!(
            s,
            "Models written into `{other}` that differ from the fitted ones (structural rules of \
             this program, co-run slowdown):\n"
        );
        let _ = writeln!(s, "| fragment | category | model | form |");
        let _ = writeln!(s, "|---|---|---|---|");
        for (name, c) in changed {
            let _ = writeln!(
                s,
                "| {name} | {} | `{}` | `{}` |",
                c.category, c.expr, c.form
            );
        }
        let _ = writeln!(s);
    }
}

/// Both versions predicted and measured at every point, the error summary, ties,
/// uncertainty and self-predictions of the measured version.
fn predicted_vs_measured(s: &mut String, r: &StudyResult) {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let size = r.case.size_var;
    let _ = writeln!(s, "## Predicted vs measured\n");
    let _ = writeln!(
        s,
        "`{base} measured` was timed again round robin with `{other}` (the ranking compares \
         those two); `{base} when calibrated` is the time of the calibration phase its models \
         were fitted to: their difference is how much the machine's speed changed between the \
         phases.\n"
    );
    let _ = writeln!(
        s,
        "| {size} | p | iters | {other} predicted | {other} measured | error | {base} predicted | {base} measured | {base} error | {base} when calibrated | better (pred / meas) | ranking |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for p in &r.points {
        let better = |b: bool| if b { other } else { base };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |",
            p.n,
            p.p,
            p.iters,
            secs(p.predicted),
            secs(p.measured),
            pct(p.err_pct()),
            secs(p.predicted_base),
            secs(p.measured_base),
            pct(p.base_err_pct()),
            secs(p.calibrated_base),
            better(p.predicted_better()),
            better(p.measured_better()),
            {
                let mut t = if p.ranking_correct() {
                    "right".to_string()
                } else {
                    "**wrong**".to_string()
                };
                if p.too_close_to_call() {
                    let _ = write!(t, " (too close to call: ±{:.0}%)", 100.0 * p.uncertainty);
                }
                if p.measured_tie() {
                    let _ = write!(
                        t,
                        " (measured tie: {:+.1}% apart, spread {:.1}%)",
                        100.0 * p.measured_margin(),
                        100.0 * p.noise
                    );
                }
                t
            }
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Mean relative error of `{other}`: {}, max {}; ranking right at {}/{} points.\n",
        pct(r.summary.mean_err_pct),
        pct(r.summary.max_err_pct),
        r.summary.ranking_correct,
        r.summary.points
    );
    let _ = writeln!(
        s,
        "A point is a *measured tie* when `{other}` and `{base}` measured closer to each other \
         than their run-to-run spread there (the larger of the two versions' third-fastest − \
         fastest over their counted repetitions: how far each kept time would move without \
         its two fastest repetitions): which one is faster is then decided by the noise, \
         and another run may turn it either way. Here: {}.\n",
        r.summary.ties_line()
    );
    let close = r.points.iter().filter(|p| p.too_close_to_call()).count();
    let _ = writeln!(
        s,
        "The uncertainty of a point's predictions is how far `{base}`'s own prediction is from \
         its measurement there (at least {:.0}%), known before `{other}` ran. At {close} of {} \
         points the two predictions differ by less than that: the predicted ranking there is a \
         toss-up, not a finding.\n",
        100.0 * super::compare::MIN_UNCERTAINTY,
        r.points.len()
    );
    if !r.base_only.is_empty() {
        let _ = writeln!(
            s,
            "Self-prediction of `{base}` where `{other}` does not run:\n"
        );
        let _ = writeln!(s, "| {size} | p | predicted | measured | error |");
        let _ = writeln!(s, "|---|---|---|---|---|");
        for (n, p, pred, meas) in &r.base_only {
            let _ = writeln!(
                s,
                "| {n} | {p} | {} | {} | {} |",
                secs(*pred),
                secs(*meas),
                pct(super::compare::rel_err_pct(*pred, *meas))
            );
        }
        let _ = writeln!(s);
    }
}

/// Where the better version changes, predicted and measured.
fn crossover_section(s: &mut String, r: &StudyResult) {
    let (base, other) = (r.case.base.name, r.case.other.name);
    let size = r.case.size_var;
    let _ = writeln!(s, "## Crossovers\n");
    let _ = writeln!(
        s,
        "- predicted: {}",
        crossover_text(&predicted_crossovers(&r.points), base, other, size)
    );
    let _ = writeln!(
        s,
        "- measured: {}\n",
        crossover_text(
            &crossovers(&r.points, PointResult::measured_better),
            base,
            other,
            size
        )
    );
}

/// Per-fragment predicted and measured times of the predicted version.
fn fragment_checks(s: &mut String, r: &StudyResult) {
    let other = r.case.other.name;
    let size = r.case.size_var;
    if !r.fragment_checks.is_empty() {
        let _ = writeln!(
            s,
            "## Fragments of `{other}`: predicted vs measured time per execution\n"
        );
        let _ = writeln!(
            s,
            "Measured: how long the fragment was open per execution in the `{other}` run \
             (window length / iterations); predicted: its models at its own (n, p_f).\n"
        );
        let _ = writeln!(
            s,
            "| {size} | p | fragment | p_f | predicted | measured | error |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for c in &r.fragment_checks {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                c.n,
                c.p,
                c.fragment,
                c.p_fragment,
                secs(c.predicted),
                secs(c.measured),
                pct(super::compare::rel_err_pct(c.predicted, c.measured))
            );
        }
        let _ = writeln!(s);
    }
}

/// Findings (where the predictions fall short) and warnings.
fn shortfalls(s: &mut String, r: &StudyResult) {
    let _ = writeln!(s, "## Where the predictions fall short, and why\n");
    if r.findings.is_empty() {
        let _ = writeln!(s, "Every point is within 15% and ranked right.\n");
    }
    for f in &r.findings {
        let _ = writeln!(s, "- {f}");
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(s, "\n## Warnings\n");
        for w in &r.warnings {
            let _ = writeln!(s, "- {w}");
        }
    }
}
