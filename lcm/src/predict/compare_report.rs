//! `lcm compare`'s output: the table, its JSON and its plot.

use super::columns::{Column, Table};
use super::compare::{Comparison, Verdict};
use super::error::PredictError;
use super::grid::{Crossover, Grid};
use super::negative::NegativeModel;
use super::report::secs;
use lca::expr::format_number;
use lca::range::RangeWarning;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// What each version's prediction at a compared point rests on beyond its models'
/// validity: the range warnings (beyond 2x the measured range, [`RangeWarning`]) and the
/// negative models ([`NegativeModel`]) of a and b there.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PointMarks {
    /// Version a's range warnings at the point.
    pub range_a: Vec<RangeWarning>,
    /// Version b's range warnings at the point.
    pub range_b: Vec<RangeWarning>,
    /// Version a's negative models at the point.
    pub negative_a: Vec<NegativeModel>,
    /// Version b's negative models at the point.
    pub negative_b: Vec<NegativeModel>,
}

impl PointMarks {
    /// Whether a model of either version is used beyond its measured range here.
    pub fn beyond_range(&self) -> bool {
        !self.range_a.is_empty() || !self.range_b.is_empty()
    }

    /// Whether a model of either version is negative here.
    pub fn negative(&self) -> bool {
        !self.negative_a.is_empty() || !self.negative_b.is_empty()
    }
}

/// The marks of point `i`: `*` beyond the measured range, `!` a negative model or time.
fn mark(cmp: &Comparison, marks: &[PointMarks], i: usize) -> (bool, bool) {
    let m = marks.get(i);
    let beyond = m.is_some_and(PointMarks::beyond_range);
    let negative = m.is_some_and(PointMarks::negative) || cmp.ta[i] < 0.0 || cmp.tb[i] < 0.0;
    (beyond, negative)
}

/// Whether any point a crossover lies between (along its variable, with its other
/// variables' values) is beyond the measured range, and whether any has a negative model.
fn crossover_marks(cmp: &Comparison, marks: &[PointMarks], c: &Crossover) -> (bool, bool) {
    let (lo, hi) = (c.between.0.min(c.between.1), c.between.0.max(c.between.1));
    let mut out = (false, false);
    for (i, p) in cmp.points.iter().enumerate() {
        let x = p.get(&c.variable).copied().unwrap_or(f64::NAN);
        let same = c.others.iter().all(|(k, v)| p.get(k) == Some(v));
        if same && x >= lo && x <= hi {
            let (b, n) = mark(cmp, marks, i);
            out = (out.0 || b, out.1 || n);
        }
    }
    out
}

