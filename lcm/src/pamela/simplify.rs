//! Symbolic simplification of time models: constant folding, like-term collection,
//! flattening of `max`/`min`, and closed forms for reductions so that regular models
//! evaluate at a cost independent of their loop bounds.
//!
//! Assumptions (the usual ones of the PAMELA calculus): symbolic loop ranges are
//! non-empty (`hi >= lo`; a `sum` over a symbolic range `lo..hi` becomes
//! `(hi - lo + 1) * body`), and parameters are non-negative (so `max(a*X, b*X)` with
//! constants `a >= b >= 0` is `a*X`). Numeric ranges are handled exactly.
use std::collections::HashMap;

use super::expr::{bx, CmpOp, Expr, Func, Reduction};

/// Simplifies an expression (idempotent).
pub fn simplify(e: &Expr) -> Expr {
    match e {
        Expr::Num(_) | Expr::Var(_) | Expr::Contention(_) | Expr::TimeEquations(_) => e.clone(),
        Expr::Apply(n, v) => Expr::Apply(n.clone(), v.iter().map(simplify).collect()),
        Expr::Add(v) => add(v.iter().map(simplify).collect()),
        Expr::Mul(v) => mul(v.iter().map(simplify).collect()),
        Expr::Div(a, b) => div(simplify(a), simplify(b)),
        Expr::Pow(a, b) => pow(simplify(a), simplify(b)),
        Expr::Mod(a, b) => {
            let (a, b) = (simplify(a), simplify(b));
            match (a.as_num(), b.as_num()) {
                (Some(x), Some(y)) if y != 0.0 => Expr::Num(fmod(x, y)),
                _ => Expr::Mod(bx(a), bx(b)),
            }
        }
        Expr::IDiv(a, b) => {
            let (a, b) = (simplify(a), simplify(b));
            match (a.as_num(), b.as_num()) {
                (Some(x), Some(y)) if y != 0.0 => Expr::Num((x / y).floor()),
                (_, Some(1.0)) => Expr::Call(Func::Floor, vec![a]),
                _ => Expr::IDiv(bx(a), bx(b)),
            }
        }
        Expr::Cmp(o, a, b) => {
            let (a, b) = (simplify(a), simplify(b));
            match (a.as_num(), b.as_num()) {
                (Some(x), Some(y)) => Expr::Num(o.apply(x, y)),
                _ if a == b && matches!(o, CmpOp::Eq | CmpOp::Le | CmpOp::Ge) => Expr::Num(1.0),
                _ if a == b => Expr::Num(0.0),
                _ => Expr::Cmp(*o, bx(a), bx(b)),
            }
        }
        Expr::Call(f, v) => call(*f, v.iter().map(simplify).collect()),
        Expr::If(c, a, b) => {
            let c = simplify(c);
            match c.as_num() {
                Some(x) if x != 0.0 => simplify(a),
                Some(_) => simplify(b),
                None => {
                    let (a, b) = (simplify(a), simplify(b));
                    if a == b {
                        a
                    } else {
                        Expr::If(bx(c), bx(a), bx(b))
                    }
                }
            }
        }
        Expr::Reduce {
            op,
            index,
            lo,
            hi,
            body,
        } => reduce(*op, index, simplify(lo), simplify(hi), simplify(body)),
    }
}

/// Mathematical modulus (sign of the divisor).
pub fn fmod(a: f64, b: f64) -> f64 {
    a - b * (a / b).floor()
}

/// Printed form used as a structural key.
fn key(e: &Expr) -> String {
    format!("{e}")
}

/// Splits a term into (numeric coefficient, other factors).
fn split_term(e: &Expr) -> (f64, Vec<Expr>) {
    match e {
        Expr::Num(v) => (*v, Vec::new()),
        Expr::Mul(v) => {
            let mut c = 1.0;
            let mut f = Vec::new();
            for x in v {
                match x.as_num() {
                    Some(n) => c *= n,
                    None => f.push(x.clone()),
                }
            }
            (c, f)
        }
        _ => (1.0, vec![e.clone()]),
    }
}

