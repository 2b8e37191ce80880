//! The measured range of a model's variables, and the warning when a prediction leaves it.
//!
//! A model fitted on n = 64..1024 says little about n = 65536: the terms that won on the
//! data may not be the ones that dominate far outside it. `lca model --emit annotation`
//! therefore writes, per fragment, the smallest and largest value of every variable among
//! the records it was fitted on (the `// lcm: range` annotation of [`crate::annotation`]),
//! and every tool that evaluates such a model at a point (`lca eval`, `lcm predict`,
//! `lcm compare`) warns when the point lies **beyond 2x the measured range** of a variable:
//! above twice the largest measured value or below half the smallest. (For a range that
//! does not lie above 0 the margin is the range's width: above `max + (max − min)` or below
//! `min − (max − min)`.) The warning names the fragment and the categories whose models use
//! the variable: those are the models that carry the risk.
//!
//! A piecewise power law (`pw(k, x1, y1, …)`, chosen where the measurements change regime
//! between measured points, [`crate::policy::piecewise`]) is trusted less far: a value of
//! its variable outside its first and last breakpoint is warned about (`piecewise: true`),
//! as there only the end piece's power law speaks for it.
//!
//! ```
//! use lca::range::{check, VarRange};
//! use lca::expr::parse;
//! let ranges = [VarRange::new("n", 64.0, 1024.0), VarRange::new("p", 1.0, 16.0)];
//! let cats = [("rt".to_string(), parse("2e-9*n^2").unwrap()),
//!             ("ip".to_string(), parse("3e-5*p").unwrap())];
//! let at = |v: &str| match v { "n" => Some(4096.0), "p" => Some(8.0), _ => None };
//! let w = check("cols", &ranges, &cats, &at);
//! assert_eq!(w.len(), 1);
//! assert_eq!(w[0].categories, ["rt"]);
//! assert_eq!(w[0].to_string(),
//!     "fragment `cols` (rt): n = 4096 lies beyond 2x the measured range n = 64..1024: the model extrapolates");
//! assert!(check("cols", &ranges, &cats, &|v| if v == "n" { Some(2048.0) } else { Some(1.0) }).is_empty());
//! ```

use crate::expr::{format_number, Expr, Func};
use crate::extraction::Extraction;
use crate::record::{Record, RecordError};
use serde::Serialize;
use std::fmt;

mod parse;
pub use parse::{parse_ranges, RangeText};

/// The smallest and largest measured value of one variable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VarRange {
    /// Variable name.
    pub var: String,
    /// Smallest measured value.
    pub min: f64,
    /// Largest measured value.
    pub max: f64,
    /// How fast the fragment's time error grows beyond the range: the relative error added
    /// per doubling of the variable past `max` (or halving below `min`), a fraction (0.04 =
    /// 4 % per 2x), as lca measured it by refitting without the largest values
    /// ([`crate::extrapolation`]). None where it was not measured (fewer than three
    /// distinct values at or below half the largest, or a hand-written range); left out of
    /// JSON then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth: Option<f64>,
}

impl VarRange {
    /// A range (`min` ≤ `max`).
    pub fn new(var: &str, min: f64, max: f64) -> VarRange {
        VarRange {
            var: var.to_string(),
            min,
            max,
            growth: None,
        }
    }

    /// This range with the error growth beyond it ([`VarRange::growth`]).
    pub fn with_growth(mut self, growth: Option<f64>) -> VarRange {
        self.growth = growth;
        self
    }

    /// How many doublings `value` lies beyond this range (`log2(value / max)` above it,
    /// `log2(min / value)` below it), 0 inside; for a range that does not lie above 0,
    /// the distance in range widths instead.
    pub fn doublings_beyond(&self, value: f64) -> f64 {
        if self.min > 0.0 && value > 0.0 {
            if value > self.max {
                (value / self.max).log2()
            } else if value < self.min {
                (self.min / value).log2()
            } else {
                0.0
            }
        } else {
            let width = (self.max - self.min).max(f64::MIN_POSITIVE);
            ((value - self.max).max(self.min - value) / width).max(0.0)
        }
    }

