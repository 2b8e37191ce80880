//! The text of a range annotation's body: `VAR = MIN..MAX[ (beyond: +G% per 2x)], …`.
//!
//! The optional parenthesis after a variable's bounds is the error growth beyond the range
//! ([`super::VarRange::growth`]): `(beyond: +4.2% per 2x)` says that, refitted without its
//! largest values, the fragment's models missed them by 4.2 % more per doubling of the
//! variable than they miss the values they were fitted on.

use super::VarRange;
use std::fmt;

/// The range annotation's text of one variable: `n = 64..1024`, with
/// ` (beyond: +4.2% per 2x)` when its growth is known.
pub struct RangeText<'a>(pub &'a VarRange);

impl fmt::Display for RangeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        if let Some(g) = self.0.growth {
            write!(
                f,
                " (beyond: +{}% per 2x)",
                crate::expr::format_number(crate::fit::round_sig(100.0 * g, 2))
            )?;
        }
        Ok(())
    }
}

/// The growth in `(beyond: +G% per 2x)` after a variable's bounds: `Ok(None)` for empty
/// text; on error the byte offset in `text` and what was expected.
fn parse_growth(text: &str) -> Result<Option<f64>, (usize, String)> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let at = text.len() - text.trim_start().len();
    let expected = || {
        (
            at,
            format!("expected `(beyond: +G% per 2x)` after the bounds, found `{t}`"),
        )
    };
    let inner = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|r| r.trim().strip_prefix("beyond:"))
        .and_then(|r| r.trim().strip_suffix("per 2x"))
        .and_then(|r| r.trim().strip_suffix('%'))
        .ok_or_else(expected)?;
    let number = inner.trim();
    let g = number
        .strip_prefix('+')
        .unwrap_or(number)
        .parse::<f64>()
        .ok()
        .filter(|g| g.is_finite())
        .ok_or_else(expected)?;
    if g < 0.0 {
        return Err((
            at,
            format!("expected a growth of at least 0% (an error that grows beyond the range), found `{number}%`"),
        ));
    }
    Ok(Some(g / 100.0))
}

/// Parses the body of a range annotation, `VAR = MIN..MAX[ (beyond: +G% per 2x)][, …]`. On
/// error: the byte offset in `text` where it is and what was expected.
pub fn parse_ranges(text: &str) -> Result<Vec<VarRange>, (usize, String)> {
    let mut out: Vec<VarRange> = Vec::new();
    let mut offset = 0;
    for part in text.split(',') {
        let start = offset + (part.len() - part.trim_start().len());
        offset += part.len() + 1;
        let Some((var, bounds)) = part.split_once('=') else {
            return Err((
                start,
                format!("expected `VAR = MIN..MAX`, found `{}`", part.trim()),
            ));
        };
        let var = var.trim();
        let valid = var
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err((start, format!("expected a variable name, found `{var}`")));
        }
        let bounds_start = start
            + part.trim_start().find('=').unwrap_or(0)
            + 1
            + (bounds.len() - bounds.trim_start().len());
        let (bounds, growth_text) = match bounds.find('(') {
            Some(i) => (&bounds[..i], &bounds[i..]),
            None => (bounds, ""),
        };
        let growth = parse_growth(growth_text)
            .map_err(|(at, msg)| (bounds_start + bounds.trim_start().len() + at, msg))?;
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        let parsed = bounds
            .split_once("..")
            .and_then(|(lo, hi)| Some((number(lo)?, number(hi)?)));
        let Some((min, max)) = parsed.filter(|(lo, hi)| lo <= hi) else {
            return Err((
                bounds_start,
                format!(
                    "expected `MIN..MAX` with finite numbers MIN <= MAX after `{var} =`, found `{}`",
                    bounds.trim()
                ),
            ));
        };
        if out.iter().any(|r| r.var == var) {
            return Err((
                start,
                format!("expected each variable once, found `{var}` again"),
            ));
        }
        out.push(VarRange::new(var, min, max).with_growth(growth));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_errors() {
        let r = parse_ranges(" n = 64..1024, p = 1..16").unwrap();
        assert_eq!(r[1], VarRange::new("p", 1.0, 16.0));
        assert_eq!(r[0].to_string(), "n = 64..1024");
        assert_eq!(parse_ranges("n = 1e-3..2.5e3").unwrap()[0].max, 2500.0);
        let (at, msg) = parse_ranges("n = 64..1024, p 1..16").unwrap_err();
        assert_eq!(at, 14);
        assert!(msg.contains("VAR = MIN..MAX"), "{msg}");
        let (at, msg) = parse_ranges("n = 64..1024, p = 16..1").unwrap_err();
        assert_eq!(at, 18, "{msg}");
        assert!(parse_ranges("n = 1..x").is_err());
        assert!(parse_ranges("2n = 1..2").is_err());
        assert!(parse_ranges("n = 1..2, n = 3..4").is_err());
        assert!(parse_ranges("n = 1..inf").is_err());
    }

    /// The growth beyond a range reads back as it is written, per variable.
    #[test]
    fn growth_round_trips() {
        let r = parse_ranges("n = 64..1024 (beyond: +4.2% per 2x), p = 1..16").unwrap();
        assert_eq!(r[0].growth, Some(0.042));
        assert_eq!(r[1].growth, None);
        assert_eq!(
            RangeText(&r[0]).to_string(),
            "n = 64..1024 (beyond: +4.2% per 2x)"
        );
        let g = VarRange::new("k", 1.0, 9.0).with_growth(Some(0.123456));
        assert_eq!(RangeText(&g).to_string(), "k = 1..9 (beyond: +12% per 2x)");
        let (_, msg) = parse_ranges("n = 64..1024 (beyond 4%)").unwrap_err();
        assert!(msg.contains("(beyond: +G% per 2x)"), "{msg}");
        let (_, msg) = parse_ranges("n = 64..1024 (beyond: -4% per 2x)").unwrap_err();
        assert!(msg.contains("at least 0%"), "{msg}");
    }
}
