//! SVG plots of a study (plotters): predicted vs measured time, and stacked lost-cycles
//! category bars per p and n.

use super::compare::PointResult;
use super::run::{stack, Run, STACK_ORDER};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// A plotting failure (the message of the plotters backend).
#[derive(Debug, thiserror::Error)]
#[error("plotting {path}: {message}")]
pub struct PlotError {
    /// The file being drawn.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

fn err(path: &Path) -> impl Fn(String) -> PlotError + '_ {
    move |message| PlotError {
        path: path.display().to_string(),
        message,
    }
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(174, 199, 232),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(188, 189, 34),
    RGBColor(127, 127, 127),
];

fn category_color(cat: &str) -> RGBColor {
    let i = STACK_ORDER.iter().position(|c| *c == cat).unwrap_or(7);
    COLORS[i]
}

/// Time per iteration vs n, one panel per p of the predicted version: measured and predicted
/// times of both versions (log-log). `base` / `other` name the two versions.
pub fn time_plot(
    path: &Path,
    points: &[PointResult],
    base: &str,
    other: &str,
) -> Result<(), PlotError> {
    let e = err(path);
    plotfont::register().map_err(|x| e(x.to_string()))?;
    let ps = panel_ps(points);
    let cols = ps.len().min(2);
    let rows = ps.len().div_ceil(2);
    let root = SVGBackend::new(path, (560 * cols as u32, 420 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let panels = root.split_evenly((rows, cols));
    for (panel, &p) in panels.iter().zip(&ps) {
        time_panel(path, panel, points, p, base, other)?;
    }
    root.present().map_err(|x| e(x.to_string()))?;
    Ok(())
}

/// The processor counts that get a panel: all, or at most four (the smallest, the largest
/// and two in between).
fn panel_ps(points: &[PointResult]) -> Vec<usize> {
    let mut ps: Vec<usize> = points.iter().map(|p| p.p).collect();
    ps.sort_unstable();
    ps.dedup();
    if ps.len() > 4 {
        let k = ps.len() - 1;
        ps = vec![ps[0], ps[k / 3], ps[2 * k / 3], ps[k]];
        ps.dedup();
    }
    ps
}

/// One panel of the time plot: both versions' predicted and measured time per iteration
/// against n at `p` processors (nothing when no point has a positive time).
fn time_panel(
    path: &Path,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
    points: &[PointResult],
    p: usize,
    base: &str,
    other: &str,
) -> Result<(), PlotError> {
    let e = err(path);
    let mut pts: Vec<&PointResult> = points.iter().filter(|x| x.p == p).collect();
    pts.sort_by_key(|x| x.n);
    let per = |x: &PointResult, v: f64| v / x.iters.max(1) as f64;
    let vals: Vec<f64> = pts
        .iter()
        .flat_map(|x| {
            [
                per(x, x.measured),
                per(x, x.predicted),
                per(x, x.measured_base),
                per(x, x.predicted_base),
            ]
        })
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if vals.is_empty() {
        return Ok(());
    }
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min) / 1.5;
    let hi = vals.iter().copied().fold(0.0, f64::max) * 1.5;
    let nlo = pts.first().map_or(1, |x| x.n) as f64 / 1.3;
    let nhi = pts.last().map_or(2, |x| x.n) as f64 * 1.3;
    let mut chart = ChartBuilder::on(panel)
        .margin(10)
        .caption(
            format!("time per iteration, p = {p}"),
            (plotfont::FAMILY, 18),
        )
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((nlo..nhi).log_scale(), (lo..hi).log_scale())
        .map_err(|x| e(x.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("n")
        .y_desc("seconds")
        .y_label_formatter(&|v| plotfont::tick_label(*v))
        .draw()
        .map_err(|x| e(x.to_string()))?;
    type Pick = fn(&PointResult) -> f64;
    let series: [(String, RGBColor, bool, Pick); 4] = [
        (format!("{other} measured"), COLORS[4], false, |x| {
            x.measured
        }),
        (format!("{other} predicted"), COLORS[4], true, |x| {
            x.predicted
        }),
        (format!("{base} measured"), COLORS[0], false, |x| {
            x.measured_base
        }),
        (format!("{base} predicted"), COLORS[0], true, |x| {
            x.predicted_base
        }),
    ];
    for (label, color, dashed, pick) in series {
        let line: Vec<(f64, f64)> = pts
            .iter()
            .map(|x| (x.n as f64, per(x, pick(x))))
            .filter(|(_, v)| v.is_finite() && *v > 0.0)
            .collect();
        let style = if dashed {
            ShapeStyle::from(&color).stroke_width(1)
        } else {
            ShapeStyle::from(&color).stroke_width(2)
        };
        if dashed {
            chart
                .draw_series(DashedLineSeries::new(line.clone(), 6, 4, style))
                .map_err(|x| e(x.to_string()))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart
                .draw_series(
                    line.iter()
                        .map(|&(x, y)| TriangleMarker::new((x, y), 5, style)),
                )
                .map_err(|x| e(x.to_string()))?;
        } else {
            chart
                .draw_series(LineSeries::new(line.clone(), style))
                .map_err(|x| e(x.to_string()))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart
                .draw_series(
                    line.iter()
                        .map(|&(x, y)| Circle::new((x, y), 4, style.filled())),
                )
                .map_err(|x| e(x.to_string()))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|x| e(x.to_string()))?;
    Ok(())
}

/// Stacked category bars (processor-seconds per iteration), one panel per n, one pair of
/// bars per p: the measured version on the left, the other on the right. The legend (every
/// category any bar shows) stands in its own column at the right, clear of the bars.
pub fn category_plot(path: &Path, base: &[Run], other: &[Run]) -> Result<(), PlotError> {
    let e = err(path);
    plotfont::register().map_err(|x| e(x.to_string()))?;
    let mut ns: Vec<u64> = base.iter().chain(other).map(|r| r.n).collect();
    ns.sort_unstable();
    ns.dedup();
    let max_p = base.iter().chain(other).map(|r| r.p).max().unwrap_or(1);
    let cols = ns.len().min(3);
    let rows = ns.len().div_ceil(3);
    let mut legend: Vec<(String, RGBColor)> = Vec::new();
    for run in base.iter().chain(other) {
        for (cat, _) in stack(&run.session) {
            if !legend.iter().any(|(c, _)| c == cat) {
                legend.push((cat.to_string(), category_color(cat)));
            }
        }
    }
    // Top of the stack first, as the bars read from the top.
    legend.reverse();
    let legend_w =
        plotfont::legend_width(&legend.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>());
    let plots_w = 480 * cols.max(1) as u32;
    let root =
        SVGBackend::new(path, (plots_w + legend_w, 400 * rows.max(1) as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let (plots, legend_area) = root.split_horizontally(plots_w);
    plotfont::draw_legend(&legend_area, &legend).map_err(|x| e(x.to_string()))?;
    let panels = plots.split_evenly((rows.max(1), cols.max(1)));
    let base_name = base.first().map_or("", |r| r.version.as_str());
    let other_name = other.first().map_or("", |r| r.version.as_str());
    for (panel, &n) in panels.iter().zip(&ns) {
        let bars: Vec<(f64, &Run)> = base
            .iter()
            .filter(|r| r.n == n)
            .map(|r| (r.p as f64 - 0.2, r))
            .chain(
                other
                    .iter()
                    .filter(|r| r.n == n)
                    .map(|r| (r.p as f64 + 0.2, r)),
            )
            .collect();
        let top = bars
            .iter()
            .map(|(_, r)| {
                stack(&r.session).iter().map(|(_, v)| v).sum::<f64>() / r.iters.max(1) as f64
            })
            .fold(0.0, f64::max)
            * 1.15;
        if top <= 0.0 {
            continue;
        }
        let (scale, unit) = plotfont::seconds_unit(top);
        let y_desc = format!("processor-{unit} / iteration");
        let mut chart = ChartBuilder::on(panel)
            .margin(10)
            .caption(
                format!("n = {n}: left {base_name}, right {other_name}"),
                (plotfont::FAMILY, 16),
            )
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.4..max_p as f64 + 0.6, 0.0..top * scale)
            .map_err(|x| e(x.to_string()))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("p")
            .y_desc(y_desc)
            .x_labels(max_p.min(16))
            .x_label_formatter(&|v| format!("{}", v.round() as i64))
            .y_label_formatter(&|v| plotfont::tick_label(*v))
            .draw()
            .map_err(|x| e(x.to_string()))?;
        for (x, run) in &bars {
            let mut y0 = 0.0;
            for (cat, v) in stack(&run.session) {
                let h = v.max(0.0) / run.iters.max(1) as f64 * scale;
                let color = category_color(cat);
                let rect = Rectangle::new([(x - 0.17, y0), (x + 0.17, y0 + h)], color.filled());
                chart
                    .draw_series(std::iter::once(rect))
                    .map_err(|x| e(x.to_string()))?;
                y0 += h;
            }
        }
    }
    root.present().map_err(|x| e(x.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(version: &str, p: usize, li: f64, rt: f64) -> Run {
        Run {
            version: version.into(),
            n: 64,
            p,
            iters: 1,
            seconds: rt,
            session: [("li".to_string(), li), ("rt".to_string(), rt)].into(),
            fragments: Default::default(),
        }
    }

    /// Microsecond bars: the axis is scaled to µs (no `0.0, 0.0` ticks), every text is in
    /// the SVG, and the legend stands right of every bar.
    #[test]
    fn category_plot_has_readable_ticks_and_a_legend_clear_of_the_bars() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.svg");
        let base = [run("dp", 1, 0.0, 4e-6), run("dp", 2, 1e-6, 5e-6)];
        let other = [run("tp", 1, 0.0, 5e-6), run("tp", 2, 2e-6, 6e-6)];
        category_plot(&path, &base, &other).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("processor-µs / iteration"), "unit");
        assert!(svg.contains("n = 64: left dp, right tp"), "caption");
        assert!(!svg.contains(">\n0.0\n<"), "unreadable ticks");
        let legend_x = svg
            .lines()
            .position(|l| l.trim() == "li")
            .and_then(|i| svg.lines().nth(i - 1))
            .and_then(|l| l.split("x=\"").nth(1))
            .and_then(|v| v.split('"').next())
            .and_then(|v| v.parse::<i64>().ok())
            .expect("legend entry li");
        assert!(legend_x > 480, "legend at x = {legend_x}, over the bars");
    }

    fn point(n: u64, p: usize, measured: f64, predicted: f64) -> PointResult {
        PointResult {
            n,
            p,
            iters: 2,
            measured_base: 2.0 * measured,
            calibrated_base: 2.0 * measured,
            predicted_base: 2.0 * predicted,
            measured,
            predicted,
            uncertainty: 0.1,
            noise: 0.01,
        }
    }

    /// Six processor counts give four panels (1, 2, 4 and 8: the smallest, the largest and
    /// two between), each with its caption and the four series in its legend; p = 4, whose
    /// times are all zero, leaves its panel empty instead of failing.
    #[test]
    fn time_plot_has_a_panel_per_chosen_p_with_every_series() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.svg");
        let mut points = Vec::new();
        for p in [1, 2, 3, 4, 6, 8] {
            for n in [64, 128] {
                let t = if p == 4 {
                    0.0
                } else {
                    1e-3 * n as f64 / p as f64
                };
                points.push(point(n, p, t, 1.1 * t));
            }
        }
        time_plot(&path, &points, "dp", "tp").unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for p in [1, 2, 8] {
            let caption = format!("time per iteration, p = {p}");
            assert!(svg.contains(&caption), "p = {p}");
        }
        for p in [3, 4] {
            let caption = format!("time per iteration, p = {p}");
            assert!(
                !svg.contains(&caption),
                "p = {p}: not chosen, or nothing to draw"
            );
        }
        for label in ["tp measured", "tp predicted", "dp measured", "dp predicted"] {
            assert_eq!(
                svg.matches(label).count(),
                3,
                "{label}: one per drawn panel"
            );
        }
    }
}
