//! The plot set-up that `pp`, `lca`, `lcm` and the study share.
//!
//! plotters is built with its `ab_glyph` text renderer and without system font lookup, so a
//! plot only has text (title, axis labels, ticks, legend) when a font was registered with
//! plotters first. This crate compiles DejaVu Sans into the binaries ([`FONT_BYTES`], under the
//! Bitstream Vera license in `fonts/LICENSE-DejaVu.txt`) and registers it as plotters'
//! [`FAMILY`] for every style, so plots carry their text on every machine, with or without
//! fonts installed. SVG output keeps the text as `<text>` elements (the font is used to lay it
//! out); bitmap output draws the glyphs from the compiled-in font.
//!
//! It also holds the small pieces of axis and legend drawing the tools share:
//! [`tick_label`] (readable ticks for any magnitude), [`seconds_unit`] (picks s, ms, µs or
//! ns for an axis of seconds) and [`draw_legend`] (a legend in its own area, so it never
//! covers the data).
#![deny(missing_docs)]

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// The font family every plot of the tools uses.
pub const FAMILY: &str = "sans-serif";

/// DejaVu Sans 2.37 (TrueType), compiled in.
pub const FONT_BYTES: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

/// The compiled-in font could not be read as a font (a broken build, never bad input).
#[derive(Debug, Clone, thiserror::Error)]
#[error("the compiled-in plot font (DejaVu Sans) is not a valid TrueType font")]
pub struct FontError;

/// Registers the compiled-in font as [`FAMILY`] in every style (normal, bold, italic,
/// oblique). Idempotent and cheap after the first call; call it before drawing text.
pub fn register() -> Result<(), FontError> {
    static DONE: std::sync::OnceLock<Result<(), FontError>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        for style in [
            FontStyle::Normal,
            FontStyle::Bold,
            FontStyle::Italic,
            FontStyle::Oblique,
        ] {
            plotters::style::register_font(FAMILY, style, FONT_BYTES).map_err(|_| FontError)?;
        }
        Ok(())
    })
    .clone()
}

/// A tick label that stays readable at every magnitude: `0` for zero, plain decimals with
/// three significant digits between 0.01 and 10 000 (`0.25`, `12.5`, `3400`), scientific
/// notation outside that range (`1.5e-5`, `2.4e6`). Trailing zeros are trimmed.
pub fn tick_label(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if (0.01..10_000.0).contains(&a) {
        let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
        trim_zeros(&format!("{v:.decimals$}"))
    } else {
        let s = format!("{v:.2e}");
        match s.split_once('e') {
            Some((mantissa, exp)) => format!("{}e{exp}", trim_zeros(mantissa)),
            None => s,
        }
    }
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// The unit for an axis of seconds whose largest value is `max`: the factor to multiply
/// seconds by and the unit's name (`s`, `ms`, `µs`, `ns`), chosen so the largest tick is
/// at least 1 in that unit.
pub fn seconds_unit(max: f64) -> (f64, &'static str) {
    let max = max.abs();
    if max.is_nan() || max == 0.0 || max >= 1.0 {
        (1.0, "s")
    } else if max >= 1e-3 {
        (1e3, "ms")
    } else if max >= 1e-6 {
        (1e6, "µs")
    } else {
        (1e9, "ns")
    }
}

/// Width in pixels that [`draw_legend`] needs for these labels at its font size.
pub fn legend_width(labels: &[&str]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    // 13 px DejaVu Sans averages under 7.5 px a character; the swatch and gaps take 32.
    40 + longest * 15 / 2
}

/// Draws a legend (a colour swatch and a label a row) into `area`, top-left aligned. Give
/// the legend an area of its own beside the chart so that it never covers bars or points.
pub fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBColor)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = TextStyle::from((FAMILY, 13).into_font());
    for (i, (label, color)) in entries.iter().enumerate() {
        let y = 24 + 20 * i as i32;
        area.draw(&Rectangle::new([(8, y - 6), (22, y + 6)], color.filled()))?;
        area.draw(&Text::new(
            label.clone(),
            (30, y),
            style.clone().pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            )),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_readable_at_every_magnitude() {
        assert_eq!(tick_label(0.0), "0");
        assert_eq!(tick_label(0.00001), "1e-5");
        assert_eq!(tick_label(0.000015), "1.5e-5");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(12.5), "12.5");
        assert_eq!(tick_label(3400.0), "3400");
        assert_eq!(tick_label(2_400_000.0), "2.4e6");
        assert_eq!(tick_label(-0.5), "-0.5");
        // Neighbouring small ticks stay distinct.
        assert_ne!(tick_label(2e-6), tick_label(4e-6));
    }

    #[test]
    fn seconds_unit_scales_small_axes() {
        assert_eq!(seconds_unit(3.0), (1.0, "s"));
        assert_eq!(seconds_unit(0.02), (1e3, "ms"));
        assert_eq!(seconds_unit(4e-5), (1e6, "µs"));
        assert_eq!(seconds_unit(5e-8), (1e9, "ns"));
        assert_eq!(seconds_unit(0.0), (1.0, "s"));
    }

    /// Text needs no font installed on the machine: the SVG has its caption, axis label,
    /// tick labels and legend as text.
    #[test]
    fn svg_carries_its_text_with_the_compiled_in_font() {
        register().expect("the compiled-in font is valid");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.svg");
        {
            let root = SVGBackend::new(&path, (500, 300)).into_drawing_area();
            root.fill(&WHITE).unwrap();
            let (plot, legend) = root.split_horizontally(500 - legend_width(&["bars here"]));
            let mut chart = ChartBuilder::on(&plot)
                .caption("the caption", (FAMILY, 18))
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0.0..1.0, 0.0..2e-5)
                .unwrap();
            chart
                .configure_mesh()
                .y_desc("the y axis")
                .y_label_formatter(&|v| tick_label(*v))
                .draw()
                .unwrap();
            draw_legend(&legend, &[("bars here".into(), RED)]).unwrap();
            root.present().unwrap();
        }
        let svg = std::fs::read_to_string(&path).unwrap();
        for text in ["the caption", "the y axis", "bars here", "1e-5", "2e-5"] {
            assert!(svg.contains(text), "{text} missing from {svg}");
        }
        assert!(!svg.contains(">0.00001<"));
    }
}