fn monomial_key(f: &[Expr]) -> String {
    let mut k: Vec<String> = f.iter().map(key).collect();
    k.sort();
    k.join("*")
}

fn build_term(c: f64, f: Vec<Expr>) -> Expr {
    if c == 0.0 {
        return Expr::Num(0.0);
    }
    if f.is_empty() {
        return Expr::Num(c);
    }
    let mut v = f;
    if v.len() == 1 && (c == 1.0 || c == -1.0) {
        let x = v.remove(0);
        return if c == 1.0 {
            x
        } else {
            Expr::Mul(vec![Expr::Num(-1.0), x])
        };
    }
    if c == -1.0 {
        v.insert(0, Expr::Num(-1.0));
    } else if c != 1.0 {
        v.push(Expr::Num(c));
    }
    Expr::Mul(v)
}

/// Sum of already simplified terms.
pub(crate) fn add(v: Vec<Expr>) -> Expr {
    let mut flat = Vec::new();
    for t in v {
        match t {
            Expr::Add(inner) => flat.extend(inner),
            t => flat.push(t),
        }
    }
    let mut constant = 0.0;
    let mut order: Vec<String> = Vec::new();
    let mut terms: HashMap<String, (f64, Vec<Expr>)> = HashMap::new();
    for t in flat {
        let (c, f) = split_term(&t);
        if f.is_empty() {
            constant += c;
            continue;
        }
        let k = monomial_key(&f);
        match terms.get_mut(&k) {
            Some(e) => e.0 += c,
            None => {
                order.push(k.clone());
                terms.insert(k, (c, f));
            }
        }
    }
    let mut out: Vec<Expr> = Vec::new();
    for k in order {
        let Some((c, f)) = terms.remove(&k) else {
            continue;
        };
        if c != 0.0 && c.abs() > 1e-300 {
            out.push(build_term(c, f));
        }
    }
    if constant != 0.0 || out.is_empty() {
        out.push(Expr::Num(constant));
    }
    match out.pop() {
        Some(only) if out.is_empty() => only,
        Some(last) => {
            out.push(last);
            Expr::Add(out)
        }
        None => Expr::Num(0.0),
    }
}

/// Product of already simplified factors.
pub(crate) fn mul(v: Vec<Expr>) -> Expr {
    let mut c = 1.0;
    let mut f: Vec<Expr> = Vec::new();
    let mut stack: Vec<Expr> = v.into_iter().rev().collect();
    while let Some(x) = stack.pop() {
        match x {
            Expr::Num(n) => c *= n,
            Expr::Mul(inner) => stack.extend(inner.into_iter().rev()),
            x => f.push(x),
        }
    }
    if c == 0.0 {
        return Expr::Num(0.0);
    }
    // distribute a constant over a single sum: 2*(a + b) -> 2*a + 2*b
    if f.len() == 1 {
        if let Expr::Add(terms) = &f[0] {
            if c != 1.0 {
                return add(terms
                    .iter()
                    .map(|t| mul(vec![t.clone(), Expr::Num(c)]))
                    .collect());
            }
        }
    }
    build_term(c, f)
}

pub(crate) fn div(a: Expr, b: Expr) -> Expr {
    match (a.as_num(), b.as_num()) {
        (Some(x), Some(y)) if y != 0.0 => Expr::Num(x / y),
        (Some(0.0), _) => Expr::Num(0.0),
        (_, Some(y)) if y != 0.0 => mul(vec![a, Expr::Num(1.0 / y)]),
        _ if a == b => Expr::Num(1.0),
        _ => Expr::Div(bx(a), bx(b)),
    }
}

fn pow(a: Expr, b: Expr) -> Expr {
    match (a.as_num(), b.as_num()) {
        (Some(x), Some(y)) => Expr::Num(x.powf(y)),
        (_, Some(1.0)) => a,
        (_, Some(0.0)) => Expr::Num(1.0),
        _ => Expr::Pow(bx(a), bx(b)),
    }
}

