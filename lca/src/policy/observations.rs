//! Honest data: what the records of one fragment and category say, one observation per
//! configuration.
//!
//! - **Repetitions** (several records at the same values of every variable) become one
//!   observation, their **median** (see the [module docs](super) for why the median).
//! - **Copies**: a value that is the same number in every record along `p` for a given size
//!   (pure computation `pc` is the p = 1 busy time that `pp` copies into every p > 1 record of
//!   that size) is one observation per size, fitted without `p`.
//!
//! Every observation keeps a *scale*: the fragment's total processor-time `tt` at that
//! configuration (the category value itself where a record has no `tt`). Held-out errors
//! are relative to it, so a category is judged by the error it causes in the fragment's
//! time, not by its own relative error (a category that is 1 % of the time and changes sign
//! with noise, like `ml`, cannot dominate the choice).

use crate::dataset::{DataPoint, Dataset};
use crate::record::{Record, RecordError};
use std::collections::BTreeMap;

/// The records of one configuration: its variables, values, scales and first line.
type Group = (Vec<f64>, Vec<f64>, Vec<f64>, usize);

/// One category's observations: one point per configuration, with its scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Observations {
    /// The points (variables in `data.variables` order, y = median of the repetitions).
    pub data: Dataset,
    /// Per point: the fragment's total processor-time there (median), the error scale.
    pub scale: Vec<f64>,
    /// Records read (before repetitions and copies were merged).
    pub records: usize,
}

impl Observations {
    /// Reads `category` over `variables` from `records` (already selected: one fragment).
    /// Records without the category or a variable are skipped; a value that is not a
    /// number is an error naming its line.
    pub fn from_records(
        records: &[&Record],
        source: &str,
        category: &str,
        variables: &[String],
    ) -> Result<Observations, RecordError> {
        let mut groups: BTreeMap<Vec<u64>, Group> = BTreeMap::new();
        let mut count = 0;
        for r in records {
            if !variables.iter().all(|v| r.has(v)) {
                continue;
            }
            let Some(y) = r.category(category)? else {
                continue;
            };
            let mut x = Vec::with_capacity(variables.len());
            for v in variables {
                x.push(r.number(v)?);
            }
            let s = r.category("tt")?.filter(|t| *t > 0.0).unwrap_or(y.abs());
            let key = x.iter().map(|v| v.to_bits()).collect();
            let g = groups
                .entry(key)
                .or_insert_with(|| (x, Vec::new(), Vec::new(), r.line()));
            g.1.push(y);
            g.2.push(s);
            count += 1;
        }
        let mut points = Vec::new();
        let mut scale = Vec::new();
        for (_, (x, ys, ss, line)) in groups {
            points.push(DataPoint {
                x,
                y: median(ys),
                line,
            });
            scale.push(median(ss));
        }
        // Points in the order of the variables' values (configurations), as the groups are
        // keyed by bit patterns, which sort positive numbers by value.
        Ok(Observations {
            data: Dataset {
                source: source.into(),
                category: category.into(),
                variables: variables.to_vec(),
                points,
            },
            scale,
            records: count,
        })
    }

    /// Number of observations.
    pub fn len(&self) -> usize {
        self.data.points.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.data.points.is_empty()
    }

    /// The observations where `keep` holds.
    pub fn filter(&self, keep: impl Fn(&DataPoint) -> bool) -> Observations {
        self.filter_index(|i| keep(&self.data.points[i]))
    }

    /// The observations whose index `keep` accepts.
    pub fn filter_index(&self, keep: impl Fn(usize) -> bool) -> Observations {
        let mut out = self.clone();
        out.data.points.clear();
        out.scale.clear();
        for (i, (pt, s)) in self.data.points.iter().zip(&self.scale).enumerate() {
            if keep(i) {
                out.data.points.push(pt.clone());
                out.scale.push(*s);
            }
        }
        out
    }

    /// When the value does not change along variable `var` for any fixed value of the other
    /// variables (a copy: `pc` from the baseline), one observation per value of the others,
    /// without `var`: the one at `var = at` where there is one (the measured original),
    /// else the common value. None when some value changes along `var` or nothing repeats.
    pub fn collapse_copies(&self, var: &str, at: f64) -> Option<Observations> {
        let vi = self.data.variables.iter().position(|v| v == var)?;
        let mut groups: BTreeMap<Vec<u64>, Vec<usize>> = BTreeMap::new();
        for (i, pt) in self.data.points.iter().enumerate() {
            let key = other_key(&pt.x, vi);
            groups.entry(key).or_default().push(i);
        }
        if groups.values().all(|g| g.len() < 2) {
            return None;
        }
        let mut out = self.clone();
        out.data.variables.remove(vi);
        out.data.points.clear();
        out.scale.clear();
        for g in groups.values() {
            let first = &self.data.points[g[0]];
            if g.iter().any(|&i| self.data.points[i].y != first.y) {
                return None;
            }
            let pick = g
                .iter()
                .copied()
                .find(|&i| self.data.points[i].x[vi] == at)
                .unwrap_or(g[0]);
            let mut pt = self.data.points[pick].clone();
            pt.x.remove(vi);
            out.data.points.push(pt);
            out.scale.push(self.scale[pick]);
        }
        Some(out)
    }

    /// The observations at `var = value`, without `var` (pure computation from the p = 1
    /// records). None when there is none.
    pub fn at(&self, var: &str, value: f64) -> Option<Observations> {
        let vi = self.data.variables.iter().position(|v| v == var)?;
        let mut out = self.filter(|pt| pt.x[vi] == value);
        if out.is_empty() {
            return None;
        }
        out.data.variables.remove(vi);
        for pt in &mut out.data.points {
            pt.x.remove(vi);
        }
        Some(out)
    }
}

fn other_key(x: &[f64], skip: usize) -> Vec<u64> {
    x.iter()
        .enumerate()
        .filter(|(j, _)| *j != skip)
        .map(|(_, v)| v.to_bits())
        .collect()
}

/// The median (mean of the two middle values for an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::parse_records;

    #[test]
    fn repetitions_become_their_median_and_copies_one_point_per_size() {
        let text = "n=1 p=1 pc=1 tt=1\nn=1 p=1 pc=3 tt=3\nn=1 p=1 pc=2 tt=2\n\
                    n=1 p=2 pc=2 tt=5\nn=2 p=1 pc=7 tt=7\nn=2 p=2 pc=7 tt=9\n";
        let recs = parse_records(text).unwrap();
        let refs: Vec<&Record> = recs.iter().collect();
        let vars = vec!["n".to_string(), "p".to_string()];
        let o = Observations::from_records(&refs, "t", "pc", &vars).unwrap();
        assert_eq!(o.records, 6);
        assert_eq!(o.len(), 4);
        assert_eq!(o.data.points[0].y, 2.0);
        assert_eq!(o.scale[0], 2.0);
        let c = o.collapse_copies("p", 1.0).unwrap();
        assert_eq!(c.data.variables, ["n"]);
        assert_eq!(c.len(), 2);
        assert_eq!(c.data.ys(), [2.0, 7.0]);
        // tt changes along p: not a copy.
        let t = Observations::from_records(&refs, "t", "tt", &vars).unwrap();
        assert!(t.collapse_copies("p", 1.0).is_none());
        let one = t.at("p", 1.0).unwrap();
        assert_eq!(one.data.ys(), [2.0, 7.0]);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
