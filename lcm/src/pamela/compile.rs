//! The compile-time calculus (thesis chapter 3.4, compiler paper section 2.2): for every
//! process, the critical path `phi` (`;` -> +, `||` -> max), the demand vector `delta`
//! (one [`Demand`] per `use`, `;` and `||` add), the contention bound
//! `omega = max_m delta_m / multiplicity_m` (Eq. 3.12), and the lower bound `T` by the
//! recursive rule (Eq. 3.15): `T(a;b) = T(a) + T(b)`, `T(a||b) = max(T(a), T(b), omega(a||b))`,
//! `T(use) = phi`. Simultaneous possession `use({r1,..,rM}, t)` counts as
//! `par (i = 1, M) use(r_i, t)` (Eq. 3.17). `if (c) a else b` becomes `c*X_a + (1-c)*X_b`.
use std::collections::BTreeMap;
use std::sync::Arc;

use super::expr::{Demand, Expr, Func, Reduction};
use super::normal::{NProc, NRes};
use super::simplify::{add, affine, call, div, mul, simplify};

/// phi, T and the demands of a process.
pub(crate) struct Analysis {
    pub phi: Expr,
    pub t: Expr,
    pub demands: Vec<Demand>,
}

fn reduce(op: Reduction, index: &str, lo: &Expr, hi: &Expr, body: Expr) -> Expr {
    simplify(&Expr::Reduce {
        op,
        index: index.to_string(),
        lo: Box::new(lo.clone()),
        hi: Box::new(hi.clone()),
        body: Box::new(body),
    })
}

fn demand_of(r: &NRes, amount: &Expr) -> Demand {
    Demand {
        family: r.family.clone(),
        index: simplify(&r.index),
        multiplicity: simplify(&r.multiplicity),
        amount: amount.clone(),
        loops: Vec::new(),
    }
}

/// Applies the calculus to a process in normal form.
pub(crate) fn analyze(p: &NProc) -> Analysis {
    match p {
        NProc::Nil | NProc::Wait(_) | NProc::Signal(_) => Analysis {
            phi: Expr::Num(0.0),
            t: Expr::Num(0.0),
            demands: Vec::new(),
        },
        NProc::Delay(t) => {
            let m = simplify(&t.mean());
            Analysis {
                phi: m.clone(),
                t: m,
                demands: Vec::new(),
            }
        }
        NProc::Use(rs, t) => {
            let m = simplify(&t.mean());
            let demands: Vec<Demand> = rs.iter().map(|r| demand_of(r, &m)).collect();
            let t = if rs.len() == 1 {
                m.clone()
            } else {
                simplify(&call(Func::Max, vec![m.clone(), omega(&demands)]))
            };
            Analysis { phi: m, t, demands }
        }
        NProc::Seq(v) => {
            let parts: Vec<Analysis> = v.iter().map(analyze).collect();
            let phi = add(parts.iter().map(|a| a.phi.clone()).collect());
            let t = add(parts.iter().map(|a| a.t.clone()).collect());
            let demands = parts.into_iter().flat_map(|a| a.demands).collect();
            Analysis { phi, t, demands }
        }
        NProc::Par(v) => {
            let parts: Vec<Analysis> = v.iter().map(analyze).collect();
            let phi = call(Func::Max, parts.iter().map(|a| a.phi.clone()).collect());
            let mut ts: Vec<Expr> = parts.iter().map(|a| a.t.clone()).collect();
            let demands: Vec<Demand> = parts.into_iter().flat_map(|a| a.demands).collect();
            ts.push(omega(&demands));
            Analysis {
                phi,
                t: call(Func::Max, ts),
                demands,
            }
        }
        NProc::Loop {
            par,
            index,
            lo,
            hi,
            body,
        } => analyze_loop(*par, index, lo, hi, body),
        NProc::If(c, a, b) => analyze_if(c, a, b),
    }
}

/// A loop `for`/`par (index = lo, hi) body`: the body's demands gain the loop; a
/// sequential loop sums phi and T over the index, a parallel one takes their maximum and
/// T at least the loop's contention bound omega.
fn analyze_loop(par: bool, index: &str, lo: &Expr, hi: &Expr, body: &NProc) -> Analysis {
    let b = analyze(body);
    let lo = simplify(lo);
    let hi = simplify(hi);
    let demands: Vec<Demand> = b
        .demands
        .into_iter()
        .map(|mut d| {
            d.loops
                .insert(0, (index.to_string(), lo.clone(), hi.clone()));
            d
        })
        .collect();
    if par {
        let phi = reduce(Reduction::Max, index, &lo, &hi, b.phi);
        let tmax = reduce(Reduction::Max, index, &lo, &hi, b.t);
        let om = omega(&demands);
        Analysis {
            phi,
            t: call(Func::Max, vec![tmax, om]),
            demands,
        }
    } else {
        Analysis {
            phi: reduce(Reduction::Sum, index, &lo, &hi, b.phi),
            t: reduce(Reduction::Sum, index, &lo, &hi, b.t),
            demands,
        }
    }
}