/// The comparison table: both predictions per point, the uncertainty band, the faster
/// version (`tie` within the band), a mark where a prediction extrapolates (`*`: a model
/// beyond 2x its measured range) or rests on a negative model or time (`!`), and the
/// crossovers outside the band, each saying when it lies among marked points.
pub fn compare_table(
    a: &str,
    b: &str,
    grid: &Grid,
    cmp: &Comparison,
    marks: &[PointMarks],
) -> String {
    let mut o = String::new();
    let vars = grid.varying();
    let fixed: Vec<String> = grid.fixed.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(o, "lcm compare  a = {a}  b = {b}  {}", fixed.join(" "));
    let mut columns = vec![Column::right().after(2); vars.len() + 5];
    columns.push(Column::left().after(2));
    let mut header: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
    header.extend(["T_a (s)", "T_b (s)", "+-%", "better", "T_a/T_b", "note"].map(String::from));
    let mut table = Table::new(columns, header);
    let (mut any_beyond, mut any_negative) = (false, false);
    for i in 0..cmp.points.len() {
        let mut row: Vec<String> = vars
            .iter()
            .map(|v| format_number(cmp.points[i][v]))
            .collect();
        let (beyond, negative) = mark(cmp, marks, i);
        any_beyond |= beyond;
        any_negative |= negative;
        let note = format!(
            "{}{}",
            if beyond { "*" } else { "" },
            if negative { "!" } else { "" }
        );
        // A version with no prediction at the point (its error is on stderr) shows `-`, and
        // so do the verdict and ratio of a point not compared.
        let t = |x: f64| if x.is_finite() { secs(x) } else { "-".into() };
        let (better, ratio) = if cmp.verdicts[i] == Verdict::NotCompared {
            ("-".to_string(), "-".to_string())
        } else {
            (
                cmp.verdicts[i].as_str().to_string(),
                format!("{:.3}", cmp.ta[i] / cmp.tb[i]),
            )
        };
        row.extend([
            t(cmp.ta[i]),
            t(cmp.tb[i]),
            format!("{:.1}", 100.0 * cmp.uncertainty[i]),
            better,
            ratio,
            note,
        ]);
        table.row(row);
    }
    o.push_str(&table.render());
    if any_beyond {
        let _ = writeln!(
            o,
            "* beyond 2x a model's measured range (warnings on stderr): the prediction extrapolates"
        );
    }
    if any_negative {
        let _ = writeln!(
            o,
            "! a model (or the time) is negative here (warnings on stderr): not to be trusted"
        );
    }
    let (wins_a, wins_b, ties) = cmp.counts();
    let not_compared = cmp.not_compared();
    let _ = writeln!(
        o,
        "a better at {wins_a} point(s), b better at {wins_b}, tie at {ties} (the two predictions differ by less than their uncertainty +-%){}",
        if not_compared > 0 {
            format!(", not compared at {not_compared} (a version has no prediction there, or a time that is not positive: -)")
        } else {
            String::new()
        }
    );
    if cmp.crossovers.is_empty() {
        let _ = writeln!(o, "crossovers: none outside the uncertainty on this grid");
    }
    for c in &cmp.crossovers {
        let others: Vec<String> = c.others.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let (beyond, negative) = crossover_marks(cmp, marks, c);
        let mut caveat = String::new();
        if beyond {
            caveat.push_str("; outside the measured range (*): extrapolated, not a finding");
        }
        if negative {
            caveat.push_str("; a model is negative there (!): not to be trusted");
        }
        let integral = !cmp
            .points
            .iter()
            .any(|p| p.get(&c.variable).is_some_and(|v| v.fract() != 0.0));
        let _ = writeln!(
            o,
            "crossover: {} ~ {} (between {} and {}{}{}): {} better above{caveat}",
            c.variable,
            crossover_position(c.at, c.between, integral),
            format_number(c.between.0),
            format_number(c.between.1),
            if others.is_empty() { "" } else { ", " },
            others.join(" "),
            c.better_after
        );
    }
    o
}

/// A crossover's position `at`, interpolated linearly between the grid values `between`,
/// to the digits that interpolation can mean: rounded to the power of ten at or below a
/// hundredth of the spacing of the two values (3 significant digits of the spacing), to a
/// whole number when the variable's grid is `integral` and the two are more than 10 apart;
/// in scientific notation (`1.23e6`, `3.50e-5`) from 1e5 and below 1e-3.
fn crossover_position(at: f64, between: (f64, f64), integral: bool) -> String {
    let spacing = (between.1 - between.0).abs();
    if !(at.is_finite() && spacing.is_finite() && spacing > 0.0) {
        return format_number(at);
    }
    let mut step_exp = spacing.log10().floor() as i32 - 2;
    if integral && spacing > 10.0 {
        step_exp = step_exp.max(0);
    }
    let step = 10f64.powi(step_exp);
    let rounded = (at / step).round() * step;
    let size = rounded.abs();
    if size != 0.0 && !(1e-3..1e5).contains(&size) {
        let digits = (size.log10().floor() as i32 - step_exp).max(0) as usize;
        format!("{rounded:.digits$e}")
    } else {
        let decimals = (-step_exp).max(0) as usize;
        format!("{rounded:.decimals$}")
    }
}

