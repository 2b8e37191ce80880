//! Points to predict at: `--set NAME=VALUE` and `--grid` specifications, and the crossovers
//! of two versions along a grid axis ([`Crossover`], [`crossovers_along`]).
//!
//! Grid syntax: `NAME=A..B` (integers A to B inclusive), `NAME=V1,V2,...`, and several
//! variables in one spec separated by commas where a new `NAME=` starts (`n=256,512,p=1..8`).
//! Every combination of the axes' values is a point.
//!
//! Variables named together are **paired**, as in pp-campaign's `--grid`:
//! `NAME:NAME[:NAME...]=V:V,V:V,...` is one axis whose points give every name a value,
//! separated by `:` (plain numbers, no ranges): `n:steps=256:2000,512:400,1024:100` is 3
//! points, (n = 256, steps = 2000), (512, 400) and (1024, 100), not 9. A point given twice
//! is an error; a value may repeat within one name. A paired axis varies as one in the
//! product with the other axes.
//!
//! ```
//! use lcm::predict::grid::{parse_grid, Grid};
//! let axes = parse_grid("n=256,512,p=1..3").unwrap();
//! let g = Grid::new(vec![], axes);
//! assert_eq!(g.points().len(), 6);
//! let paired = parse_grid("n:steps=256:2000,512:400,p=1..3").unwrap();
//! assert_eq!(Grid::new(vec![], paired).points().len(), 6);
//! ```

use super::error::PredictError;
use lca::expr::Bindings;

mod crossover;
pub use crossover::{
    axis_variables, crossover_between, crossovers, crossovers_along, group_by_others,
    group_by_others_of, runs_along, Crossing, Crossover, PairedCrossover, Point,
};

/// The most points a grid may have (all axes together): each point is a prediction
/// with its accounting, kept for the table.
pub const MAX_GRID_POINTS: usize = 100_000;

/// One dimension of the grid: one variable and its values, or several paired variables
/// (`n:steps=256:2000,512:400`) that take their values together, point by point.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The variables, in the order given: one, or several paired ones.
    pub names: Vec<String>,
    /// The axis's points in order, each a value of every variable of `names`, in their
    /// order.
    pub steps: Vec<Vec<f64>>,
}

impl Axis {
    /// The axis of one variable with `values`.
    pub fn single(name: &str, values: Vec<f64>) -> Axis {
        Axis {
            names: vec![name.to_string()],
            steps: values.into_iter().map(|v| vec![v]).collect(),
        }
    }

    /// The axis's name: its variable, or the paired ones joined by `:` (`n:steps`), as
    /// crossovers and errors name it.
    pub fn label(&self) -> String {
        self.names.join(":")
    }

    /// Whether the axis pairs several variables.
    pub fn is_paired(&self) -> bool {
        self.names.len() > 1
    }

    /// The values of variable `name` along the axis, one per point (None if it is not one
    /// of the axis's variables).
    pub fn values_of(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(self.steps.iter().map(|step| step[k]).collect())
    }
}

/// Fixed values plus axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// `--set` values.
    pub fixed: Vec<(String, f64)>,
    /// `--grid` axes, the last varying fastest.
    pub axes: Vec<Axis>,
}

fn usage(msg: String) -> PredictError {
    PredictError::Usage(msg)
}

fn number(s: &str, what: &str) -> Result<f64, PredictError> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| usage(format!("{what}: expected a number, found `{}`", s.trim())))
}

