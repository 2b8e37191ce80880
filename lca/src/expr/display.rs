//! Printing: text that [`super::parse`] reads back to the same tree.

use super::ast::{BinOp, Expr};
use std::fmt;

/// Formats a number so that the expression parser reads back exactly the same value:
/// shortest round-trip digits, scientific notation below 1e-4 and from 1e15.
pub fn format_number(v: f64) -> String {
    if v.is_nan() {
        return "(0/0)".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "(1/0)" } else { "(-1/0)" }.into();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

// Precedence levels for printing: higher binds tighter.
const P_ADD: u8 = 1;
const P_MUL: u8 = 2;
const P_NEG: u8 = 3;
const P_POW: u8 = 4;
const P_ATOM: u8 = 5;

impl Expr {
    fn precedence(&self) -> u8 {
        match self {
            Expr::Num(v) if *v < 0.0 || v.is_nan() || v.is_infinite() => {
                if v.is_finite() {
                    P_NEG
                } else {
                    P_ATOM
                }
            }
            Expr::Num(_) | Expr::Var(_) | Expr::Call(..) => P_ATOM,
            Expr::Neg(_) => P_NEG,
            Expr::Bin(BinOp::Add | BinOp::Sub, ..) => P_ADD,
            Expr::Bin(BinOp::Mul | BinOp::Div, ..) => P_MUL,
            Expr::Bin(BinOp::Pow, ..) => P_POW,
        }
    }

    fn fmt_at(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        if self.precedence() < min {
            write!(f, "(")?;
            self.fmt_at(f, 0)?;
            return write!(f, ")");
        }
        match self {
            Expr::Num(v) => write!(f, "{}", format_number(*v)),
            Expr::Var(n) => write!(f, "{n}"),
            // The operand of unary minus is a unary: another minus or a power or atom.
            Expr::Neg(e) => {
                write!(f, "-")?;
                e.fmt_at(f, P_NEG)
            }
            Expr::Bin(op, a, b) => {
                let (sym, lmin, rmin) = match op {
                    BinOp::Add => (" + ", P_ADD, P_MUL),
                    BinOp::Sub => (" - ", P_ADD, P_MUL),
                    BinOp::Mul => ("*", P_MUL, P_NEG),
                    BinOp::Div => ("/", P_MUL, P_NEG),
                    // Base must be an atom (so `(-x)^2`, `(a^b)^c`); exponent is a unary.
                    BinOp::Pow => ("^", P_ATOM, P_NEG),
                };
                a.fmt_at(f, lmin)?;
                write!(f, "{sym}")?;
                b.fmt_at(f, rmin)
            }
            Expr::Call(func, args) => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    a.fmt_at(f, 0)?;
                }
                write!(f, ")")
            }
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_at(f, 0)
    }
}