/// True when every factor of the monomial is a plain variable (a non-negative parameter).
fn nonneg_monomial(f: &[Expr]) -> bool {
    f.iter().all(|x| match x {
        Expr::Var(_) => true,
        Expr::Pow(a, b) => matches!(**a, Expr::Var(_)) && b.as_num().is_some(),
        _ => false,
    })
}

pub(crate) fn call(f: Func, v: Vec<Expr>) -> Expr {
    match f {
        Func::Max | Func::Min => {
            let is_max = f == Func::Max;
            let mut flat = Vec::new();
            for x in v {
                match x {
                    Expr::Call(g, inner) if g == f => flat.extend(inner),
                    x => flat.push(x),
                }
            }
            let mut constant: Option<f64> = None;
            let mut out: Vec<Expr> = Vec::new();
            let mut keys: Vec<String> = Vec::new();
            for x in flat {
                if let Some(n) = x.as_num() {
                    constant = Some(match constant {
                        None => n,
                        Some(c) if is_max => c.max(n),
                        Some(c) => c.min(n),
                    });
                    continue;
                }
                let k = key(&x);
                if !keys.contains(&k) {
                    keys.push(k);
                    out.push(x);
                }
            }
            // same monomial with non-negative coefficients: keep the dominating one
            let mut i = 0;
            while i < out.len() {
                let (ci, fi) = split_term(&out[i]);
                let mut removed = false;
                if ci >= 0.0 && nonneg_monomial(&fi) && !fi.is_empty() {
                    let ki = monomial_key(&fi);
                    for j in 0..out.len() {
                        if j == i {
                            continue;
                        }
                        let (cj, fj) = split_term(&out[j]);
                        if cj >= 0.0 && monomial_key(&fj) == ki {
                            let dominated = if is_max {
                                cj > ci || (cj == ci && j < i)
                            } else {
                                cj < ci || (cj == ci && j < i)
                            };
                            if dominated {
                                out.remove(i);
                                removed = true;
                                break;
                            }
                        }
                    }
                }
                if !removed {
                    i += 1;
                }
            }
            if let Some(c) = constant {
                // a zero in a max of non-negative times is redundant only if something else is there
                if !(is_max && c == 0.0 && !out.is_empty() && out.iter().all(is_nonneg)) {
                    out.push(Expr::Num(c));
                }
            }
            match out.len() {
                0 => Expr::Num(0.0),
                1 => out.remove(0),
                _ => Expr::Call(f, out),
            }
        }
        Func::Pw | Func::Lin => {
            let values: Option<Vec<f64>> = v.iter().map(Expr::as_num).collect();
            match values {
                Some(args) => Expr::Num(f.apply(&args)),
                None => Expr::Call(f, v),
            }
        }
        _ => {
            if let Some(x) = v[0].as_num() {
                Expr::Num(f.apply1(x))
            } else {
                Expr::Call(f, v)
            }
        }
    }
}

/// Conservative test that an expression cannot be negative (parameters are non-negative).
fn is_nonneg(e: &Expr) -> bool {
    match e {
        Expr::Num(v) => *v >= 0.0,
        Expr::Var(_) => true,
        Expr::Add(v) | Expr::Mul(v) => v.iter().all(is_nonneg),
        Expr::Div(a, b) => is_nonneg(a) && is_nonneg(b),
        Expr::Pow(a, _) => is_nonneg(a),
        Expr::Call(Func::Max, v) => v.iter().any(is_nonneg),
        Expr::Call(Func::Min, v) => v.iter().all(is_nonneg),
        Expr::Call(Func::Abs | Func::Sqrt | Func::Exp | Func::Pw, _) => true,
        Expr::Cmp(..) => true,
        Expr::Reduce { body, .. } => is_nonneg(body),
        Expr::Contention(_) | Expr::TimeEquations(_) => true,
        _ => false,
    }
}

