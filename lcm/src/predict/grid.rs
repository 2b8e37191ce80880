//! Points to predict at: `--set NAME=VALUE` and `--grid` specifications, and the crossovers
//! of two versions along a grid variable.
//!
//! Grid syntax: `NAME=A..B` (integers A to B inclusive), `NAME=V1,V2,...`, and several
//! variables in one spec separated by commas where a new `NAME=` starts (`n=256,512,p=1..8`).
//!
//! ```
//! use lcm::predict::grid::{parse_grid, Grid};
//! let axes = parse_grid("n=256,512,p=1..3").unwrap();
//! let g = Grid::new(vec![], axes);
//! assert_eq!(g.points().len(), 6);
//! ```

use super::error::PredictError;
use lca::expr::Bindings;
use serde::Serialize;

/// The most points a grid may have (all axes together): each point is a prediction
/// with its accounting, kept for the table.
pub const MAX_GRID_POINTS: usize = 100_000;

/// One grid variable and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The variable.
    pub name: String,
    /// Its values in order.
    pub values: Vec<f64>,
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

/// Parses a grid spec into axes.
pub fn parse_grid(spec: &str) -> Result<Vec<Axis>, PredictError> {
    let mut axes: Vec<Axis> = Vec::new();
    for tok in spec.split(',') {
        let tok = tok.trim();
        if tok.is_empty() {
            continue;
        }
        let value = if let Some((n, v)) = tok.split_once('=') {
            let n = n.trim();
            if !name_ok(n) {
                let paired = if n.contains(':') {
                    " (each axis of lcm's grid is one variable, every combination predicted; \
                     for values that go together, as pp-campaign's `n:steps=256:2000,…`, \
                     predict one pair at a time with --set for the paired variable)"
                } else {
                    ""
                };
                return Err(usage(format!(
                    "--grid: expected a variable name, found `{n}`{paired}"
                )));
            }
            axes.push(Axis {
                name: n.to_string(),
                values: Vec::new(),
            });
            v
        } else {
            tok
        };
        let axis = axes
            .last_mut()
            .ok_or_else(|| usage(format!("--grid: expected NAME=VALUES, found `{spec}`")))?;
        if let Some((a, b)) = value.split_once("..") {
            let a = number(a, "--grid range start")?;
            let b = number(b.trim_start_matches('='), "--grid range end")?;
            if a.fract() != 0.0 || b.fract() != 0.0 || b < a {
                return Err(usage(format!(
                    "--grid {}: expected an integer range A..B with A <= B, found `{value}`",
                    axis.name
                )));
            }
            let points = b - a + 1.0 + axis.values.len() as f64;
            if points > MAX_GRID_POINTS as f64 {
                return Err(usage(format!(
                    "--grid {}: `{value}` gives {points:.0} values, more than the \
                     {MAX_GRID_POINTS} a grid may have",
                    axis.name
                )));
            }
            let mut x = a;
            while x <= b {
                axis.values.push(x);
                x += 1.0;
            }
        } else {
            if axis.values.len() >= MAX_GRID_POINTS {
                return Err(usage(format!(
                    "--grid {}: more than the {MAX_GRID_POINTS} values a grid may have",
                    axis.name
                )));
            }
            axis.values
                .push(number(value, &format!("--grid {}", axis.name))?);
        }
    }
    for a in &axes {
        if a.values.is_empty() {
            return Err(usage(format!("--grid {}: no values", a.name)));
        }
    }
    Ok(axes)
}

impl Grid {
    /// A grid; a fixed value of a variable that is also an axis is dropped.
    pub fn new(fixed: Vec<(String, f64)>, axes: Vec<Axis>) -> Grid {
        let fixed = fixed
            .into_iter()
            .filter(|(n, _)| !axes.iter().any(|a| &a.name == n))
            .collect();
        Grid { fixed, axes }
    }

