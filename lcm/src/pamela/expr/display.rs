//! Printing expressions with the fewest parentheses that read back to the same tree.
use std::fmt;

use super::{fmt_num, Demand, Expr};

// Precedence levels for printing: higher binds tighter.
const P_CMP: u8 = 1;
const P_ADD: u8 = 2;
const P_MUL: u8 = 3;
const P_UNARY: u8 = 4;
const P_POW: u8 = 5;
const P_ATOM: u8 = 6;

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Num(v) if *v < 0.0 => P_UNARY,
        Expr::Num(_)
        | Expr::Var(_)
        | Expr::Call(..)
        | Expr::Apply(..)
        | Expr::Contention(_)
        | Expr::TimeEquations(_) => P_ATOM,
        Expr::Add(v) if v.len() > 1 => P_ADD,
        Expr::Add(_) => P_ATOM,
        Expr::Mul(v) => {
            if v.len() == 2 && v[0].as_num() == Some(-1.0) {
                P_UNARY
            } else if v.len() > 1 {
                P_MUL
            } else {
                P_ATOM
            }
        }
        Expr::Div(..) | Expr::Mod(..) | Expr::IDiv(..) => P_MUL,
        Expr::Pow(..) => P_POW,
        Expr::Cmp(..) => P_CMP,
        Expr::Reduce { .. } | Expr::If(..) => P_ATOM,
    }
}

fn wrap(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if prec(e) < min {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

/// If `e` is `-1 * x` or `c * x` with c < 0, returns the positive counterpart.
fn negated(e: &Expr) -> Option<Expr> {
    match e {
        Expr::Num(v) if *v < 0.0 => Some(Expr::Num(-v)),
        Expr::Mul(v) => {
            let c = v.iter().find_map(|x| x.as_num())?;
            if c >= 0.0 {
                return None;
            }
            let mut out: Vec<Expr> = Vec::new();
            for x in v {
                match x.as_num() {
                    Some(c2) if c2 == c => {
                        if c != -1.0 {
                            out.push(Expr::Num(-c))
                        }
                    }
                    _ => out.push(x.clone()),
                }
            }
            Some(match out.len() {
                0 => Expr::Num(1.0),
                1 => out.remove(0),
                _ => Expr::Mul(out),
            })
        }
        _ => None,
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(v) => write!(f, "{}", fmt_num(*v)),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Add(v) => fmt_sum(f, v),
            Expr::Mul(v) => fmt_product(f, v),
            Expr::Div(a, b) => {
                wrap(f, a, P_MUL)?;
                write!(f, "/")?;
                wrap(f, b, P_UNARY)
            }
            Expr::Mod(a, b) => {
                wrap(f, a, P_MUL)?;
                write!(f, " mod ")?;
                wrap(f, b, P_UNARY)
            }
            Expr::IDiv(a, b) => {
                wrap(f, a, P_MUL)?;
                write!(f, " div ")?;
                wrap(f, b, P_UNARY)
            }
            Expr::Pow(a, b) => {
                wrap(f, a, P_ATOM)?;
                write!(f, "^")?;
                wrap(f, b, P_UNARY)
            }
            Expr::Cmp(o, a, b) => {
                wrap(f, a, P_ADD)?;
                write!(f, " {} ", o.symbol())?;
                wrap(f, b, P_ADD)
            }
            Expr::Call(g, args) => fmt_call(f, g.name(), args),
            Expr::Apply(g, args) => fmt_call(f, g, args),
            Expr::Reduce {
                op,
                index,
                lo,
                hi,
                body,
            } => write!(f, "{} ({index} = {lo}, {hi}) {{ {body} }}", op.name()),
            Expr::If(c, a, b) => write!(f, "(if ({c}) {a} else {b})"),
            Expr::Contention(ds) => fmt_contention(f, ds),
            Expr::TimeEquations(_) => write!(f, "critical_path(main)"),
        }
    }
}

/// A sum: its terms joined by `+`, a negated term as `- x` (an empty sum is `0`).
fn fmt_sum(f: &mut fmt::Formatter<'_>, v: &[Expr]) -> fmt::Result {
    if v.is_empty() {
        return write!(f, "0");
    }
    for (k, t) in v.iter().enumerate() {
        if k == 0 {
            wrap(f, t, P_ADD)?;
        } else if let Some(pos) = negated(t) {
            write!(f, " - ")?;
            wrap(f, &pos, P_MUL)?;
        } else {
            write!(f, " + ")?;
            wrap(f, t, P_MUL.min(P_ADD + 1))?;
        }
    }
    Ok(())
}

/// A product: its factors joined by `*`, `-1 * x` as `-x` (an empty product is `1`).
fn fmt_product(f: &mut fmt::Formatter<'_>, v: &[Expr]) -> fmt::Result {
    if v.is_empty() {
        return write!(f, "1");
    }
    if v.len() == 2 && v[0].as_num() == Some(-1.0) {
        write!(f, "-")?;
        return wrap(f, &v[1], P_POW);
    }
    for (k, t) in v.iter().enumerate() {
        if k > 0 {
            write!(f, "*")?;
        }
        // a negative constant inside a product needs parentheses
        if k > 0 && t.as_num().is_some_and(|c| c < 0.0) {
            write!(f, "({t})")?;
        } else {
            wrap(f, t, if k == 0 { P_MUL } else { P_UNARY })?;
        }
    }
    Ok(())
}

/// A call of the function `name` with `args`, comma-separated.
fn fmt_call(f: &mut fmt::Formatter<'_>, name: &str, args: &[Expr]) -> fmt::Result {
    write!(f, "{name}(")?;
    for (k, a) in args.iter().enumerate() {
        if k > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{a}")?;
    }
    write!(f, ")")
}

/// The contention bound of demands `ds`: `max(` their sums over the enclosing loops of
/// `unitvec(family(index)) * amount / multiplicity` `)`, the multiplicity left out when 1.
fn fmt_contention(f: &mut fmt::Formatter<'_>, ds: &[Demand]) -> fmt::Result {
    write!(f, "max(")?;
    for (k, d) in ds.iter().enumerate() {
        if k > 0 {
            write!(f, " + ")?;
        }
        for (i, lo, hi) in &d.loops {
            write!(f, "sum ({i} = {lo}, {hi}) ")?;
        }
        write!(f, "unitvec({}({})) * ", d.family, d.index)?;
        wrap(f, &d.amount, P_UNARY)?;
        if d.multiplicity.as_num() != Some(1.0) {
            write!(f, "/")?;
            wrap(f, &d.multiplicity, P_UNARY)?;
        }
    }
    write!(f, ")")
}