/// Number of iterations of `lo..=hi` (symbolic: assumed non-negative).
pub(crate) fn count(lo: &Expr, hi: &Expr) -> Expr {
    match (lo.as_num(), hi.as_num()) {
        (Some(a), Some(b)) => Expr::Num((b - a + 1.0).max(0.0)),
        _ => add(vec![
            hi.clone(),
            mul(vec![Expr::Num(-1.0), lo.clone()]),
            Expr::Num(1.0),
        ]),
    }
}

/// Writes `e` as `a*i + b` with a, b free of `i`, if it is affine in `i`.
pub(crate) fn affine(e: &Expr, i: &str) -> Option<(Expr, Expr)> {
    if !e.mentions(i) {
        return Some((Expr::Num(0.0), e.clone()));
    }
    match e {
        Expr::Var(v) if v == i => Some((Expr::Num(1.0), Expr::Num(0.0))),
        Expr::Add(v) => {
            let mut a = Vec::new();
            let mut b = Vec::new();
            for t in v {
                let (x, y) = affine(t, i)?;
                a.push(x);
                b.push(y);
            }
            Some((add(a), add(b)))
        }
        Expr::Mul(v) => {
            let dep: Vec<usize> = (0..v.len()).filter(|k| v[*k].mentions(i)).collect();
            if dep.len() != 1 {
                return None;
            }
            let (x, y) = affine(&v[dep[0]], i)?;
            let others: Vec<Expr> = v
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != dep[0])
                .map(|(_, e)| e.clone())
                .collect();
            let mut ax = others.clone();
            ax.push(x);
            let mut by = others;
            by.push(y);
            Some((mul(ax), mul(by)))
        }
        Expr::Div(p, q) if !q.mentions(i) => {
            let (x, y) = affine(p, i)?;
            Some((div(x, (**q).clone()), div(y, (**q).clone())))
        }
        _ => None,
    }
}

/// `op (index = lo, hi) { body }` simplified: an empty or one-point numeric range
/// evaluated, a body without the index taken out (a sum as count times the body), then the
/// rules of a sum ([`reduce_sum`]) or of a max or min ([`reduce_extreme`]).
fn reduce(op: Reduction, index: &str, lo: Expr, hi: Expr, body: Expr) -> Expr {
    // exact handling of empty numeric ranges
    if let (Some(a), Some(b)) = (lo.as_num(), hi.as_num()) {
        if b < a {
            return Expr::Num(0.0);
        }
        if a == b {
            return simplify(&body.substitute(index, &Expr::Num(a)));
        }
    }
    if !body.mentions(index) {
        return match op {
            Reduction::Sum => mul(vec![count(&lo, &hi), body]),
            Reduction::Max | Reduction::Min => body,
        };
    }
    match op {
        Reduction::Sum => reduce_sum(index, lo, hi, body),
        Reduction::Max | Reduction::Min => reduce_extreme(op, index, lo, hi, body),
    }
}

/// The reduction as it stands, no rule applying.
fn kept_reduction(op: Reduction, index: &str, lo: Expr, hi: Expr, body: Expr) -> Expr {
    Expr::Reduce {
        op,
        index: index.to_string(),
        lo: bx(lo),
        hi: bx(hi),
        body: bx(body),
    }
}

