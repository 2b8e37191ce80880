//! `--plot`: stacked bars of the categories, one bar per profile (Crovella's Figure 4.5).
//!
//! Each bar is one profile's Total Time split into, from the bottom: computation (`rt`, or
//! `pc` and `ml` when a baseline split it and `ml` is not negative), then `wc`, `sl`, `ip`
//! and `li`, drawn in two shades: the part of `li` that is not fork/join latency, then
//! `fj` on top (together they are `li`). Bars are labelled by the note (or `p=N`) and the fragment.
//!
//! The y axis is in processor-seconds, or ms/µs/ns when the bars are small; the legend sits
//! beside the bars. Text is drawn with the font `plotfont` compiles in, so it is there on
//! every machine. The format follows the file's extension: `.png` (case-insensitive) writes
//! a PNG bitmap, any other an SVG (as `lca --plot` does).

use std::path::Path;

use plotters::prelude::*;

use crate::error::PpError;
use crate::profile::Profile;

/// One bar: its label and profile.
#[derive(Debug, Clone)]
pub struct Bar<'a> {
    /// Label under the bar.
    pub label: String,
    /// The profile drawn.
    pub profile: &'a Profile,
}

fn segments(p: &Profile) -> Vec<(&'static str, f64, RGBColor)> {
    let mut v = Vec::new();
    match (p.pc, p.ml) {
        (Some(pc), Some(ml)) if ml >= 0.0 => {
            v.push(("pc: pure computation", pc, RGBColor(90, 140, 90)));
            v.push(("ml: memory loss", ml, RGBColor(160, 200, 120)));
        }
        _ => v.push(("rt: remaining time", p.rt, RGBColor(90, 140, 90))),
    }
    v.push(("wc: wasted computation", p.wc, RGBColor(150, 110, 190)));
    v.push(("sl: synchronization loss", p.sl, RGBColor(230, 160, 60)));
    v.push(("ip: insufficient parallelism", p.ip, RGBColor(200, 70, 60)));
    let fj = p.fj.clamp(0.0, p.li.max(0.0));
    v.push((
        "li: load imbalance (tasks)",
        p.li - fj,
        RGBColor(70, 120, 200),
    ));
    v.push((
        "fj: fork/join latency (part of li)",
        fj,
        RGBColor(140, 180, 235),
    ));
    v
}

/// Draws the bars into `path`: a PNG bitmap for a `.png` extension, else SVG. Returns a
/// warning when a bar's memory loss is negative (that bar then shows `rt` undivided: a
/// negative segment cannot be stacked).
pub fn plot(path: &Path, title: &str, bars: &[Bar<'_>]) -> Result<Option<String>, PpError> {
    let err = |e: String| PpError::Output {
        path: path.to_owned(),
        message: e,
    };
    plotfont::register().map_err(|e| err(e.to_string()))?;
    let legend: Vec<(String, RGBColor)> = legend_entries(bars);
    let legend_w =
        plotfont::legend_width(&legend.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>());
    let plot_w = (160 + 140 * bars.len() as u32).max(480);
    let size = (plot_w + legend_w, 480);
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let drawn = if png {
        draw(
            BitMapBackend::new(path, size).into_drawing_area(),
            plot_w,
            &legend,
            title,
            bars,
        )
    } else {
        draw(
            SVGBackend::new(path, size).into_drawing_area(),
            plot_w,
            &legend,
            title,
            bars,
        )
    };
    let negative_ml = drawn.map_err(err)?;
    Ok((!negative_ml.is_empty()).then(|| {
        format!(
            "{}: memory loss is negative for {} (the run did less work per processor than its \
             baseline, e.g. it fits in cache better): those bars show rt undivided",
            path.display(),
            negative_ml.join(", ")
        )
    }))
}

/// Draws the bars and the legend on `root` (bars in its first `plot_w` pixels) and writes
/// it out; the labels of the bars whose memory loss is negative.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    plot_w: u32,
    legend: &[(String, RGBColor)],
    title: &str,
    bars: &[Bar<'_>],
) -> Result<Vec<String>, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (plot_area, legend_area) = root.split_horizontally(plot_w);
    let tt_max = bars.iter().map(|b| b.profile.tt).fold(0.0f64, f64::max);
    let (scale, unit) = plotfont::seconds_unit(tt_max);
    let ymax = (tt_max * scale).max(1e-12) * 1.05;
    let n = bars.len().max(1);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, (plotfont::FAMILY, 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
        .map_err(err)?;
    let y_desc = format!("processor-{unit}");
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .y_label_formatter(&|v| plotfont::tick_label(*v))
        .draw()
        .map_err(err)?;
    // Bar labels, centred under each bar.
    let style = TextStyle::from((plotfont::FAMILY, 12).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    for (i, bar) in bars.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        plot_area
            .draw(&Text::new(bar.label.clone(), (x, y + 6), style.clone()))
            .map_err(err)?;
    }
    let mut negative_ml = Vec::new();
    for (i, bar) in bars.iter().enumerate() {
        if bar.profile.ml.is_some_and(|ml| ml < 0.0) {
            negative_ml.push(bar.label.clone());
        }
        let mut base = 0.0;
        for (_, v, color) in segments(bar.profile) {
            let v = v.max(0.0) * scale;
            let (x0, x1) = (i as f64 + 0.15, i as f64 + 0.85);
            let rect = Rectangle::new([(x0, base), (x1, base + v)], color.filled());
            chart.draw_series(std::iter::once(rect)).map_err(err)?;
            base += v;
        }
    }
    plotfont::draw_legend(&legend_area, legend).map_err(|e| e.to_string())?;
    root.present().map_err(err)?;
    Ok(negative_ml)
}

/// The legend: every segment any bar shows, top of the stack first (the order it is drawn
/// bottom-up, reversed).
fn legend_entries(bars: &[Bar<'_>]) -> Vec<(String, RGBColor)> {
    let mut entries: Vec<(String, RGBColor)> = Vec::new();
    for bar in bars {
        for (name, _, color) in segments(bar.profile) {
            if !entries.iter().any(|(n, _)| n == name) {
                entries.push((name.to_string(), color));
            }
        }
    }
    // The stack's order from the top: li ip sl wc, then the computation segments.
    let rank = |n: &str| {
        ["li", "ip", "sl", "wc", "ml", "pc", "rt"]
            .iter()
            .position(|k| n.starts_with(k))
    };
    entries.sort_by_key(|(n, _)| rank(n));
    entries
}
