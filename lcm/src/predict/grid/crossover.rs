//! Crossovers: where the better of two versions changes along a grid axis, one variable
//! (scanned in the order of its values) or a paired axis (`n:steps`, scanned in the order
//! its points were given, every paired variable interpolated at the crossover).

use super::{values_text, Grid};
use lca::expr::Bindings;
use serde::Serialize;

/// Where the better of two versions changes along one axis.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Crossover {
    /// The axis scanned: a variable, or paired variables joined by `:` (`n:steps`).
    pub variable: String,
    /// The grid values it lies between (of a paired axis: its first variable's).
    pub between: (f64, f64),
    /// Linear interpolation of T_a - T_b = 0 (of a paired axis: its first variable's).
    pub at: f64,
    /// The other variables' values.
    pub others: Vec<(String, f64)>,
    /// `a` or `b`: the version that is better after the crossover.
    pub better_after: String,
    /// Every variable of a paired axis (None, and absent from JSON, along one variable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairedCrossover>,
}

/// A crossover along a paired axis: each paired variable at the two points it lies
/// between and where it is interpolated.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PairedCrossover {
    /// The paired variables, in the order given (`n`, `steps`).
    pub variables: Vec<String>,
    /// Their values at the two points, in the order of `variables`.
    pub between: (Vec<f64>, Vec<f64>),
    /// Each one interpolated at the crossover, as `at` is.
    pub at: Vec<f64>,
}

impl Crossover {
    /// The variables of the axis: one, or the paired ones.
    pub fn variables(&self) -> Vec<&str> {
        axis_variables(&self.variable)
    }

    /// The two points' values of every variable of the axis, in the order of
    /// [`Crossover::variables`].
    pub fn between_values(&self) -> (Vec<f64>, Vec<f64>) {
        match &self.paired {
            Some(p) => p.between.clone(),
            None => (vec![self.between.0], vec![self.between.1]),
        }
    }

    /// Every variable of the axis interpolated at the crossover.
    pub fn at_values(&self) -> Vec<f64> {
        match &self.paired {
            Some(p) => p.at.clone(),
            None => vec![self.at],
        }
    }

    /// `n:steps = 256:2000 and 512:400`: the points it lies between, naming a paired
    /// axis's variables (None along one variable).
    pub fn paired_between_text(&self) -> Option<String> {
        let p = self.paired.as_ref()?;
        Some(format!(
            "{} = {} and {}",
            self.variable,
            values_text(&p.between.0),
            values_text(&p.between.1)
        ))
    }
}

/// Variable values identifying a group of points.
pub type Point = Vec<(String, f64)>;

/// An axis's variables from its label: `n` gives `["n"]`, `n:steps` gives `["n", "steps"]`.
pub fn axis_variables(axis: &str) -> Vec<&str> {
    axis.split(':').collect()
}

/// Whether `name` is a variable of one of the axes `axes` (labels).
fn on_axes(axes: &[String], name: &str) -> bool {
    axes.iter().any(|a| axis_variables(a).contains(&name))
}

/// Where along an axis T_a − T_b is taken to cross zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Crossing {
    /// At point i (where the difference is zero).
    At(usize),
    /// Linearly between points i and j, whose differences are d0 and d1 (opposite signs).
    Linear {
        /// The first point.
        i: usize,
        /// The second point.
        j: usize,
        /// T_a − T_b at i.
        d0: f64,
        /// T_a − T_b at j.
        d1: f64,
    },
    /// Halfway between points i and j.
    Mid(usize, usize),
}

impl Crossing {
    /// The value of variable `var` at the crossing.
    pub fn value(&self, points: &[Bindings], var: &str) -> f64 {
        match *self {
            Crossing::At(i) => points[i][var],
            Crossing::Linear { i, j, d0, d1 } => {
                let (x0, x1) = (points[i][var], points[j][var]);
                x0 + (x1 - x0) * d0 / (d0 - d1)
            }
            Crossing::Mid(i, j) => (points[i][var] + points[j][var]) / 2.0,
        }
    }
}

/// The crossover along `axis` (a label: `n` or `n:steps`) between points `i` and `j`, at
/// `at`; `key` holds the other variables' values, those on `axes` kept as `others`.
pub fn crossover_between(
    axis: &str,
    axes: &[String],
    points: &[Bindings],
    (i, j): (usize, usize),
    at: Crossing,
    key: &Point,
    better_after: &str,
) -> Crossover {
    let names = axis_variables(axis);
    let first = names[0];
    let values = |k: usize| names.iter().map(|n| points[k][*n]).collect::<Vec<f64>>();
    let paired = (names.len() > 1).then(|| PairedCrossover {
        variables: names.iter().map(|n| n.to_string()).collect(),
        between: (values(i), values(j)),
        at: names.iter().map(|n| at.value(points, n)).collect(),
    });
    Crossover {
        variable: axis.to_string(),
        between: (points[i][first], points[j][first]),
        at: at.value(points, first),
        others: key
            .iter()
            .filter(|(k, _)| on_axes(axes, k))
            .cloned()
            .collect(),
        better_after: better_after.into(),
        paired,
    }
}

