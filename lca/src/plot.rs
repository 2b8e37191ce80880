//! `-g PLOT`: data points, each model's curve and the residuals ("chi-by-eye", Crovella's
//! Figure 5.3), drawn with `plotters`.
//!
//! Format by extension: `.png` (bitmap) or anything else (SVG). plotters is built without
//! system-font lookup, so text needs a font registered through ab_glyph: lca loads the first
//! TrueType file it finds among `$LCA_FONT` and the usual DejaVu / Liberation paths
//! ([`FONT_PATHS`]); `LCA_FONT=none` forces text-free plots. With a font, both formats carry a caption, axis labels and a legend;
//! without one the plot is drawn **without text** (same points, curves — model 1 red, 2
//! blue, 3 green, 4 magenta — and residual panels, unlabeled) rather than failing.
//! With two or more variables the first is the x axis and there is one panel per
//! combination of the others' values (at most 6).

use crate::dataset::Dataset;
use crate::fit::FittedModel;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Font files tried, in order, after `$LCA_FONT`.
pub const FONT_PATHS: [&str; 5] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
];

/// Registers a font for "sans-serif" once; true when text can be drawn.
pub fn font_available() -> bool {
    static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OK.get_or_init(|| {
        let env = std::env::var("LCA_FONT").ok();
        if env.as_deref() == Some("none") {
            return false;
        }
        for path in env.iter().map(String::as_str).chain(FONT_PATHS) {
            if let Ok(bytes) = std::fs::read(path) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

type PlotResult = Result<(), Box<dyn std::error::Error>>;

const COLORS: [RGBColor; 4] = [RED, BLUE, GREEN, MAGENTA];

/// Writes the plot (format by extension: `.png` or SVG).
pub fn plot(path: &Path, data: &Dataset, models: &[FittedModel]) -> PlotResult {
    let panels = panels(data);
    let size = (900, 360 * panels.len().max(1) as u32);
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if png {
        let root = BitMapBackend::new(path, size).into_drawing_area();
        draw(&root, data, models, &panels, font_available())?;
        root.present()?;
    } else {
        let root = SVGBackend::new(path, size).into_drawing_area();
        draw(&root, data, models, &panels, font_available())?;
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

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &Dataset,
    models: &[FittedModel],
    panels: &[(String, Vec<usize>)],
    text: bool,
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
        let (x0, x1) = range(&xs);
        let grid: Vec<f64> = (0..=100)
            .map(|k| x0 + (x1 - x0) * k as f64 / 100.0)
            .collect();
        let others = &data.points[rows[0]].x[1..];
        let curves: Vec<Vec<(f64, f64)>> = models
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
            .collect();
        let all_y: Vec<f64> = ys
            .iter()
            .copied()
            .chain(curves.iter().flatten().map(|p| p.1))
            .collect();
        let (y0, y1) = range(&all_y);
        let mut cb = ChartBuilder::on(&top);
        cb.margin(10);
        if text {
            let title = if label.is_empty() {
                format!("{} vs {}", data.category, data.variables[0])
            } else {
                format!("{} vs {} ({label})", data.category, data.variables[0])
            };
            cb.caption(title, ("sans-serif", 16))
                .x_label_area_size(30)
                .y_label_area_size(70);
        }
        let mut chart = cb.build_cartesian_2d(x0..x1, y0..y1)?;
        let mut mesh = chart.configure_mesh();
        if !text {
            mesh.disable_x_mesh()
                .disable_y_mesh()
                .x_labels(0)
                .y_labels(0);
        }
        mesh.draw()?;
        chart.draw_series(
            xs.iter()
                .zip(&ys)
                .map(|(&x, &y)| Circle::new((x, y), 4, BLACK.filled())),
        )?;
        for (k, (c, m)) in curves.iter().zip(models).enumerate() {
            let color = COLORS[k % COLORS.len()];
            let s = chart.draw_series(LineSeries::new(c.iter().copied(), color.stroke_width(2)))?;
            if text {
                s.label(format!("{}: {}", k + 1, m.expr))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
        }
        if text && !models.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()?;
        }
        // Residuals of each model at the data points.
        let res: Vec<Vec<(f64, f64)>> = models
            .iter()
            .map(|m| {
                rows.iter()
                    .map(|&i| (data.points[i].x[0], data.points[i].y - m.fitted[i]))
                    .collect()
            })
            .collect();
        let all_r: Vec<f64> = res.iter().flatten().map(|p| p.1).chain([0.0]).collect();
        let (r0, r1) = range(&all_r);
        let mut cb = ChartBuilder::on(&bottom);
        cb.margin(10);
        if text {
            cb.x_label_area_size(30).y_label_area_size(70);
        }
        let mut rc = cb.build_cartesian_2d(x0..x1, r0..r1)?;
        let mut mesh = rc.configure_mesh();
        if text {
            mesh.y_desc("residual").x_desc(data.variables[0].as_str());
        } else {
            mesh.disable_x_mesh()
                .disable_y_mesh()
                .x_labels(0)
                .y_labels(0);
        }
        mesh.draw()?;
        rc.draw_series(LineSeries::new([(x0, 0.0), (x1, 0.0)], BLACK))?;
        for (k, r) in res.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            rc.draw_series(
                r.iter()
                    .map(|&(x, y)| Cross::new((x, y), 4, color.stroke_width(2))),
            )?;
        }
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
