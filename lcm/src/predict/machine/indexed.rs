//! Machine keys indexed by a variable: `mem_slowdown_kboth`, `fork_join_s_pq`.
//!
//! Some keys come in families measured at several whole numbers: `mem_slowdown_k1` …
//! `mem_slowdown_k16` (the memory slowdown with K threads at once), `fork_join_s_p1` …,
//! `par_call_s_pQ`, `line_bounce_s_kK`, `transfer_s_B`. A rule that needs such a key at a
//! number only known where the fragment runs (its own processors `p`, or a variable an
//! override binds, such as the threads of every task that runs at once) writes the family
//! followed by the variable's name: `mem_slowdown_kp` is the memory slowdown at the
//! fragment's own processors, `mem_slowdown_kboth` at as many threads as `both` is bound to.
//!
//! [`expand`] replaces each such variable by the family's values interpolated linearly
//! between the measured whole numbers (exact at each of them), held at the first and the
//! last one outside them: a family measured up to the machine's `calibrated_p` says nothing
//! about more threads, and its value there stands in. A
//! variable is taken as indexed only when it is not a key itself, its name is a family's
//! prefix followed by a name that starts with a letter, and the family has at least one
//! value.

use crate::predict::env::is_variable_name;
use lca::expr::{Expr, Func};
use std::collections::BTreeMap;

/// A family's measured point: its index and the key that holds its value.
type Point = (f64, String);