/// A sum over `index` of a `body` that mentions it: spread over the terms of a sum, the
/// factors and the divisor that do not mention the index taken out, the closed forms of the
/// sums of the index and its square ([`sum_of_index_powers`]), an affine body `a*i + b` as
/// `a * sum(i) + count * b`; else the sum as it stands.
fn reduce_sum(index: &str, lo: Expr, hi: Expr, body: Expr) -> Expr {
    let op = Reduction::Sum;
    // linearity
    if let Expr::Add(terms) = &body {
        return add(terms
            .iter()
            .map(|t| reduce(op, index, lo.clone(), hi.clone(), t.clone()))
            .collect());
    }
    if let Expr::Mul(f) = &body {
        let (indep, dep): (Vec<Expr>, Vec<Expr>) =
            f.iter().cloned().partition(|x| !x.mentions(index));
        if !indep.is_empty() {
            let inner = reduce(op, index, lo.clone(), hi.clone(), mul(dep));
            let mut all = indep;
            all.push(inner);
            return mul(all);
        }
    }
    if let Expr::Div(p, q) = &body {
        if !q.mentions(index) {
            return div(reduce(op, index, lo, hi, (**p).clone()), (**q).clone());
        }
    }
    if let Some(closed) = sum_of_index_powers(index, &lo, &hi, &body) {
        return closed;
    }
    // affine in the index: a*i + b
    if let Some((a, b)) = affine(&body, index) {
        if !matches!(body, Expr::Var(_)) {
            let si = reduce(
                op,
                index,
                lo.clone(),
                hi.clone(),
                Expr::Var(index.to_string()),
            );
            return add(vec![mul(vec![a, si]), mul(vec![count(&lo, &hi), b])]);
        }
    }
    kept_reduction(op, index, lo, hi, body)
}

/// The closed forms of the sum over `index` from `lo` to `hi` of the index itself and of its
/// square (None for any other body).
fn sum_of_index_powers(index: &str, lo: &Expr, hi: &Expr, body: &Expr) -> Option<Expr> {
    match body {
        Expr::Var(v) if v == index => {
            // (lo + hi) * (hi - lo + 1) / 2
            Some(mul(vec![
                add(vec![lo.clone(), hi.clone()]),
                count(lo, hi),
                Expr::Num(0.5),
            ]))
        }
        Expr::Pow(b, e)
            if matches!(&**b, Expr::Var(v) if v == index) && e.as_num() == Some(2.0) =>
        {
            let s2 = |n: Expr| {
                mul(vec![
                    n.clone(),
                    add(vec![n.clone(), Expr::Num(1.0)]),
                    add(vec![mul(vec![Expr::Num(2.0), n]), Expr::Num(1.0)]),
                    Expr::Num(1.0 / 6.0),
                ])
            };
            let lo1 = add(vec![lo.clone(), Expr::Num(-1.0)]);
            Some(add(vec![
                s2(hi.clone()),
                mul(vec![Expr::Num(-1.0), s2(lo1)]),
            ]))
        }
        _ => None,
    }
}

/// A max or min (`op`) over `index` of a `body` that mentions it: spread over the arguments
/// of the same max or min, the terms of a sum and the nonnegative factors of a product that
/// do not mention the index taken out, an affine body taken at the end of the range its
/// slope picks; else the reduction as it stands.
fn reduce_extreme(op: Reduction, index: &str, lo: Expr, hi: Expr, body: Expr) -> Expr {
    let is_max = op == Reduction::Max;
    let f = if is_max { Func::Max } else { Func::Min };
    if let Expr::Call(g, args) = &body {
        if *g == f {
            return call(
                f,
                args.iter()
                    .map(|t| reduce(op, index, lo.clone(), hi.clone(), t.clone()))
                    .collect(),
            );
        }
    }
    if let Expr::Add(terms) = &body {
        let (indep, dep): (Vec<Expr>, Vec<Expr>) =
            terms.iter().cloned().partition(|x| !x.mentions(index));
        if !indep.is_empty() {
            let mut all = indep;
            all.push(reduce(op, index, lo.clone(), hi.clone(), add(dep)));
            return add(all);
        }
    }
    if let Expr::Mul(fs) = &body {
        let (indep, dep): (Vec<Expr>, Vec<Expr>) = fs
            .iter()
            .cloned()
            .partition(|x| !x.mentions(index) && is_nonneg(x));
        if !indep.is_empty() {
            let mut all = indep;
            all.push(reduce(op, index, lo.clone(), hi.clone(), mul(dep)));
            return mul(all);
        }
    }
    if let Some((a, _)) = affine(&body, index) {
        if let Some(a) = simplify(&a).as_num() {
            let at = if (a >= 0.0) == is_max { &hi } else { &lo };
            return simplify(&body.substitute(index, at));
        }
    }
    kept_reduction(op, index, lo, hi, body)
}
