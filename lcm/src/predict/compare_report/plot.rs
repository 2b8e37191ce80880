//! `lcm compare --plot`: the predicted run time of both versions against one variable of
//! the grid, each curve in its band of uncertainty.

use crate::predict::compare::Comparison;
use crate::predict::error::PredictError;
use crate::predict::grid::Grid;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{Palette, Palette99};
use std::path::Path;

/// The chart the curves are drawn on: seconds (scaled) against the plotted variable.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

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
    let err = |e: String| PredictError::Io {
        path: out.display().to_string(),
        source: std::io::Error::other(e),
    };
    if !cmp.points.iter().all(|p| p.contains_key(x)) {
        return Err(PredictError::Usage(format!(
            "--x {x}: not a variable of the grid"
        )));
    }
    let xs: Vec<f64> = cmp.points.iter().map(|p| p[x]).collect();
    plotfont::register().map_err(|e| err(e.to_string()))?;
    let axes = Axes::of(cmp, &xs);
    let groups = groups_by_others(cmp, grid, x);
    let legend = legend_of(&groups, a, b);
    draw(out, x, &axes, &legend, |chart| {
        for (g, (_, mut idx)) in groups.into_iter().enumerate() {
            idx.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
            for (which, ts) in [(0, &cmp.ta), (1, &cmp.tb)] {
                let curve = Curve {
                    xs: &xs,
                    ts,
                    uncertainty: &cmp.uncertainty,
                    scale: axes.scale,
                };
                draw_curve(chart, &curve, &idx, g, which)?;
            }
        }
        Ok(())
    })
    .map_err(err)
}

/// The plot's ranges: x from the grid's least to its largest value (one wide when they are
/// equal), T from 0 to 5 % above the highest band, in `unit`s of `scale` per second.
struct Axes {
    xmin: f64,
    xmax: f64,
    ymax: f64,
    scale: f64,
    unit: &'static str,
}

impl Axes {
    /// The ranges of the points of `cmp`, whose values of the plotted variable are `xs`.
    fn of(cmp: &Comparison, xs: &[f64]) -> Axes {
        let (ta, tb) = (&cmp.ta, &cmp.tb);
        let (xmin, xmax) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(*v), h.max(*v))
            });
        let (scale, unit) =
            plotfont::seconds_unit(ta.iter().chain(tb).cloned().fold(0.0, f64::max));
        let umax = cmp.uncertainty.iter().cloned().fold(0.0, f64::max);
        let ymax =
            ta.iter().chain(tb).cloned().fold(0.0, f64::max) * scale * (1.0 + umax / 2.0) * 1.05;
        let xmax = if xmax > xmin { xmax } else { xmin + 1.0 };
        Axes {
            xmin,
            xmax,
            ymax,
            scale,
            unit,
        }
    }
}

/// The points of each combination of values of the grid's varying variables other than
/// `x` and the variables paired with it, in order of first appearance, each with its key
/// (`k=v` pairs; empty when `x`'s axis is the only varying one): one curve per version and
/// group.
fn groups_by_others(cmp: &Comparison, grid: &Grid, x: &str) -> Vec<(String, Vec<usize>)> {
    let partners = grid.partners(x);
    let others: Vec<String> = grid
        .varying()
        .into_iter()
        .filter(|v| v != x && !partners.contains(v))
        .collect();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, p) in cmp.points.iter().enumerate() {
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
    groups
}

/// The legend: per group, version a's entry then b's, each in its curve's colour.
fn legend_of(groups: &[(String, Vec<usize>)], a: &str, b: &str) -> Vec<(String, RGBColor)> {
    let mut legend = Vec::new();
    for (g, (key, _)) in groups.iter().enumerate() {
        for (which, name) in [(0, a), (1, b)] {
            let label = match key.is_empty() {
                true => format!("{}: {name}", ["a", "b"][which]),
                false => format!("{}: {name} {key}", ["a", "b"][which]),
            };
            legend.push((label, version_color(g, which)));
        }
    }
    legend
}

/// Writes the SVG to `out`: the chart with its caption and axes (`x` and T in the unit of
/// `axes`), what `curves` draws on it, and `legend` beside it.
fn draw(
    out: &Path,
    x: &str,
    axes: &Axes,
    legend: &[(String, RGBColor)],
    curves: impl FnOnce(&mut Chart) -> Result<(), String>,
) -> Result<(), String> {
    let legend_w =
        plotfont::legend_width(&legend.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>());
    let root = SVGBackend::new(out, (720 + legend_w, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (plot_area, legend_area) = root.split_horizontally(720);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(12)
        .caption("lcm compare: predicted run time", (plotfont::FAMILY, 22))
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(axes.xmin..axes.xmax, 0.0..axes.ymax.max(1e-12))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(format!("T ({})", axes.unit))
        .x_label_formatter(&|v| plotfont::tick_label(*v))
        .y_label_formatter(&|v| plotfont::tick_label(*v))
        .draw()
        .map_err(|e| e.to_string())?;
    curves(&mut chart)?;
    plotfont::draw_legend(&legend_area, legend).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// One version's times at the points, with what places them on the chart.
struct Curve<'a> {
    /// The plotted variable at every point.
    xs: &'a [f64],
    /// The version's seconds at every point.
    ts: &'a [f64],
    /// The relative uncertainty at every point.
    uncertainty: &'a [f64],
    /// Chart units per second.
    scale: f64,
}

/// The curve of version `which` (0 = a, 1 = b) through the points `idx` (sorted along x) of
/// group `g`: its band of uncertainty, then its line and markers. One colour a version and
/// group; a solid with circles, b dashed with triangles, so the two stay apart even where
/// their curves meet.
fn draw_curve(
    chart: &mut Chart,
    curve: &Curve,
    idx: &[usize],
    g: usize,
    which: usize,
) -> Result<(), String> {
    let (xs, ts, scale) = (curve.xs, curve.ts, curve.scale);
    let color = version_color(g, which);
    let series: Vec<(f64, f64)> = idx.iter().map(|&i| (xs[i], ts[i] * scale)).collect();
    let band = |sign: f64, i: usize| {
        (
            xs[i],
            ts[i] * scale * (1.0 + sign * curve.uncertainty[i] / 2.0),
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
        .map_err(|e| e.to_string())?;
    let style = color.stroke_width(2);
    if which == 0 {
        chart
            .draw_series(LineSeries::new(series.clone(), style))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(series.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    } else {
        chart
            .draw_series(DashedLineSeries::new(series.clone(), 8, 5, style))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                series
                    .iter()
                    .map(|&p| TriangleMarker::new(p, 4, color.filled())),
            )
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The colour of version `which` (0 = a, 1 = b) in group `g` of the compare plot.
fn version_color(g: usize, which: usize) -> RGBColor {
    let (r, gr, b) = Palette99::COLORS[(2 * g + which) % Palette99::COLORS.len()];
    RGBColor(r, gr, b)
}