    /// The number of points (saturating).
    pub fn len(&self) -> usize {
        self.axes
            .iter()
            .map(|a| a.values.len())
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

    /// All points, the last axis varying fastest.
    pub fn points(&self) -> Vec<Bindings> {
        let mut pts = vec![self.fixed.iter().cloned().collect::<Bindings>()];
        for a in &self.axes {
            let mut next = Vec::new();
            for p in &pts {
                for v in &a.values {
                    let mut q = p.clone();
                    q.insert(a.name.clone(), *v);
                    next.push(q);
                }
            }
            pts = next;
        }
        pts
    }

    /// Whether there is exactly one point.
    pub fn is_single(&self) -> bool {
        self.axes.iter().all(|a| a.values.len() == 1)
    }

    /// The variables that change over the grid.
    pub fn varying(&self) -> Vec<String> {
        self.axes
            .iter()
            .filter(|a| a.values.len() > 1)
            .map(|a| a.name.clone())
            .collect()
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

/// Where the better of two versions changes along one variable.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Crossover {
    /// The variable scanned.
    pub variable: String,
    /// The grid values it lies between.
    pub between: (f64, f64),
    /// Linear interpolation of T_a - T_b = 0.
    pub at: f64,
    /// The other variables' values.
    pub others: Vec<(String, f64)>,
    /// `a` or `b`: the version that is better after the crossover.
    pub better_after: String,
}

/// Variable values identifying a group of points.
pub type Point = Vec<(String, f64)>;

/// The crossovers of T_a and T_b (indexed like `points`) along every varying variable.
pub fn crossovers(grid: &Grid, points: &[Bindings], ta: &[f64], tb: &[f64]) -> Vec<Crossover> {
    let diff: Vec<f64> = ta.iter().zip(tb).map(|(a, b)| a - b).collect();
    crossovers_along(&grid.varying(), points, &diff)
}

/// The crossovers along each of `variables` of two versions a and b whose difference
/// T_a − T_b at `points[i]` is `diff[i]` (negative where a is better; a sign is enough when
/// the times are not known, and `at` is then the midpoint). Points are grouped by the values
/// of their other variables; a group's points are scanned in the order of the variable.
pub fn crossovers_along(variables: &[String], points: &[Bindings], diff: &[f64]) -> Vec<Crossover> {
    let mut out = Vec::new();
    for var in variables {
        // Group by the other variables.
        let groups = group_by_others(points, var);
        for (key, mut idx) in groups {
            idx.sort_by(|&a, &b| points[a][var].total_cmp(&points[b][var]));
            for w in idx.windows(2) {
                let (i, j) = (w[0], w[1]);
                let d0 = diff[i];
                let d1 = diff[j];
                if d0 != 0.0 && d1 != 0.0 && (d0 > 0.0) != (d1 > 0.0) {
                    let x0 = points[i][var];
                    let x1 = points[j][var];
                    out.push(Crossover {
                        variable: var.clone(),
                        between: (x0, x1),
                        at: x0 + (x1 - x0) * d0 / (d0 - d1),
                        others: key
                            .iter()
                            .filter(|(k, _)| variables.contains(k))
                            .cloned()
                            .collect(),
                        better_after: if d1 < 0.0 { "a".into() } else { "b".into() },
                    });
                }
            }
        }
    }
    out
}

/// The points grouped by their values of every variable but `var` (groups in order of
/// first appearance, indices in order), in time linear in the points.
pub fn group_by_others(points: &[Bindings], var: &str) -> Vec<(Point, Vec<usize>)> {
    let mut groups: Vec<(Point, Vec<usize>)> = Vec::new();
    let mut index: std::collections::HashMap<Vec<(String, u64)>, usize> =
        std::collections::HashMap::new();
    for (i, p) in points.iter().enumerate() {
        let key: Point = p
            .iter()
            .filter(|(k, _)| *k != var)
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        let bits = key.iter().map(|(k, v)| (k.clone(), v.to_bits())).collect();
        match index.get(&bits) {
            Some(&g) => groups[g].1.push(i),
            None => {
                index.insert(bits, groups.len());
                groups.push((key, vec![i]));
            }
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paired_axis_is_an_error_that_says_how_to_predict_pairs() {
        let e = parse_grid("n:steps=256:2000,512:400")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`n:steps`") && e.contains("--set"), "{e}");
        let e = parse_grid("2n=1,2").unwrap_err().to_string();
        assert!(e.contains("`2n`") && !e.contains("--set"), "{e}");
    }
}