    /// The interval outside which a prediction counts as far extrapolation: half the
    /// minimum to twice the maximum (for a range above 0).
    pub fn trusted(&self) -> (f64, f64) {
        let width = self.max - self.min;
        let low = if self.min > 0.0 {
            self.min / 2.0
        } else {
            self.min - width
        };
        let high = if self.max > 0.0 {
            2.0 * self.max
        } else {
            self.max + width
        };
        (low, high)
    }

    /// True when `value` lies beyond 2x this range.
    pub fn is_beyond(&self, value: f64) -> bool {
        let (low, high) = self.trusted();
        value < low || value > high
    }

    /// True for a range of the processors `p` that holds at most one count above 1
    /// (`p = 1..2`, `p = 1..1`): a model's growth in p is then assumed (the form `p − 1`,
    /// or a share of the work), not measured, so every p above the range is an
    /// extrapolation, not only those beyond twice it.
    pub fn holds_one_parallel_count(&self) -> bool {
        self.var == "p" && self.max <= 2.0
    }

    /// Whether a prediction at `value` is warned about: beyond 2x the range
    /// ([`VarRange::is_beyond`]), or above it for a range of p with one count above 1
    /// ([`VarRange::holds_one_parallel_count`]).
    pub fn warns_at(&self, value: f64) -> bool {
        self.is_beyond(value) || (self.holds_one_parallel_count() && value > self.max)
    }
}

impl fmt::Display for VarRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {}..{}",
            self.var,
            format_number(self.min),
            format_number(self.max)
        )
    }
}

/// A prediction point beyond 2x the measured range of a variable of one fragment's models.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RangeWarning {
    /// The fragment (models-file name, or `session`).
    pub fragment: String,
    /// The categories whose models use the variable (the models that carry the risk).
    pub categories: Vec<String>,
    /// The variable.
    pub variable: String,
    /// Its value at the prediction point, as the fragment sees it (after `p` overrides).
    pub value: f64,
    /// The measured range of the variable.
    pub min: f64,
    /// (see `min`)
    pub max: f64,
    /// True when the models are piecewise power laws (`pw`) and the value lies outside
    /// their measured points `min..max` (not 2x): there only the end piece's power law
    /// speaks for the model. Left out of JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub piecewise: bool,
    /// The values of a straight-line table `lin(VAR, x1, y1, …)` (the names of its `y`s, or
    /// their text where they are expressions) whose `VAR` lies beyond 2x its breakpoints
    /// `min..max`: the table holds its first or last value there, which stands in for a
    /// number nobody measured (a machine file's keys measured up to its processors, named
    /// at a variable, docs/machine.md). Empty otherwise, and left out of JSON then.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<String>,
}

impl RangeWarning {
    /// The warning's text with `values` (one or more values of the variable, printed) in
    /// the place of the value.
    pub fn message(&self, values: &str) -> String {
        let range = VarRange::new(&self.variable, self.min, self.max);
        let (fragment, categories) = (&self.fragment, self.categories.join(", "));
        if self.piecewise {
            format!(
                "fragment `{fragment}` ({categories}): {} = {values} lies outside the measured points {range} of its piecewise model: the end piece's power law extrapolates",
                self.variable
            )
        } else if !self.held.is_empty() {
            let held = match self.held.as_slice() {
                [one] => one.clone(),
                [first, .., last] if self.held.len() > 2 => format!("{first} … {last}"),
                all => all.join(", "),
            };
            let end = if self.value > self.max {
                self.max
            } else {
                self.min
            };
            let (var, verb) = (
                &self.variable,
                if self.held.len() == 1 { "was" } else { "were" },
            );
            let at = if self.min == self.max {
                format!("{var} = {}", format_number(self.min))
            } else {
                range.to_string()
            };
            format!(
                "fragment `{fragment}` ({categories}): {var} = {values} lies beyond 2x where {held} {verb} measured ({at}): the value at {var} = {} stands in",
                format_number(end)
            )
        } else if range.holds_one_parallel_count() {
            format!(
                "fragment `{fragment}` ({categories}): p = {values} lies beyond the measured range {range}, {ONE_PARALLEL_COUNT}"
            )
        } else {
            format!(
                "fragment `{fragment}` ({categories}): {} = {values} lies beyond 2x the measured range {range}: the model extrapolates",
                self.variable
            )
        }
    }
}