/// JSON of a comparison: `{a, b, uncertainty, points: [{bindings, t_a, t_b, uncertainty,
/// relative_difference, better, compared, beyond_measured_range, negative, warnings_a,
/// warnings_b, negative_a, negative_b}], counts, crossovers}`. `uncertainty` (top) is
/// `{relative, from}` (the default or `--uncertainty`), per point the relative uncertainty
/// used there; `better` is `a`, `b`, `tie` (|t_a − t_b| / min < uncertainty) or
/// `not_compared` where a version has no prediction (its `t_` is null) or a time that is
/// not positive, and `compared` is false exactly there; `counts` is `{a, b, tie,
/// not_compared}`, the points of each verdict; `beyond_measured_range` is true
/// where a range warning of either version applies, `negative` where a model of either
/// version or a time is negative. Crossovers `{variable, between, at, others,
/// better_after, beyond_measured_range, negative}` lie between decisive points only; their
/// flags say whether a point they lie among is so marked. The warnings are each version's
/// range warnings at the point (`{fragment, categories, variable, value, min, max}`, and
/// `piecewise: true` for a piecewise model outside its measured points, `held`: the values
/// of a straight-line table used beyond 2x its breakpoints), the negatives its
/// negative models (`{fragment, line, model, value_s}`).
pub fn compare_json(
    a: &str,
    b: &str,
    cmp: &Comparison,
    uncertainty: (f64, &str),
    marks: &[PointMarks],
) -> String {
    let none = PointMarks::default();
    let (wins_a, wins_b, ties) = cmp.counts();
    let pts: Vec<Value> = (0..cmp.points.len())
        .map(|i| {
            let d = super::compare::relative_difference(cmp.ta[i], cmp.tb[i]);
            let m = marks.get(i).unwrap_or(&none);
            let (beyond, negative) = mark(cmp, marks, i);
            json!({
                "bindings": cmp.points[i],
                "t_a": cmp.ta[i],
                "t_b": cmp.tb[i],
                "uncertainty": cmp.uncertainty[i],
                "relative_difference": if d.is_finite() { Some(d) } else { None },
                "better": cmp.verdicts[i],
                "compared": cmp.verdicts[i] != Verdict::NotCompared,
                "beyond_measured_range": beyond,
                "negative": negative,
                "warnings_a": m.range_a,
                "warnings_b": m.range_b,
                "negative_a": m.negative_a,
                "negative_b": m.negative_b,
            })
        })
        .collect();
    let crossovers: Vec<Value> = cmp
        .crossovers
        .iter()
        .map(|c| {
            let (beyond, negative) = crossover_marks(cmp, marks, c);
            let mut v = json!(c);
            v["beyond_measured_range"] = json!(beyond);
            v["negative"] = json!(negative);
            v
        })
        .collect();
    crate::json_out::pretty(&json!({
        "a": a,
        "b": b,
        "uncertainty": {"relative": uncertainty.0, "from": uncertainty.1},
        "points": pts,
        "counts": {"a": wins_a, "b": wins_b, "tie": ties, "not_compared": cmp.not_compared()},
        "crossovers": crossovers,
    }))
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

#[cfg(test)]
mod tests {
    use super::crossover_position;

    #[test]
    fn a_crossover_position_has_the_digits_its_interval_gives() {
        // Between 128 and 256 on an integral grid: a whole number.
        assert_eq!(crossover_position(181.019_336, (128.0, 256.0), true), "181");
        // The same interval on a grid that is not integral: 128 apart, steps of 1.
        assert_eq!(
            crossover_position(181.019_336, (128.0, 256.0), false),
            "181"
        );
        // 3 apart: hundredths, integral grid or not (the interval spans less than 10).
        assert_eq!(crossover_position(2.5, (1.0, 4.0), true), "2.50");
        assert_eq!(crossover_position(11.3712, (8.0, 16.0), true), "11.37");
        // 90 apart on an integral grid: whole numbers, not tenths.
        assert_eq!(crossover_position(57.36, (10.0, 100.0), true), "57");
        assert_eq!(crossover_position(57.36, (10.0, 100.0), false), "57.4");
        // Fractions: 0.25 apart, thousandths.
        assert_eq!(crossover_position(0.351_234, (0.25, 0.5), false), "0.351");
        // Large and small values in scientific notation, 3 significant digits of the spacing.
        assert_eq!(crossover_position(1_234_567.89, (1e6, 2e6), true), "1.23e6");
        assert_eq!(crossover_position(3.5e-5, (1e-5, 1e-4), false), "3.50e-5");
        // Nothing to round by: the value as the grid's numbers are written.
        assert_eq!(crossover_position(3.0, (3.0, 3.0), true), "3");
    }
}