fn name_ok(n: &str) -> bool {
    let mut c = n.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Parses `NAME=VALUE`.
pub fn parse_set(s: &str) -> Result<(String, f64), PredictError> {
    let (n, v) = s
        .split_once('=')
        .ok_or_else(|| usage(format!("--set: expected NAME=VALUE, found `{s}`")))?;
    let n = n.trim();
    if !name_ok(n) {
        return Err(usage(format!(
            "--set: expected a variable name, found `{n}`"
        )));
    }
    Ok((n.to_string(), number(v, &format!("--set {n}"))?))
}

/// Parses a grid spec into axes: `NAME=VALUES` for one variable, `NAME:NAME=V:V,...` for
/// paired ones (module docs).
pub fn parse_grid(spec: &str) -> Result<Vec<Axis>, PredictError> {
    let mut axes: Vec<Axis> = Vec::new();
    for tok in spec.split(',') {
        let tok = tok.trim();
        if tok.is_empty() {
            continue;
        }
        let value = match tok.split_once('=') {
            Some((n, v)) => {
                axes.push(axis_named(n.trim())?);
                v
            }
            None => tok,
        };
        let axis = axes
            .last_mut()
            .ok_or_else(|| usage(format!("--grid: expected NAME=VALUES, found `{spec}`")))?;
        if axis.is_paired() {
            push_paired(axis, value.trim())?;
        } else {
            push_values(axis, value)?;
        }
    }
    for a in &axes {
        if a.steps.is_empty() {
            return Err(usage(format!("--grid {}: no values", a.label())));
        }
        if let Some(twice) = point_given_twice(a) {
            return Err(usage(format!(
                "--grid {}: expected each point once, found `{twice}` twice",
                a.label()
            )));
        }
    }
    Ok(axes)
}

/// The empty axis of `names` (`n`, or `n:steps` for paired variables).
fn axis_named(names: &str) -> Result<Axis, PredictError> {
    if !names.contains(':') {
        if !name_ok(names) {
            return Err(usage(format!(
                "--grid: expected a variable name, found `{names}`"
            )));
        }
        return Ok(Axis::single(names, Vec::new()));
    }
    let list: Vec<&str> = names.split(':').map(str::trim).collect();
    if let Some(bad) = list.iter().find(|n| !name_ok(n)) {
        return Err(usage(format!(
            "--grid {names}: expected variable names separated by ':', found `{bad}`"
        )));
    }
    if let Some(twice) = list
        .iter()
        .enumerate()
        .find_map(|(i, n)| list[..i].contains(n).then_some(n))
    {
        return Err(usage(format!(
            "--grid {names}: expected each variable once, found {twice} twice"
        )));
    }
    Ok(Axis {
        names: list.iter().map(|n| n.to_string()).collect(),
        steps: Vec::new(),
    })
}

/// Adds a single variable's `value`: a number or an integer range `A..B`.
fn push_values(axis: &mut Axis, value: &str) -> Result<(), PredictError> {
    let name = axis.label();
    if let Some((a, b)) = value.split_once("..") {
        let a = number(a, "--grid range start")?;
        let b = number(b.trim_start_matches('='), "--grid range end")?;
        if a.fract() != 0.0 || b.fract() != 0.0 || b < a {
            return Err(usage(format!(
                "--grid {name}: expected an integer range A..B with A <= B, found `{value}`"
            )));
        }
        let points = b - a + 1.0 + axis.steps.len() as f64;
        if points > MAX_GRID_POINTS as f64 {
            return Err(usage(format!(
                "--grid {name}: `{value}` gives {points:.0} values, more than the \
                 {MAX_GRID_POINTS} a grid may have"
            )));
        }
        let mut x = a;
        while x <= b {
            axis.steps.push(vec![x]);
            x += 1.0;
        }
    } else {
        if axis.steps.len() >= MAX_GRID_POINTS {
            return Err(usage(format!(
                "--grid {name}: more than the {MAX_GRID_POINTS} values a grid may have"
            )));
        }
        axis.steps
            .push(vec![number(value, &format!("--grid {name}"))?]);
    }
    Ok(())
}

/// Adds one point `item` (`V:V...`, a plain number for every name) to a paired axis.
fn push_paired(axis: &mut Axis, item: &str) -> Result<(), PredictError> {
    let label = axis.label();
    let parts: Vec<&str> = item.split(':').collect();
    if item.contains("..") {
        return Err(usage(format!(
            "--grid {label}: ranges A..B are not allowed in a paired axis's points, found \
             `{item}`; list every point, one value per variable ({label}=V:V,V:V,...)"
        )));
    }
    if parts.len() != axis.names.len() {
        return Err(usage(format!(
            "--grid {label}: expected {} values per point ({label}), found {} in `{item}`",
            axis.names.len(),
            parts.len()
        )));
    }
    if axis.steps.len() >= MAX_GRID_POINTS {
        return Err(usage(format!(
            "--grid {label}: more than the {MAX_GRID_POINTS} points a grid may have"
        )));
    }
    let point = parts
        .iter()
        .zip(&axis.names)
        .map(|(v, n)| number(v, &format!("--grid {label}: {n}")))
        .collect::<Result<Vec<f64>, _>>()?;
    axis.steps.push(point);
    Ok(())
}

/// The first point of a paired axis given twice, as `V:V` (None for a single variable,
/// whose values may repeat as before).
fn point_given_twice(axis: &Axis) -> Option<String> {
    if !axis.is_paired() {
        return None;
    }
    let mut seen = std::collections::HashSet::new();
    axis.steps
        .iter()
        .find(|step| !seen.insert(step.iter().map(|v| (v + 0.0).to_bits()).collect::<Vec<_>>()))
        .map(|step| values_text(step))
}

/// Values joined by `:` as a paired axis's point is written (`256:2000`).
pub fn values_text(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| lca::expr::format_number(*v))
        .collect::<Vec<_>>()
        .join(":")
}