/// The families of `keys`: for every key that ends in digits after a letter or `_`, the
/// prefix with its (index, key) points, sorted by index.
fn families(keys: &BTreeMap<String, f64>) -> BTreeMap<String, Vec<Point>> {
    let mut out: BTreeMap<String, Vec<Point>> = BTreeMap::new();
    for k in keys.keys() {
        let digits = k.bytes().rev().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits == k.len() {
            continue;
        }
        let (prefix, index) = k.split_at(k.len() - digits);
        if !prefix.ends_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            continue;
        }
        if let Ok(i) = index.parse::<f64>() {
            out.entry(prefix.to_string())
                .or_default()
                .push((i, k.clone()));
        }
    }
    for points in out.values_mut() {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The key families of a machine file, found once and applied to every model (see the
/// module docs).
#[derive(Debug, Clone, Default)]
pub struct KeyFamilies {
    /// The file's keys: a variable that is one is never indexed.
    keys: std::collections::BTreeSet<String>,
    /// Each family's prefix with its points.
    families: BTreeMap<String, Vec<Point>>,
}

impl KeyFamilies {
    /// The families of the machine bindings `keys`.
    pub fn of(keys: &BTreeMap<String, f64>) -> KeyFamilies {
        KeyFamilies {
            keys: keys.keys().cloned().collect(),
            families: families(keys),
        }
    }

    /// The family and index variable a variable name stands for, if any.
    fn indexed<'a>(&'a self, name: &'a str) -> Option<(&'a [Point], &'a str)> {
        if self.keys.contains(name) {
            return None;
        }
        self.families
            .iter()
            .filter_map(|(prefix, points)| {
                let rest = name.strip_prefix(prefix.as_str())?;
                is_variable_name(rest).then_some((prefix.len(), (points.as_slice(), rest)))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, found)| found)
    }

    /// `expr` with every variable that names a key family followed by a variable replaced
    /// by the family's interpolation at that variable.
    pub fn expand(&self, expr: &Expr) -> Expr {
        let map: BTreeMap<String, Expr> = expr
            .variables()
            .into_iter()
            .filter_map(|v| {
                let (points, x) = self.indexed(&v)?;
                Some((v.clone(), interpolation(points, x)))
            })
            .collect();
        if map.is_empty() {
            return expr.clone();
        }
        crate::predict::env::substitute(expr, &map)
    }
}

/// The keys of `points` (index, key) interpolated linearly at `x`, held at the ends
/// (`lin(x, i1, key1, i2, key2, …)`; one point: its key everywhere). The keys stay
/// variables, bound to the machine file's values where the model is evaluated, so the
/// composed model names them; the table tells the range warnings where `x` lies beyond
/// the numbers the file measured, one point included.
fn interpolation(points: &[Point], x: &str) -> Expr {
    let mut args = vec![Expr::Var(x.to_string())];
    for (i, key) in points {
        args.push(Expr::Num(*i));
        args.push(Expr::Var(key.clone()));
    }
    Expr::Call(Func::Lin, args)
}

/// `expr` with every variable that names a key family followed by a variable (see the
/// module docs) replaced by the family's interpolation at that variable; `keys` are the
/// machine file's bindings. For many expressions, find the families once with
/// [`KeyFamilies::of`].
pub fn expand(expr: &Expr, keys: &BTreeMap<String, f64>) -> Expr {
    KeyFamilies::of(keys).expand(expr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("mem_slowdown_k1".to_string(), 1.0),
            ("mem_slowdown_k2".to_string(), 1.6),
            ("mem_slowdown_k4".to_string(), 2.0),
            ("par_call_s_p1".to_string(), 1e-7),
            ("latency_s".to_string(), 7e-8),
        ])
    }

    fn at(e: &Expr, vars: &[(&str, f64)]) -> f64 {
        let mut b = keys();
        b.extend(vars.iter().map(|(k, v)| (k.to_string(), *v)));
        e.eval(&b).expect("bound")
    }

    #[test]
    fn a_family_at_a_variable_is_exact_at_its_indices_linear_between_held_beyond() {
        let e = lca::expr::parse("mem_slowdown_kboth / mem_slowdown_kp - 1").unwrap();
        let x = expand(&e, &keys());
        let vars = x.variables();
        assert!(!vars.contains("mem_slowdown_kboth") && !vars.contains("mem_slowdown_kp"));
        assert!(
            vars.contains("mem_slowdown_k4"),
            "the keys stay named: {vars:?}"
        );
        // both = 2, p = 1: the two-thread key over the one-thread key, less 1.
        assert!((at(&x, &[("both", 2.0), ("p", 1.0)]) - 0.6).abs() < 1e-12);
        // both = 3 lies halfway between the measured 2 and 4: 1.8.
        assert!((at(&x, &[("both", 3.0), ("p", 1.0)]) - 0.8).abs() < 1e-12);
        // Beyond the last measured index the value is held: 2.0 at 16.
        assert!((at(&x, &[("both", 16.0), ("p", 4.0)]) - 0.0).abs() < 1e-12);
        assert!((at(&x, &[("both", 16.0), ("p", 0.5)]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn keys_themselves_numbers_and_one_point_families_are_left_or_held() {
        let e = lca::expr::parse("mem_slowdown_k2 + par_call_s_pq + latency_s + mem_slowdown_k8")
            .unwrap();
        let x = expand(&e, &keys());
        let vars = x.variables();
        assert!(vars.contains("mem_slowdown_k2"), "{vars:?}");
        assert!(vars.contains("latency_s"));
        // A key of the family the file lacks (k8) is not indexed by a variable: left as is.
        assert!(vars.contains("mem_slowdown_k8"));
        // A one-point family is its key wherever it is indexed (a table of one point, so
        // that the range warnings see how far q lies from it).
        assert!(!vars.contains("par_call_s_pq"));
        assert!(vars.contains("par_call_s_p1"));
        let one = expand(&lca::expr::parse("par_call_s_pq").unwrap(), &keys());
        assert_eq!(one.to_string(), "lin(q, 1, par_call_s_p1)");
        assert_eq!(at(&one, &[("q", 8.0)]), at(&one, &[("q", 1.0)]));
    }

    #[test]
    fn an_expression_without_indexed_keys_is_unchanged() {
        let e = lca::expr::parse("n * line_bounce_s + p").unwrap();
        assert_eq!(expand(&e, &keys()), e);
    }
}
