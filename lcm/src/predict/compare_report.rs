//! `lcm compare`'s output: the table, its JSON and its plot (in `compare_report/plot.rs`).

use super::columns::{Column, Table};
use super::compare::{Comparison, Verdict};
use super::grid::{Crossover, Grid};
use super::negative::NegativeModel;
use super::report::secs;
use lca::expr::format_number;
use lca::range::RangeWarning;
use serde_json::{json, Value};
use std::fmt::Write as _;

mod plot;
pub use plot::compare_plot;

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
    /// What the point's uncertainty was widened by beyond the models' measured ranges: the
    /// larger of the two versions' [`Brief::extrapolation_error`](super::program::Brief)
    /// (a fraction; 0 inside every range).
    pub widening: f64,
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

/// Whether any point a crossover lies between (along its axis, with its other variables'
/// values) is beyond the measured range, and whether any has a negative model. Along a
/// paired axis a point lies between when each paired variable does.
fn crossover_marks(cmp: &Comparison, marks: &[PointMarks], c: &Crossover) -> (bool, bool) {
    let names = c.variables();
    let (from, to) = c.between_values();
    let mut out = (false, false);
    for (i, p) in cmp.points.iter().enumerate() {
        let same = c.others.iter().all(|(k, v)| p.get(k) == Some(v));
        let inside = names.iter().enumerate().all(|(k, n)| {
            let (lo, hi) = (from[k].min(to[k]), from[k].max(to[k]));
            let x = p.get(*n).copied().unwrap_or(f64::NAN);
            x >= lo && x <= hi
        });
        if same && inside {
            let (b, n) = mark(cmp, marks, i);
            out = (out.0 || b, out.1 || n);
        }
    }
    out
}

/// The legend line of a table where u was widened beyond the models' measured ranges
/// ([`PointMarks::widening`]): at how many points, and the most it added where.
fn widening_line(vars: &[String], cmp: &Comparison, marks: &[PointMarks]) -> Option<String> {
    let widened: Vec<usize> = (0..marks.len().min(cmp.points.len()))
        .filter(|&i| marks[i].widening > 0.0)
        .collect();
    let most = *widened
        .iter()
        .max_by(|&&i, &&j| marks[i].widening.total_cmp(&marks[j].widening))?;
    let at: Vec<String> = vars
        .iter()
        .filter_map(|k| {
            let v = cmp.points[most].get(k)?;
            Some(format!("{k}={}", lca::expr::format_number(*v)))
        })
        .collect();
    Some(format!(
        "+-% holds the models' error growth beyond their measured ranges (the range lines' `beyond:`) at {} point(s), up to +{:.1}% at {}",
        widened.len(),
        100.0 * marks[most].widening,
        at.join(" ")
    ))
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
    let (table, any_beyond, any_negative) = points_table(&vars, cmp, marks);
    o.push_str(&table);
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
    if let Some(line) = widening_line(&vars, cmp, marks) {
        let _ = writeln!(o, "{line}");
    }
    let _ = writeln!(o, "{}", verdict_counts(cmp));
    if cmp.crossovers.is_empty() {
        let _ = writeln!(o, "crossovers: none outside the uncertainty on this grid");
    }
    for c in &cmp.crossovers {
        let _ = writeln!(o, "{}", crossover_line(cmp, marks, c));
    }
    o
}

/// The table's rows, one per point (the values of the grid's varying variables `vars`,
/// both times, the uncertainty, the verdict, the ratio and the marks), rendered; and
/// whether any point is marked beyond the measured range (`*`), and negative (`!`).
fn points_table(vars: &[String], cmp: &Comparison, marks: &[PointMarks]) -> (String, bool, bool) {
    let mut columns = vec![Column::right().after(2); vars.len() + 5];
    columns.push(Column::left().after(2));
    let mut header: Vec<String> = vars.iter().map(|v| v.to_string()).collect();
    header.extend(["T_a (s)", "T_b (s)", "+-%", "better", "T_a/T_b", "note"].map(String::from));
    let mut table = Table::new(columns, header);
    let (mut any_beyond, mut any_negative) = (false, false);
    for i in 0..cmp.points.len() {
        let (beyond, negative) = mark(cmp, marks, i);
        any_beyond |= beyond;
        any_negative |= negative;
        table.row(point_row(vars, cmp, i, beyond, negative));
    }
    (table.render(), any_beyond, any_negative)
}

/// The table's row of point `i`, its note the marks `beyond` (`*`) and `negative` (`!`).
fn point_row(
    vars: &[String],
    cmp: &Comparison,
    i: usize,
    beyond: bool,
    negative: bool,
) -> Vec<String> {
    let mut row: Vec<String> = vars
        .iter()
        .map(|v| format_number(cmp.points[i][v]))
        .collect();
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
    row
}

/// The line that counts the points of each verdict.
fn verdict_counts(cmp: &Comparison) -> String {
    let (wins_a, wins_b, ties) = cmp.counts();
    let not_compared = cmp.not_compared();
    format!(
        "a better at {wins_a} point(s), b better at {wins_b}, tie at {ties} (the two predictions differ by less than their uncertainty +-%){}",
        if not_compared > 0 {
            format!(", not compared at {not_compared} (a version has no prediction there, or a time that is not positive: -)")
        } else {
            String::new()
        }
    )
}

/// The line of crossover `c`: where it lies (to the digits its interval gives), between
/// which values and at which values of the other variables, which version is better above
/// it, and whether it lies among points marked `*` or `!`. Along a paired axis every
/// variable's position is given (`n:steps ~ 384:1200`), the points named with the pair
/// (`between n:steps = 256:2000 and 512:400`), and the better version is the one after the
/// crossover in the order the points were given.
fn crossover_line(cmp: &Comparison, marks: &[PointMarks], c: &Crossover) -> String {
    let others: Vec<String> = c.others.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let (beyond, negative) = crossover_marks(cmp, marks, c);
    let mut caveat = String::new();
    if beyond {
        caveat.push_str("; outside the measured range (*): extrapolated, not a finding");
    }
    if negative {
        caveat.push_str("; a model is negative there (!): not to be trusted");
    }
    let (from, to) = c.between_values();
    let position: Vec<String> = c
        .variables()
        .iter()
        .zip(c.at_values())
        .enumerate()
        .map(|(k, (var, at))| {
            let integral = !cmp
                .points
                .iter()
                .any(|p| p.get(*var).is_some_and(|v| v.fract() != 0.0));
            crossover_position(at, (from[k], to[k]), integral)
        })
        .collect();
    let (between, after) = match c.paired_between_text() {
        Some(text) => (text, "after it, in the order of the pairs"),
        None => (
            format!(
                "{} and {}",
                format_number(c.between.0),
                format_number(c.between.1)
            ),
            "above",
        ),
    };
    format!(
        "crossover: {} ~ {} (between {between}{}{}): {} better {after}{caveat}",
        c.variable,
        position.join(":"),
        if others.is_empty() { "" } else { ", " },
        others.join(" "),
        c.better_after
    )
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
/// extrapolation_widening (what u was widened by beyond the measured ranges),
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
/// flags say whether a point they lie among is so marked. Along a paired axis (`variable`
/// `n:steps`) `between` and `at` are its first variable's and `paired: {variables,
/// between, at}` gives every paired variable's values. The warnings are each version's
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
                "extrapolation_widening": m.widening,
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