/// What a range warning adds for a range of p with one count above 1
/// ([`VarRange::holds_one_parallel_count`]).
pub const ONE_PARALLEL_COUNT: &str =
    "which holds one processor count above 1: the models' growth in p is assumed there, not measured";

impl fmt::Display for RangeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(&format_number(self.value)))
    }
}

/// A table `pw(VAR, x1, y1, …)` or `lin(VAR, x1, y1, …)` in a model whose argument is a
/// plain variable: the variable, the first and last breakpoint and the values' names
/// (their text where they are expressions).
struct Table {
    var: String,
    min: f64,
    max: f64,
    values: Vec<String>,
}

/// The tables of function `func` (`pw` or `lin`) in `e` (see [`Table`]).
fn tables(e: &Expr, func: Func, out: &mut Vec<Table>) {
    match e {
        Expr::Call(f, args) => {
            if *f == func {
                let xs: Vec<f64> = args
                    .iter()
                    .skip(1)
                    .step_by(2)
                    .filter_map(|a| match a {
                        Expr::Num(v) => Some(*v),
                        _ => None,
                    })
                    .collect();
                if let (Some(Expr::Var(v)), Some(lo), Some(hi)) =
                    (args.first(), xs.first(), xs.last())
                {
                    out.push(Table {
                        var: v.clone(),
                        min: *lo,
                        max: *hi,
                        values: args
                            .iter()
                            .skip(2)
                            .step_by(2)
                            .map(|y| y.to_string())
                            .collect(),
                    });
                }
            }
            args.iter().for_each(|a| tables(a, func, out));
        }
        Expr::Neg(a) => tables(a, func, out),
        Expr::Bin(_, x, y) => {
            tables(x, func, out);
            tables(y, func, out);
        }
        Expr::Num(_) | Expr::Var(_) => {}
    }
}

/// The warnings for one fragment at one point: for every measured range whose variable is
/// used by some category model and whose value (`value_of`) lies beyond 2x the range.
/// Variables without a value are skipped.
pub fn check(
    fragment: &str,
    ranges: &[VarRange],
    categories: &[(String, Expr)],
    value_of: &dyn Fn(&str) -> Option<f64>,
) -> Vec<RangeWarning> {
    let mut out: Vec<RangeWarning> = Vec::new();
    for (cat, e) in categories {
        let mut found = Vec::new();
        tables(e, Func::Pw, &mut found);
        for Table {
            var,
            min: lo,
            max: hi,
            ..
        } in found
        {
            let Some(value) = value_of(&var).filter(|v| *v < lo || *v > hi) else {
                continue;
            };
            let same = |w: &RangeWarning| w.variable == var && w.min == lo && w.max == hi;
            match out.iter_mut().find(|w| same(w)) {
                Some(w) if !w.categories.contains(cat) => w.categories.push(cat.clone()),
                Some(_) => {}
                None => out.push(RangeWarning {
                    fragment: fragment.to_string(),
                    categories: vec![cat.clone()],
                    variable: var,
                    value,
                    min: lo,
                    max: hi,
                    piecewise: true,
                    held: Vec::new(),
                }),
            }
        }
    }
    let warned = |cat: &str, var: &str| {
        out.iter()
            .any(|w| w.variable == var && w.categories.iter().any(|c| c == cat))
    };
    let mut beyond = Vec::new();
    for r in ranges {
        let Some(value) = value_of(&r.var) else {
            continue;
        };
        if !r.warns_at(value) {
            continue;
        }
        let cats: Vec<String> = categories
            .iter()
            .filter(|(c, e)| e.variables().contains(&r.var) && !warned(c, &r.var))
            .map(|(c, _)| c.clone())
            .collect();
        if cats.is_empty() {
            continue;
        }
        beyond.push(RangeWarning {
            fragment: fragment.to_string(),
            categories: cats,
            variable: r.var.clone(),
            value,
            min: r.min,
            max: r.max,
            piecewise: false,
            held: Vec::new(),
        });
    }
    out.extend(beyond);
    out.extend(held_tables_beyond(fragment, categories, value_of));
    out
}

