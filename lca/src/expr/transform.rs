//! Structural transformations: variables used, additive terms, renaming, substitution and
//! linear combinations (how fitted models are written).

use super::ast::{BinOp, Expr};
use std::collections::{BTreeMap, BTreeSet};

impl Expr {
    /// The names of the variables the expression uses.
    pub fn variables(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(n) => {
                out.insert(n.clone());
            }
            Expr::Neg(e) => e.collect_vars(out),
            Expr::Bin(_, a, b) => {
                a.collect_vars(out);
                b.collect_vars(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_vars(out)),
        }
    }

    /// The top-level additive terms with their signs: `a - b + c` gives
    /// `[(+1, a), (-1, b), (+1, c)]`; a leading unary minus gives sign -1.
    pub fn additive_terms(&self) -> Vec<(f64, Expr)> {
        let mut out = Vec::new();
        self.collect_terms(1.0, &mut out);
        out
    }

    fn collect_terms(&self, sign: f64, out: &mut Vec<(f64, Expr)>) {
        match self {
            Expr::Bin(BinOp::Add, a, b) => {
                a.collect_terms(sign, out);
                b.collect_terms(sign, out);
            }
            Expr::Bin(BinOp::Sub, a, b) => {
                a.collect_terms(sign, out);
                b.collect_terms(-sign, out);
            }
            Expr::Neg(e) => e.collect_terms(-sign, out),
            other => out.push((sign, other.clone())),
        }
    }

    /// Replaces every variable named in `renames` by the given name (`x0` → `n`).
    pub fn rename_vars(&self, renames: &BTreeMap<String, String>) -> Expr {
        match self {
            Expr::Num(v) => Expr::Num(*v),
            Expr::Var(n) => Expr::Var(renames.get(n).cloned().unwrap_or_else(|| n.clone())),
            Expr::Neg(e) => Expr::Neg(Box::new(e.rename_vars(renames))),
            Expr::Bin(op, a, b) => Expr::bin(*op, a.rename_vars(renames), b.rename_vars(renames)),
            Expr::Call(f, args) => {
                Expr::Call(*f, args.iter().map(|a| a.rename_vars(renames)).collect())
            }
        }
    }

    /// Replaces every variable that has an entry in `subst` by that expression.
    pub fn substitute(&self, subst: &BTreeMap<String, Expr>) -> Expr {
        match self {
            Expr::Num(v) => Expr::Num(*v),
            Expr::Var(n) => subst
                .get(n)
                .cloned()
                .unwrap_or_else(|| Expr::Var(n.clone())),
            Expr::Neg(e) => Expr::Neg(Box::new(e.substitute(subst))),
            Expr::Bin(op, a, b) => Expr::bin(*op, a.substitute(subst), b.substitute(subst)),
            Expr::Call(f, args) => {
                Expr::Call(*f, args.iter().map(|a| a.substitute(subst)).collect())
            }
        }
    }

    /// Sum of terms `c_k * t_k`, dropping exact-zero coefficients, writing negative ones
    /// with `-`, and leaving out a factor 1. An empty sum is `0`.
    pub fn linear_combination(terms: &[(f64, Expr)]) -> Expr {
        let mut acc: Option<Expr> = None;
        for (c, t) in terms {
            if *c == 0.0 {
                continue;
            }
            let is_one = matches!(t, Expr::Num(v) if *v == 1.0);
            let mag = c.abs();
            let piece = if is_one {
                Expr::Num(mag)
            } else if mag == 1.0 {
                t.clone()
            } else {
                mul_front(mag, t)
            };
            acc = Some(match acc {
                None if *c < 0.0 => Expr::Neg(Box::new(piece)),
                None => piece,
                Some(a) if *c < 0.0 => Expr::bin(BinOp::Sub, a, piece),
                Some(a) => Expr::bin(BinOp::Add, a, piece),
            });
        }
        acc.unwrap_or(Expr::Num(0.0))
    }
}

/// `c * t` written as a flat product (`3*p*sqrt(p)`, `3*a/b`) so it prints without
/// parentheses and re-parses to the same tree.
fn mul_front(c: f64, t: &Expr) -> Expr {
    match t {
        Expr::Bin(op @ (BinOp::Mul | BinOp::Div), a, b) => {
            Expr::bin(*op, mul_front(c, a), (**b).clone())
        }
        _ => Expr::bin(BinOp::Mul, Expr::Num(c), t.clone()),
    }
}