impl Grid {
    /// A grid; a fixed value of a variable that is also on an axis is dropped.
    pub fn new(fixed: Vec<(String, f64)>, axes: Vec<Axis>) -> Grid {
        let fixed = fixed
            .into_iter()
            .filter(|(n, _)| !axes.iter().any(|a| a.names.contains(n)))
            .collect();
        Grid { fixed, axes }
    }

    /// The number of points (saturating).
    pub fn len(&self) -> usize {
        self.axes
            .iter()
            .map(|a| a.steps.len())
            .fold(1usize, usize::saturating_mul)
    }

    /// Whether the grid has no point (an axis without values).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An error when the grid has more than [`MAX_GRID_POINTS`] points.
    pub fn check_size(&self) -> Result<(), PredictError> {
        let n = self.len();
        if n > MAX_GRID_POINTS {
            return Err(usage(format!(
                "the grid has {} points, more than {MAX_GRID_POINTS}",
                if n == usize::MAX {
                    "too many".to_string()
                } else {
                    n.to_string()
                }
            )));
        }
        Ok(())
    }

    /// An error when a variable of a paired axis is on another axis too (the two would
    /// give it different values at one point).
    pub fn check_paired(&self) -> Result<(), PredictError> {
        for (i, a) in self.axes.iter().enumerate() {
            for b in &self.axes[i + 1..] {
                if !a.is_paired() && !b.is_paired() {
                    continue;
                }
                if let Some(n) = a.names.iter().find(|n| b.names.contains(n)) {
                    return Err(usage(format!(
                        "--grid: expected each variable on one axis, found {n} on {} and {}",
                        a.label(),
                        b.label()
                    )));
                }
            }
        }
        Ok(())
    }

    /// All points, the last axis varying fastest; a paired axis's variables take their
    /// values together.
    pub fn points(&self) -> Vec<Bindings> {
        let mut pts = vec![self.fixed.iter().cloned().collect::<Bindings>()];
        for a in &self.axes {
            let mut next = Vec::new();
            for p in &pts {
                for step in &a.steps {
                    let mut q = p.clone();
                    for (n, v) in a.names.iter().zip(step) {
                        q.insert(n.clone(), *v);
                    }
                    next.push(q);
                }
            }
            pts = next;
        }
        pts
    }

    /// Whether there is exactly one point.
    pub fn is_single(&self) -> bool {
        self.axes.iter().all(|a| a.steps.len() == 1)
    }

    /// The variables that change over the grid, every variable of a paired axis among
    /// them.
    pub fn varying(&self) -> Vec<String> {
        self.axes
            .iter()
            .filter(|a| a.steps.len() > 1)
            .flat_map(|a| a.names.iter().cloned())
            .collect()
    }

    /// The axes that change over the grid, by [`Axis::label`] (`n`, `n:steps`): what
    /// crossovers are scanned along.
    pub fn varying_axes(&self) -> Vec<String> {
        self.axes
            .iter()
            .filter(|a| a.steps.len() > 1)
            .map(Axis::label)
            .collect()
    }

    /// The other variables of the paired axis that holds `name` (empty for a variable on
    /// an axis of its own or on none).
    pub fn partners(&self, name: &str) -> Vec<String> {
        self.axes
            .iter()
            .find(|a| a.names.iter().any(|n| n == name))
            .map(|a| a.names.iter().filter(|n| *n != name).cloned().collect())
            .unwrap_or_default()
    }