/// `if (c) a else b`: a constant condition picks a branch; otherwise phi and T are
/// `c*X_a + (1-c)*X_b` and each branch's demands are weighed by its probability.
fn analyze_if(c: &Expr, a: &NProc, b: &NProc) -> Analysis {
    let c = simplify(c);
    match c.as_num() {
        Some(1.0) => return analyze(a),
        Some(0.0) => return analyze(b),
        _ => {}
    }
    let (a, b) = (analyze(a), analyze(b));
    let not_c = add(vec![Expr::Num(1.0), mul(vec![Expr::Num(-1.0), c.clone()])]);
    let weigh = |x: Expr, y: Expr| add(vec![mul(vec![c.clone(), x]), mul(vec![not_c.clone(), y])]);
    let mut demands: Vec<Demand> = Vec::new();
    for mut d in a.demands {
        d.amount = mul(vec![c.clone(), d.amount]);
        demands.push(d);
    }
    for mut d in b.demands {
        d.amount = mul(vec![not_c.clone(), d.amount]);
        demands.push(d);
    }
    demands.retain(|d| d.amount.as_num() != Some(0.0));
    Analysis {
        phi: weigh(a.phi, b.phi),
        t: weigh(a.t, b.t),
        demands,
    }
}

/// A demand after summing out the loops its resource does not depend on.
struct Folded {
    family: String,
    index: Expr,
    multiplicity: Expr,
    amount: Expr,
    kept: Vec<(String, Expr, Expr)>,
}

fn fold(d: &Demand) -> Folded {
    let mut amount = d.amount.clone();
    let mut kept: Vec<(String, Expr, Expr)> = Vec::new();
    for (i, lo, hi) in d.loops.iter().rev() {
        let needed = d.index.mentions(i)
            || d.multiplicity.mentions(i)
            || kept.iter().any(|(_, l, h)| l.mentions(i) || h.mentions(i));
        if needed {
            kept.insert(0, (i.clone(), lo.clone(), hi.clone()));
        } else {
            amount = reduce(Reduction::Sum, i, lo, hi, amount);
        }
    }
    Folded {
        family: d.family.clone(),
        index: d.index.clone(),
        multiplicity: d.multiplicity.clone(),
        amount,
        kept,
    }
}

/// omega = max over resources of total demand / multiplicity (Eq. 3.12), symbolic where the
/// resources of a family can be told apart symbolically, numeric (a [`Expr::Contention`]
/// node) where they cannot.
pub(crate) fn omega(demands: &[Demand]) -> Expr {
    let mut families: BTreeMap<String, Vec<Folded>> = BTreeMap::new();
    for d in demands {
        if d.amount.as_num() == Some(0.0) {
            continue;
        }
        let f = fold(d);
        families.entry(f.family.clone()).or_default().push(f);
    }
    let mut terms = Vec::new();
    for (_, fs) in families {
        terms.push(family_omega(fs));
    }
    simplify(&call(Func::Max, terms))
}

fn numeric_fallback(fs: Vec<Folded>) -> Expr {
    let ds: Vec<Demand> = fs
        .into_iter()
        .map(|f| Demand {
            family: f.family,
            index: f.index,
            multiplicity: f.multiplicity,
            amount: f.amount,
            loops: f.kept,
        })
        .collect();
    Expr::Contention(Arc::new(ds))
}

fn family_omega(fs: Vec<Folded>) -> Expr {
    // all demands on fixed resources
    if fs.iter().all(|f| f.kept.is_empty()) {
        let mut groups: Vec<(Expr, Expr, Vec<Expr>)> = Vec::new();
        for f in &fs {
            match groups.iter_mut().find(|g| g.0 == f.index) {
                Some(g) => g.2.push(f.amount.clone()),
                None => groups.push((
                    f.index.clone(),
                    f.multiplicity.clone(),
                    vec![f.amount.clone()],
                )),
            }
        }
        let distinct = groups.len() == 1 || groups.iter().all(|g| g.0.as_num().is_some());
        if distinct {
            return call(
                Func::Max,
                groups.into_iter().map(|(_, m, a)| div(add(a), m)).collect(),
            );
        }
        return numeric_fallback(fs);
    }
    // one spread demand: index affine and injective in its only kept loop
    if fs.len() == 1 && fs[0].kept.len() == 1 {
        let f = &fs[0];
        let (v, lo, hi) = &f.kept[0];
        if let Some((a, _)) = affine(&f.index, v) {
            if simplify(&a).as_num().is_some_and(|a| a != 0.0) && !f.multiplicity.mentions(v) {
                return reduce(
                    Reduction::Max,
                    v,
                    lo,
                    hi,
                    div(f.amount.clone(), f.multiplicity.clone()),
                );
            }
        }
    }
    // several spread demands with the same index function over the same range
    if fs.iter().all(|f| f.kept.len() == 1) {
        let (v0, lo0, hi0) = fs[0].kept[0].clone();
        let canon = Expr::Var(v0.clone());
        let same = fs.iter().all(|f| {
            let (v, lo, hi) = &f.kept[0];
            lo == &lo0
                && hi == &hi0
                && f.index.substitute(v, &canon) == fs[0].index
                && f.multiplicity.substitute(v, &canon) == fs[0].multiplicity
        });
        if same {
            if let Some((a, _)) = affine(&fs[0].index, &v0) {
                if simplify(&a).as_num().is_some_and(|a| a != 0.0)
                    && !fs[0].multiplicity.mentions(&v0)
                {
                    let total = add(fs
                        .iter()
                        .map(|f| f.amount.substitute(&f.kept[0].0, &canon))
                        .collect());
                    return reduce(
                        Reduction::Max,
                        &v0,
                        &lo0,
                        &hi0,
                        div(total, fs[0].multiplicity.clone()),
                    );
                }
            }
        }
    }
    numeric_fallback(fs)
}