/// The warnings for the straight-line tables of one fragment's models whose variable lies
/// beyond 2x their breakpoints at one point (one per table and variable, naming every
/// category that uses it).
fn held_tables_beyond(
    fragment: &str,
    categories: &[(String, Expr)],
    value_of: &dyn Fn(&str) -> Option<f64>,
) -> Vec<RangeWarning> {
    let mut out: Vec<RangeWarning> = Vec::new();
    for (cat, e) in categories {
        let mut found = Vec::new();
        tables(e, Func::Lin, &mut found);
        for t in found {
            let range = VarRange::new(&t.var, t.min, t.max);
            let Some(value) = value_of(&t.var).filter(|v| range.is_beyond(*v)) else {
                continue;
            };
            let same = |w: &RangeWarning| {
                w.variable == t.var && w.min == t.min && w.max == t.max && w.held == t.values
            };
            match out.iter_mut().find(|w| same(w)) {
                Some(w) if !w.categories.contains(cat) => w.categories.push(cat.clone()),
                Some(_) => {}
                None => out.push(RangeWarning {
                    fragment: fragment.to_string(),
                    categories: vec![cat.clone()],
                    variable: t.var,
                    value,
                    min: t.min,
                    max: t.max,
                    piecewise: false,
                    held: t.values,
                }),
            }
        }
    }
    out
}

/// The measured ranges of `variables` over points given as value lists in that order.
pub fn of_points<'a>(
    variables: &[String],
    points: impl IntoIterator<Item = &'a [f64]>,
) -> Vec<VarRange> {
    let mut ranges: Vec<VarRange> = variables
        .iter()
        .map(|v| VarRange::new(v, f64::INFINITY, f64::NEG_INFINITY))
        .collect();
    for x in points {
        for (r, v) in ranges.iter_mut().zip(x) {
            r.min = r.min.min(*v);
            r.max = r.max.max(*v);
        }
    }
    ranges.retain(|r| r.min <= r.max);
    ranges
}

