//! `--plot`: stacked bars of the categories, one bar per profile (Crovella's Figure 4.5).
//!
//! Each bar is one profile's Total Time split into, from the bottom: computation (`rt`, or
//! `pc` and `ml` when a baseline split it and `ml` is not negative), then `wc`, `sl`, `ip`
//! and `li`, drawn in two shades: the part of `li` that is not fork/join latency, then
//! `fj` on top (together they are `li`). Bars are labelled by the note (or `p=N`) and the fragment.
//!
//! Text needs a font: plotters is built without system font discovery, so `pp` registers
//! the first TrueType font it finds among `$PP_FONT` and the usual system paths (DejaVu,
//! Liberation, FreeSans, Noto). Without one the plot is drawn without text, with a
//! warning.

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

const FONT_PATHS: [&str; 8] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
];

/// Registers a system font as `sans-serif` once; true when one is available.
fn font_available() -> bool {
    static FONT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FONT.get_or_init(|| {
        let env = std::env::var("PP_FONT").ok();
        let found = env
            .iter()
            .map(String::as_str)
            .chain(FONT_PATHS)
            .filter_map(|p| std::fs::read(p).ok())
            .any(|bytes| {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
            });
        found
    })
}

/// Draws the bars into an SVG file at `path`. Returns a warning when no font was found
/// and the plot has no text.
pub fn plot_svg(path: &Path, title: &str, bars: &[Bar<'_>]) -> Result<Option<String>, PpError> {
    if !font_available() {
        plot_without_text(path, bars)?;
        return Ok(Some(format!(
            "{}: no TrueType font found (set PP_FONT=/path/to/font.ttf): plot drawn without text",
            path.display()
        )));
    }
    let err = |e: String| PpError::Output {
        path: path.to_owned(),
        message: e,
    };
    let width = (160 + 140 * bars.len() as u32).max(640);
    let root = SVGBackend::new(path, (width, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let ymax = bars
        .iter()
        .map(|b| b.profile.tt)
        .fold(0.0f64, f64::max)
        .max(1e-12)
        * 1.05;
    let n = bars.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .right_y_label_area_size(0)
        .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("processor-seconds")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    // Bar labels, centred under each bar.
    let style = TextStyle::from(("sans-serif", 12).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    for (i, bar) in bars.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        root.draw(&Text::new(bar.label.clone(), (x, y + 6), style.clone()))
            .map_err(|e| err(e.to_string()))?;
    }
    let mut legend_done = false;
    for (i, bar) in bars.iter().enumerate() {
        let mut base = 0.0;
        for (name, v, color) in segments(bar.profile) {
            let v = v.max(0.0);
            let (x0, x1) = (i as f64 + 0.15, i as f64 + 0.85);
            let rect = Rectangle::new([(x0, base), (x1, base + v)], color.filled());
            let series = chart
                .draw_series(std::iter::once(rect))
                .map_err(|e| err(e.to_string()))?;
            if !legend_done {
                series.label(name).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
            }
            base += v;
        }
        legend_done = true;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(None)
}

fn plot_without_text(path: &Path, bars: &[Bar<'_>]) -> Result<(), PpError> {
    let err = |e: String| PpError::Output {
        path: path.to_owned(),
        message: e,
    };
    let width = (160 + 140 * bars.len() as u32).max(640);
    let root = SVGBackend::new(path, (width, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let ymax = bars
        .iter()
        .map(|b| b.profile.tt)
        .fold(0.0f64, f64::max)
        .max(1e-12)
        * 1.05;
    let n = bars.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
        .map_err(|e| err(e.to_string()))?;
    for (i, bar) in bars.iter().enumerate() {
        let mut base = 0.0;
        for (_, v, color) in segments(bar.profile) {
            let v = v.max(0.0);
            let rect = Rectangle::new(
                [(i as f64 + 0.15, base), (i as f64 + 0.85, base + v)],
                color.filled(),
            );
            chart
                .draw_series(std::iter::once(rect))
                .map_err(|e| err(e.to_string()))?;
            base += v;
        }
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