    /// `p` if it varies, else the first varying variable, else `p`.
    pub fn default_x(&self) -> String {
        let v = self.varying();
        if v.iter().any(|n| n == "p") {
            "p".into()
        } else {
            v.into_iter().next().unwrap_or_else(|| "p".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(spec: &str) -> String {
        match parse_grid(spec) {
            Err(e @ PredictError::Usage(_)) => e.to_string(),
            other => panic!("{spec}: expected a usage error, found {other:?}"),
        }
    }

    #[test]
    fn a_paired_axis_gives_every_name_a_value_per_point() {
        let axes = parse_grid("n:steps=256:2000,512:400,1024:100").unwrap();
        assert_eq!(axes.len(), 1);
        let a = &axes[0];
        assert_eq!(a.names, ["n", "steps"]);
        assert_eq!(a.label(), "n:steps");
        assert!(a.is_paired());
        assert_eq!(
            a.steps,
            vec![vec![256.0, 2000.0], vec![512.0, 400.0], vec![1024.0, 100.0]]
        );
        assert_eq!(a.values_of("steps").unwrap(), [2000.0, 400.0, 100.0]);
        assert_eq!(a.values_of("p"), None);
        // Three names, blanks around the values, a value repeated within one name.
        let axes = parse_grid("a:b:c = 1:2:3, 1 : 5 : 6").unwrap();
        assert_eq!(axes[0].names, ["a", "b", "c"]);
        assert_eq!(
            axes[0].steps,
            vec![vec![1.0, 2.0, 3.0], vec![1.0, 5.0, 6.0]]
        );
        // One variable stays as it was.
        assert_eq!(
            parse_grid("p=1..3").unwrap(),
            vec![Axis::single("p", vec![1.0, 2.0, 3.0])]
        );
    }

    #[test]
    fn a_point_with_too_many_or_too_few_values_says_expected_and_found() {
        assert_eq!(
            err("n:steps=256:2000,1:2:3"),
            "--grid n:steps: expected 2 values per point (n:steps), found 3 in `1:2:3`"
        );
        let e = err("n:steps=256:2000,512");
        assert!(
            e.contains("expected 2 values per point (n:steps), found 1 in `512`"),
            "{e}"
        );
        let e = err("n:steps=256:");
        assert!(
            e.contains("--grid n:steps: steps: expected a number, found ``"),
            "{e}"
        );
    }

    #[test]
    fn ranges_are_not_allowed_inside_a_paired_point() {
        for spec in ["n:steps=1..4:2", "n:steps=256:2000,512:1..3"] {
            let e = err(spec);
            assert!(
                e.contains("--grid n:steps: ranges A..B are not allowed in a paired axis's points"),
                "{e}"
            );
            assert!(e.contains("list every point"), "{e}");
        }
    }

    #[test]
    fn bad_paired_names_and_repeated_points_are_usage_errors() {
        let e = err("n:n=1:2");
        assert!(
            e.contains("expected each variable once, found n twice"),
            "{e}"
        );
        let e = err("n::steps=1:2:3");
        assert!(
            e.contains("expected variable names separated by ':', found ``"),
            "{e}"
        );
        let e = err("n:2x=1:2");
        assert!(e.contains("found `2x`"), "{e}");
        let e = err("n:steps=256:2000,512:400,256:2000");
        assert!(
            e.contains("expected each point once, found `256:2000` twice"),
            "{e}"
        );
        let e = err("n:steps=");
        assert!(e.contains("n:steps"), "{e}");
        let e = err("n:steps=x:1");
        assert!(
            e.contains("--grid n:steps: n: expected a number, found `x`"),
            "{e}"
        );
        // A single variable's errors are unchanged.
        assert_eq!(
            err("2n=1,2"),
            "--grid: expected a variable name, found `2n`"
        );
        // A paired variable on another axis too.
        let axes = [
            parse_grid("n:steps=1:2,3:4").unwrap(),
            parse_grid("n=5").unwrap(),
        ]
        .concat();
        let e = Grid::new(vec![], axes)
            .check_paired()
            .unwrap_err()
            .to_string();
        assert!(e.contains("found n on n:steps and n"), "{e}");
        let single = [parse_grid("n=1").unwrap(), parse_grid("p=1,2").unwrap()].concat();
        assert!(Grid::new(vec![], single).check_paired().is_ok());
    }

    #[test]
    fn a_paired_axis_varies_as_one_in_the_product_with_the_others() {
        // In one spec and as two options: the same grid.
        let one = parse_grid("n:steps=256:2000,512:400,p=1..2").unwrap();
        let two = [
            parse_grid("n:steps=256:2000,512:400").unwrap(),
            parse_grid("p=1..2").unwrap(),
        ]
        .concat();
        assert_eq!(one, two);
        let g = Grid::new(vec![("steps".into(), 7.0), ("m".into(), 3.0)], one);
        assert_eq!(g.fixed, vec![("m".to_string(), 3.0)], "steps is on an axis");
        assert_eq!(g.len(), 4, "2 pairs x 2 p, not 2 x 2 x 2");
        let pts: Vec<Vec<f64>> = g
            .points()
            .iter()
            .map(|b| vec![b["n"], b["steps"], b["p"], b["m"]])
            .collect();
        assert_eq!(
            pts,
            vec![
                vec![256.0, 2000.0, 1.0, 3.0],
                vec![256.0, 2000.0, 2.0, 3.0],
                vec![512.0, 400.0, 1.0, 3.0],
                vec![512.0, 400.0, 2.0, 3.0],
            ]
        );
        assert_eq!(g.varying(), ["n", "steps", "p"]);
        assert_eq!(g.varying_axes(), ["n:steps", "p"]);
        assert_eq!(g.partners("steps"), ["n"]);
        assert!(g.partners("p").is_empty());
        assert_eq!(g.default_x(), "p");
        assert!(!g.is_single());
        let single_pair = Grid::new(vec![], parse_grid("n:steps=1:2").unwrap());
        assert!(single_pair.is_single() && single_pair.varying_axes().is_empty());
    }
}