/// The crossovers of T_a and T_b (indexed like `points`) along every varying axis.
pub fn crossovers(grid: &Grid, points: &[Bindings], ta: &[f64], tb: &[f64]) -> Vec<Crossover> {
    let diff: Vec<f64> = ta.iter().zip(tb).map(|(a, b)| a - b).collect();
    crossovers_along(&grid.varying_axes(), points, &diff)
}

/// The crossovers along each of `variables` of two versions a and b whose difference
/// T_a − T_b at `points[i]` is `diff[i]` (negative where a is better; a sign is enough when
/// the times are not known, and `at` is then the midpoint). An entry `n:steps` is a paired
/// axis. Points are grouped by the values of their other variables and scanned along the
/// axis ([`runs_along`]).
pub fn crossovers_along(variables: &[String], points: &[Bindings], diff: &[f64]) -> Vec<Crossover> {
    let mut out = Vec::new();
    for var in variables {
        for (key, idx) in runs_along(points, var) {
            for w in idx.windows(2) {
                let (i, j) = (w[0], w[1]);
                let d0 = diff[i];
                let d1 = diff[j];
                if d0 != 0.0 && d1 != 0.0 && (d0 > 0.0) != (d1 > 0.0) {
                    let at = Crossing::Linear { i, j, d0, d1 };
                    let better = if d1 < 0.0 { "a" } else { "b" };
                    out.push(crossover_between(
                        var,
                        variables,
                        points,
                        (i, j),
                        at,
                        &key,
                        better,
                    ));
                }
            }
        }
    }
    out
}

/// The points grouped by their values of every variable but those of `axis` (a label:
/// `n` or `n:steps`), each group's indices in their order along it: ascending values of a
/// single variable, the order of `points` (the grid's, that of the pairs given) along a
/// paired axis.
pub fn runs_along(points: &[Bindings], axis: &str) -> Vec<(Point, Vec<usize>)> {
    let names = axis_variables(axis);
    let mut groups = group_by_others_of(points, &names);
    if let [var] = names[..] {
        for (_, idx) in &mut groups {
            idx.sort_by(|&a, &b| points[a][var].total_cmp(&points[b][var]));
        }
    }
    groups
}

/// The points grouped by their values of every variable but `var` (groups in order of
/// first appearance, indices in order), in time linear in the points.
pub fn group_by_others(points: &[Bindings], var: &str) -> Vec<(Point, Vec<usize>)> {
    group_by_others_of(points, &[var])
}

/// The points grouped by their values of every variable but those of `vars` (as
/// [`group_by_others`]).
pub fn group_by_others_of(points: &[Bindings], vars: &[&str]) -> Vec<(Point, Vec<usize>)> {
    let mut groups: Vec<(Point, Vec<usize>)> = Vec::new();
    let mut index: std::collections::HashMap<Vec<(String, u64)>, usize> =
        std::collections::HashMap::new();
    for (i, p) in points.iter().enumerate() {
        let key: Point = p
            .iter()
            .filter(|(k, _)| !vars.contains(&k.as_str()))
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
    use crate::predict::grid::parse_grid;

    #[test]
    fn crossovers_along_a_paired_axis_name_the_pair_in_the_order_given() {
        // n falls while steps rises: the pairs' order, not n's, is the axis.
        let g = Grid::new(
            vec![],
            [
                parse_grid("n:steps=512:100,256:200,128:400").unwrap(),
                parse_grid("p=1,2").unwrap(),
            ]
            .concat(),
        );
        let pts = g.points();
        // a better at the first pair, b from the second on, at either p.
        let ta: Vec<f64> = pts
            .iter()
            .map(|b| if b["n"] == 512.0 { 1.0 } else { 3.0 })
            .collect();
        let tb = vec![2.0; pts.len()];
        let c = crossovers(&g, &pts, &ta, &tb);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].variable, "n:steps");
        assert_eq!(c[0].between, (512.0, 256.0));
        assert_eq!(c[0].at, 384.0);
        assert_eq!(c[0].others, vec![("p".to_string(), 1.0)]);
        assert_eq!(c[0].better_after, "b");
        let paired = c[0].paired.as_ref().unwrap();
        assert_eq!(paired.variables, ["n", "steps"]);
        assert_eq!(paired.between, (vec![512.0, 100.0], vec![256.0, 200.0]));
        assert_eq!(paired.at, [384.0, 150.0]);
        assert_eq!(
            c[0].paired_between_text().unwrap(),
            "n:steps = 512:100 and 256:200"
        );
        let json = serde_json::to_value(&c[0]).unwrap();
        assert_eq!(json["paired"]["at"], serde_json::json!([384.0, 150.0]));
        // Along one variable nothing is paired, and JSON has no `paired`.
        let g = Grid::new(vec![], parse_grid("p=1..2").unwrap());
        let c = crossovers(&g, &g.points(), &[1.0, 3.0], &[2.0, 2.0]);
        assert_eq!((c[0].between, c[0].at), ((1.0, 2.0), 1.5));
        assert!(c[0].paired.is_none());
        assert!(serde_json::to_value(&c[0]).unwrap().get("paired").is_none());
    }
}