/// The measured ranges of `variables` over the records a fragment's model is fitted on:
/// those matching `extraction` with `tag=TAG` (`None`: the untagged session records) that
/// carry every variable. A variable value that is not a number is an error naming its line.
pub fn of_records(
    records: &[Record],
    tag: Option<&str>,
    variables: &[String],
    extraction: &Extraction,
) -> Result<Vec<VarRange>, RecordError> {
    let mut points = Vec::new();
    for r in records {
        if r.tag() != tag || !extraction.matches(r) || !variables.iter().all(|v| r.has(v)) {
            continue;
        }
        points.push(
            variables
                .iter()
                .map(|v| r.number(v))
                .collect::<Result<Vec<f64>, _>>()?,
        );
    }
    Ok(of_points(variables, points.iter().map(Vec::as_slice)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn two_times_the_range() {
        let r = VarRange::new("p", 1.0, 16.0);
        assert!(!r.is_beyond(32.0));
        assert!(r.is_beyond(32.5));
        assert!(!r.is_beyond(0.5));
        assert!(r.is_beyond(0.4));
        let z = VarRange::new("x", 0.0, 10.0);
        assert!(z.is_beyond(-10.5));
        assert!(!z.is_beyond(-10.0));
        assert!(z.is_beyond(20.5));
    }

    #[test]
    fn ranges_of_records_follow_the_fragment() {
        let recs = parse_records(
            "n=64 tag=cols p=1 rt=1\nn=1024 tag=cols p=16 rt=2\nn=8 p=64 rt=3\nn=4096 tag=rows p=2 rt=1\n",
        )
        .unwrap();
        let vars = vec!["n".to_string(), "p".to_string()];
        let r = of_records(&recs, Some("cols"), &vars, &Extraction::default()).unwrap();
        assert_eq!(
            r,
            [
                VarRange::new("n", 64.0, 1024.0),
                VarRange::new("p", 1.0, 16.0)
            ]
        );
        let s = of_records(&recs, None, &vars, &Extraction::default()).unwrap();
        assert_eq!(
            s,
            [VarRange::new("n", 8.0, 8.0), VarRange::new("p", 64.0, 64.0)]
        );
    }
}

#[cfg(test)]
mod piecewise_tests {
    use super::*;
    use crate::expr::parse;

    /// A piecewise model warns outside its first and last breakpoint (not 2x), once per
    /// variable and table, and the 2x warning is not repeated for the same category.
    #[test]
    fn a_piecewise_model_warns_outside_its_measured_points() {
        let ranges = [
            VarRange::new("k", 1.0, 1000.0),
            VarRange::new("p", 1.0, 2.0),
        ];
        let cats = [
            (
                "pc".to_string(),
                parse("pw(k, 1, 3e-7, 100, 3e-5, 1000, 6e-4)").unwrap(),
            ),
            ("li".to_string(), parse("1e-6*k*(p - 1)").unwrap()),
        ];
        let at = |k: f64| move |v: &str| if v == "k" { Some(k) } else { Some(2.0) };
        assert!(check("search", &ranges, &cats, &at(500.0)).is_empty());
        let w = check("search", &ranges, &cats, &at(1500.0));
        assert_eq!(w.len(), 1);
        assert!(w[0].piecewise);
        assert_eq!(
            w[0].to_string(),
            "fragment `search` (pc): k = 1500 lies outside the measured points k = 1..1000 of its piecewise model: the end piece's power law extrapolates"
        );
        let w = check("search", &ranges, &cats, &at(4000.0));
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(
            (w[0].piecewise, &w[0].categories[..]),
            (true, &["pc".to_string()][..])
        );
        assert_eq!(
            (w[1].piecewise, &w[1].categories[..]),
            (false, &["li".to_string()][..])
        );
        assert!(w[1].to_string().contains("beyond 2x"));
        let json = serde_json::to_string(&w[1]).unwrap();
        assert!(!json.contains("piecewise"), "{json}");
    }
}

#[cfg(test)]
mod line_table_tests {
    use super::*;
    use crate::expr::parse;

    /// A straight-line table warns beyond 2x its breakpoints (not at them, not inside),
    /// naming the values that stand in, once per table and variable; its JSON has `held`.
    #[test]
    fn a_line_table_warns_beyond_twice_its_breakpoints_naming_its_values() {
        let cats = [
            (
                "ml".to_string(),
                parse("pc_s*(lin(both, 1, mem_slowdown_k1, 2, mem_slowdown_k2) - 1)").unwrap(),
            ),
            (
                "li".to_string(),
                parse("lin(both, 1, mem_slowdown_k1, 2, mem_slowdown_k2)*1e-6").unwrap(),
            ),
        ];
        let at = |both: f64| move |v: &str| (v == "both").then_some(both);
        assert!(check("init", &[], &cats, &at(2.0)).is_empty());
        assert!(check("init", &[], &cats, &at(4.0)).is_empty());
        let w = check("init", &[], &cats, &at(16.0));
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].categories, ["ml", "li"]);
        assert_eq!(w[0].held, ["mem_slowdown_k1", "mem_slowdown_k2"]);
        assert_eq!(
            w[0].to_string(),
            "fragment `init` (ml, li): both = 16 lies beyond 2x where mem_slowdown_k1, mem_slowdown_k2 were measured (both = 1..2): the value at both = 2 stands in"
        );
        let json = serde_json::to_string(&w[0]).unwrap();
        assert!(
            json.contains(r#""held":["mem_slowdown_k1","mem_slowdown_k2"]"#),
            "{json}"
        );
        // Many values: the first and the last are named.
        let long = [(
            "ml".to_string(),
            parse("lin(q, 1, a1, 2, a2, 4, a4)").unwrap(),
        )];
        let w = check("f", &[], &long, &|_: &str| Some(0.25));
        assert!(w[0]
            .to_string()
            .contains("where a1 … a4 were measured (q = 1..4): the value at q = 1 stands in"));
    }
}
