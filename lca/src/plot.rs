//! `-g PLOT`: data points, each model's curve and the residuals ("chi-by-eye", Crovella's
//! Figure 5.3), drawn with `plotters`.
//!
//! Format by extension: `.png` (bitmap) or anything else (SVG). Both carry a caption, axis
//! labels, tick labels and a legend, drawn with the font `plotfont` compiles in (so on every
//! machine). Model 1 is red, 2 blue, 3 green, 4 magenta.
//! With two or more variables the first is the x axis and there is one panel per
//! combination of the others' values (at most 6).

use crate::dataset::Dataset;
use crate::fit::FittedModel;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

type PlotResult = Result<(), Box<dyn std::error::Error>>;

const COLORS: [RGBColor; 4] = [RED, BLUE, GREEN, MAGENTA];

/// Writes the plot (format by extension: `.png` or SVG).
pub fn plot(path: &Path, data: &Dataset, models: &[FittedModel]) -> PlotResult {
    let panels = panels(data);
    let size = (900, 360 * panels.len().max(1) as u32);
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    plotfont::register()?;
    if png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, data, models, &panels)?;
        root.present()?;
    } else {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, data, models, &panels)?;
        root.present()?;
    }
    Ok(())
}

/// Point indices per combination of the non-x variables.
fn panels(data: &Dataset) -> Vec<(String, Vec<usize>)> {
    let mut g: BTreeMap<Vec<u64>, Vec<usize>> = BTreeMap::new();
    for (i, p) in data.points.iter().enumerate() {
        g.entry(p.x[1..].iter().map(|v| v.to_bits()).collect())
            .or_default()
            .push(i);
    }
    g.into_iter()
        .take(6)
        .map(|(k, rows)| {
            let label = data.variables[1..]
                .iter()
                .zip(&k)
                .map(|(v, b)| format!("{v}={}", f64::from_bits(*b)))
                .collect::<Vec<_>>()
                .join(" ");
            (label, rows)
        })
        .collect()
}

/// One panel's data points: their row indices, x and y values and the x range drawn.
struct PanelPoints<'a> {
    label: &'a str,
    rows: &'a [usize],
    xs: Vec<f64>,
    ys: Vec<f64>,
    x_range: (f64, f64),
}

/// Draws every panel: the data and model curves on top, the residuals below.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &Dataset,
    models: &[FittedModel],
    panels: &[(String, Vec<usize>)],
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for ((label, rows), area) in panels.iter().zip(areas) {
        let (top, bottom) = area.split_vertically(area.dim_in_pixel().1 * 2 / 3);
        let xs: Vec<f64> = rows.iter().map(|&i| data.points[i].x[0]).collect();
        let ys: Vec<f64> = rows.iter().map(|&i| data.points[i].y).collect();
        let x_range = range(&xs);
        let panel = PanelPoints {
            label,
            rows,
            xs,
            ys,
            x_range,
        };
        draw_fit(&top, data, models, &panel)?;
        draw_residuals(&bottom, data, models, &panel)?;
    }
    Ok(())
}

/// Each model's curve over the panel's x range (101 points), the other variables at the
/// panel's values; points where a model does not evaluate are left out.
fn model_curves(
    data: &Dataset,
    models: &[FittedModel],
    panel: &PanelPoints,
) -> Vec<Vec<(f64, f64)>> {
    let (x0, x1) = panel.x_range;
    let grid: Vec<f64> = (0..=100)
        .map(|k| x0 + (x1 - x0) * k as f64 / 100.0)
        .collect();
    let others = &data.points[panel.rows[0]].x[1..];
    models
        .iter()
        .map(|m| {
            grid.iter()
                .filter_map(|&x| {
                    let mut b: BTreeMap<String, f64> = BTreeMap::new();
                    b.insert(data.variables[0].clone(), x);
                    for (v, o) in data.variables[1..].iter().zip(others) {
                        b.insert(v.clone(), *o);
                    }
                    m.expr.eval(&b).ok().map(|y| (x, y))
                })
                .collect()
        })
        .collect()
}

/// The upper chart of a panel: caption, data points, each model's curve and a legend.
fn draw_fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &Dataset,
    models: &[FittedModel],
    panel: &PanelPoints,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let (x0, x1) = panel.x_range;
    let (xs, ys, label) = (&panel.xs, &panel.ys, panel.label);
    let curves = model_curves(data, models, panel);
    let all_y: Vec<f64> = ys
        .iter()
        .copied()
        .chain(curves.iter().flatten().map(|p| p.1))
        .collect();
    let (y0, y1) = range(&all_y);
    let title = if label.is_empty() {
        format!("{} vs {}", data.category, data.variables[0])
    } else {
        format!("{} vs {} ({label})", data.category, data.variables[0])
    };
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption(title, (plotfont::FAMILY, 16))
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| plotfont::tick_label(*v))
        .y_label_formatter(&|v| plotfont::tick_label(*v))
        .draw()?;
    chart.draw_series(
        xs.iter()
            .zip(ys)
            .map(|(&x, &y)| Circle::new((x, y), 4, BLACK.filled())),
    )?;
    for (k, (c, m)) in curves.iter().zip(models).enumerate() {
        let color = COLORS[k % COLORS.len()];
        chart
            .draw_series(LineSeries::new(c.iter().copied(), color.stroke_width(2)))?
            .label(format!("{}: {}", k + 1, m.expr))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    if !models.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    Ok(())
}

/// The lower chart of a panel: each model's residuals at the data points, and zero.
fn draw_residuals<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &Dataset,
    models: &[FittedModel],
    panel: &PanelPoints,
) -> PlotResult
where
    DB::ErrorType: 'static,
{
    let (x0, x1) = panel.x_range;
    let res: Vec<Vec<(f64, f64)>> = models
        .iter()
        .map(|m| {
            panel
                .rows
                .iter()
                .map(|&i| (data.points[i].x[0], data.points[i].y - m.fitted[i]))
                .collect()
        })
        .collect();
    let all_r: Vec<f64> = res.iter().flatten().map(|p| p.1).chain([0.0]).collect();
    let (r0, r1) = range(&all_r);
    let mut rc = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, r0..r1)?;
    rc.configure_mesh()
        .y_desc("residual")
        .x_desc(data.variables[0].as_str())
        .x_label_formatter(&|v| plotfont::tick_label(*v))
        .y_label_formatter(&|v| plotfont::tick_label(*v))
        .draw()?;
    rc.draw_series(LineSeries::new([(x0, 0.0), (x1, 0.0)], BLACK))?;
    for (k, r) in res.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        rc.draw_series(
            r.iter()
                .map(|&(x, y)| Cross::new((x, y), 4, color.stroke_width(2))),
        )?;
    }
    Ok(())
}

fn range(v: &[f64]) -> (f64, f64) {
    let lo = v
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(f64::INFINITY, f64::min);
    let hi = v
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        0.5 * lo.abs().max(1e-12)
    };
    (lo - pad, hi + pad)
}
