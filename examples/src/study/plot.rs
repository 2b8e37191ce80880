//! SVG plots of a study (plotters): predicted vs measured time, and stacked lost-cycles
//! category bars per p and n.

use super::compare::PointResult;
use super::run::{stack, Run, STACK_ORDER};
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

/// Registers a TrueType font as plotters' `sans-serif` (plotters is built without system
/// font lookup): `$STUDY_FONT`, else a common sans font of the system, else the first
/// `.ttf` under `/usr/share/fonts`. Returns false when none was found: the plots are then
/// drawn without text (the report's tables carry the numbers).
pub fn ensure_font() -> bool {
    static FONT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FONT.get_or_init(|| {
        let mut candidates: Vec<std::path::PathBuf> = std::env::var_os("STUDY_FONT")
            .map(std::path::PathBuf::from)
            .into_iter()
            .collect();
        for c in [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
            "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
            "/System/Library/Fonts/Supplemental/Arial.ttf",
        ] {
            candidates.push(c.into());
        }
        candidates.extend(find_ttf(Path::new("/usr/share/fonts"), 3));
        for c in candidates {
            if let Ok(bytes) = std::fs::read(&c) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

fn find_ttf(dir: &Path, depth: usize) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && depth > 0 {
            out.extend(find_ttf(&p, depth - 1));
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("ttf")) {
            out.push(p);
        }
    }
    out.sort();
    out
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
    let text = ensure_font();
    let mut ps: Vec<usize> = points.iter().map(|p| p.p).collect();
    ps.sort_unstable();
    ps.dedup();
    if ps.len() > 4 {
        // At most four panels: the smallest, the largest and two in between.
        let k = ps.len() - 1;
        ps = vec![ps[0], ps[k / 3], ps[2 * k / 3], ps[k]];
        ps.dedup();
    }
    let cols = ps.len().min(2);
    let rows = ps.len().div_ceil(2);
    let root = SVGBackend::new(path, (560 * cols as u32, 420 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let panels = root.split_evenly((rows, cols));
    for (panel, &p) in panels.iter().zip(&ps) {
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
            continue;
        }
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min) / 1.5;
        let hi = vals.iter().copied().fold(0.0, f64::max) * 1.5;
        let nlo = pts.first().map_or(1, |x| x.n) as f64 / 1.3;
        let nhi = pts.last().map_or(2, |x| x.n) as f64 * 1.3;
        let mut builder = ChartBuilder::on(panel);
        builder.margin(10);
        if text {
            builder
                .caption(format!("time per iteration, p = {p}"), ("sans-serif", 18))
                .x_label_area_size(40)
                .y_label_area_size(70);
        }
        let mut chart = builder
            .build_cartesian_2d((nlo..nhi).log_scale(), (lo..hi).log_scale())
            .map_err(|x| e(x.to_string()))?;
        let mut mesh = chart.configure_mesh();
        if text {
            mesh.x_desc("n")
                .y_desc("seconds")
                .y_label_formatter(&|v| format!("{v:.1e}"));
        } else {
            mesh.x_labels(0).y_labels(0);
        }
        mesh.draw().map_err(|x| e(x.to_string()))?;
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
        if text {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|x| e(x.to_string()))?;
        }
    }
    root.present().map_err(|x| e(x.to_string()))?;
    Ok(())
}

/// Stacked category bars (processor-seconds per iteration), one panel per n, one pair of
/// bars per p: the measured version on the left, the other on the right.
pub fn category_plot(path: &Path, base: &[Run], other: &[Run]) -> Result<(), PlotError> {
    let e = err(path);
    let text = ensure_font();
    let mut ns: Vec<u64> = base.iter().chain(other).map(|r| r.n).collect();
    ns.sort_unstable();
    ns.dedup();
    let max_p = base.iter().chain(other).map(|r| r.p).max().unwrap_or(1);
    let cols = ns.len().min(3);
    let rows = ns.len().div_ceil(3);
    let root = SVGBackend::new(path, (480 * cols.max(1) as u32, 400 * rows.max(1) as u32))
        .into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(x.to_string()))?;
    let panels = root.split_evenly((rows.max(1), cols.max(1)));
    let base_name = base.first().map_or("", |r| r.version.as_str());
    let other_name = other.first().map_or("", |r| r.version.as_str());
    for (i, (panel, &n)) in panels.iter().zip(&ns).enumerate() {
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
        let mut builder = ChartBuilder::on(panel);
        builder.margin(10);
        if text {
            builder
                .caption(
                    format!("n = {n}: left {base_name}, right {other_name}"),
                    ("sans-serif", 16),
                )
                .x_label_area_size(35)
                .y_label_area_size(70);
        }
        let mut chart = builder
            .build_cartesian_2d(0.4..max_p as f64 + 0.6, 0.0..top)
            .map_err(|x| e(x.to_string()))?;
        let mut mesh = chart.configure_mesh();
        mesh.disable_x_mesh();
        if text {
            mesh.x_desc("p")
                .y_desc("processor-s / iteration")
                .x_labels(max_p.min(16))
                .x_label_formatter(&|v| format!("{}", v.round() as i64))
                .y_label_formatter(&|v| format!("{v:.1e}"));
        } else {
            mesh.x_labels(0).y_labels(0);
        }
        mesh.draw().map_err(|x| e(x.to_string()))?;
        let mut legend_done = std::collections::BTreeSet::new();
        for (x, run) in &bars {
            let mut y0 = 0.0;
            for (cat, v) in stack(&run.session) {
                let h = v.max(0.0) / run.iters.max(1) as f64;
                let color = category_color(cat);
                let rect = Rectangle::new([(x - 0.17, y0), (x + 0.17, y0 + h)], color.filled());
                let drawn = chart
                    .draw_series(std::iter::once(rect))
                    .map_err(|x| e(x.to_string()))?;
                if text && i == 0 && legend_done.insert(cat) {
                    drawn.label(cat).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
                }
                y0 += h;
            }
        }
        if text && i == 0 {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|x| e(x.to_string()))?;
        }
    }
    root.present().map_err(|x| e(x.to_string()))?;
    Ok(())
}
